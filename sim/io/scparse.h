/* scparse.h -- what a section of the scenario's parser uses, whoever owns
 * the section: the parse in progress, messages, the table-driven getters
 * (keytab.h) on a cJSON node, the catalog's GPU names, default prices,
 * host resources, paths beside the scenario, and laws of durations and
 * counts (scparse.c).
 *
 * The parser (setup/scenario.c and its sections, setup/scenint.h) and the
 * sections a model reads itself (scsection.h: the inference model's
 * $.services, inference/svcparse.c) include it; with jsonio.c they are
 * the only files that see cJSON.  It calls none of them. */
#ifndef GS_SCPARSE_H
#define GS_SCPARSE_H

#include "keytab.h"
#include "scsection.h"
#include "../spec/scenario.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* The parse in progress. */
struct gs_sc {
    const char *file;
    struct gs_diag *d;
    struct gs_scenario *s;
    const cJSON *root;
    int *first;                 /* $.fleet[i] made pools first[i] ..
                                   first[i+1]-1 */
};

/* A cJSON node as jsonio.h's opaque struct gs_json. */
#define GJ(o) ((const struct gs_json *)(const void *)(o))

static inline struct gs_jin gs_sc_jin(const struct gs_sc *c)
{
    return (struct gs_jin){ c->file, c->d };
}

/* "FILE: PATH: WHAT" into c->d; returns GS_EINVAL. */
int gs_sc_err(struct gs_sc *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* GS_ENOMEM with "out of memory" in c->d. */
int gs_sc_oom(struct gs_sc *c);

/* The table-driven getters (keytab.h) on a cJSON node. */
static inline int gs_sc_keys(struct gs_sc *c, const cJSON *o, const char *p,
                             const struct gs_kt_obj *t)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_keys(&in, GJ(o), p, t);
}

static inline int gs_sc_keys_only(struct gs_sc *c, const cJSON *o,
                                  const char *p, const struct gs_kt_obj *t,
                                  const char *only)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_keys_only(&in, GJ(o), p, t, only);
}

static inline int gs_sc_need(struct gs_sc *c, const cJSON *o, const char *p,
                             const char *key)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_need(&in, GJ(o), p, key);
}

static inline int gs_sc_num(struct gs_sc *c, const cJSON *o, const char *p,
                            const struct gs_kt_obj *t, const char *key,
                            double *out)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_num(&in, GJ(o), p, t, key, out);
}

static inline int gs_sc_int(struct gs_sc *c, const cJSON *o, const char *p,
                            const struct gs_kt_obj *t, const char *key,
                            long *out)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_int(&in, GJ(o), p, t, key, out);
}

static inline int gs_sc_str(struct gs_sc *c, const cJSON *o, const char *p,
                            const struct gs_kt_obj *t, const char *key,
                            char *out, size_t n)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_str(&in, GJ(o), p, t, key, out, n);
}

static inline int gs_sc_bool(struct gs_sc *c, const cJSON *o, const char *p,
                             const struct gs_kt_obj *t, const char *key,
                             int *out)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_bool(&in, GJ(o), p, t, key, out);
}

static inline int gs_sc_time(struct gs_sc *c, const cJSON *o, const char *p,
                             const struct gs_kt_obj *t, const char *key,
                             gs_time *out)
{
    struct gs_jin in = gs_sc_jin(c);
    return gs_kt_time(&in, GJ(o), p, t, key, out);
}


/* Key-table entry helpers (designated initializers, in the tables). */
#define GS_K_STR(n, len, fl, d) \
    { .name = (n), .type = GS_KT_STR, .flags = (fl), .maxlen = (len), \
      .desc = (d) }
#define GS_K_NUM(n, l, h, fl, u, d) \
    { .name = (n), .type = GS_KT_NUM, .flags = (fl), .lo = (l), .hi = (h), \
      .unit = (u), .desc = (d) }
#define GS_K_INT(n, l, h, fl, u, d) \
    { .name = (n), .type = GS_KT_INT, .flags = (fl), .lo = (l), .hi = (h), \
      .unit = (u), .desc = (d) }
#define GS_K_BOOL(n, d) { .name = (n), .type = GS_KT_BOOL, .desc = (d) }
#define GS_K_DUR(n, fl, d) \
    { .name = (n), .type = GS_KT_DUR, .flags = (fl), .unit = "s", \
      .desc = (d) }
#define GS_K_OBJ(n, o, fl, d) \
    { .name = (n), .type = GS_KT_OBJ, .flags = (fl), .obj = (o), .desc = (d) }
#define GS_K_OBJS(n, o, fl, d) \
    { .name = (n), .type = GS_KT_ARR, .items = GS_KT_OBJ, .flags = (fl), \
      .obj = (o), .desc = (d) }
#define GS_K_END { .name = NULL }

/* Tables and names several sections share (scparse.c). */
extern const struct gs_kt_obj gs_sc_t_dist, gs_sc_t_counts;
extern const struct gs_kt_key gs_sc_k_host[];          /* tiers, classes */
extern const char *const gs_sc_tier_names[];
extern const char *const gs_sc_market_names[];

/* --- scparse.c: what every section uses ---------------------------------- */
int gs_sc_model_ref(struct gs_sc *c, const cJSON *o, const char *path,
                    const char *key, int req, int *out);
double gs_sc_default_gpu_price(const char *model);
double gs_sc_default_node_price(const struct gs_scenario *s,
                                const struct gs_pool_spec *ps);
int gs_sc_host_keys(struct gs_sc *c, const cJSON *o, const char *p,
                    int32_t *cpu_gpu, int32_t *mem_gpu, int32_t *cpu,
                    int32_t *mem);
/* A path relative to the scenario's folder, malloc'ed into *out (NULL
 * when the key is absent or empty). */
int gs_sc_file_path(struct gs_sc *c, const cJSON *o, const char *path,
                    const char *key, char **out);
int gs_sc_parse_dist(struct gs_sc *c, const cJSON *o, const char *path,
                     struct gs_distspec *d);
/* A duration or a distribution of durations at o[key]; absent: unchanged. */
int gs_sc_dist_or_time(struct gs_sc *c, const cJSON *o, const char *path,
                       const char *key, struct gs_distspec *out);
/* The whole of file as a string (and its folder, when dir is not NULL). */
int gs_sc_read_text(const char *file, char **text, char **dir,
                    struct gs_diag *d);

#endif
