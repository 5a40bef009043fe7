/* jsonio.h -- the JSON files gpusim reads besides scenarios: rl-lite weights
 * and policy benchmark baselines.
 *
 * jsonio.c is, with the scenario parser (scenint.h), the only file that sees cJSON; what comes
 * out is plain C data.  Trace readers use the getters below too (Mooncake's
 * JSON lines through gs_json_parse_line, Gavel's throughputs file).  Every problem is reported with the file and the
 * JSON path, like the scenario parser's.
 *
 * Weights file (written by `gpusim train`, read by the rl-lite policy):
 *   {"gpusim_weights": 1, "policy": "rl-lite", "model": "linear",
 *    "features": ["log_runtime", ...], "weights": [w0, ...],
 *    "trained_on": "...", "objective": "...", "seed": N, "iterations": N,
 *    "objective_untrained": x, "objective_trained": y}
 * The feature names must be exactly the policy's, in its order, so a file
 * trained for another feature set is refused instead of misread.
 *
 * Baselines file (bench/baselines.json, written by bench_policies --update):
 *   {"gpusim_baselines": 1,
 *    "tolerances": {"default": {"rel": r, "abs": a}, "METRIC": {...}, ...},
 *    "runs": [{"scenario": S, "policy": P, "metrics": {"NAME": v, ...}}]}
 *
 * Reading part of a scenario outside scenario.c (the gs_json_* calls at the
 * end): a model that owns a scenario object (a service's autoscaler, say)
 * parses it from a `const struct gs_json *` with the same key-checked getters
 * and messages as scenario.c's.  struct gs_json is never defined: it is a
 * cJSON node seen through an opaque type, so scenario.c passes one of its
 * nodes as `(const struct gs_json *)node`, and tests parse text with
 * gs_json_parse. */
#ifndef GS_JSONIO_H
#define GS_JSONIO_H

#include "../base/err.h"
#include "../core/engine.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* cJSON_ParseWithOpts (NUL-terminated text, nothing after the value),
 * with running out of memory told apart from malformed text: cJSON reports
 * both as NULL, so its allocations go through a hook here that notes a
 * failure.  NULL with *oom = 1 when memory ran out, NULL with *oom = 0 and
 * *end at the fault when the text is malformed. */
struct cJSON;
struct cJSON *gs_json_parse_raw(const char *text, const char **end,
                                int *oom);

#define GS_JSON_NAME 64

/* What a weights file says of its training (borrowed strings, any length:
 * the scenario's path is written whole; NULL writes "").  The reader
 * checks only the format, features and weights, so these keys carry no
 * length limit and no version: a file written before they were held in
 * memory (when a path was cut to 255 bytes) reads the same. */
struct gs_weights_meta {
    const char *trained_on;
    const char *objective;
    unsigned long long seed;
    int iterations;
    double untrained, trained;      /* objective before and after */
};

/* Read n weights for features names[0..n-1] from path into w.  0 or a
 * negative code with d filled. */
int gs_weights_load(const char *path, const char *const *names, int n,
                    double *w, struct gs_diag *d);
/* Write them (meta may be NULL).  0 or GS_EIO with d filled. */
int gs_weights_save(const char *path, const char *const *names, int n,
                    const double *w, const struct gs_weights_meta *meta,
                    struct gs_diag *d);

struct gs_bl_tol {
    char metric[GS_JSON_NAME];
    double rel, abs;
};

struct gs_bl_run {
    char scenario[GS_JSON_NAME], policy[GS_JSON_NAME];
    int n;
    char (*names)[GS_JSON_NAME];
    double *v;
};

struct gs_baselines {
    struct gs_bl_tol def;           /* "default" tolerance */
    int ntol;
    struct gs_bl_tol *tol;
    int nrun;
    struct gs_bl_run *run;
};

/* Read a baselines file; *out is filled (free with gs_baselines_free).
 * 0 or a negative code with d filled. */
int gs_baselines_load(const char *path, struct gs_baselines *out,
                      struct gs_diag *d);
void gs_baselines_free(struct gs_baselines *b);
/* The tolerance for metric (its own, or the default). */
const struct gs_bl_tol *gs_baselines_tol(const struct gs_baselines *b,
                                         const char *metric);

/* --- key-checked reading of a JSON object -------------------------------- */

struct gs_json;                 /* opaque: a cJSON node (see above) */

/* Where messages point: the file, and the diagnostic to fill. */
struct gs_jin {
    const char *file;
    struct gs_diag *d;
};

/* Parse text into a document named `name` in messages (line:column of a
 * syntax error).  0 or GS_EPARSE / GS_ENOMEM with d filled; free the
 * document with gs_json_free (NULL-safe). */
int gs_json_parse(const char *text, const char *name, struct gs_json **out,
                  struct gs_diag *d);
void gs_json_free(struct gs_json *doc);
/* One JSON value in text alone (a line of a JSON-lines trace), for a
 * reader that reports its own row and line: 0 with *out; GS_ENOMEM; or
 * GS_EPARSE with *col the 1-based column of the fault in text's first
 * line.  Keys given twice are not looked for here. */
int gs_json_parse_line(const char *text, struct gs_json **out, long *col);

/* o[key] or NULL (also when o is not an object). */
const struct gs_json *gs_json_get(const struct gs_json *o, const char *key);
int gs_json_is_object(const struct gs_json *v);
int gs_json_is_array(const struct gs_json *v);
/* Elements of an array (members of an object): the first, then the next;
 * NULL at the end.  gs_json_key: an object member's key, else NULL. */
const struct gs_json *gs_json_first(const struct gs_json *v);
const struct gs_json *gs_json_next(const struct gs_json *v);
const char *gs_json_key(const struct gs_json *v);
/* The number of elements (members), and the i-th one (NULL past the end;
 * 0 and NULL for anything else). */
int gs_json_size(const struct gs_json *v);
const struct gs_json *gs_json_item(const struct gs_json *v, int i);
int gs_json_is_number(const struct gs_json *v);
int gs_json_is_string(const struct gs_json *v);
/* A number's value (NaN when v is not a number); a string's text (NULL
 * when v is not a string). */
double gs_json_number(const struct gs_json *v);
const char *gs_json_string(const struct gs_json *v);
/* v as compact JSON text (malloc'ed, caller frees), or NULL out of
 * memory. */
char *gs_json_print(const struct gs_json *v);

/* JSON paths, held in memory and named whole however deep the value or
 * long its keys (a message names the place exactly):
 *
 *     GS_JSON_PATH(q);                    char *q = NULL, freed when q's
 *                                         scope ends, however it ends
 *     gs_json_path_key(&q, path, "gpu");  q = path.gpu
 *     gs_json_path_at(&q, path, i);       q = path[i]
 *
 * A key that would not read as itself after a dot is spelled ["KEY"] with
 * JSON's escapes (jsoncheck.h: gs_json_path_join), as the duplicate-key
 * check spells it.  Each call replaces q's value (path may be q itself:
 * the new path is made before the old is freed) and returns it.  Out of
 * memory, q becomes a constant saying so, never NULL, so a message can
 * still be made, and the parse goes on: a path is only read in a
 * message. */
#define GS_JSON_PATH(q) \
    char *q __attribute__((cleanup(gs_json_path_free))) = NULL
const char *gs_json_path_key(char **q, const char *path, const char *key);
const char *gs_json_path_at(char **q, const char *path, long i);
void gs_json_path_free(char **q);
/* Record "FILE: PATH: WHAT" as GS_EINVAL in c->d and return GS_EINVAL. */
int gs_json_err(const struct gs_jin *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int gs_json_verr(const struct gs_jin *c, const char *path, const char *fmt,
                 va_list ap) __attribute__((format(printf, 3, 0)));
/* o must be an object whose keys are all in the NULL-terminated allowed;
 * an unknown key is named with the nearest allowed one ("did you mean")
 * or the list of them.  Keys given twice are found before parsing, by
 * gs_jsoncheck (jsoncheck.h), for every JSON text gpusim reads. */
int gs_json_keys(const struct gs_jin *c, const struct gs_json *o,
                 const char *path, const char *const *allowed);
/* The getters read o[key] (o at JSON path `path`): absent leaves *out
 * alone and returns 0, or is an error when req; a wrong type or a value
 * outside [lo, hi] is an error naming path.key. */
int gs_json_num(const struct gs_jin *c, const struct gs_json *o,
                const char *path, const char *key, double lo, double hi,
                int req, double *out);
int gs_json_int(const struct gs_jin *c, const struct gs_json *o,
                const char *path, const char *key, long lo, long hi,
                int req, long *out);
int gs_json_bool(const struct gs_jin *c, const struct gs_json *o,
                 const char *path, const char *key, int *out);
int gs_json_str(const struct gs_jin *c, const struct gs_json *o,
                const char *path, const char *key, int req, char *out,
                size_t n);
/* A string of any length (a path): *out is a malloc'ed copy the caller
 * frees, or NULL when the key is absent and not required. */
int gs_json_strdup(const struct gs_jin *c, const struct gs_json *o,
                   const char *path, const char *key, int req, char **out);
/* A duration: seconds as a number, or "250ms", "30s", "5m", "2h", "3d". */
int gs_json_time(const struct gs_jin *c, const struct gs_json *o,
                 const char *path, const char *key, int req, gs_time *out);

/* --- editing JSON text by key path ------------------------------------------
 * Key paths, as `gpusim sweep --set` and the plan search write them:
 * `fleet[0].nodes`, `policy.name`, `$.workload.generate.rate_per_hour` (the
 * leading `$.` is optional).  planjson.h says how sweeps and plans use
 * them. */

/* One edit of a scenario's text. */
enum gs_edit_op {
    GS_EDIT_SET,        /* path = value (JSON text, or a bare string) */
    GS_EDIT_SCALE,      /* the number at path *= value (a number) */
    GS_EDIT_CLONE,      /* append a copy of the array element at path to
                           its array, then merge the object value into it */
};

struct gs_edit {
    int op;
    char *path;         /* the key path, any length; like value, owned by
                           whoever built the edit */
    char *value;        /* owned by whoever built the edit */
};

/* Apply edits e[0..n-1] in order to the JSON text; *out is a new string
 * (caller frees).  0, or GS_EINVAL / GS_EPARSE with d filled: where =
 * `what` (say "--set fleet[0].nodes"), what = the problem. */
int gs_json_edit(const char *text, const struct gs_edit *e, int n,
                 char **out, const char *what, struct gs_diag *d);

/* The number of elements of the array at path in text, or -1. */
int gs_json_count(const char *text, const char *path);
/* 1 if the key path exists in text, else 0. */
int gs_json_has(const char *text, const char *path);

/* The rest of stream fp as a NUL-terminated string (caller frees), read in
 * growing chunks, at most max bytes (0: no limit).  NULL with *err =
 * GS_ENOMEM (out of memory, or over max) or GS_EIO (a read error). */
char *gs_read_all(FILE *fp, size_t max, int *err);

/* Split a comma-separated list of values at the commas outside brackets,
 * braces and quotes (so `{"a":1,"b":2},3` is two values).  Used by the
 * command lines' value lists (sweep's --set K=V1,V2, plan's).  *out receives
 * n new strings (free each, then the array).  n, or -1 on an empty item or
 * an unbalanced bracket. */
int gs_split_values(const char *list, char ***out);

#endif
