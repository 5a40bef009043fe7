/* planjson.c -- edit scenario JSON by key path; read the `plan` section.
 *
 * Editing works on the scenario's text, not on the parsed C structures:
 * the text is parsed with cJSON, each edit walks its key path (creating
 * missing objects on the way), the tree is printed back and the caller
 * parses the result as a scenario.  So every key a user can write in a
 * scenario can be swept or searched, and every edited scenario passes the
 * same validation a hand-written one does -- an unknown key is refused by
 * scenario.c with its JSON path, not silently added.
 *
 * The plan section (README, "Planning"; docs/planning.md) is read here into
 * struct gs_plancfg: targets become (metric, limit, direction) triples over
 * the metric list of sweep.h; the search space becomes discrete axes (each
 * value a list of edits: a pool's GPU model and price, its market, its
 * sharing layout, the policy, any key's values) and pools whose node count
 * is searched by bisection (plan.c). */
#include "planjson.h"
#include "params.h"
#include "scenario.h"
#include "sweep.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- key paths ------------------------------------------------------------ */

/* Next token of a key path: a key (*idx = -1) or an index [N].  Returns the
 * position after it, or NULL on a malformed path. */
static const char *next_tok(const char *p, char *key, size_t nkey, long *idx)
{
    *idx = -1;
    key[0] = '\0';
    if (*p == '[') {
        char *end;
        long v = strtol(p + 1, &end, 10);
        if (end == p + 1 || *end != ']' || v < 0)
            return NULL;
        *idx = v;
        p = end + 1;
    } else {
        size_t n = 0;
        while (*p && *p != '.' && *p != '[') {
            if (n + 1 >= nkey)
                return NULL;
            key[n++] = *p++;
        }
        key[n] = '\0';
        if (n == 0)
            return NULL;
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

/* Find (create = 1: create on the way) the node at path under root; on
 * the last token, *parent and *last / *lastidx say where it hangs.  0 or
 * GS_EINVAL with d filled. */
static int walk(cJSON *root, const char *path, int create, cJSON **node,
                const char *what, struct gs_diag *d)
{
    const char *p = path;
    if (p[0] == '$')
        p += p[1] == '.' ? 2 : 1;
    if (*p == '\0')
        return gs_diag_set(d, GS_EINVAL, what, "empty key path");
    cJSON *cur = root;
    char done[300] = "$";
    while (*p) {
        char key[128];
        long idx;
        const char *nx = next_tok(p, key, sizeof key, &idx);
        if (nx == NULL)
            return gs_diag_set(d, GS_EINVAL, what, "malformed key path '%s' "
                               "(keys joined by '.', indexes as [N])", path);
        if (idx >= 0) {
            if (!cJSON_IsArray(cur))
                return gs_diag_set(d, GS_EINVAL, what, "%s is not an array",
                                   done);
            int n = cJSON_GetArraySize(cur);
            if (idx >= n)
                return gs_diag_set(d, GS_EINVAL, what, "%s has %d element%s; "
                                   "there is no [%ld]", done, n,
                                   n == 1 ? "" : "s", idx);
            cur = cJSON_GetArrayItem(cur, (int)idx);
            snprintf(done + strlen(done), sizeof done - strlen(done), "[%ld]",
                     idx);
        } else {
            if (cJSON_IsString(cur) && create) {
                /* "policy": "fair" -> {"name": "fair"} */
                cJSON *name = cJSON_CreateString(cur->valuestring);
                free(cur->valuestring);
                cur->valuestring = NULL;
                cur->type = cJSON_Object;
                cur->child = NULL;
                cJSON_AddItemToObject(cur, "name", name);
            }
            if (!cJSON_IsObject(cur))
                return gs_diag_set(d, GS_EINVAL, what, "%s is not an object, "
                                   "so it has no key '%s'", done, key);
            cJSON *nxt = cJSON_GetObjectItemCaseSensitive(cur, key);
            if (nxt == NULL) {
                if (!create)
                    return gs_diag_set(d, GS_EINVAL, what, "%s has no key "
                                       "'%s'", done, key);
                nxt = *nx ? cJSON_CreateObject() : cJSON_CreateNull();
                if (nxt == NULL)
                    return gs_diag_set(d, GS_ENOMEM, what, "out of memory");
                cJSON_AddItemToObject(cur, key, nxt);
            }
            cur = nxt;
            snprintf(done + strlen(done), sizeof done - strlen(done), ".%s",
                     key);
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
    char arr[256];
    snprintf(arr, sizeof arr, "%s", e->path);
    char *br = strrchr(arr, '[');
    if (br == NULL || br == arr)
        return gs_diag_set(d, GS_EINVAL, what, "%s is not an array element",
                           e->path);
    *br = '\0';
    cJSON *a = NULL;
    if ((rc = walk(root, arr, 0, &a, what, d)) < 0)
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
        char w[400];
        snprintf(w, sizeof w, "%s%s%s", what, what[0] ? " " : "",
                 e[i].path);
        rc = apply(root, &e[i], w, d);
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

/* --- the plan section ---------------------------------------------------- */

struct pctx {
    const char *file;
    struct gs_diag *d;
    const struct gs_scenario *s;
    const cJSON *fleet;         /* $.fleet */
    struct gs_plancfg *p;
};

static int perr(struct pctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int perr(struct pctx *c, const char *path, const char *fmt, ...)
{
    char where[600], what[512];
    snprintf(where, sizeof where, "%s: %s", c->file, path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gs_diag_set(c->d, GS_EINVAL, where, "%s", what);
}

static int keys(struct pctx *c, const cJSON *o, const char *path,
                const char *const *allowed)
{
    if (!cJSON_IsObject(o))
        return perr(c, path, "expected an object");
    for (const cJSON *it = o->child; it; it = it->next) {
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            ok |= strcmp(it->string, allowed[i]) == 0;
        if (!ok) {
            char list[512] = "";
            for (int i = 0; allowed[i]; i++) {
                strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, allowed[i], sizeof list - strlen(list) - 1);
            }
            return perr(c, path, "unknown key '%s' (allowed: %s)", it->string,
                        list);
        }
    }
    return 0;
}

#define PKEYS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static int add_target(struct pctx *c, const char *path, const char *metric,
                      double limit, int upper)
{
    struct gs_plancfg *p = c->p;
    if (p->ntargets == GS_PLAN_MAX_TARGETS)
        return perr(c, path, "more than %d targets", GS_PLAN_MAX_TARGETS);
    if (strncmp(metric, "service.", 8) != 0 && gs_run_metric_index(metric) < 0)
        return perr(c, path, "no metric '%s' (see `gpusim sweep "
                    "--list-metrics`)", metric);
    if (strncmp(metric, "service.", 8) == 0) {
        const char *dot = strrchr(metric, '.');
        int known = 0;
        for (int i = 0; i < c->s->nsvcs; i++)
            known |= strlen(c->s->svcs[i].name) == (size_t)(dot - metric - 8) &&
                     strncmp(c->s->svcs[i].name, metric + 8,
                             (size_t)(dot - metric - 8)) == 0;
        if (!known)
            return perr(c, path, "no service '%.*s' in $.services",
                        (int)(dot - metric - 8), metric + 8);
        if (gs_run_service_field(dot + 1) < 0)
            return perr(c, path, "no service metric '%s'", dot + 1);
    }
    struct gs_plan_target *t = &p->t[p->ntargets++];
    snprintf(t->metric, sizeof t->metric, "%s", metric);
    snprintf(t->path, sizeof t->path, "%s", path);
    t->limit = limit;
    t->upper = upper;
    return 0;
}

/* A duration target (seconds, or "30s"), in seconds. */
static int dur_value(struct pctx *c, const cJSON *v, const char *path,
                     double *out)
{
    gs_time t;
    if (cJSON_IsNumber(v) && v->valuedouble >= 0) {
        *out = v->valuedouble;
        return 0;
    }
    if (cJSON_IsString(v) && gs_parse_time(v->valuestring, &t) == 0) {
        *out = (double)t / 1000.0;
        return 0;
    }
    return perr(c, path, "expected a duration: seconds, or a string such as "
                "\"30s\", \"5m\"");
}

static int share_value(struct pctx *c, const cJSON *v, const char *path,
                       double *out)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1))
        return perr(c, path, "expected a share from 0 to 1");
    *out = v->valuedouble;
    return 0;
}

/* The targets of one scope (prefix "" for all jobs, "inference." ...). */
static int scope_targets(struct pctx *c, const cJSON *o, const char *path,
                         const char *prefix)
{
    static const struct { const char *key, *metric; int dur; } kt[] = {
        { "wait_mean", "wait_mean_s", 1 }, { "wait_p95", "wait_p95_s", 1 },
        { "wait_p99", "wait_p99_s", 1 }, { "sla_violations", "sla_share", 0 },
    };
    for (const cJSON *it = o->child; it; it = it->next) {
        char p[300], m[GS_PLAN_NAME];
        snprintf(p, sizeof p, "%s.%s", path, it->string);
        for (size_t k = 0; k < sizeof kt / sizeof kt[0]; k++) {
            if (strcmp(it->string, kt[k].key) != 0)
                continue;
            double v = 0;
            int rc = kt[k].dur ? dur_value(c, it, p, &v)
                               : share_value(c, it, p, &v);
            snprintf(m, sizeof m, "%s%s", prefix, kt[k].metric);
            if (rc < 0 || (rc = add_target(c, p, m, v, 1)) < 0)
                return rc;
        }
    }
    return 0;
}

static int parse_targets(struct pctx *c, const cJSON *o)
{
    const char *path = "$.plan.targets";
    int rc;
    if ((rc = keys(c, o, path, PKEYS("wait_mean", "wait_p95", "wait_p99",
                                     "sla_violations", "availability",
                                     "tiers", "services", "metrics"))) < 0 ||
        (rc = scope_targets(c, o, path, "")) < 0)
        return rc;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "availability");
    double a = 0;
    if (v && ((rc = share_value(c, v, "$.plan.targets.availability", &a)) < 0 ||
              (rc = add_target(c, "$.plan.targets.availability",
                               "availability", a, 0)) < 0))
        return rc;
    const cJSON *tiers = cJSON_GetObjectItemCaseSensitive(o, "tiers");
    if (tiers) {
        if ((rc = keys(c, tiers, "$.plan.targets.tiers",
                       PKEYS("inference", "training", "interactive",
                             "data"))) < 0)
            return rc;
        for (const cJSON *t = tiers->child; t; t = t->next) {
            char p[200], prefix[64];
            snprintf(p, sizeof p, "$.plan.targets.tiers.%s", t->string);
            snprintf(prefix, sizeof prefix, "%s.", t->string);
            if ((rc = keys(c, t, p, PKEYS("wait_mean", "wait_p95", "wait_p99",
                                          "sla_violations"))) < 0 ||
                (rc = scope_targets(c, t, p, prefix)) < 0)
                return rc;
        }
    }
    const cJSON *sv = cJSON_GetObjectItemCaseSensitive(o, "services");
    if (sv) {
        if (!cJSON_IsObject(sv))
            return perr(c, "$.plan.targets.services", "expected an object "
                        "{\"SERVICE\": {\"ttft_p99\": \"500ms\", ...}}");
        for (const cJSON *t = sv->child; t; t = t->next) {
            char p[200];
            snprintf(p, sizeof p, "$.plan.targets.services.%s", t->string);
            if ((rc = keys(c, t, p, PKEYS("ttft_mean", "ttft_p50",
                                          "ttft_p95", "ttft_p99", "itl_mean",
                                          "itl_p50", "itl_p95", "itl_p99",
                                          "e2e_mean", "e2e_p50", "e2e_p95",
                                          "e2e_p99", "attainment"))) < 0)
                return rc;
            for (const cJSON *k = t->child; k; k = k->next) {
                char pk[300], m[GS_PLAN_NAME * 2];
                double val = 0;
                snprintf(pk, sizeof pk, "%s.%s", p, k->string);
                int att = strcmp(k->string, "attainment") == 0;
                snprintf(m, sizeof m, "service.%s.%s%s", t->string,
                         att ? "sla_attainment" : k->string, att ? "" : "_s");
                if (strlen(m) >= GS_PLAN_NAME)
                    return perr(c, p, "service name too long");
                if ((rc = att ? share_value(c, k, pk, &val)
                              : dur_value(c, k, pk, &val)) < 0 ||
                    (rc = add_target(c, pk, m, val, !att)) < 0)
                    return rc;
            }
        }
    }
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(o, "metrics");
    if (ms) {
        if (!cJSON_IsObject(ms))
            return perr(c, "$.plan.targets.metrics", "expected an object");
        for (const cJSON *m = ms->child; m; m = m->next) {
            char p[300];
            snprintf(p, sizeof p, "$.plan.targets.metrics.%s", m->string);
            if ((rc = keys(c, m, p, PKEYS("max", "min"))) < 0)
                return rc;
            for (const cJSON *b = m->child; b; b = b->next) {
                char pb[340];
                snprintf(pb, sizeof pb, "%s.%s", p, b->string);
                if (!cJSON_IsNumber(b))
                    return perr(c, pb, "expected a number");
                if ((rc = add_target(c, pb, m->string, b->valuedouble,
                                     strcmp(b->string, "max") == 0)) < 0)
                    return rc;
            }
        }
    }
    if (c->p->ntargets == 0)
        return perr(c, path, "no target: give at least one (wait_p95, "
                    "sla_violations, availability, tiers, metrics)");
    return 0;
}

/* A new axis with n values (edits allocated per value later). */
static struct gs_plan_axis *new_axis(struct pctx *c, const char *path,
                                     const char *label, int n)
{
    struct gs_plancfg *p = c->p;
    if (p->naxes == GS_PLAN_MAX_AXES) {
        perr(c, path, "more than %d choices in the search space",
             GS_PLAN_MAX_AXES);
        return NULL;
    }
    if (n < 1) {
        perr(c, path, "expected a non-empty list");
        return NULL;
    }
    struct gs_plan_axis *a = &p->ax[p->naxes++];
    memset(a, 0, sizeof *a);
    snprintf(a->label, sizeof a->label, "%s", label);
    a->nvalues = n;
    a->spot_pool = -1;
    a->names = calloc((size_t)n, sizeof *a->names);
    a->nedits = calloc((size_t)n, sizeof *a->nedits);
    a->edits = calloc((size_t)n, sizeof *a->edits);
    a->share = calloc((size_t)n, sizeof *a->share);
    if (!a->names || !a->nedits || !a->edits || !a->share) {
        gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
        return NULL;
    }
    return a;
}

/* Add edit (op, path, value) to value v of axis a. */
static int add_edit(struct pctx *c, struct gs_plan_axis *a, int v, int op,
                    const char *path, const char *value)
{
    struct gs_edit *ne = realloc(a->edits[v], (size_t)(a->nedits[v] + 1) *
                                 sizeof *ne);
    if (ne == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    a->edits[v] = ne;
    struct gs_edit *e = &ne[a->nedits[v]++];
    e->op = op;
    snprintf(e->path, sizeof e->path, "%s", path);
    e->value = strdup(value);
    if (e->value == NULL)
        return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
    return 0;
}

/* Short display text of a JSON value (strings without quotes). */
static void show(const cJSON *v, char *out, size_t n)
{
    if (cJSON_IsString(v)) {
        snprintf(out, n, "%s", v->valuestring);
        return;
    }
    char *s = cJSON_PrintUnformatted(v);
    snprintf(out, n, "%s", s ? s : "?");
    free(s);
}

/* An axis setting key (a path in the scenario) to each of list's values. */
static int key_axis(struct pctx *c, const cJSON *list, const char *path,
                    const char *label, const char *key)
{
    if (!cJSON_IsArray(list))
        return perr(c, path, "expected a list of values");
    struct gs_plan_axis *a = new_axis(c, path, label,
                                      cJSON_GetArraySize(list));
    if (a == NULL)
        return c->d->code ? c->d->code : GS_EINVAL;
    int v = 0, rc;
    for (const cJSON *it = list->child; it; it = it->next, v++) {
        char *txt = cJSON_PrintUnformatted(it);
        if (txt == NULL)
            return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
        show(it, a->names[v], sizeof a->names[v]);
        rc = add_edit(c, a, v, GS_EDIT_SET, key, txt);
        free(txt);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The index in $.fleet of a pool given by name or index. */
static int pool_ref(struct pctx *c, const cJSON *v, const char *path)
{
    int n = cJSON_GetArraySize(c->fleet);
    if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
        v->valuedouble >= 0 && v->valuedouble < n)
        return (int)v->valuedouble;
    if (cJSON_IsString(v)) {
        int i = 0;
        for (const cJSON *f = c->fleet->child; f; f = f->next, i++) {
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(f, "name");
            char def[32];
            snprintf(def, sizeof def, "pool%d", i);
            if ((cJSON_IsString(nm) && strcmp(nm->valuestring,
                                              v->valuestring) == 0) ||
                (!nm && strcmp(def, v->valuestring) == 0))
                return i;
        }
    }
    return perr(c, path, "no such pool in $.fleet (give its name or its "
                "index 0..%d)", n - 1);
}

static int parse_pool(struct pctx *c, const cJSON *o, const char *path)
{
    int rc;
    if ((rc = keys(c, o, path, PKEYS("pool", "nodes", "step", "gpu",
                                     "price_per_gpu_hour", "market",
                                     "spot_share", "spot_discount", "spot", "sharing",
                                     "variants"))) < 0)
        return rc;
    char pp[300];
    snprintf(pp, sizeof pp, "%s.pool", path);
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(o, "pool");
    if (pv == NULL)
        return perr(c, path, "missing required key 'pool'");
    int pool = pool_ref(c, pv, pp);
    if (pool < 0)
        return pool;
    const cJSON *fe = cJSON_GetArrayItem(c->fleet, pool);
    if (cJSON_GetObjectItemCaseSensitive(fe, "from_node_list"))
        return perr(c, pp, "a pool read from a node list cannot be searched");
    char pname[GS_PLAN_NAME];
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(fe, "name");
    if (cJSON_IsString(nm))
        snprintf(pname, sizeof pname, "%s", nm->valuestring);
    else
        snprintf(pname, sizeof pname, "pool%d", pool);
    char fpath[64], key[128], label[GS_PLAN_NAME + 32];
    snprintf(fpath, sizeof fpath, "fleet[%d]", pool);

    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(o, "nodes");
    if (nodes) {
        char np[320];
        snprintf(np, sizeof np, "%s.nodes", path);
        double lo, hi, step = 1;
        if (cJSON_IsArray(nodes) && cJSON_GetArraySize(nodes) == 2 &&
            cJSON_IsNumber(nodes->child) && cJSON_IsNumber(nodes->child->next)) {
            lo = nodes->child->valuedouble;
            hi = nodes->child->next->valuedouble;
        } else {
            return perr(c, np, "expected [min, max] node counts");
        }
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "step");
        if (st) {
            if (!cJSON_IsNumber(st) || st->valuedouble < 1 ||
                st->valuedouble != floor(st->valuedouble))
                return perr(c, path, "step: expected a whole number >= 1");
            step = st->valuedouble;
        }
        if (lo != floor(lo) || hi != floor(hi) || lo < 0 || hi < lo ||
            hi > 100000)
            return perr(c, np, "expected whole numbers 0 <= min <= max <= "
                        "100000");
        for (int k = 0; k < c->p->ncounts; k++)
            if (c->p->counts[k].pool == pool)
                return perr(c, np, "pool '%s' is searched twice", pname);
        if (c->p->ncounts && c->p->counts[c->p->ncounts - 1].pool < 0)
            return perr(c, np, "list the searched pools before the "
                        "services");
        struct gs_plan_count *nc = realloc(c->p->counts,
                                           (size_t)(c->p->ncounts + 1) *
                                           sizeof *nc);
        if (nc == NULL)
            return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
        c->p->counts = nc;
        struct gs_plan_count *k = &nc[c->p->ncounts++];
        k->pool = pool;
        snprintf(k->key, sizeof k->key, "fleet[%d].nodes", pool);
        snprintf(k->name, sizeof k->name, "%s", pname);
        k->lo = (int)lo;
        k->hi = (int)hi;
        k->step = (int)step;
    }

    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(o, "gpu");
    const cJSON *prices = cJSON_GetObjectItemCaseSensitive(o,
                                                           "price_per_gpu_hour");
    if (prices && !gpu)
        return perr(c, path, "price_per_gpu_hour (a price per GPU model) "
                    "goes with a 'gpu' list");
    if (gpu) {
        char gp[320];
        snprintf(gp, sizeof gp, "%s.gpu", path);
        if (!cJSON_IsArray(gpu))
            return perr(c, gp, "expected a list of GPU model names");
        if (prices && !cJSON_IsObject(prices))
            return perr(c, path, "price_per_gpu_hour: expected an object "
                        "{\"MODEL\": price, ...}");
        int priced = cJSON_GetObjectItemCaseSensitive(fe, "price_per_gpu_hour")
                     || cJSON_GetObjectItemCaseSensitive(fe, "price_per_hour");
        if (priced && !prices && cJSON_GetArraySize(gpu) > 1)
            return perr(c, gp, "pool '%s' sets its own price: give "
                        "price_per_gpu_hour per model beside the gpu list",
                        pname);
        snprintf(label, sizeof label, "%s.gpu", pname);
        struct gs_plan_axis *a = new_axis(c, gp, label,
                                          cJSON_GetArraySize(gpu));
        if (a == NULL)
            return c->d->code ? c->d->code : GS_EINVAL;
        int v = 0;
        for (const cJSON *g = gpu->child; g; g = g->next, v++) {
            char gi[340], val[200];
            snprintf(gi, sizeof gi, "%s[%d]", gp, v);
            if (!cJSON_IsString(g))
                return perr(c, gi, "expected a GPU model name");
            if (gs_catalog_find(&c->s->cat, g->valuestring) < 0)
                return perr(c, gi, "unknown GPU model '%s'", g->valuestring);
            snprintf(a->names[v], sizeof a->names[v], "%s", g->valuestring);
            snprintf(key, sizeof key, "%s.gpu", fpath);
            snprintf(val, sizeof val, "\"%s\"", g->valuestring);
            if ((rc = add_edit(c, a, v, GS_EDIT_SET, key, val)) < 0)
                return rc;
            if (prices) {
                const cJSON *pr = cJSON_GetObjectItemCaseSensitive(
                    prices, g->valuestring);
                if (!cJSON_IsNumber(pr) || pr->valuedouble < 0)
                    return perr(c, path, "price_per_gpu_hour: no price for "
                                "'%s'", g->valuestring);
                snprintf(val, sizeof val, "%.17g", pr->valuedouble);
                snprintf(key, sizeof key, "%s.price_per_gpu_hour", fpath);
                if ((rc = add_edit(c, a, v, GS_EDIT_SET, key, val)) < 0)
                    return rc;
            }
        }
    }
    static const char *const listed[] = { "market", "sharing", NULL };
    for (int i = 0; listed[i]; i++) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(o, listed[i]);
        if (l == NULL)
            continue;
        char lp[320];
        snprintf(lp, sizeof lp, "%s.%s", path, listed[i]);
        snprintf(label, sizeof label, "%s.%s", pname, listed[i]);
        snprintf(key, sizeof key, "%s.%s", fpath, listed[i]);
        if ((rc = key_axis(c, l, lp, label, key)) < 0)
            return rc;
    }
    const cJSON *var = cJSON_GetObjectItemCaseSensitive(o, "variants");
    if (var) {
        char vp[320];
        snprintf(vp, sizeof vp, "%s.variants", path);
        if (!cJSON_IsArray(var))
            return perr(c, vp, "expected a list of objects of pool keys");
        snprintf(label, sizeof label, "%s.variant", pname);
        struct gs_plan_axis *a = new_axis(c, vp, label,
                                          cJSON_GetArraySize(var));
        if (a == NULL)
            return c->d->code ? c->d->code : GS_EINVAL;
        int v = 0;
        for (const cJSON *it = var->child; it; it = it->next, v++) {
            char ip[340];
            snprintf(ip, sizeof ip, "%s[%d]", vp, v);
            if (!cJSON_IsObject(it))
                return perr(c, ip, "expected an object of pool keys");
            show(it, a->names[v], sizeof a->names[v]);
            for (const cJSON *kv = it->child; kv; kv = kv->next) {
                char *txt = cJSON_PrintUnformatted(kv);
                snprintf(key, sizeof key, "%s.%s", fpath, kv->string);
                rc = txt ? add_edit(c, a, v, GS_EDIT_SET, key, txt)
                         : gs_diag_set(c->d, GS_ENOMEM, c->file, "no memory");
                free(txt);
                if (rc < 0)
                    return rc;
            }
        }
    }
    const cJSON *spot = cJSON_GetObjectItemCaseSensitive(o, "spot_share");
    if (!spot && (cJSON_GetObjectItemCaseSensitive(o, "spot_discount") ||
                  cJSON_GetObjectItemCaseSensitive(o, "spot")))
        return perr(c, path, "spot_discount and spot go with spot_share");
    if (spot) {
        char sp[320];
        snprintf(sp, sizeof sp, "%s.spot_share", path);
        if (!nodes)
            return perr(c, sp, "a spot share splits a searched node count: "
                        "give 'nodes' too");
        if (!cJSON_IsArray(spot))
            return perr(c, sp, "expected a list of shares from 0 to 1");
        snprintf(label, sizeof label, "%s.spot_share", pname);
        struct gs_plan_axis *a = new_axis(c, sp, label,
                                          cJSON_GetArraySize(spot));
        if (a == NULL)
            return c->d->code ? c->d->code : GS_EINVAL;
        a->spot_pool = pool;
        a->spot_discount = 0.7;
        const cJSON *dsc = cJSON_GetObjectItemCaseSensitive(o,
                                                            "spot_discount");
        if (dsc && (!cJSON_IsNumber(dsc) || !(dsc->valuedouble >= 0 &&
                                               dsc->valuedouble < 1)))
            return perr(c, path, "spot_discount: expected a fraction in "
                        "[0, 1)");
        if (dsc)
            a->spot_discount = dsc->valuedouble;
        const cJSON *scfg = cJSON_GetObjectItemCaseSensitive(o, "spot");
        if (scfg == NULL)
            scfg = cJSON_GetObjectItemCaseSensitive(fe, "spot");
        if (!cJSON_IsObject(scfg))
            return perr(c, path, "spot_share needs the spot pool's \"spot\" "
                        "object (e.g. {\"interruptions_per_hour\": 0.05}; "
                        "docs/cloud.md)");
        if ((a->spot_cfg = cJSON_PrintUnformatted(scfg)) == NULL)
            return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
        if (gpu && prices)
            snprintf(a->spot_key, sizeof a->spot_key, "price_per_gpu_hour");
        else if (cJSON_GetObjectItemCaseSensitive(fe, "price_per_gpu_hour"))
            snprintf(a->spot_key, sizeof a->spot_key, "price_per_gpu_hour");
        else if (cJSON_GetObjectItemCaseSensitive(fe, "price_per_hour"))
            snprintf(a->spot_key, sizeof a->spot_key, "price_per_hour");
        int v = 0;
        for (const cJSON *it = spot->child; it; it = it->next, v++) {
            char ip[340];
            snprintf(ip, sizeof ip, "%s[%d]", sp, v);
            if ((rc = share_value(c, it, ip, &a->share[v])) < 0)
                return rc;
            snprintf(a->names[v], sizeof a->names[v], "%g", a->share[v]);
        }
    }
    return 0;
}

/* search.services[]: {"service": NAME, "replicas": [min, max], "tp": [..],
 * "gpu": [..]} -- the replica count is bisected, the rest are axes. */
static int parse_service(struct pctx *c, const cJSON *o, const char *path)
{
    int rc;
    if ((rc = keys(c, o, path, PKEYS("service", "replicas", "tp", "gpu"))) < 0)
        return rc;
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(o, "service");
    int si = -1;
    for (int i = 0; cJSON_IsString(nm) && i < c->s->nsvcs; i++)
        if (strcmp(c->s->svcs[i].name, nm->valuestring) == 0)
            si = i;
    if (si < 0)
        return perr(c, path, "'service' must name a service of $.services");
    char key[96], label[GS_PLAN_NAME + 16], lp[200];
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "replicas");
    if (r) {
        snprintf(lp, sizeof lp, "%s.replicas", path);
        if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) != 2 ||
            !cJSON_IsNumber(r->child) || !cJSON_IsNumber(r->child->next))
            return perr(c, lp, "expected [min, max] replica counts");
        double lo = r->child->valuedouble, hi = r->child->next->valuedouble;
        if (lo != floor(lo) || hi != floor(hi) || lo < 1 || hi < lo ||
            hi > 100000)
            return perr(c, lp, "expected whole numbers 1 <= min <= max");
        struct gs_plan_count *nc = realloc(c->p->counts,
                                           (size_t)(c->p->ncounts + 1) *
                                           sizeof *nc);
        if (nc == NULL)
            return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
        c->p->counts = nc;
        struct gs_plan_count *k = &nc[c->p->ncounts++];
        k->pool = -1;
        snprintf(k->key, sizeof k->key, "services[%d].replicas", si);
        snprintf(k->name, sizeof k->name, "%.80s", nm->valuestring);
        k->lo = (int)lo;
        k->hi = (int)hi;
        k->step = 1;
    }
    static const char *const listed[] = { "tp", "gpu", NULL };
    for (int i = 0; listed[i]; i++) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(o, listed[i]);
        if (l == NULL)
            continue;
        snprintf(lp, sizeof lp, "%s.%s", path, listed[i]);
        snprintf(label, sizeof label, "%.80s.%s", nm->valuestring, listed[i]);
        snprintf(key, sizeof key, "services[%d].%s", si, listed[i]);
        if ((rc = key_axis(c, l, lp, label, key)) < 0)
            return rc;
    }
    return 0;
}

/* $.plan.search.KEY, when given: a list whose items fn parses, each with
 * its own path. */
static int parse_list(struct pctx *c, const cJSON *o, const char *key,
                      int (*fn)(struct pctx *, const cJSON *, const char *))
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(o, key);
    if (l == NULL)
        return 0;
    char p[64];
    snprintf(p, sizeof p, "$.plan.search.%s", key);
    if (!cJSON_IsArray(l))
        return perr(c, p, "expected a list");
    int i = 0, rc;
    for (const cJSON *it = l->child; it; it = it->next, i++) {
        snprintf(p, sizeof p, "$.plan.search.%s[%d]", key, i);
        if ((rc = fn(c, it, p)) < 0)
            return rc;
    }
    return 0;
}

static int parse_search(struct pctx *c, const cJSON *o)
{
    const char *path = "$.plan.search";
    int rc;
    if ((rc = keys(c, o, path, PKEYS("pools", "services", "policies",
                                     "choices"))) < 0)
        return rc;
    if ((rc = parse_list(c, o, "pools", parse_pool)) < 0 ||
        (rc = parse_list(c, o, "services", parse_service)) < 0)
        return rc;
    const cJSON *pol = cJSON_GetObjectItemCaseSensitive(o, "policies");
    if (pol && (rc = key_axis(c, pol, "$.plan.search.policies", "policy",
                              "policy")) < 0)
        return rc;
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(o, "choices");
    if (ch) {
        if (!cJSON_IsArray(ch))
            return perr(c, "$.plan.search.choices", "expected a list");
        int i = 0;
        for (const cJSON *it = ch->child; it; it = it->next, i++) {
            char p[64], vp[80];
            snprintf(p, sizeof p, "$.plan.search.choices[%d]", i);
            snprintf(vp, sizeof vp, "%s.values", p);
            if ((rc = keys(c, it, p, PKEYS("key", "values"))) < 0)
                return rc;
            const cJSON *k = cJSON_GetObjectItemCaseSensitive(it, "key");
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "values");
            if (!cJSON_IsString(k) || v == NULL)
                return perr(c, p, "expected {\"key\": \"a.key[0].path\", "
                            "\"values\": [...]}");
            if ((rc = key_axis(c, v, vp, k->valuestring, k->valuestring)) < 0)
                return rc;
        }
    }
    if (c->p->ncounts == 0 && c->p->naxes == 0)
        return perr(c, path, "an empty search space: give pools with node "
                    "ranges, policies or choices");
    return 0;
}

int gs_plancfg_parse(const struct cJSON *o, const struct cJSON *root,
                     const char *file, const struct gs_scenario *s,
                     struct gs_plancfg **out, struct gs_diag *d)
{
    struct gs_plancfg *p = calloc(1, sizeof *p);
    if (p == NULL)
        return gs_diag_set(d, GS_ENOMEM, file, "out of memory");
    p->seeds = 5;
    p->min_seeds = 3;
    p->hours_per_month = 730;
    struct pctx c = { file, d, s, cJSON_GetObjectItemCaseSensitive(root,
                                                                  "fleet"), p };
    int rc;
    if ((rc = keys(&c, o, "$.plan", PKEYS("targets", "search", "objective",
                                          "seeds", "min_seeds",
                                          "growth"))) < 0)
        goto fail;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "targets");
    const cJSON *se = cJSON_GetObjectItemCaseSensitive(o, "search");
    if (t == NULL) {
        rc = perr(&c, "$.plan", "missing required key 'targets'");
        goto fail;
    }
    if (se == NULL) {
        rc = perr(&c, "$.plan", "missing required key 'search'");
        goto fail;
    }
    if ((rc = parse_targets(&c, t)) < 0 || (rc = parse_search(&c, se)) < 0)
        goto fail;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "objective");
    if (v && cJSON_IsString(v) &&
        strcmp(v->valuestring, "cost_per_million_tokens") == 0) {
        p->objective = 1;
        if (s->nsvcs == 0) {
            rc = perr(&c, "$.plan.objective", "cost per million tokens needs "
                      "inference services ($.services)");
            goto fail;
        }
    } else if (v && !(cJSON_IsString(v) &&
                      strcmp(v->valuestring, "cost_per_month") == 0)) {
        rc = perr(&c, "$.plan.objective", "unknown objective (known: "
                  "cost_per_month, cost_per_million_tokens)");
        goto fail;
    }
    static const char *const ints[] = { "seeds", "min_seeds" };
    for (int i = 0; i < 2; i++) {
        v = cJSON_GetObjectItemCaseSensitive(o, ints[i]);
        if (v == NULL)
            continue;
        if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
            v->valuedouble < 2 || v->valuedouble > 1000) {
            char p2[64];
            snprintf(p2, sizeof p2, "$.plan.%s", ints[i]);
            rc = perr(&c, p2, "expected a whole number from 2 to 1000 (a "
                      "confidence interval needs two seeds)");
            goto fail;
        }
        *(i ? &p->min_seeds : &p->seeds) = (int)v->valuedouble;
    }
    if (p->min_seeds > p->seeds)
        p->min_seeds = p->seeds;
    v = cJSON_GetObjectItemCaseSensitive(o, "growth");
    if (v) {
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > 16) {
            rc = perr(&c, "$.plan.growth", "expected a list of up to 16 load "
                      "factors");
            goto fail;
        }
        for (const cJSON *g = v->child; g; g = g->next) {
            if (!cJSON_IsNumber(g) || !(g->valuedouble > 0 &&
                                        g->valuedouble <= 1000)) {
                rc = perr(&c, "$.plan.growth", "a load factor must be a "
                          "number in (0, 1000]");
                goto fail;
            }
            p->growth[p->ngrowth++] = g->valuedouble;
        }
    }
    *out = p;
    return 0;
fail:
    gs_plancfg_free(p);
    return rc;
}

void gs_plancfg_free(struct gs_plancfg *p)
{
    if (p == NULL)
        return;
    for (int a = 0; a < p->naxes; a++) {
        struct gs_plan_axis *ax = &p->ax[a];
        for (int v = 0; v < ax->nvalues && ax->edits; v++) {
            for (int e = 0; ax->nedits && e < ax->nedits[v]; e++)
                free(ax->edits[v][e].value);
            free(ax->edits[v]);
        }
        free(ax->edits);
        free(ax->nedits);
        free(ax->names);
        free(ax->share);
        free(ax->spot_cfg);
    }
    free(p->counts);
    free(p);
}
