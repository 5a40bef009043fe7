/* scparse.c -- what every section of the scenario parser uses, the
 * parser's own (setup/) and the models' (scsection.h): messages, the
 * catalog's GPU names, default prices, host resources, paths beside the
 * scenario, and laws of durations and counts.
 *
 * The lowest of the parser's files (scparse.h): the sections call it and
 * it calls none of them.  Its tables (host resources, distributions, the
 * tiers' and markets' names) are shared by several sections' tables. */
#include "scparse.h"
#include "../base/datapath.h"
#include "../base/path.h"
#include "../base/suggest.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gs_sc_err(struct gs_sc *c, const char *path, const char *fmt, ...)
{
    struct gs_jin in = gs_sc_jin(c);
    va_list ap;
    va_start(ap, fmt);
    int rc = gs_json_verr(&in, path, fmt, ap);
    va_end(ap);
    return rc;
}

int gs_sc_oom(struct gs_sc *c)
{
    return gs_diag_set(c->d, GS_ENOMEM, c->file, "out of memory");
}

const char *const gs_sc_tier_names[] = {
    "inference", "training", "interactive", "data", NULL
};

const char *const gs_sc_market_names[] = {
    "on-demand", "reserved", "spot", "capacity-block", NULL
};

int gs_sc_model_ref(struct gs_sc *c, const cJSON *o, const char *path,
                    const char *key, int req, int *out)
{
    char name[GS_MODEL_NAME] = "";
    struct gs_jin in = gs_sc_jin(c);
    int rc = gs_json_str(&in, GJ(o), path, key, req, name, sizeof name);
    if (rc < 0 || name[0] == '\0')
        return rc;
    int m = gs_catalog_find(&c->s->cat, name);
    if (m < 0) {
        char list[768] = "";
        GS_JSON_PATH(p);
        gs_json_path_key(&p, path, key);
        const char *names[GS_MAX_MODELS + 1];
        for (int i = 0; i < c->s->cat.n; i++)
            names[i] = c->s->cat.m[i].name;
        names[c->s->cat.n] = NULL;
        const char *near = gs_suggest(name, names);
        if (near)
            return gs_sc_err(c, p, "unknown GPU model '%s' (did you mean "
                             "'%s'? or declare it under gpu_models)", name,
                             near);
        for (int i = 0; i < c->s->cat.n; i++) {
            strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, c->s->cat.m[i].name, sizeof list - strlen(list) - 1);
        }
        return gs_sc_err(c, p, "unknown GPU model '%s' (known: %s; declare "
                         "others under gpu_models)", name, list);
    }
    *out = m;
    return 0;
}

/* --- prices -------------------------------------------------------------- */

double gs_sc_default_gpu_price(const char *model)
{
    if (strcmp(model, "H100-80GB") == 0)
        return 6.88;
    if (strcmp(model, "A100-80GB") == 0)
        return 5.12;
    if (strcmp(model, "A100-40GB") == 0)
        return 4.10;
    return 0.0;
}

/* The on-demand price of one node of ps when the scenario gives none: the
 * built-in per-GPU price times its GPUs; for nodes without GPUs,
 * m7i.16xlarge's price per vCPU (AWS us-east-1, 2025: $3.2256/h for 64
 * vCPUs and 256 GiB) times the node's vCPUs. */
double gs_sc_default_node_price(const struct gs_scenario *s,
                                const struct gs_pool_spec *ps)
{
    if (ps->gpn > 0)
        return gs_sc_default_gpu_price(s->cat.m[ps->model].name) * ps->gpn;
    int32_t hc, hm;
    gs_pool_host(&s->cat, ps, &hc, &hm);
    return 3.2256 / 64.0 * (double)hc / 1000.0;
}

/* The host-resource keys of a tier or a generator class: CPU (milli-cores)
 * and memory (MiB) per GPU asked, and for a job asking no GPU. */
const struct gs_kt_key gs_sc_k_host[] = {
    GS_K_INT("cpu_milli_per_gpu", 0, 2000000000, 0, "millicores",
             "host CPU a job asks per GPU"),
    GS_K_INT("mem_mib_per_gpu", 0, 2000000000, 0, "MiB",
             "host memory a job asks per GPU"),
    GS_K_INT("cpu_milli", 0, 2000000000, 0, "millicores",
             "host CPU a job asking no GPU asks"),
    GS_K_INT("mem_mib", 0, 2000000000, 0, "MiB",
             "host memory a job asking no GPU asks"),
    GS_K_END
};

static const struct gs_kt_obj t_host = {
    .id = "host", .keys = gs_sc_k_host
};

int gs_sc_host_keys(struct gs_sc *c, const cJSON *o, const char *p,
                    int32_t *cpu_gpu, int32_t *mem_gpu, int32_t *cpu,
                    int32_t *mem)
{
    long v[4] = { *cpu_gpu, *mem_gpu, *cpu, *mem };
    for (int i = 0; i < 4; i++) {
        int rc = gs_sc_int(c, o, p, &t_host, gs_sc_k_host[i].name, &v[i]);
        if (rc < 0)
            return rc;
    }
    *cpu_gpu = (int32_t)v[0];
    *mem_gpu = (int32_t)v[1];
    *cpu = (int32_t)v[2];
    *mem = (int32_t)v[3];
    return 0;
}

/* --- distributions ------------------------------------------------------- */

static const char *const dist_kinds[] = {
    "constant", "exponential", "lognormal", "pareto", "uniform", "weibull",
    "empirical", NULL
};

#define T_DUR(n, d) \
    { .name = (n), .type = GS_KT_DUR, .unit = "s", .desc = (d) }
#define T_COUNT(n, d) \
    { .name = (n), .type = GS_KT_NUM, .lo = 0, .hi = 9e9, .desc = (d) }

static const struct gs_kt_key k_dist[] = {
    { .name = "dist", .type = GS_KT_STR, .flags = GS_KF_REQ, .maxlen = 31,
      .names = dist_kinds, .desc = "the distribution" },
    T_DUR("mean", "exponential: the mean; lognormal: the mean (or give "
          "median)"),
    T_DUR("median", "lognormal: the median"),
    GS_K_NUM("sigma", 0, 20, 0, NULL, "lognormal: sigma of the log"),
    T_DUR("value", "constant: the value (> 0)"),
    T_DUR("min", "pareto: the scale (> 0); uniform: the low end"),
    T_DUR("max", "uniform: the high end; the others: truncated at it"),
    GS_K_NUM("alpha", 1e-6, 1e3, 0, NULL, "pareto: the shape"),
    T_DUR("scale", "weibull: the scale"),
    GS_K_NUM("shape", 1e-6, 1e3, 0, NULL, "weibull: the shape"),
    { .name = "quantiles", .type = GS_KT_ARR, .items = GS_KT_DUR,
      .min_items = 2, .max_items = GS_GEN_MAX_POINTS, .unit = "s",
      .desc = "empirical: durations at equally spaced probabilities from 0 "
      "to 1, not decreasing" },
    GS_K_END
};

static const struct gs_kt_rule r_dist[] = {
    { .cond = GS_KC_IS, .key = "dist", .val = "constant", .need = "value" },
    { .cond = GS_KC_IS, .key = "dist", .val = "exponential", .need = "mean" },
    { .cond = GS_KC_IS, .key = "dist", .val = "lognormal", .need = "sigma",
      .any = "median mean" },
    { .cond = GS_KC_IS, .key = "dist", .val = "pareto",
      .need = "min alpha" },
    { .cond = GS_KC_IS, .key = "dist", .val = "uniform", .need = "max" },
    { .cond = GS_KC_IS, .key = "dist", .val = "weibull",
      .need = "scale shape" },
    { .cond = GS_KC_IS, .key = "dist", .val = "empirical",
      .need = "quantiles" },
    { 0 }
};

const struct gs_kt_obj gs_sc_t_dist = {
    .id = "distribution", .desc = "a law of durations (docs/traces.md)",
    .keys = k_dist, .rules = r_dist
};

/* Counts (token lengths): the same keys, numbers only. */
static const struct gs_kt_key k_counts[] = {
    { .name = "dist", .type = GS_KT_STR, .flags = GS_KF_REQ, .maxlen = 31,
      .names = dist_kinds, .desc = "the distribution" },
    T_COUNT("mean", "exponential: the mean; lognormal: the mean (or give "
            "median)"),
    T_COUNT("median", "lognormal: the median"),
    GS_K_NUM("sigma", 0, 20, 0, NULL, "lognormal: sigma of the log"),
    T_COUNT("value", "constant: the value (> 0)"),
    T_COUNT("min", "pareto: the scale (> 0); uniform: the low end"),
    T_COUNT("max", "uniform: the high end; the others: truncated at it"),
    GS_K_NUM("alpha", 1e-6, 1e3, 0, NULL, "pareto: the shape"),
    T_COUNT("scale", "weibull: the scale"),
    GS_K_NUM("shape", 1e-6, 1e3, 0, NULL, "weibull: the shape"),
    { .name = "quantiles", .type = GS_KT_ARR, .items = GS_KT_NUM,
      .lo = 0, .hi = 9e9, .min_items = 2, .max_items = GS_GEN_MAX_POINTS,
      .desc = "empirical: counts at equally spaced probabilities from 0 "
      "to 1, not decreasing" },
    GS_K_END
};

const struct gs_kt_obj gs_sc_t_counts = {
    .id = "count_distribution", .desc = "a law of token counts (numbers, "
    "not durations)", .keys = k_counts, .rules = r_dist
};

/* An empirical law's quantiles q (at qp) into d. */
static int quantiles(struct gs_sc *c, const cJSON *q, const char *qp,
                     struct gs_distspec *d)
{
    int i = 0;
    for (const cJSON *e = q->child; e; e = e->next, i++) {
        gs_time t = 0;
        if (cJSON_IsNumber(e) && e->valuedouble >= 0 &&
            e->valuedouble < 9.0e12)
            t = (gs_time)llround(e->valuedouble * 1000.0);
        else if (!cJSON_IsString(e) ||
                 gs_parse_time(e->valuestring, &t) < 0)
            return gs_sc_err(c, qp, "element %d is not a duration", i);
        if (i > 0 && (double)t < d->pts[i - 1])
            return gs_sc_err(c, qp, "element %d is below the one before: "
                             "quantiles must not decrease", i);
        d->pts[i] = (double)t;
    }
    if (d->pts[d->npoints - 1] <= 0)
        return gs_sc_err(c, qp, "the largest quantile must be above 0");
    return 0;
}

/* The law named kind from the values read; 1 when kind is unknown. */
static int dist_law(struct gs_sc *c, const char *path, const char *kind,
                    const gs_time *t, const double *x, struct gs_distspec *d)
{
    gs_time mean = t[0], median = t[1], value = t[2], mn = t[3], mx = t[4],
            scale = t[5];
    double sigma = x[0], alpha = x[1], shape = x[2];
    if (strcmp(kind, "constant") == 0) {
        if (value <= 0)
            return gs_sc_err(c, path, "constant needs \"value\" > 0");
        *d = (struct gs_distspec){ .kind = GS_DIST_CONSTANT,
                                   .a = (double)value };
    } else if (strcmp(kind, "exponential") == 0) {
        if (mean <= 0)
            return gs_sc_err(c, path, "exponential needs \"mean\" > 0");
        *d = (struct gs_distspec){ .kind = GS_DIST_EXPONENTIAL,
                                   .a = (double)mean, .max = (double)mx };
    } else if (strcmp(kind, "lognormal") == 0) {
        if (sigma < 0 || (median <= 0 && mean <= 0))
            return gs_sc_err(c, path, "lognormal needs \"sigma\" and "
                             "\"median\" (or \"mean\")");
        double mu = median > 0 ? log((double)median)
                               : log((double)mean) - sigma * sigma / 2;
        *d = (struct gs_distspec){ .kind = GS_DIST_LOGNORMAL, .a = mu,
                                   .b = sigma, .max = (double)mx };
    } else if (strcmp(kind, "pareto") == 0) {
        if (mn <= 0 || alpha <= 0)
            return gs_sc_err(c, path, "pareto needs \"min\" > 0 and "
                             "\"alpha\"");
        *d = (struct gs_distspec){ .kind = GS_DIST_PARETO, .a = (double)mn,
                                   .b = alpha, .max = (double)mx };
    } else if (strcmp(kind, "uniform") == 0) {
        if (mx <= mn)
            return gs_sc_err(c, path, "uniform needs \"min\" < \"max\"");
        *d = (struct gs_distspec){ .kind = GS_DIST_UNIFORM,
                                   .a = (double)mn, .b = (double)mx };
    } else if (strcmp(kind, "weibull") == 0) {
        if (scale <= 0 || shape <= 0)
            return gs_sc_err(c, path, "weibull needs \"scale\" and "
                             "\"shape\"");
        *d = (struct gs_distspec){ .kind = GS_DIST_WEIBULL,
                                   .a = (double)scale, .b = shape,
                                   .max = (double)mx };
    } else {
        return 1;
    }
    return 0;
}

int gs_sc_parse_dist(struct gs_sc *c, const cJSON *o, const char *path,
                     struct gs_distspec *d)
{
    const struct gs_kt_obj *tb = &gs_sc_t_dist;
    char kind[32] = "";
    int rc;
    if ((rc = gs_sc_keys(c, o, path, tb)) < 0 ||
        (rc = gs_sc_str(c, o, path, tb, "dist", kind, sizeof kind)) < 0)
        return rc;
    static const char *const tk[6] = { "mean", "median", "value", "min",
                                       "max", "scale" };
    static const char *const xk[3] = { "sigma", "alpha", "shape" };
    gs_time t[6] = { 0 };
    double x[3] = { -1, -1, -1 };
    for (int i = 0; i < 6; i++)
        if ((rc = gs_sc_time(c, o, path, tb, tk[i], &t[i])) < 0)
            return rc;
    for (int i = 0; i < 3; i++)
        if ((rc = gs_sc_num(c, o, path, tb, xk[i], &x[i])) < 0)
            return rc;
    d->max = (double)t[4];
    if ((rc = dist_law(c, path, kind, t, x, d)) <= 0)
        return rc;
    if (strcmp(kind, "empirical") == 0) {
        /* Quantiles at probabilities 0, 1/(n-1), ..., 1. */
        const cJSON *q = cJSON_GetObjectItemCaseSensitive(o, "quantiles");
        GS_JSON_PATH(qp);
        gs_json_path_key(&qp, path, "quantiles");
        int n = cJSON_GetArraySize(q);
        if (!cJSON_IsArray(q) || n < 2 || n > GS_GEN_MAX_POINTS)
            return gs_sc_err(c, q ? qp : path, "empirical needs "
                             "\"quantiles\": 2 to %d durations at equally "
                             "spaced probabilities from 0 to 1",
                             GS_GEN_MAX_POINTS);
        *d = (struct gs_distspec){ .kind = GS_DIST_EMPIRICAL,
                                   .max = (double)t[4], .npoints = n };
        return quantiles(c, q, qp, d);
    }
    GS_JSON_PATH(p);
    return gs_sc_err(c, gs_json_path_key(&p, path, "dist"), "unknown "
                     "distribution '%s' (known: constant, exponential, "
                     "lognormal, pareto, uniform, weibull, empirical)", kind);
}

int gs_sc_dist_or_time(struct gs_sc *c, const cJSON *o, const char *path,
                       const char *key, struct gs_distspec *out)
{
    GS_JSON_PATH(p);
    gs_json_path_key(&p, path, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (v == NULL)
        return 0;
    if (cJSON_IsObject(v))
        return gs_sc_parse_dist(c, v, p, out);
    gs_time t = 0;
    struct gs_jin in = gs_sc_jin(c);
    int rc = gs_json_time(&in, GJ(o), path, key, 1, &t);
    if (rc < 0)
        return rc;
    *out = (struct gs_distspec){ .kind = GS_DIST_CONSTANT, .a = (double)t };
    return 0;
}

/* A path relative to the scenario's folder: *out is malloc'ed (the
 * caller owns it; the scenario's fields are freed by gs_scenario_free), or
 * NULL when the key is absent or empty.  A path the system could not open
 * (PATH_MAX or more bytes once resolved) is refused here, naming the key. */
int gs_sc_file_path(struct gs_sc *c, const cJSON *o, const char *path,
                    const char *key, char **out)
{
    char *name = NULL;
    struct gs_jin in = gs_sc_jin(c);
    int rc = gs_json_strdup(&in, GJ(o), path, key, 0, &name);
    *out = NULL;
    if (rc < 0 || name == NULL || name[0] == '\0') {
        free(name);
        return rc;
    }
    char *full = gs_data_path(c->s->trace_dir, name);
    free(name);
    if (full == NULL)
        return gs_sc_oom(c);
    if (strlen(full) >= PATH_MAX) {
        GS_JSON_PATH(p);
        free(full);
        return gs_sc_err(c, gs_json_path_key(&p, path, key), "the path is %d bytes or longer once resolved "
                         "(PATH_MAX)", PATH_MAX);
    }
    *out = full;
    return 0;
}

/* The whole of file as a NUL-terminated string (caller frees), and its
 * folder (caller frees; dir may be NULL when not wanted).  file must be a
 * regular file (a device such as /dev/zero or a FIFO never ends, and is
 * refused by kind before anything is read) of at most GS_SCENARIO_MAX
 * bytes, checked before reading and again while reading (a file that
 * grows).  0 or a negative code with d filled. */
int gs_sc_read_text(const char *file, char **text, char **dir,
                     struct gs_diag *d)
{
    *text = NULL;
    if (dir)
        *dir = NULL;
    FILE *fp;
    int rc = gs_fopen_regular(file, "a scenario or JSON input",
                              GS_SCENARIO_MAX, &fp, d);
    if (rc < 0)
        return rc;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 + 1 > cap) {
            cap = cap ? cap * 2 : 131072;
            char *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(fp);
                return gs_diag_set(d, GS_ENOMEM, file, "out of memory");
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, 65536, fp);
        len += got;
        if (got == 0)
            break;
        if (len > GS_SCENARIO_MAX) {
            free(buf);
            fclose(fp);
            return gs_diag_set(d, GS_EINVAL, file, "over the %d MiB a "
                               "scenario may have", GS_SCENARIO_MAX >> 20);
        }
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        return gs_diag_set(d, GS_EIO, file, "read error");
    }
    buf[len] = '\0';
    if (strlen(buf) != len) {
        free(buf);
        return gs_diag_set(d, GS_EPARSE, file, "not a text file (NUL byte)");
    }
    if (dir && (*dir = gs_path_dir(file)) == NULL) {
        free(buf);
        return gs_diag_set(d, GS_ENOMEM, file, "out of memory");
    }
    *text = buf;
    return 0;
}

