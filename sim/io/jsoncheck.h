/* jsoncheck.h -- what a JSON parser accepts silently or rejects obscurely:
 * text that is not UTF-8, duplicate keys and comments.
 *
 * RFC 8259 (section 4) says only that the names within an object "SHOULD be
 * unique", and leaves the meaning of a repeated name to the parser; cJSON
 * keeps both and its lookups return the first, so a scenario that sets
 * "nodes" twice silently runs with the first value.  RFC 8259 has no
 * comments at all, yet people write them (JSON5, JSONC, editors' settings
 * files); cJSON then reports only "malformed JSON".  gs_jsoncheck() is a
 * pre-pass over the text, run before the parser, that finds both and says
 * where: a comment at its line and column, a duplicate key at its second
 * place with the JSON path of its object and the line and column of the
 * first.  It reports nothing else: text that is malformed in any other way
 * is left for the parser to report (it returns 0 at the first thing it does
 * not understand).
 *
 * Keys are compared after decoding their escapes ("a" and "\u0061" are the
 * same key), as the parser would see them.  Each object's keys are sorted
 * when it closes, so an object of k keys costs O(k log k). */
#ifndef GS_JSONCHECK_H
#define GS_JSONCHECK_H

#include "../base/err.h"

#include <stddef.h>

/* The most values (numbers, strings, objects, arrays...) a JSON input may
 * hold: cJSON takes about 64 bytes a value, so this bounds a parse at
 * about 128 MiB, and the pre-pass refuses more before cJSON allocates. */
#define GS_JSON_MAX_VALUES 2000000

/* The offset of the first byte of s[0..n) that is not part of a UTF-8
 * sequence (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF), or SIZE_MAX when all of it is UTF-8. */
size_t gs_utf8_bad(const char *s, size_t n);

/* Check text (NUL-terminated): first that it is UTF-8 (RFC 8259 section 8.1
 * requires it, and a name that is not would make --json output invalid),
 * then that it holds at most GS_JSON_MAX_VALUES values, then for duplicate
 * keys and comments.  file names it in messages ("FILE:LINE:COL:
 * ..." as the parser's own errors).  0 when neither problem is present (or
 * the text is malformed in another way), GS_EPARSE with d filled, or
 * GS_ENOMEM. */
int gs_jsoncheck(const char *text, const char *file, struct gs_diag *d);

/* path followed by key k[0..n) as a path segment, spelled as this file's
 * messages spell it: .KEY, or ["KEY"] with JSON's string escapes when the
 * key would not read as itself after a dot (empty, or holding a dot, a
 * bracket, a quote, a backslash, a space or a control byte).  A new
 * string, whole however long (caller frees), or NULL out of memory.  The
 * scenario parser's paths are made by it too (jsonio.h: gs_json_path_key),
 * so a place has one name whichever pass reports it. */
char *gs_json_path_join(const char *path, const char *k, size_t n);
/* Key k[0..n) alone, as a message quotes it ('KEY'): JSON's string
 * escapes for a quote, a backslash and control bytes, the rest as it is
 * (the duplicate-key message's spelling).  A new string (caller frees),
 * or NULL out of memory. */
char *gs_json_key_esc(const char *k, size_t n);

#endif
