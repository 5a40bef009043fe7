/* jsonio.c -- read and write rl-lite weights and benchmark baselines (see
 * jsonio.h).  With the scenario parser (sim/setup/scenario*.c) and the
 * services' section, the only files that include cJSON: files are read
 * whole, parsed, checked key by key, and turned into plain C data; a
 * malformed file is reported with its line and column, a wrong value with
 * its JSON path. */
#include "jsonio.h"
#include "jsoncheck.h"
#include "outfile.h"
#include "../base/params.h"
#include "../base/suggest.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int json_oom;

static void *json_malloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL)
        json_oom = 1;
    return p;
}

static void json_free(void *p)
{
    free(p);
}

cJSON *gs_json_parse_raw(const char *text, const char **end, int *oom)
{
    static int hooked;
    if (!hooked) {
        cJSON_Hooks h = { .malloc_fn = json_malloc, .free_fn = json_free };
        cJSON_InitHooks(&h);
        hooked = 1;
    }
    json_oom = 0;
    cJSON *root = cJSON_ParseWithOpts(text, end, 1);
    *oom = root == NULL && json_oom;
    return root;
}

char *gs_read_all(FILE *fp, size_t max, int *err)
{
    size_t len = 0, cap = 65536;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len - 1, fp)) > 0) {
        len += got;
        if (len + 1 == cap) {
            char *nb = max == 0 || cap < max ? realloc(buf, cap * 2) : NULL;
            if (nb == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    *err = buf == NULL ? GS_ENOMEM : ferror(fp) ? GS_EIO : 0;
    if (*err == GS_EIO) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* The whole file as a string (caller frees), or NULL with d filled. */
static char *slurp(const char *path, struct gs_diag *d)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        gs_diag_set(d, GS_EIO, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    int err;
    char *buf = gs_read_all(fp, 0, &err);
    fclose(fp);
    if (buf == NULL)
        gs_diag_set(d, err, path, err == GS_EIO ? "read error"
                                                : "out of memory");
    return buf;
}

/* Parse text; on a syntax error fill d with name:line:col. */
static cJSON *parse_text(const char *text, const char *name,
                         struct gs_diag *d)
{
    const char *end = NULL;
    int oom;
    if (gs_jsoncheck(text, name, d) < 0)    /* duplicate keys, comments */
        return NULL;
    cJSON *root = gs_json_parse_raw(text, &end, &oom);
    if (root == NULL && oom) {
        gs_diag_set(d, GS_ENOMEM, name, "out of memory");
    } else if (root == NULL) {
        int line = 1, col = 1;
        for (const char *p = text; end && p < end && *p; p++) {
            if (*p == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        gs_diag_set_at(d, GS_EPARSE, gs_strf("%s:%d:%d", name, line, col),
                       "malformed JSON here");
    }
    return root;
}

static cJSON *parse_file(const char *path, struct gs_diag *d)
{
    char *text = slurp(path, d);
    if (text == NULL)
        return NULL;
    cJSON *root = parse_text(text, path, d);
    free(text);
    return root;
}

static int bad(struct gs_diag *d, const char *path, const char *jpath,
               const char *what)
{
    char *where;
    where = gs_strf("%s: %s", path, jpath);
    return gs_diag_set_at(d, GS_EINVAL, where, "%s", what);
}

/* --- weights ----------------------------------------------------------- */

int gs_weights_load(const char *path, const char *const *names, int n,
                    double *w, struct gs_diag *d)
{
    cJSON *root = parse_file(path, d);
    if (root == NULL)
        return d && d->code ? d->code : GS_EPARSE;
    int rc = 0;
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "gpusim_weights");
    const cJSON *feat = cJSON_GetObjectItemCaseSensitive(root, "features");
    const cJSON *ws = cJSON_GetObjectItemCaseSensitive(root, "weights");
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    if (!cJSON_IsObject(root) || !cJSON_IsNumber(ver) || ver->valueint != 1) {
        rc = bad(d, path, "$.gpusim_weights", "not a gpusim weights file "
                 "(expected \"gpusim_weights\": 1)");
    } else if (model && (!cJSON_IsString(model) ||
                         strcmp(model->valuestring, "linear") != 0)) {
        rc = bad(d, path, "$.model", "only the \"linear\" model is known");
    } else if (!cJSON_IsArray(feat) || cJSON_GetArraySize(feat) != n) {
        char m[128];
        snprintf(m, sizeof m, "expected an array of the policy's %d feature "
                 "names", n);
        rc = bad(d, path, "$.features", m);
    } else if (!cJSON_IsArray(ws) || cJSON_GetArraySize(ws) != n) {
        char m[128];
        snprintf(m, sizeof m, "expected an array of %d numbers", n);
        rc = bad(d, path, "$.weights", m);
    } else {
        for (int i = 0; i < n && rc == 0; i++) {
            const cJSON *f = cJSON_GetArrayItem(feat, i);
            const cJSON *x = cJSON_GetArrayItem(ws, i);
            char jp[64], m[256];
            if (!cJSON_IsString(f) || strcmp(f->valuestring, names[i]) != 0) {
                snprintf(jp, sizeof jp, "$.features[%d]", i);
                snprintf(m, sizeof m, "expected feature '%s' here (the file "
                         "was trained for another feature set)", names[i]);
                rc = bad(d, path, jp, m);
            } else if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) {
                snprintf(jp, sizeof jp, "$.weights[%d]", i);
                rc = bad(d, path, jp, "expected a finite number");
            } else {
                w[i] = x->valuedouble;
            }
        }
    }
    cJSON_Delete(root);
    return rc;
}

int gs_weights_save(const char *path, const char *const *names, int n,
                    const double *w, const struct gs_weights_meta *meta,
                    struct gs_diag *d)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *feat = cJSON_CreateArray(), *ws = cJSON_CreateArray();
    int ok = root && feat && ws;
    if (ok) {
        cJSON_AddNumberToObject(root, "gpusim_weights", 1);
        cJSON_AddStringToObject(root, "policy", "rl-lite");
        cJSON_AddStringToObject(root, "model", "linear");
        for (int i = 0; i < n; i++) {
            cJSON_AddItemToArray(feat, cJSON_CreateString(names[i]));
            cJSON_AddItemToArray(ws, cJSON_CreateNumber(w[i]));
        }
        cJSON_AddItemToObject(root, "features", feat);
        cJSON_AddItemToObject(root, "weights", ws);
        feat = ws = NULL;
        if (meta) {
            cJSON_AddStringToObject(root, "trained_on", meta->trained_on
                                    ? meta->trained_on : "");
            cJSON_AddStringToObject(root, "objective", meta->objective
                                    ? meta->objective : "");
            cJSON_AddNumberToObject(root, "seed", (double)meta->seed);
            cJSON_AddNumberToObject(root, "iterations", meta->iterations);
            cJSON_AddNumberToObject(root, "objective_untrained",
                                    meta->untrained);
            cJSON_AddNumberToObject(root, "objective_trained", meta->trained);
        }
    }
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(feat);
    cJSON_Delete(ws);
    cJSON_Delete(root);
    if (text == NULL)
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    /* Written whole or not at all, beside the target (outfile.h). */
    struct gs_out o;
    int rc = gs_out_begin(&o, path, d);
    if (rc == 0) {
        const char *p = text;
        size_t left = strlen(text);
        while (rc == 0 && left > 0) {
            ssize_t got = write(o.fd, p, left);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                rc = gs_diag_set(d, GS_EIO, path, "cannot write: %s",
                                 strerror(errno));
            } else {
                p += got;
                left -= (size_t)got;
            }
        }
        if (rc == 0 && write(o.fd, "\n", 1) != 1)
            rc = gs_diag_set(d, GS_EIO, path, "cannot write: %s",
                             strerror(errno));
        if (rc == 0)
            rc = gs_out_commit(&o, d);
        else
            gs_out_abort(&o);
    }
    cJSON_free(text);
    return rc;
}

/* --- baselines --------------------------------------------------------- */

static int read_tol(const char *path, const cJSON *o, const char *name,
                    struct gs_bl_tol *t, struct gs_diag *d)
{
    GS_JSON_PATH(jp);
    gs_json_path_key(&jp, "$.tolerances", name);
    if (!cJSON_IsObject(o))
        return bad(d, path, jp, "expected {\"rel\": r, \"abs\": a}");
    snprintf(t->metric, sizeof t->metric, "%s", name);
    for (const cJSON *it = o->child; it; it = it->next) {
        if (!cJSON_IsNumber(it) || it->valuedouble < 0)
            return bad(d, path, jp, "tolerances are numbers >= 0");
        if (strcmp(it->string, "rel") == 0)
            t->rel = it->valuedouble;
        else if (strcmp(it->string, "abs") == 0)
            t->abs = it->valuedouble;
        else
            return bad(d, path, jp, "unknown key (allowed: rel, abs)");
    }
    return 0;
}

static int read_run(const char *path, const cJSON *o, int i,
                    struct gs_bl_run *r, struct gs_diag *d)
{
    GS_JSON_PATH(jp);
    gs_json_path_at(&jp, "$.runs", i);
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(o, "scenario");
    const cJSON *po = cJSON_GetObjectItemCaseSensitive(o, "policy");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "metrics");
    if (!cJSON_IsString(sc) || !cJSON_IsString(po) || !cJSON_IsObject(m))
        return bad(d, path, jp, "expected {\"scenario\", \"policy\", "
                   "\"metrics\": {...}}");
    snprintf(r->scenario, sizeof r->scenario, "%s", sc->valuestring);
    snprintf(r->policy, sizeof r->policy, "%s", po->valuestring);
    int n = cJSON_GetArraySize(m);
    r->names = calloc((size_t)(n ? n : 1), sizeof *r->names);
    r->v = calloc((size_t)(n ? n : 1), sizeof *r->v);
    if (!r->names || !r->v)
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    for (const cJSON *it = m->child; it; it = it->next) {
        if (!cJSON_IsNumber(it)) {
            gs_json_path_key(&jp, jp, "metrics");
            return bad(d, path, gs_json_path_key(&jp, jp, it->string),
                       "expected a number");
        }
        snprintf(r->names[r->n], GS_JSON_NAME, "%s", it->string);
        r->v[r->n++] = it->valuedouble;
    }
    return 0;
}

int gs_baselines_load(const char *path, struct gs_baselines *b,
                      struct gs_diag *d)
{
    memset(b, 0, sizeof *b);
    b->def = (struct gs_bl_tol){ "default", 0.0, 0.0 };
    cJSON *root = parse_file(path, d);
    if (root == NULL)
        return d && d->code ? d->code : GS_EPARSE;
    int rc = 0;
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root,
                                                        "gpusim_baselines");
    const cJSON *tol = cJSON_GetObjectItemCaseSensitive(root, "tolerances");
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    if (!cJSON_IsNumber(ver) || ver->valueint != 1) {
        rc = bad(d, path, "$.gpusim_baselines", "not a gpusim baselines "
                 "file (expected \"gpusim_baselines\": 1)");
        goto done;
    }
    if (tol && !cJSON_IsObject(tol)) {
        rc = bad(d, path, "$.tolerances", "expected an object");
        goto done;
    }
    if (!cJSON_IsArray(runs)) {
        rc = bad(d, path, "$.runs", "expected an array");
        goto done;
    }
    int nt = tol ? cJSON_GetArraySize(tol) : 0;
    b->tol = calloc((size_t)(nt ? nt : 1), sizeof *b->tol);
    b->run = calloc((size_t)(cJSON_GetArraySize(runs) + 1), sizeof *b->run);
    if (!b->tol || !b->run) {
        rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
        goto done;
    }
    for (const cJSON *it = tol ? tol->child : NULL; it && rc == 0;
         it = it->next) {
        if (strcmp(it->string, "default") == 0)
            rc = read_tol(path, it, "default", &b->def, d);
        else
            rc = read_tol(path, it, it->string, &b->tol[b->ntol++], d);
    }
    int i = 0;
    for (const cJSON *it = runs->child; it && rc == 0; it = it->next, i++) {
        rc = read_run(path, it, i, &b->run[i], d);
        b->nrun = i + 1;
    }
done:
    cJSON_Delete(root);
    if (rc < 0)
        gs_baselines_free(b);
    return rc;
}

void gs_baselines_free(struct gs_baselines *b)
{
    if (b == NULL)
        return;
    for (int i = 0; i < b->nrun; i++) {
        free(b->run[i].names);
        free(b->run[i].v);
    }
    free(b->run);
    free(b->tol);
    memset(b, 0, sizeof *b);
}

const struct gs_bl_tol *gs_baselines_tol(const struct gs_baselines *b,
                                         const char *metric)
{
    for (int i = 0; i < b->ntol; i++)
        if (strcmp(b->tol[i].metric, metric) == 0)
            return &b->tol[i];
    return &b->def;
}

/* --- key-checked reading of a JSON object -------------------------------- */

/* The one place the opaque type meets cJSON. */
static const cJSON *cj(const struct gs_json *v)
{
    return (const cJSON *)(const void *)v;
}

static const struct gs_json *gj(const cJSON *v)
{
    return (const struct gs_json *)(const void *)v;
}

int gs_json_parse(const char *text, const char *name, struct gs_json **out,
                  struct gs_diag *d)
{
    *out = NULL;
    cJSON *root = parse_text(text, name, d);
    if (root == NULL)
        return d && d->code ? d->code : GS_EPARSE;
    *out = (struct gs_json *)(void *)root;
    return 0;
}

int gs_json_parse_line(const char *text, struct gs_json **out, long *col)
{
    const char *end = NULL;
    int oom;
    cJSON *root = gs_json_parse_raw(text, &end, &oom);
    *out = (struct gs_json *)(void *)root;
    if (root != NULL)
        return 0;
    *col = end ? (long)(end - text) + 1 : 1;
    return oom ? GS_ENOMEM : GS_EPARSE;
}

void gs_json_free(struct gs_json *doc)
{
    cJSON_Delete((cJSON *)(void *)doc);
}

const struct gs_json *gs_json_get(const struct gs_json *o, const char *key)
{
    return cJSON_IsObject(cj(o))
        ? gj(cJSON_GetObjectItemCaseSensitive(cj(o), key)) : NULL;
}

int gs_json_is_object(const struct gs_json *v)
{
    return cJSON_IsObject(cj(v)) != 0;
}

int gs_json_is_array(const struct gs_json *v)
{
    return cJSON_IsArray(cj(v)) != 0;
}

const struct gs_json *gs_json_first(const struct gs_json *v)
{
    return v && (cJSON_IsArray(cj(v)) || cJSON_IsObject(cj(v)))
        ? gj(cj(v)->child) : NULL;
}

const struct gs_json *gs_json_next(const struct gs_json *v)
{
    return v ? gj(cj(v)->next) : NULL;
}

const char *gs_json_key(const struct gs_json *v)
{
    return v ? cj(v)->string : NULL;
}

int gs_json_size(const struct gs_json *v)
{
    return cJSON_IsArray(cj(v)) || cJSON_IsObject(cj(v))
        ? cJSON_GetArraySize(cj(v)) : 0;
}

const struct gs_json *gs_json_item(const struct gs_json *v, int i)
{
    return cJSON_IsArray(cj(v)) || cJSON_IsObject(cj(v))
        ? gj(cJSON_GetArrayItem(cj(v), i)) : NULL;
}

int gs_json_is_number(const struct gs_json *v)
{
    return cJSON_IsNumber(cj(v)) != 0;
}

int gs_json_is_string(const struct gs_json *v)
{
    return cJSON_IsString(cj(v)) != 0;
}

double gs_json_number(const struct gs_json *v)
{
    return cJSON_IsNumber(cj(v)) ? cj(v)->valuedouble : NAN;
}

const char *gs_json_string(const struct gs_json *v)
{
    return cJSON_IsString(cj(v)) ? cj(v)->valuestring : NULL;
}

char *gs_json_print(const struct gs_json *v)
{
    return v ? cJSON_PrintUnformatted(cj(v)) : NULL;
}

/* What a path is out of memory (GS_JSON_PATH): never freed. */
static char path_oom[] = "(a JSON path: out of memory)";

/* *q = made (path_oom when NULL), the old value freed. */
static const char *path_set(char **q, char *made)
{
    char *old = *q;
    *q = made ? made : path_oom;
    if (old != path_oom)
        free(old);
    return *q;
}

const char *gs_json_path_key(char **q, const char *path, const char *key)
{
    return path_set(q, gs_json_path_join(path, key, strlen(key)));
}

const char *gs_json_path_at(char **q, const char *path, long i)
{
    return path_set(q, gs_strf("%s[%ld]", path, i));
}

void gs_json_path_free(char **q)
{
    if (*q != path_oom)
        free(*q);
    *q = NULL;
}

int gs_json_verr(const struct gs_jin *c, const char *path, const char *fmt,
                 va_list ap)
{
    return gs_diag_vset_at(c->d, GS_EINVAL, gs_strf("%s: %s", c->file, path),
                           fmt, ap);
}

int gs_json_err(const struct gs_jin *c, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = gs_json_verr(c, path, fmt, ap);
    va_end(ap);
    return rc;
}

int gs_json_keys(const struct gs_jin *c, const struct gs_json *o,
                 const char *path, const char *const *allowed)
{
    if (!cJSON_IsObject(cj(o)))
        return gs_json_err(c, path, "expected an object");
    for (const cJSON *it = cj(o)->child; it; it = it->next) {
        int ok = 0;
        for (int i = 0; allowed[i] && !ok; i++)
            ok = strcmp(it->string, allowed[i]) == 0;
        if (!ok) {
            /* the key as the duplicate-key message spells it: a control
             * byte or a quote escaped, never written raw to a terminal */
            char *k = gs_json_key_esc(it->string, strlen(it->string));
            if (k == NULL)
                return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
            const char *near = gs_suggest(it->string, allowed);
            int rc;
            if (near) {
                rc = gs_json_err(c, path, "unknown key '%s' (did you mean "
                                 "'%s'?)", k, near);
            } else {
                char list[512] = "";
                for (int i = 0; allowed[i]; i++) {
                    strncat(list, i ? ", " : "",
                            sizeof list - strlen(list) - 1);
                    strncat(list, allowed[i], sizeof list - strlen(list) - 1);
                }
                rc = gs_json_err(c, path, "unknown key '%s' (allowed: %s)",
                                 k, list);
            }
            free(k);
            return rc;
        }
    }
    return 0;
}

/* o[key], or NULL; absent and required is an error (*rc set). */
static const cJSON *member(const struct gs_jin *c, const struct gs_json *o,
                           const char *path, const char *key, int req,
                           int *rc)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cj(o), key);
    *rc = v == NULL && req
        ? gs_json_err(c, path, "missing required key '%s'", key) : 0;
    return v;
}

int gs_json_num(const struct gs_jin *c, const struct gs_json *o,
                const char *path, const char *key, double lo, double hi,
                int req, double *out)
{
    int rc;
    const cJSON *v = member(c, o, path, key, req, &rc);
    if (v == NULL)
        return rc;
    GS_JSON_PATH(p);
    if (!cJSON_IsNumber(v))
        return gs_json_err(c, gs_json_path_key(&p, path, key),
                           "expected a number");
    if (!(v->valuedouble >= lo && v->valuedouble <= hi))
        return gs_json_err(c, gs_json_path_key(&p, path, key),
                           "%g is outside the allowed range [%g, %g]",
                           v->valuedouble, lo, hi);
    *out = v->valuedouble;
    return 0;
}

int gs_json_int(const struct gs_jin *c, const struct gs_json *o,
                const char *path, const char *key, long lo, long hi,
                int req, long *out)
{
    double v = (double)*out;
    int rc = gs_json_num(c, o, path, key, (double)lo, (double)hi, req, &v);
    if (rc < 0)
        return rc;
    if (v != floor(v)) {
        GS_JSON_PATH(p);
        return gs_json_err(c, gs_json_path_key(&p, path, key),
                           "expected a whole number, got %g", v);
    }
    *out = (long)v;
    return 0;
}

int gs_json_bool(const struct gs_jin *c, const struct gs_json *o,
                 const char *path, const char *key, int *out)
{
    int rc;
    const cJSON *v = member(c, o, path, key, 0, &rc);
    if (v == NULL)
        return rc;
    if (!cJSON_IsBool(v)) {
        GS_JSON_PATH(p);
        return gs_json_err(c, gs_json_path_key(&p, path, key),
                           "expected true or false");
    }
    *out = cJSON_IsTrue(v);
    return 0;
}

int gs_json_str(const struct gs_jin *c, const struct gs_json *o,
                const char *path, const char *key, int req, char *out,
                size_t n)
{
    int rc;
    const cJSON *v = member(c, o, path, key, req, &rc);
    if (v == NULL)
        return rc;
    GS_JSON_PATH(p);
    if (!cJSON_IsString(v))
        return gs_json_err(c, gs_json_path_key(&p, path, key),
                           "expected a string");
    if (strlen(v->valuestring) >= n)
        return gs_json_err(c, gs_json_path_key(&p, path, key),
                           "longer than %zu characters", n - 1);
    if (req && v->valuestring[0] == '\0')
        return gs_json_err(c, gs_json_path_key(&p, path, key),
                           "must not be empty");
    snprintf(out, n, "%s", v->valuestring);
    return 0;
}

int gs_json_strdup(const struct gs_jin *c, const struct gs_json *o,
                   const char *path, const char *key, int req, char **out)
{
    int rc;
    *out = NULL;
    const cJSON *v = member(c, o, path, key, req, &rc);
    if (v == NULL)
        return rc;
    GS_JSON_PATH(p);
    if (!cJSON_IsString(v))
        return gs_json_err(c, gs_json_path_key(&p, path, key),
                           "expected a string");
    if (req && v->valuestring[0] == '\0')
        return gs_json_err(c, gs_json_path_key(&p, path, key),
                           "must not be empty");
    if ((*out = strdup(v->valuestring)) == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    return 0;
}

int gs_json_time(const struct gs_jin *c, const struct gs_json *o,
                 const char *path, const char *key, int req, gs_time *out)
{
    int rc;
    const cJSON *v = member(c, o, path, key, req, &rc);
    if (v == NULL)
        return rc;
    GS_JSON_PATH(p);
    if (cJSON_IsNumber(v)) {
        if (!(v->valuedouble >= 0 && v->valuedouble < 9.0e12))
            return gs_json_err(c, gs_json_path_key(&p, path, key),
                               "expected a non-negative number of seconds");
        *out = (gs_time)llround(v->valuedouble * 1000.0);
        return 0;
    }
    if (cJSON_IsString(v) && gs_parse_time(v->valuestring, out) == 0)
        return 0;
    return gs_json_err(c, gs_json_path_key(&p, path, key),
                       "expected a duration: seconds, or a string such as "
                       "\"30s\", \"5m\", \"2h\", \"3d\"");
}

/* --- editing JSON text by key path (gs_json_edit) ----------------------- */


/* Next token of a key path: a key (*idx = -1; *key, *nkey say where it
 * is in p, however long) or an index [N].  Returns the position after it,
 * or NULL on a malformed path. */
static const char *next_tok(const char *p, const char **key, size_t *nkey,
                            long *idx)
{
    *idx = -1;
    *key = p;
    *nkey = 0;
    if (*p == '[') {
        char *end;
        long v = strtol(p + 1, &end, 10);
        if (end == p + 1 || *end != ']' || v < 0)
            return NULL;
        *idx = v;
        p = end + 1;
    } else {
        *nkey = strcspn(p, ".[");
        if (*nkey == 0)
            return NULL;
        p += *nkey;
    }
    if (*p == '.') {
        p++;
        if (*p == '\0' || *p == '[')
            return NULL;
    }
    return p;
}

static cJSON *parse_value(const char *v)
{
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithOpts(v, &end, 1);
    if (j)
        return j;
    return cJSON_CreateString(v);
}

/* One step of walk: the key k of cur (created when create and absent;
 * last: the path ends here), done the path walked so far.  The node, or
 * NULL with d filled (*rc the code). */
static cJSON *walk_key(cJSON *cur, const char *k, int create, int last,
                       const char *done, const char *what, struct gs_diag *d,
                       int *rc)
{
    if (cJSON_IsString(cur) && create) {
        /* "policy": "fair" -> {"name": "fair"} */
        cJSON *name = cJSON_CreateString(cur->valuestring);
        if (name == NULL) {
            *rc = gs_diag_set(d, GS_ENOMEM, what, "out of memory");
            return NULL;
        }
        free(cur->valuestring);
        cur->valuestring = NULL;
        cur->type = cJSON_Object;
        cur->child = NULL;
        cJSON_AddItemToObject(cur, "name", name);
    }
    if (!cJSON_IsObject(cur)) {
        *rc = gs_diag_set(d, GS_EINVAL, what, "%s is not an object, so it "
                          "has no key '%s'", done, k);
        return NULL;
    }
    cJSON *nxt = cJSON_GetObjectItemCaseSensitive(cur, k);
    if (nxt != NULL)
        return nxt;
    if (!create) {
        *rc = gs_diag_set(d, GS_EINVAL, what, "%s has no key '%s'", done, k);
        return NULL;
    }
    nxt = last ? cJSON_CreateNull() : cJSON_CreateObject();
    if (nxt == NULL || !cJSON_AddItemToObject(cur, k, nxt)) {
        cJSON_Delete(nxt);
        *rc = gs_diag_set(d, GS_ENOMEM, what, "out of memory");
        return NULL;
    }
    return nxt;
}

/* Find (create = 1: create on the way) the node at path under root.  0 or
 * GS_EINVAL with d filled, naming the part of the path walked whole
 * (GS_JSON_PATH: a key of any length). */
static int walk(cJSON *root, const char *path, int create, cJSON **node,
                const char *what, struct gs_diag *d)
{
    const char *p = path;
    if (p[0] == '$')
        p += p[1] == '.' ? 2 : 1;
    if (*p == '\0')
        return gs_diag_set(d, GS_EINVAL, what, "empty key path");
    cJSON *cur = root;
    GS_JSON_PATH(done);
    done = strdup("$");
    while (*p) {
        const char *k;
        size_t nk;
        long idx;
        const char *nx = next_tok(p, &k, &nk, &idx);
        if (nx == NULL)
            return gs_diag_set(d, GS_EINVAL, what, "malformed key path '%s' "
                               "(keys joined by '.', indexes as [N])", path);
        const char *at = done ? done : "$";
        if (idx >= 0) {
            if (!cJSON_IsArray(cur))
                return gs_diag_set(d, GS_EINVAL, what, "%s is not an array",
                                   at);
            int n = cJSON_GetArraySize(cur);
            if (idx >= n)
                return gs_diag_set(d, GS_EINVAL, what, "%s has %d element%s; "
                                   "there is no [%ld]", at, n,
                                   n == 1 ? "" : "s", idx);
            cur = cJSON_GetArrayItem(cur, (int)idx);
            gs_json_path_at(&done, at, idx);
        } else {
            char *key = strndup(k, nk);
            int rc = 0;
            if (key == NULL)
                return gs_diag_set(d, GS_ENOMEM, what, "out of memory");
            cur = walk_key(cur, key, create, *nx == '\0', at, what, d, &rc);
            if (cur != NULL)
                gs_json_path_key(&done, at, key);
            free(key);
            if (cur == NULL)
                return rc;
        }
        p = nx;
    }
    *node = cur;
    return 0;
}

/* Replace node's content by a copy of v's (node keeps its place). */
static void replace_content(cJSON *node, cJSON *v)
{
    cJSON *next = node->next, *prev = node->prev;
    char *name = node->string;
    int flags = node->type & cJSON_StringIsConst;
    node->next = node->prev = NULL;
    node->string = NULL;
    /* free the old content */
    cJSON_Delete(node->child);
    if (!(node->type & cJSON_IsReference))
        free(node->valuestring);
    node->child = v->child;
    node->valuestring = v->valuestring;
    node->valueint = v->valueint;
    node->valuedouble = v->valuedouble;
    node->type = (v->type & ~cJSON_StringIsConst) | flags;
    node->next = next;
    node->prev = prev;
    node->string = name;
    v->child = NULL;
    v->valuestring = NULL;
    cJSON_Delete(v);
}

static int apply(cJSON *root, const struct gs_edit *e, const char *what,
                 struct gs_diag *d)
{
    cJSON *node = NULL;
    int rc = walk(root, e->path, e->op == GS_EDIT_SET, &node, what, d);
    if (rc < 0)
        return rc;
    if (e->op == GS_EDIT_SET) {
        cJSON *v = parse_value(e->value);
        if (v == NULL)
            return gs_diag_set(d, GS_ENOMEM, what, "out of memory");
        replace_content(node, v);
        return 0;
    }
    if (e->op == GS_EDIT_SCALE) {
        char *end;
        double f = strtod(e->value, &end);
        if (!cJSON_IsNumber(node))
            return gs_diag_set(d, GS_EINVAL, what, "%s is not a number, so it "
                               "cannot be scaled", e->path);
        if (*end != '\0' || !(f > 0))
            return gs_diag_set(d, GS_EINVAL, what, "scale factor '%s' is not "
                               "a positive number", e->value);
        cJSON_SetNumberValue(node, node->valuedouble * f);
        return 0;
    }
    /* GS_EDIT_CLONE: node is an element of an array; find the array */
    const char *br = strrchr(e->path, '[');
    if (br == NULL || br == e->path)
        return gs_diag_set(d, GS_EINVAL, what, "%s is not an array element",
                           e->path);
    char *arr = strndup(e->path, (size_t)(br - e->path));
    if (arr == NULL)
        return gs_diag_set(d, GS_ENOMEM, what, "out of memory");
    cJSON *a = NULL;
    rc = walk(root, arr, 0, &a, what, d);
    free(arr);
    if (rc < 0)
        return rc;
    cJSON *copy = cJSON_Duplicate(node, 1);
    cJSON *over = parse_value(e->value);
    if (copy == NULL || over == NULL || !cJSON_IsObject(over) ||
        !cJSON_IsObject(copy)) {
        cJSON_Delete(copy);
        cJSON_Delete(over);
        return gs_diag_set(d, GS_EINVAL, what, "cannot copy %s", e->path);
    }
    for (cJSON *it = over->child; it; it = it->next) {
        cJSON *dup = cJSON_Duplicate(it, 1);
        if (cJSON_GetObjectItemCaseSensitive(copy, it->string))
            cJSON_ReplaceItemInObjectCaseSensitive(copy, it->string, dup);
        else
            cJSON_AddItemToObject(copy, it->string, dup);
    }
    cJSON_Delete(over);
    cJSON_AddItemToArray(a, copy);
    return 0;
}

int gs_json_edit(const char *text, const struct gs_edit *e, int n,
                 char **out, const char *what, struct gs_diag *d)
{
    *out = NULL;
    cJSON *root = cJSON_Parse(text);
    if (root == NULL)
        return gs_diag_set(d, GS_EPARSE, what, "the scenario is not valid "
                           "JSON");
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        /* "--set KEY": the key whole, however long */
        char *w = gs_strf("%s%s%s", what, what[0] ? " " : "", e[i].path);
        rc = w ? apply(root, &e[i], w, d)
               : gs_diag_set(d, GS_ENOMEM, what, "out of memory");
        free(w);
    }
    if (rc == 0) {
        *out = cJSON_PrintUnformatted(root);
        if (*out == NULL)
            rc = gs_diag_set(d, GS_ENOMEM, what, "out of memory");
    }
    cJSON_Delete(root);
    return rc;
}

int gs_json_count(const char *text, const char *path)
{
    cJSON *root = cJSON_Parse(text), *node = NULL;
    int n = -1;
    if (root && walk(root, path, 0, &node, "", NULL) == 0 &&
        cJSON_IsArray(node))
        n = cJSON_GetArraySize(node);
    cJSON_Delete(root);
    return n;
}

int gs_json_has(const char *text, const char *path)
{
    cJSON *root = cJSON_Parse(text), *node = NULL;
    int has = root && walk(root, path, 0, &node, "", NULL) == 0;
    cJSON_Delete(root);
    return has;
}

/* --- value lists -------------------------------------------------------- */

int gs_split_values(const char *list, char ***out)
{
    int cap = 8, n = 0, depth = 0, quote = 0;
    char **v = calloc((size_t)cap, sizeof *v);
    if (v == NULL)
        return -1;
    const char *start = list;
    for (const char *p = list;; p++) {
        char ch = *p;
        if (quote) {
            if (ch == '\\' && p[1])
                p++;
            else if (ch == '"')
                quote = 0;
            else if (ch == '\0')
                goto bad;
            continue;
        }
        if (ch == '"')
            quote = 1;
        else if (ch == '[' || ch == '{')
            depth++;
        else if (ch == ']' || ch == '}') {
            if (--depth < 0)
                goto bad;
        } else if ((ch == ',' && depth == 0) || ch == '\0') {
            if (ch == '\0' && depth != 0)
                goto bad;
            size_t len = (size_t)(p - start);
            if (len == 0)
                goto bad;
            if (n == cap) {
                char **nv = realloc(v, (size_t)cap * 2 * sizeof *nv);
                if (nv == NULL)
                    goto bad;
                v = nv;
                cap *= 2;
            }
            if ((v[n] = strndup(start, len)) == NULL)
                goto bad;
            n++;
            start = p + 1;
            if (ch == '\0')
                break;
        }
    }
    *out = v;
    return n;
bad:
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return -1;
}
