/* keytab.c -- key tables: the reading of a JSON object by its table, and
 * the JSON Schema written from the tables (keytab.h).
 *
 * The getters are jsonio.h's with the range, requiredness and length taken
 * from the key's entry, so a message reads as before the tables existed
 * and a range lives in one place.  The schema writer walks the tables from
 * the root: each table becomes a "$defs" entry (its id), each key a
 * property whose forms are one schema or an "anyOf" of them, each rule an
 * if/then in the table's "allOf".  Names compared without regard to case
 * (GPU models, LLM architectures) become an enum (for an editor's
 * completion) beside a pattern with each letter as a [xX] class (what
 * validates).  Output is deterministic: tables in the order the walk first
 * meets them, keys in table order. */
#include "keytab.h"
#include "../base/err.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- reading ------------------------------------------------------------- */

/* The i-th list of t's keys (0..2; NULL: none). */
static const struct gs_kt_key *part(const struct gs_kt_obj *t, int i)
{
    return i == 0 ? t->keys : i == 1 ? t->more : t->more2;
}

/* Every key of t, in order: FOR_KEYS(t, k) { ... } */
#define FOR_KEYS(t, k)                                                 \
    for (int pt_ = 0; pt_ < 3; pt_++)                                  \
        for (const struct gs_kt_key *k = part((t), pt_); k && k->name; k++)

const struct gs_kt_key *gs_kt_find(const struct gs_kt_obj *t, const char *key)
{
    FOR_KEYS(t, k)
        if (strcmp(k->name, key) == 0)
            return k;
    return NULL;
}

#define GS_KT_MAX_KEYS 96

int gs_kt_keys(const struct gs_jin *c, const struct gs_json *o,
               const char *path, const struct gs_kt_obj *t)
{
    const char *allowed[GS_KT_MAX_KEYS + 1];
    int n = 0;
    FOR_KEYS(t, k) {
        GS_ASSERT(n < GS_KT_MAX_KEYS);
        allowed[n++] = k->name;
    }
    allowed[n] = NULL;
    return gs_json_keys(c, o, path, allowed);
}

int gs_kt_keys_only(const struct gs_jin *c, const struct gs_json *o,
                    const char *path, const struct gs_kt_obj *t,
                    const char *only)
{
    char buf[GS_KT_MAX_KEYS][48];
    const char *allowed[GS_KT_MAX_KEYS + 1];
    int n = 0;
    for (const char *s = only; *s && n < GS_KT_MAX_KEYS;) {
        size_t len = strcspn(s, " ");
        GS_ASSERT(len < sizeof buf[0]);
        snprintf(buf[n], sizeof buf[n], "%.*s", (int)len, s);
        GS_ASSERT(gs_kt_find(t, buf[n]) != NULL);
        allowed[n] = buf[n];
        n++;
        s += len;
        while (*s == ' ')
            s++;
    }
    allowed[n] = NULL;
    return gs_json_keys(c, o, path, allowed);
}

int gs_kt_need(const struct gs_jin *c, const struct gs_json *o,
               const char *path, const char *key)
{
    if (gs_json_get(o, key) != NULL)
        return 0;
    return gs_json_err(c, path, "missing required key '%s'", key);
}

static const struct gs_kt_key *entry(const struct gs_kt_obj *t,
                                     const char *key, unsigned form)
{
    const struct gs_kt_key *k = gs_kt_find(t, key);
    GS_ASSERT(k != NULL && (k->type & form) != 0);
    return k;
}

int gs_kt_num(const struct gs_jin *c, const struct gs_json *o,
              const char *path, const struct gs_kt_obj *t, const char *key,
              double *out)
{
    const struct gs_kt_key *k = entry(t, key, GS_KT_NUM);
    return gs_json_num(c, o, path, key, k->lo, k->hi, k->flags & GS_KF_REQ,
                       out);
}

int gs_kt_int(const struct gs_jin *c, const struct gs_json *o,
              const char *path, const struct gs_kt_obj *t, const char *key,
              long *out)
{
    const struct gs_kt_key *k = entry(t, key, GS_KT_INT);
    return gs_json_int(c, o, path, key, (long)k->lo, (long)k->hi,
                       k->flags & GS_KF_REQ, out);
}

int gs_kt_str(const struct gs_jin *c, const struct gs_json *o,
              const char *path, const struct gs_kt_obj *t, const char *key,
              char *out, size_t n)
{
    const struct gs_kt_key *k = entry(t, key, GS_KT_STR);
    GS_ASSERT(k->maxlen > 0 && (size_t)k->maxlen < n);
    return gs_json_str(c, o, path, key,
                       (k->flags & (GS_KF_REQ | GS_KF_NONEMPTY)) != 0, out,
                       (size_t)k->maxlen + 1);
}

int gs_kt_bool(const struct gs_jin *c, const struct gs_json *o,
               const char *path, const struct gs_kt_obj *t, const char *key,
               int *out)
{
    entry(t, key, GS_KT_BOOL);
    return gs_json_bool(c, o, path, key, out);
}

int gs_kt_time(const struct gs_jin *c, const struct gs_json *o,
               const char *path, const struct gs_kt_obj *t, const char *key,
               gs_time *out)
{
    const struct gs_kt_key *k = entry(t, key, GS_KT_DUR);
    return gs_json_time(c, o, path, key, k->flags & GS_KF_REQ, out);
}

/* --- writing JSON -------------------------------------------------------- */

/* A streaming writer: two-space indentation, one member a line. */
struct w {
    FILE *fp;
    int depth;
    int first[64];              /* no member written yet at this depth */
    const struct gs_kt_names *names;
    const struct gs_kt_obj *seen[128];
    int nseen;
    int in_strict;              /* writing the strict branch */
};

static void indent(struct w *w)
{
    fprintf(w->fp, "\n%*s", 2 * w->depth, "");
}

static void qstr(struct w *w, const char *s)
{
    fputc('"', w->fp);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(w->fp, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(w->fp, "\\u%04x", ch);
        else
            fputc(ch, w->fp);
    }
    fputc('"', w->fp);
}

/* Start a member (key != NULL) or an element. */
static void item(struct w *w, const char *key)
{
    if (!w->first[w->depth])
        fputc(',', w->fp);
    w->first[w->depth] = 0;
    indent(w);
    if (key) {
        qstr(w, key);
        fputs(": ", w->fp);
    }
}

static void open_(struct w *w, const char *key, char ch)
{
    item(w, key);
    fputc(ch, w->fp);
    GS_ASSERT(w->depth + 1 < 64);
    w->first[++w->depth] = 1;
}

static void close_(struct w *w, char ch)
{
    int empty = w->first[w->depth];
    w->depth--;
    if (!empty)
        indent(w);
    fputc(ch, w->fp);
}

static void kstr(struct w *w, const char *key, const char *v)
{
    item(w, key);
    qstr(w, v);
}

static void knum(struct w *w, const char *key, double v)
{
    item(w, key);
    if (v == floor(v) && fabs(v) < 1e15)
        fprintf(w->fp, "%.0f", v);
    else
        fprintf(w->fp, "%.17g", v);
}

static void kraw(struct w *w, const char *key, const char *raw)
{
    item(w, key);
    fputs(raw, w->fp);
}

/* ["a", "b", ...] from a space-separated list. */
static void kwords(struct w *w, const char *key, const char *words)
{
    open_(w, key, '[');
    for (const char *s = words; *s;) {
        size_t n = strcspn(s, " ");
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", (int)n, s);
        kstr(w, NULL, buf);
        s += n;
        while (*s == ' ')
            s++;
    }
    close_(w, ']');
}

/* --- the schema ---------------------------------------------------------- */

static const char *const *names_of(const struct w *w,
                                   const struct gs_kt_key *k)
{
    if (k->names)
        return k->names;
    return k->src ? w->names->src[k->src] : NULL;
}

/* "^(?:[aA]100|...)$": names matched without regard to case. */
static void ci_pattern(struct w *w, const char *const *names)
{
    item(w, "pattern");
    fputs("\"^(?:", w->fp);
    for (int i = 0; names[i]; i++) {
        if (i)
            fputc('|', w->fp);
        for (const char *s = names[i]; *s; s++) {
            unsigned char ch = (unsigned char)*s;
            if (isalpha(ch))
                fprintf(w->fp, "[%c%c]", tolower(ch), toupper(ch));
            else if (strchr(".+*?()[]{}|^$", ch))
                fprintf(w->fp, "\\\\%c", ch);
            else
                fputc(ch, w->fp);
        }
    }
    fputs(")$\"", w->fp);
}

static void emit_names(struct w *w, const struct gs_kt_key *k)
{
    const char *const *names = names_of(w, k);
    if (names == NULL)
        return;
    if (k->src && k->src == w->names->strict_src && !w->in_strict) {
        /* a suggestion here; the root's strict branch checks it */
        open_(w, "examples", '[');
        for (int i = 0; names[i]; i++)
            kstr(w, NULL, names[i]);
        close_(w, ']');
        return;
    }
    if (k->flags & GS_KF_CI) {
        open_(w, "anyOf", '[');
        open_(w, NULL, '{');
        open_(w, "enum", '[');
        for (int i = 0; names[i]; i++)
            kstr(w, NULL, names[i]);
        close_(w, ']');
        close_(w, '}');
        open_(w, NULL, '{');
        ci_pattern(w, names);
        close_(w, '}');
        close_(w, ']');
        return;
    }
    open_(w, "enum", '[');
    for (int i = 0; names[i]; i++)
        kstr(w, NULL, names[i]);
    close_(w, ']');
}

static void ref(struct w *w, const char *id)
{
    char buf[128];
    snprintf(buf, sizeof buf, "#/$defs/%s", id);
    kstr(w, "$ref", buf);
}

/* The members of one form of k's value (inside an open object). */
static void form(struct w *w, const struct gs_kt_key *k, unsigned f,
                 int elem)
{
    int ranged = k->lo != k->hi;
    switch (f) {
    case GS_KT_STR:
        kstr(w, "type", "string");
        if (k->maxlen)
            knum(w, "maxLength", k->maxlen);
        if ((k->flags & (GS_KF_REQ | GS_KF_NONEMPTY)) && !elem)
            knum(w, "minLength", 1);
        emit_names(w, k);
        break;
    case GS_KT_NUM:
    case GS_KT_INT:
        kstr(w, "type", f == GS_KT_NUM ? "number" : "integer");
        if (ranged && isfinite(k->lo))
            knum(w, "minimum", k->lo);
        if (ranged && isfinite(k->hi))
            knum(w, "maximum", k->hi);
        break;
    case GS_KT_BOOL:
        kstr(w, "type", "boolean");
        break;
    case GS_KT_DUR:
        ref(w, "duration");
        break;
    case GS_KT_OBJ:
        ref(w, k->obj->id);
        break;
    default:
        GS_ASSERT(0);
    }
}

static int nforms(unsigned m)
{
    int n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}

static void forms(struct w *w, const struct gs_kt_key *k, unsigned mask,
                  int elem);

static void array_form(struct w *w, const struct gs_kt_key *k)
{
    kstr(w, "type", "array");
    if (k->min_items)
        knum(w, "minItems", k->min_items);
    if (k->max_items)
        knum(w, "maxItems", k->max_items);
    open_(w, "items", '{');
    forms(w, k, k->items, 1);
    close_(w, '}');
}

/* One form's members, or an anyOf of them. */
static void forms(struct w *w, const struct gs_kt_key *k, unsigned mask,
                  int elem)
{
    if (nforms(mask) == 1) {
        if (mask == GS_KT_ARR)
            array_form(w, k);
        else
            form(w, k, mask, elem);
        return;
    }
    open_(w, "anyOf", '[');
    for (unsigned f = 1; f <= GS_KT_ARR; f <<= 1) {
        if (!(mask & f))
            continue;
        open_(w, NULL, '{');
        if (f == GS_KT_ARR)
            array_form(w, k);
        else
            form(w, k, f, elem);
        close_(w, '}');
    }
    close_(w, ']');
}

static void describe(struct w *w, const struct gs_kt_key *k)
{
    if (k->desc == NULL)
        return;
    if (k->unit == NULL) {
        kstr(w, "description", k->desc);
        return;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s [%s]", k->desc, k->unit);
    kstr(w, "description", buf);
    kstr(w, "x-unit", k->unit);
}

static void key_schema(struct w *w, const struct gs_kt_key *k)
{
    open_(w, k->name, '{');
    describe(w, k);
    if (k->schema) {
        item(w, NULL);
        /* item() wrote the separator and indentation; the raw members
         * follow on the line */
        fputs(k->schema, w->fp);
    } else {
        forms(w, k, k->type, 0);
    }
    close_(w, '}');
}

/* A condition of a rule. */
static void cond(struct w *w, int c, const char *key, const char *val)
{
    int neg = c == GS_KC_LACKS || c == GS_KC_ISNT || c == GS_KC_NONZERO;
    if (neg)
        open_(w, "not", '{');
    open_(w, "required", '[');
    kstr(w, NULL, key);
    close_(w, ']');
    if (c == GS_KC_IS || c == GS_KC_ISNT || c == GS_KC_ZERO ||
        c == GS_KC_NONZERO) {
        open_(w, "properties", '{');
        open_(w, key, '{');
        if (c == GS_KC_IS || c == GS_KC_ISNT)
            kstr(w, "const", val);
        else
            knum(w, "const", 0);
        close_(w, '}');
        close_(w, '}');
    }
    if (neg)
        close_(w, '}');
}

/* {"anyOf": [{"required": ["a"]}, ...]} members from "a b ...". */
static void each_required(struct w *w, const char *kw, const char *words)
{
    open_(w, kw, '[');
    for (const char *s = words; *s;) {
        size_t n = strcspn(s, " ");
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", (int)n, s);
        open_(w, NULL, '{');
        open_(w, "required", '[');
        kstr(w, NULL, buf);
        close_(w, ']');
        close_(w, '}');
        s += n;
        while (*s == ' ')
            s++;
    }
    close_(w, ']');
}

static void rule_then(struct w *w, const struct gs_kt_rule *r)
{
    if (r->need)
        kwords(w, "required", r->need);
    if (r->any)
        each_required(w, "anyOf", r->any);
    if (r->one)
        each_required(w, "oneOf", r->one);
    if (r->only) {
        open_(w, "propertyNames", '{');
        kwords(w, "enum", r->only);
        close_(w, '}');
    }
    if (r->forbid) {
        open_(w, "not", '{');
        each_required(w, "anyOf", r->forbid);
        close_(w, '}');
    }
    if (r->excl) {
        open_(w, "not", '{');
        kwords(w, "required", r->excl);
        close_(w, '}');
    }
}

static void strict(struct w *w, const struct gs_kt_obj *t, int src,
                   int depth);

/* The root's branch where names of the strict source must be its own:
 * {"if": {"not": {"required": [unless]}}, "then": (the root cut down)}. */
static void strict_branch(struct w *w, const struct gs_kt_obj *root)
{
    const struct gs_kt_names *n = w->names;
    open_(w, NULL, '{');
    open_(w, "if", '{');
    cond(w, GS_KC_LACKS, n->strict_unless, NULL);
    close_(w, '}');
    open_(w, "then", '{');
    w->in_strict = 1;
    strict(w, root, n->strict_src, 0);
    w->in_strict = 0;
    close_(w, '}');
    close_(w, '}');
}

static int rule_end(const struct gs_kt_rule *r)
{
    return r == NULL || (r->cond == 0 && r->need == NULL && r->any == NULL &&
                         r->one == NULL && r->only == NULL &&
                         r->forbid == NULL && r->excl == NULL);
}

/* t's rules as an allOf (and the strict branch when t is the root). */
static void rules(struct w *w, const struct gs_kt_obj *t, int root)
{
    const struct gs_kt_rule *r = t->rules;
    int extra = root && w->names->strict_src;
    if (rule_end(r) && !extra)
        return;
    open_(w, "allOf", '[');
    for (; !rule_end(r); r++) {
        open_(w, NULL, '{');
        if (r->cond != GS_KC_ALWAYS) {
            open_(w, "if", '{');
            if (r->cond2) {
                open_(w, "allOf", '[');
                open_(w, NULL, '{');
                cond(w, r->cond, r->key, r->val);
                close_(w, '}');
                open_(w, NULL, '{');
                cond(w, r->cond2, r->key2, r->val2);
                close_(w, '}');
                close_(w, ']');
            } else {
                cond(w, r->cond, r->key, r->val);
            }
            close_(w, '}');
            open_(w, "then", '{');
            rule_then(w, r);
            close_(w, '}');
        } else {
            rule_then(w, r);
        }
        close_(w, '}');
    }
    if (extra)
        strict_branch(w, t);
    close_(w, ']');
}

/* The members of t's schema (inside an open object). */
static void obj_members(struct w *w, const struct gs_kt_obj *t, int root)
{
    kstr(w, "type", "object");
    if (t->desc)
        kstr(w, "description", t->desc);
    open_(w, "properties", '{');
    FOR_KEYS(t, k)
        key_schema(w, k);
    close_(w, '}');
    int nreq = 0;
    FOR_KEYS(t, k) {
        if (!(k->flags & GS_KF_REQ))
            continue;
        if (nreq++ == 0)
            open_(w, "required", '[');
        kstr(w, NULL, k->name);
    }
    if (nreq)
        close_(w, ']');
    if (t->map) {
        open_(w, "additionalProperties", '{');
        ref(w, t->map->id);
        close_(w, '}');
    } else if (t->open)
        kraw(w, "additionalProperties",
             "{\"type\": [\"number\", \"boolean\", \"string\"]}");
    else
        kraw(w, "additionalProperties", "false");
    rules(w, t, root);
}

static void visit(struct w *w, const struct gs_kt_obj *t)
{
    for (int i = 0; i < w->nseen; i++)
        if (w->seen[i] == t)
            return;
    GS_ASSERT(w->nseen < 128);
    w->seen[w->nseen++] = t;
    if (t->map)
        visit(w, t->map);
    FOR_KEYS(t, k)
        if (k->obj)
            visit(w, k->obj);
}

/* 1 when a key of src can be reached from t. */
static int reaches(const struct gs_kt_obj *t, int src, int depth)
{
    if (depth > 16)
        return 0;
    FOR_KEYS(t, k)
        if (k->src == src || (k->obj && reaches(k->obj, src, depth + 1)))
            return 1;
    return 0;
}

/* t's schema cut down to the keys of src (and the ways to them), each
 * such key's names strict: the "no gpu_models" branch of the root, where
 * a GPU model must be a built-in one. */
static void strict(struct w *w, const struct gs_kt_obj *t, int src,
                   int depth)
{
    open_(w, "properties", '{');
    FOR_KEYS(t, k) {
        if (k->src == src) {
            open_(w, k->name, '{');
            if (k->type & GS_KT_ARR) {
                open_(w, "items", '{');
                emit_names(w, k);
                close_(w, '}');
            } else {
                emit_names(w, k);
            }
            close_(w, '}');
        } else if (k->obj && reaches(k->obj, src, depth + 1)) {
            open_(w, k->name, '{');
            if (k->type & GS_KT_ARR) {
                open_(w, "items", '{');
                strict(w, k->obj, src, depth + 1);
                close_(w, '}');
            } else {
                strict(w, k->obj, src, depth + 1);
            }
            close_(w, '}');
        }
    }
    close_(w, '}');
}

int gs_kt_schema(FILE *fp, const struct gs_kt_obj *root, const char *id,
                 const char *title, const struct gs_kt_names *names)
{
    struct w *w = calloc(1, sizeof *w);
    if (w == NULL)
        return GS_ENOMEM;
    w->fp = fp;
    w->names = names;
    w->first[0] = 1;
    fputc('{', fp);
    w->first[++w->depth] = 1;
    kstr(w, "$schema", "https://json-schema.org/draft/2020-12/schema");
    kstr(w, "$id", id);
    kstr(w, "title", title);
    obj_members(w, root, 1);
    visit(w, root);
    open_(w, "$defs", '{');
    open_(w, "duration", '{');
    kstr(w, "description", "a duration: a number of seconds (>= 0), or a "
         "string with a unit: \"250ms\", \"30s\", \"5m\", \"2h\", \"3d\", "
         "\"1w\"");
    open_(w, "anyOf", '[');
    open_(w, NULL, '{');
    kstr(w, "type", "number");
    knum(w, "minimum", 0);
    knum(w, "exclusiveMaximum", 9e12);
    close_(w, '}');
    open_(w, NULL, '{');
    kstr(w, "type", "string");
    kstr(w, "pattern", "^(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
         "(?:ms|s|min|m|h|d|w)?$");
    close_(w, '}');
    close_(w, ']');
    close_(w, '}');
    for (int i = 1; i < w->nseen; i++) {
        open_(w, w->seen[i]->id, '{');
        obj_members(w, w->seen[i], 0);
        close_(w, '}');
    }
    close_(w, '}');
    close_(w, '}');
    fputc('\n', fp);
    free(w);
    return ferror(fp) ? GS_EIO : 0;
}
