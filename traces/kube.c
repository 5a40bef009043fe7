/* kube.c -- Kubernetes nodes as a fleet, pods as a workload, Kueue
 * ClusterQueues as tenant quotas.
 *
 * Sources: the Kubernetes API reference (Node, Pod, the Quantity format of
 * k8s.io/apimachinery's resource package, "Resource Management for Pods
 * and Containers" for how requests default to limits and how init
 * containers count), NVIDIA's GPU feature discovery and device plugin
 * documentation (the nvidia.com/gpu.product, .memory, .count and .replicas
 * labels; time-slicing's "-SHARED" product suffix; the MIG "single" and
 * "mixed" strategies), Karpenter's and EKS's capacity-type labels, and
 * Kueue's ClusterQueue API.
 *
 * Nodes ("k8s-nodes").  A node's resources are status.allocatable (else
 * status.capacity): cpu and memory as quantities, nvidia.com/gpu, and
 * nvidia.com/mig-<profile> counts.  Its GPUs and how they are shared:
 *   - plain: nvidia.com/gpu whole GPUs;
 *   - time-slicing (product label ending "-SHARED", or a replicas label
 *     above 1): nvidia.com/gpu counts replicas; the node has
 *     nvidia.com/gpu.count GPUs (else gpu / replicas) in a time-slicing
 *     pool of that many replicas;
 *   - MIG single strategy (product label "...-MIG-1g.10gb"): nvidia.com/gpu
 *     counts slices of that profile; the node's GPUs (gpu.count, else
 *     slices / slices per GPU) are a MIG pool whose layout is as many of
 *     the profile as a GPU holds;
 *   - MIG mixed strategy (nvidia.com/mig-<profile> resources): the GPUs
 *     not offered whole (gpu.count - nvidia.com/gpu) are cut alike, the
 *     layout being each profile's count divided by their number.
 * The model comes from nvidia.com/gpu.product and nvidia.com/gpu.memory
 * (MiB) through gs_cimp_gpu_model; an unknown product is declared from the
 * memory label, with a warning.  Left out (and reported): nodes without
 * GPUs, cordoned nodes (spec.unschedulable), nodes with a NoSchedule or
 * NoExecute taint of the node lifecycle (node.kubernetes.io/...: not
 * ready, unreachable, ...).  The GPU taint nvidia.com/gpu is tolerated by
 * every GPU pod (the ExtendedResourceToleration admission plug-in adds the
 * toleration), so it is ignored; a node with any other NoSchedule or
 * NoExecute taint is put in a pool of its own named "...-taint-KEY", which
 * a scenario's partitions can reserve for the tenants that tolerate it.
 * Nodes are grouped into pools by (node pool, zone, market, taint, model,
 * GPUs per node, sharing); the pool's name is the node pool (Karpenter
 * karpenter.sh/nodepool, EKS eks.amazonaws.com/nodegroup, GKE
 * cloud.google.com/gke-nodepool, else node.kubernetes.io/instance-type,
 * else MODEL-xN), then "-ZONE" (topology.kubernetes.io/zone), "-spot", and
 * "-taint-KEY" as they apply; its CPU and memory are the smallest of its
 * nodes'.  Market: karpenter.sh/capacity-type (spot, on-demand, reserved),
 * eks.amazonaws.com/capacityType (SPOT, ON_DEMAND), cloud.google.com/
 * gke-spot or gke-preemptible "true", kubernetes.azure.com/scalesetpriority
 * "spot".
 *
 * Pods ("k8s-pods"): see the comment above pods_open below. */
#include "kube.h"
#include "cimport.h"
#include "tread.h"

#include "../sim/cluster/mig.h"
#include "../sim/io/jsonio.h"
#include "../sim/io/scenario.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* --- quantities -------------------------------------------------------------- */

int gs_kube_quantity(const char *s, double *out)
{
    if (s == NULL)
        return -1;
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    const char *num = p;
    while ((*p >= '0' && *p <= '9') || *p == '.')
        p++;
    if (p == num || (p == num + 1 && *num == '.'))
        return -1;
    char buf[64];
    size_t nl = (size_t)(p - s);
    if (nl >= sizeof buf)
        return -1;
    memcpy(buf, s, nl);
    buf[nl] = '\0';
    if (strchr(buf, '.') != strrchr(buf, '.'))
        return -1;
    char *end;
    double v = strtod(buf, &end);
    if (*end != '\0')
        return -1;
    static const struct { const char *suf; double mul; } sfx[] = {
        { "Ki", 1024.0 }, { "Mi", 1048576.0 }, { "Gi", 1073741824.0 },
        { "Ti", 1099511627776.0 }, { "Pi", 1125899906842624.0 },
        { "Ei", 1152921504606846976.0 },
        { "n", 1e-9 }, { "u", 1e-6 }, { "m", 1e-3 }, { "k", 1e3 },
        { "M", 1e6 }, { "G", 1e9 }, { "T", 1e12 }, { "P", 1e15 },
        { "E", 1e18 }, { "", 1.0 },
    };
    if ((*p == 'e' || *p == 'E') && p[1] != '\0' && p[1] != 'i') {
        const char *q = p + 1;
        if (*q == '+' || *q == '-')
            q++;
        if (*q < '0' || *q > '9')
            return -1;
        long e = strtol(p + 1, &end, 10);
        if (*end != '\0' || e > 30 || e < -30)
            return -1;
        *out = v * pow(10.0, (double)e);
        return 0;
    }
    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++)
        if (strcmp(p, sfx[i].suf) == 0) {
            *out = v * sfx[i].mul;
            return isfinite(*out) ? 0 : -1;
        }
    return -1;
}

/* --- JSON helpers -------------------------------------------------------------- */

/* Where a message points: "FILE: items[I] (KIND NAME): FIELD". */
struct kctx {
    const char *file;
    char obj[200];
    struct gs_diag *d;
};

static int kfail(const struct kctx *k, const char *field, const char *fmt,
                 ...) __attribute__((format(printf, 3, 4)));

static int kfail(const struct kctx *k, const char *field, const char *fmt, ...)
{
    char where[512], what[400];
    snprintf(where, sizeof where, "%s: %s%s%s", k->file, k->obj,
             field ? ": " : "", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gs_diag_set(k->d, GS_EPARSE, where, "%s", what);
}

static const struct gs_json *jget(const struct gs_json *o, const char *key)
{
    return gs_json_is_object(o) ? gs_json_get(o, key) : NULL;
}

static const char *jstr(const struct gs_json *o, const char *key)
{
    return gs_json_string(jget(o, key));
}

/* A label's value, or NULL. */
static const char *label(const struct gs_json *meta, const char *key)
{
    return jstr(jget(meta, "labels"), key);
}

/* A quantity member of a resource list: 0 with *v (0 when absent), or the
 * error naming field.key.  Kubernetes writes quantities as strings; a
 * number is taken too. */
static int qty(const struct kctx *k, const struct gs_json *list,
               const char *field, const char *key, double *v)
{
    const struct gs_json *q = jget(list, key);
    *v = 0;
    if (q == NULL)
        return 0;
    char f[200];
    snprintf(f, sizeof f, "%s.%s", field, key);
    if (gs_json_is_number(q)) {
        *v = gs_json_number(q);
    } else if (gs_json_string(q) == NULL ||
               gs_kube_quantity(gs_json_string(q), v) < 0) {
        char *txt = gs_json_print(q);
        int rc = kfail(k, f, "%s is not a Kubernetes quantity (\"64\", "
                       "\"500m\", \"16Gi\", \"129e6\")", txt ? txt : "?");
        free(txt);
        return rc;
    }
    if (!(*v >= 0) || *v > 1e18)
        return kfail(k, f, "%g is out of range", *v);
    return 0;
}

/* The items of a List, or the document itself when it is one object. */
static int items(const struct gs_json *root, const char *file,
                 const char *kind, const struct gs_json **first,
                 struct gs_diag *d)
{
    if (gs_json_is_object(root) && gs_json_is_array(jget(root, "items"))) {
        *first = gs_json_first(jget(root, "items"));
        return 0;
    }
    if (gs_json_is_object(root) && jstr(root, "kind") &&
        strcmp(jstr(root, "kind"), kind) == 0) {
        *first = root;
        return 0;
    }
    char where[600];
    snprintf(where, sizeof where, "%s: $", file);
    return gs_diag_set(d, GS_EPARSE, where, "expected a List with \"items\" "
                       "(kubectl get ... -o json) or one %s", kind);
}

static int load_json(const char *path, struct gs_json **root,
                     struct gs_diag *d)
{
    char *buf;
    size_t len;
    int rc = gs_cimp_slurp(path, GS_CIMP_MAX_BYTES, &buf, &len, d);
    if (rc < 0)
        return rc;
    rc = gs_json_parse(buf, path, root, d);
    free(buf);
    return rc;
}

/* --- nodes --------------------------------------------------------------------- */

struct knode {
    char name[GS_NAME];
    char mig[GS_MIG_PROFILE_NAME];  /* MIG single strategy's profile */
    char pool[GS_NAME];         /* node pool / instance type ("" none) */
    char zone[GS_NAME];
    char taint[GS_NAME];
    char instance[GS_NAME];
    int market;
    int model, gpn;
    struct gs_share_cfg share;
    int32_t cpu_milli, mem_mib;
};

static int node_market(const struct gs_json *meta)
{
    const char *c = label(meta, "karpenter.sh/capacity-type");
    const char *e = label(meta, "eks.amazonaws.com/capacityType");
    const char *gs = label(meta, "cloud.google.com/gke-spot");
    const char *gp = label(meta, "cloud.google.com/gke-preemptible");
    const char *az = label(meta, "kubernetes.azure.com/scalesetpriority");
    if ((c && strcmp(c, "spot") == 0) || (e && strcmp(e, "SPOT") == 0) ||
        (gs && strcmp(gs, "true") == 0) || (gp && strcmp(gp, "true") == 0) ||
        (az && strcmp(az, "spot") == 0))
        return GS_MKT_SPOT;
    if (c && strcmp(c, "reserved") == 0)
        return GS_MKT_RESERVED;
    return GS_MKT_ONDEMAND;
}

/* spec.unschedulable and taints: a reason to leave the node out, or NULL;
 * the first other NoSchedule/NoExecute taint's key goes to n->taint. */
static const char *node_taints(const struct gs_json *spec, struct knode *n)
{
    char *u = jget(spec, "unschedulable")
              ? gs_json_print(jget(spec, "unschedulable")) : NULL;
    int cordoned = u && strcmp(u, "true") == 0;
    free(u);
    if (cordoned)
        return "cordoned (spec.unschedulable)";
    for (const struct gs_json *t = gs_json_first(jget(spec, "taints")); t;
         t = gs_json_next(t)) {
        const char *key = jstr(t, "key"), *eff = jstr(t, "effect");
        if (key == NULL || eff == NULL || (strcmp(eff, "NoSchedule") != 0 &&
                                           strcmp(eff, "NoExecute") != 0))
            continue;
        if (strncmp(key, "node.kubernetes.io/", 19) == 0 ||
            strncmp(key, "node.cloudprovider.kubernetes.io/", 33) == 0)
            return "a node-lifecycle taint (not ready, unreachable, "
                   "cordoned, ...)";
        if (strcmp(key, "nvidia.com/gpu") == 0 || n->taint[0])
            continue;
        snprintf(n->taint, sizeof n->taint, "%s", key);
    }
    return NULL;
}

/* A MIG layout of as many instances of p as a GPU holds. */
static void mig_fill(struct gs_share_cfg *sh, const struct gs_mig_gpu *g,
                     const struct gs_mig_profile *p)
{
    memset(sh, 0, sizeof *sh);
    sh->mode = GS_SHARE_MIG;
    sh->mig_gpu = g;
    sh->reconf_time = GS_SHARE_RECONF_TIME;
    gs_mig_layout_init(&sh->layout, g);
    while (gs_mig_add(&sh->layout, p, NULL) == 0)
        ;
}

static void ts_fill(struct gs_share_cfg *sh, int replicas)
{
    memset(sh, 0, sizeof *sh);
    sh->mode = GS_SHARE_TS;
    sh->replicas = replicas;
    sh->switch_overhead = GS_SHARE_SWITCH;
    sh->max_overhead = GS_SHARE_MAX_OVERHEAD;
    sh->latency_from = GS_SHARE_LAT_FROM;
    sh->latency_min_ms = GS_SHARE_LAT_MIN_MS;
    sh->latency_max_ms = GS_SHARE_LAT_MAX_MS;
}

/* An integer label (NULL -> 0), or -1 when it is not a whole number. */
static long int_label(const struct gs_json *meta, const char *key)
{
    const char *s = label(meta, key);
    long long v;
    if (s == NULL)
        return 0;
    if (gs_tint(s, 0, 1000000000, &v) < 0)
        return -1;
    return (long)v;
}

/* The MIG mixed strategy's resources: per-profile counts into cnt (indexed
 * like g's profiles), their total returned; GS_EPARSE on a bad one. */
static int mig_mixed(const struct kctx *k, const struct gs_json *res,
                     const char *field, const struct gs_mig_gpu *g,
                     int cnt[32], int *total)
{
    *total = 0;
    for (const struct gs_json *r = gs_json_first(res); r;
         r = gs_json_next(r)) {
        const char *key = gs_json_key(r);
        if (strncmp(key, "nvidia.com/mig-", 15) != 0)
            continue;
        double v;
        int rc = qty(k, res, field, key, &v);
        if (rc < 0)
            return rc;
        if (v == 0)
            continue;
        const struct gs_mig_profile *p = g ? gs_mig_profile_find(g, key + 15)
                                           : NULL;
        if (p == NULL) {
            char f[200];
            snprintf(f, sizeof f, "%s.%s", field, key);
            return kfail(k, f, "no MIG profile '%s' on this GPU model",
                         key + 15);
        }
        int idx = (int)(p - g->profiles);
        if (idx < 0 || idx >= 32 || v != floor(v) || v > 448)
            return kfail(k, field, "'%s': %g instances", key, v);
        cnt[idx] += (int)v;
        *total += (int)v;
    }
    return 0;
}

/* How the node's GPUs are shared, and how many GPUs it has. */
static int node_sharing(const struct kctx *k, const struct gs_json *meta,
                        const struct gs_json *res, const char *field,
                        const char *product, double gpu_res,
                        struct gs_catalog *cat, struct knode *n)
{
    long count = int_label(meta, "nvidia.com/gpu.count");
    long reps = int_label(meta, "nvidia.com/gpu.replicas");
    if (count < 0 || reps < 0)
        return kfail(k, count < 0 ? "metadata.labels[nvidia.com/gpu.count]"
                     : "metadata.labels[nvidia.com/gpu.replicas]",
                     "not a whole number");
    const struct gs_mig_gpu *g = gs_mig_gpu_find(cat->m[n->model].name);
    const char *mig = strstr(product, "-MIG-");
    size_t pl = strlen(product);
    int shared = (pl > 7 && strcmp(product + pl - 7, "-SHARED") == 0) ||
                 reps > 1;
    int cnt[32] = { 0 }, mixed = 0, rc;
    if ((rc = mig_mixed(k, res, field, g, cnt, &mixed)) < 0)
        return rc;
    n->gpn = (int)gpu_res;
    if (mig) {
        char prof[GS_MIG_PROFILE_NAME];
        snprintf(prof, sizeof prof, "%s", mig + 5);
        const struct gs_mig_profile *p = g ? gs_mig_profile_find(g, prof)
                                           : NULL;
        if (p == NULL)
            return kfail(k, "metadata.labels[nvidia.com/gpu.product]",
                         "MIG profile '%s' is not one of %s's", prof,
                         cat->m[n->model].name);
        mig_fill(&n->share, g, p);
        snprintf(n->mig, sizeof n->mig, "%s", p->name);
        int per = n->share.layout.n;
        n->gpn = count > 0 ? (int)count : (int)ceil(gpu_res / per);
    } else if (mixed > 0) {
        int whole = (int)gpu_res, migs = (int)count - whole;
        if (count <= 0 || migs <= 0)
            return kfail(k, "metadata.labels[nvidia.com/gpu.count]",
                         "MIG mixed strategy resources need the GPU count "
                         "label above the whole GPUs offered (%d)", whole);
        memset(&n->share, 0, sizeof n->share);
        n->share.mode = GS_SHARE_MIG;
        n->share.mig_gpu = g;
        n->share.reconf_time = GS_SHARE_RECONF_TIME;
        gs_mig_layout_init(&n->share.layout, g);
        for (int i = 0; i < 32; i++)
            for (int c = 0; c < cnt[i] / migs; c++)
                if (gs_mig_add(&n->share.layout, &g->profiles[i], NULL) < 0)
                    return kfail(k, field, "the MIG instances (%d GPUs "
                                 "cut alike) do not fit a GPU", migs);
        n->gpn = (int)count;
    } else if (shared) {
        int r = reps > 1 ? (int)reps
                : count > 0 ? (int)lround(gpu_res / (double)count) : 0;
        if (r < 1 || r > GS_SHARE_MAX_REPLICAS)
            return kfail(k, "metadata.labels[nvidia.com/gpu.replicas]",
                         "time-slicing needs the replicas label (1 to %d) or "
                         "the GPU count label", GS_SHARE_MAX_REPLICAS);
        ts_fill(&n->share, r);
        n->gpn = count > 0 ? (int)count : (int)(gpu_res / r);
    }
    if (n->gpn < 1 || n->gpn > GS_MAX_GPN)
        return kfail(k, field, "%d GPUs on one node (1 to %d)", n->gpn,
                     GS_MAX_GPN);
    return 0;
}

/* The GPU model of a node; warns once per product it declares. */
static int node_model(const struct kctx *k, const struct gs_json *meta,
                      struct gs_catalog *cat, const char **product, int *m)
{
    *product = label(meta, "nvidia.com/gpu.product");
    if (*product == NULL)
        return kfail(k, "metadata.labels[nvidia.com/gpu.product]", "missing: "
                     "a GPU node needs NVIDIA GPU feature discovery's labels "
                     "to say its model");
    long mem = int_label(meta, "nvidia.com/gpu.memory");
    if (mem < 0)
        return kfail(k, "metadata.labels[nvidia.com/gpu.memory]", "'%s' is "
                     "not a whole number of MiB",
                     label(meta, "nvidia.com/gpu.memory"));
    int n0 = cat->n, warned = 0;
    /* MIG single strategy: the memory label is the slice's, the name the
     * GPU's. */
    double gb = strstr(*product, "-MIG-") ? 0 : (double)mem / 1024.0;
    *m = gs_cimp_gpu_model(cat, *product, gb, &warned);
    if (*m == GS_ENOTFOUND && gb == 0 && mem > 0)
        *m = gs_cimp_gpu_model(cat, *product, (double)mem / 1024.0, &warned);
    if (*m < 0)
        return kfail(k, "metadata.labels[nvidia.com/gpu.product]",
                     *m == GS_ERANGE ? "'%s': the GPU catalog is full"
                     : "'%s' is not a GPU the catalog knows, and there is no "
                     "nvidia.com/gpu.memory label to declare it from",
                     *product);
    if (warned && cat->n > n0 && gs_trace_log())
        fprintf(gs_trace_log(), "gpusim: %s: warning: %s: GPU '%s' is not in "
                "the catalog; declared as %s with %.0f GB (compute and "
                "bandwidth assumed those of the model of nearest memory)\n",
                k->file, k->obj, *product, cat->m[*m].name,
                cat->m[*m].mem_gb);
    return 0;
}

/* One Node into n: 1 kept, 0 left out (why), or an error. */
static int node_read(const struct kctx *k, const struct gs_json *it,
                     struct gs_catalog *cat, struct knode *n,
                     const char **why)
{
    memset(n, 0, sizeof *n);
    const struct gs_json *meta = jget(it, "metadata");
    const struct gs_json *st = jget(it, "status");
    if ((*why = node_taints(jget(it, "spec"), n)) != NULL)
        return 0;
    const char *field = "status.allocatable";
    const struct gs_json *res = jget(st, "allocatable");
    if (!gs_json_is_object(res)) {
        field = "status.capacity";
        res = jget(st, "capacity");
    }
    if (!gs_json_is_object(res))
        return kfail(k, "status.allocatable", "missing (and no "
                     "status.capacity): a node's resources are needed");
    double cpu, mem, gpu;
    int rc;
    char f[64];
    snprintf(f, sizeof f, "%s", field);
    if ((rc = qty(k, res, f, "cpu", &cpu)) < 0 ||
        (rc = qty(k, res, f, "memory", &mem)) < 0 ||
        (rc = qty(k, res, f, "nvidia.com/gpu", &gpu)) < 0)
        return rc;
    if (jget(res, "cpu") == NULL || jget(res, "memory") == NULL)
        return kfail(k, field, "no %s", jget(res, "cpu") ? "memory" : "cpu");
    if (cpu * 1000 > 2.0e9 || mem / 1048576.0 > 2.0e9 || gpu != floor(gpu))
        return kfail(k, field, "cpu %g, memory %g, nvidia.com/gpu %g: out of "
                     "range", cpu, mem, gpu);
    int hasmig = 0;
    for (const struct gs_json *r = gs_json_first(res); r; r = gs_json_next(r))
        hasmig |= strncmp(gs_json_key(r), "nvidia.com/mig-", 15) == 0;
    if (gpu == 0 && !hasmig) {
        *why = "no GPUs (no nvidia.com/gpu or MIG resources)";
        return 0;
    }
    const char *product;
    if ((rc = node_model(k, meta, cat, &product, &n->model)) < 0 ||
        (rc = node_sharing(k, meta, res, field, product, gpu, cat, n)) < 0)
        return rc;
    n->cpu_milli = (int32_t)llround(cpu * 1000);
    n->mem_mib = (int32_t)(mem / 1048576.0);
    n->market = node_market(meta);
    const char *pool = label(meta, "karpenter.sh/nodepool");
    if (!pool)
        pool = label(meta, "eks.amazonaws.com/nodegroup");
    if (!pool)
        pool = label(meta, "cloud.google.com/gke-nodepool");
    const char *inst = label(meta, "node.kubernetes.io/instance-type");
    snprintf(n->pool, sizeof n->pool, "%s", pool ? pool : inst ? inst : "");
    snprintf(n->instance, sizeof n->instance, "%s", inst ? inst : "");
    const char *zone = label(meta, "topology.kubernetes.io/zone");
    snprintf(n->zone, sizeof n->zone, "%s", zone ? zone : "");
    return 1;
}

static int same_group(const struct knode *a, const struct knode *b)
{
    return strcmp(a->pool, b->pool) == 0 && strcmp(a->zone, b->zone) == 0 &&
           strcmp(a->taint, b->taint) == 0 && a->market == b->market &&
           a->model == b->model && a->gpn == b->gpn &&
           a->share.mode == b->share.mode &&
           a->share.replicas == b->share.replicas &&
           memcmp(&a->share.layout, &b->share.layout,
                  sizeof a->share.layout) == 0;
}

/* Name pool i after its group, unique among the first i. */
static void pool_name(struct gs_pool_spec *ps, int i, const struct knode *g,
                      const struct gs_catalog *cat)
{
    char base[4 * GS_NAME];
    if (g->pool[0])
        snprintf(base, sizeof base, "%s", g->pool);
    else
        snprintf(base, sizeof base, "%s-x%d", cat->m[g->model].name, g->gpn);
    if (g->zone[0])
        snprintf(base + strlen(base), sizeof base - strlen(base), "-%s",
                 g->zone);
    if (g->market == GS_MKT_SPOT)
        snprintf(base + strlen(base), sizeof base - strlen(base), "-spot");
    if (g->taint[0])
        snprintf(base + strlen(base), sizeof base - strlen(base), "-taint-%s",
                 g->taint);
    for (int k = 1;; k++) {
        char name[5 * GS_NAME];
        if (k == 1)
            snprintf(name, sizeof name, "%s", base);
        else if (k == 2)
            snprintf(name, sizeof name, "%s-%s-x%d", base,
                     cat->m[g->model].name, g->gpn);
        else
            snprintf(name, sizeof name, "%s-%d", base, k);
        int clash = 0;
        for (int j = 0; j < i; j++)
            clash |= strncmp(ps[j].name, name, GS_NAME - 1) == 0;
        if (!clash) {
            snprintf(ps[i].name, sizeof ps[i].name, "%.*s", GS_NAME - 1, name);
            return;
        }
    }
}

/* Group the kept nodes into pools (in order of first appearance). */
static int group_pools(const struct knode *v, int n,
                       const struct gs_catalog *cat,
                       struct gs_pool_spec **pools, int *npools)
{
    struct gs_pool_spec *ps = calloc((size_t)n + 1, sizeof *ps);
    int *rep = calloc((size_t)n + 1, sizeof *rep);
    if (ps == NULL || rep == NULL) {
        free(ps);
        free(rep);
        return GS_ENOMEM;
    }
    int np = 0;
    for (int i = 0; i < n; i++) {
        int p = 0;
        while (p < np && !same_group(&v[rep[p]], &v[i]))
            p++;
        if (p == np) {
            rep[np++] = i;
            ps[p].model = v[i].model;
            ps[p].gpn = v[i].gpn;
            ps[p].market = v[i].market;
            ps[p].share = v[i].share;
            ps[p].cpu_milli = v[i].cpu_milli;
            ps[p].mem_mib = v[i].mem_mib;
            snprintf(ps[p].instance, sizeof ps[p].instance, "%s",
                     v[i].instance);
            pool_name(ps, p, &v[i], cat);
        }
        ps[p].nodes++;
        if (v[i].cpu_milli < ps[p].cpu_milli)
            ps[p].cpu_milli = v[i].cpu_milli;
        if (v[i].mem_mib < ps[p].mem_mib)
            ps[p].mem_mib = v[i].mem_mib;
    }
    free(rep);
    *pools = ps;
    *npools = np;
    return 0;
}

/* Read the Nodes of path: the kept ones into *out (caller frees), those
 * left out counted in left. */
static int nodes_load(const char *path, struct gs_catalog *cat,
                      struct knode **out, int *nout,
                      struct gs_cimp_left *left, struct gs_diag *d)
{
    struct gs_json *root = NULL;
    const struct gs_json *it;
    int rc = load_json(path, &root, d);
    if (rc == 0)
        rc = items(root, path, "Node", &it, d);
    struct knode *v = NULL;
    int n = 0, cap = 0, idx = 0;
    for (; rc == 0 && it; it = it == root ? NULL : gs_json_next(it), idx++) {
        struct kctx k = { .file = path, .d = d };
        const char *name = jstr(jget(it, "metadata"), "name");
        snprintf(k.obj, sizeof k.obj, "items[%d] (Node %s)", idx,
                 name ? name : "?");
        if (name == NULL || (jstr(it, "kind") &&
                             strcmp(jstr(it, "kind"), "Node") != 0)) {
            rc = kfail(&k, name ? "kind" : "metadata.name", name ?
                       "'%s' where a Node was expected" : "missing",
                       jstr(it, "kind"));
            break;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            struct knode *nv = realloc(v, (size_t)cap * sizeof *nv);
            if (nv == NULL) {
                rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
                break;
            }
            v = nv;
        }
        const char *why = NULL;
        rc = node_read(&k, it, cat, &v[n], &why);
        if (rc == 1)
            snprintf(v[n++].name, sizeof v[0].name, "%s", name);
        else if (rc == 0)
            gs_cimp_leave(left, why, k.obj);
        rc = rc > 0 ? 0 : rc;
    }
    if (rc == 0 && n == 0)
        rc = gs_diag_set(d, GS_EPARSE, path, "no GPU node to build a fleet "
                         "from (%ld nodes left out)", left->n);
    gs_json_free(root);
    if (rc < 0) {
        free(v);
        v = NULL;
        n = 0;
    }
    *out = v;
    *nout = n;
    return rc;
}

int gs_kube_node_list(const char *path, struct gs_catalog *cat,
                      struct gs_pool_spec **pools, int *npools,
                      struct gs_diag *d)
{
    *pools = NULL;
    *npools = 0;
    struct knode *v;
    int n;
    struct gs_cimp_left left = { 0 };
    int rc = nodes_load(path, cat, &v, &n, &left, d);
    if (rc == 0 && group_pools(v, n, cat, pools, npools) < 0)
        rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    if (rc == 0)
        gs_cimp_left_print(path, "nodes", &left);
    free(v);
    return rc;
}

/* --- pods ------------------------------------------------------------------------
 *
 * Trace format "k8s-pods": `kubectl get pods -A -o json` snapshots.  The
 * option path is one file, or a folder whose *.json and *.json.gz files
 * are snapshots read in name order; pods are merged by metadata.uid (the
 * snapshot where the pod got furthest -- Succeeded or Failed, then
 * Running, then Pending -- wins; a later file wins a tie), since finished
 * pods are garbage-collected and one snapshot is not a history.  A job per
 * pod (or per gang, below):
 *   arrival   metadata.creationTimestamp (ms after the earliest kept one)
 *   start     status.startTime
 *   end       the latest state.terminated.finishedAt of its containers;
 *             a Running pod ends at the export time (option export_time,
 *             else the latest timestamp in its snapshot) or, with option
 *             running "drop", is left out
 *   work      end - start
 *   asks      the pod's effective request per resource, as the scheduler
 *             counts it: the larger of the containers' sum and the largest
 *             init container, plus spec.overhead; a container's request
 *             is its limit when it states none.  nvidia.com/gpu whole GPUs
 *             (one replica each on a time-sliced node), one
 *             nvidia.com/mig-<profile> instance, cpu (milli-cores) and
 *             memory (MiB)
 *   tenant    the namespace, or the label named by option tenant_label
 *             (the namespace when a pod lacks it)
 *   tier      spec.priorityClassName through option tiers ("class=tier,
 *             ..."), else by name: one containing "infer", "serv",
 *             "online" or "realtime" is inference, "interactive",
 *             "notebook" or "dev" interactive, "batch-cpu", "data" or "etl"
 *             data; anything else (and none) training
 *   estimate  spec.activeDeadlineSeconds when set
 *   family    with option nodes (a k8s-nodes file), the model of the node
 *             the pod ran on (spec.nodeName), which is also the job's
 *             reference model (its time was measured there), and on a MIG
 *             single-strategy node nvidia.com/gpu: 1 is that node's MIG
 *             profile; else a nodeSelector on nvidia.com/gpu.product
 *   MIG       a pod on an instance of profile Ng.* ran at N/7 of the GPU's
 *             compute, so its full-speed work is its time x N/7
 *   gang      pods of one PodGroup (label scheduling.x-k8s.io/pod-group,
 *             pod-group.scheduling.sigs.k8s.io, kueue.x-k8s.io/
 *             pod-group-name, or annotation scheduling.k8s.io/group-name)
 *             are one job: GPUs, CPU and memory summed, arrival the first
 *             creation, start the last start (a gang runs when all its
 *             pods do), end the last end.  Option gang_from "job" makes
 *             the pods of one owner Job a gang too; "none" no gangs.
 * Left out, by reason, and reported: Pending pods (never started), pods
 * that failed before starting, pods asking no GPU (unless option cpu_pods
 * is true), DaemonSet pods, pods asking several MIG instances, Running
 * pods with running "drop".  A malformed pod is an error naming the file,
 * the pod and the field (skip_bad_rows: counted and left out). */

enum { PH_PENDING, PH_RUNNING, PH_DONE, PH_UNKNOWN };

struct kpod {
    char uid[64];
    char obj[160];              /* "Pod ns/name" */
    char tenant[GS_TENANT_NAME];
    char gang[200];             /* "" none */
    char node[GS_NAME];
    char family[GS_GPU_FAMILY_NAME];
    char mig[GS_MIG_PROFILE_NAME];
    int phase, tier, file, gpus, migs, daemon;
    int64_t created, start, end;
    int64_t estimate;
    double cpu, mem;            /* cores, bytes */
};

struct kpods {
    const struct gs_scenario *sc;
    int running_drop, cpu_pods, gang_job, gang_none, skip;
    int64_t export_ms;          /* option, -1 none */
    char tenant_label[128];
    struct gs_cimp_tiers tiers;
    struct gs_catalog cat;      /* the scenario's, plus nodes' models */
    struct knode *nodes;        /* option nodes: name -> model, MIG */
    int nnodes;
    struct kpod *v;
    long n, cap;
    struct gs_cimp_left left;
    long bad;
    struct gs_jlist jobs;
};


/* A timestamp member: 0 with *ms (-1 when absent), or the error. */
static int ktime(const struct kctx *k, const struct gs_json *o,
                 const char *field, const char *key, int64_t *ms)
{
    *ms = -1;
    const struct gs_json *v = jget(o, key);
    if (v == NULL)
        return 0;
    char f[160];
    snprintf(f, sizeof f, "%s%s%s", field, field[0] ? "." : "", key);
    const char *s = gs_json_string(v);
    if (s == NULL) {
        char *t = gs_json_print(v);
        int null = t && strcmp(t, "null") == 0;
        free(t);
        return null ? 0 : kfail(k, f, "not a string");
    }
    if (gs_cimp_rfc3339(s, ms) < 0)
        return kfail(k, f, "'%s' is not an RFC 3339 time "
                     "(\"2024-05-01T12:00:00Z\")", s);
    return 0;
}

/* One container list's resources folded in: sum (init 0) or max (1). */
struct kres {
    double cpu, mem, gpu;
    char mig[GS_MIG_PROFILE_NAME];
    double migs;
};

static int container_res(const struct kctx *k, const struct gs_json *c,
                         const char *field, struct kres *r)
{
    memset(r, 0, sizeof *r);
    const struct gs_json *res = jget(c, "resources");
    const struct gs_json *req = jget(res, "requests");
    const struct gs_json *lim = jget(res, "limits");
    static const char *const keys[] = { "cpu", "memory", "nvidia.com/gpu" };
    double *dst[] = { &r->cpu, &r->mem, &r->gpu };
    char f[200];
    int rc;
    for (int i = 0; i < 3; i++) {
        int in_req = jget(req, keys[i]) != NULL;
        snprintf(f, sizeof f, "%s.resources.%s", field,
                 in_req ? "requests" : "limits");
        if ((rc = qty(k, in_req ? req : lim, f, keys[i], dst[i])) < 0)
            return rc;
    }
    for (int pass = 0; pass < 2; pass++) {
        const struct gs_json *l = pass ? lim : req;
        for (const struct gs_json *e = gs_json_first(l); e;
             e = gs_json_next(e)) {
            const char *key = gs_json_key(e);
            if (strncmp(key, "nvidia.com/mig-", 15) != 0 ||
                (pass && jget(req, key)))
                continue;
            double v;
            snprintf(f, sizeof f, "%s.resources.%s", field,
                     pass ? "limits" : "requests");
            if ((rc = qty(k, l, f, key, &v)) < 0)
                return rc;
            if (v > 0 && r->mig[0] && strcmp(r->mig, key + 15) != 0)
                r->migs += 1000;    /* two profiles: never one instance */
            if (v > 0 && strlen(key + 15) < sizeof r->mig)
                snprintf(r->mig, sizeof r->mig, "%s", key + 15);
            r->migs += v;
        }
    }
    return 0;
}

/* The pod's effective request (the scheduler's rule). */
static int pod_res(const struct kctx *k, const struct gs_json *spec,
                   struct kres *out)
{
    struct kres sum = { 0 }, imax = { 0 }, r;
    int rc, i = 0;
    char f[64];
    for (const struct gs_json *c = gs_json_first(jget(spec, "containers"));
         c; c = gs_json_next(c), i++) {
        snprintf(f, sizeof f, "spec.containers[%d]", i);
        if ((rc = container_res(k, c, f, &r)) < 0)
            return rc;
        sum.cpu += r.cpu;
        sum.mem += r.mem;
        sum.gpu += r.gpu;
        if (r.migs > 0 && sum.mig[0] && strcmp(sum.mig, r.mig) != 0)
            sum.migs += 1000;
        if (r.migs > 0)
            memcpy(sum.mig, r.mig, sizeof sum.mig);
        sum.migs += r.migs;
    }
    if (i == 0)
        return kfail(k, "spec.containers", "missing or empty");
    i = 0;
    for (const struct gs_json *c = gs_json_first(jget(spec,
                                                      "initContainers"));
         c; c = gs_json_next(c), i++) {
        snprintf(f, sizeof f, "spec.initContainers[%d]", i);
        if ((rc = container_res(k, c, f, &r)) < 0)
            return rc;
        imax.cpu = fmax(imax.cpu, r.cpu);
        imax.mem = fmax(imax.mem, r.mem);
        imax.gpu = fmax(imax.gpu, r.gpu);
    }
    double ocpu, omem;
    if ((rc = qty(k, jget(spec, "overhead"), "spec.overhead", "cpu",
                  &ocpu)) < 0 ||
        (rc = qty(k, jget(spec, "overhead"), "spec.overhead", "memory",
                  &omem)) < 0)
        return rc;
    *out = sum;
    out->cpu = fmax(sum.cpu, imax.cpu) + ocpu;
    out->mem = fmax(sum.mem, imax.mem) + omem;
    out->gpu = fmax(sum.gpu, imax.gpu);
    if (out->gpu != floor(out->gpu) || out->gpu > 1e6 ||
        out->cpu * 1000 > 2.0e9 || out->mem / 1048576.0 > 2.0e9)
        return kfail(k, "spec.containers", "asks cpu %g, memory %g, "
                     "nvidia.com/gpu %g: out of range", out->cpu, out->mem,
                     out->gpu);
    return 0;
}

static const char *pod_gang(const struct kpods *s, const struct gs_json *meta,
                            char *buf, size_t n)
{
    static const char *const labels[] = {
        "scheduling.x-k8s.io/pod-group", "pod-group.scheduling.sigs.k8s.io",
        "kueue.x-k8s.io/pod-group-name",
    };
    const char *ns = jstr(meta, "namespace");
    buf[0] = '\0';
    if (s->gang_none)
        return buf;
    for (size_t i = 0; i < 3; i++)
        if (label(meta, labels[i])) {
            snprintf(buf, n, "PodGroup %s/%s", ns, label(meta, labels[i]));
            return buf;
        }
    const char *ann = jstr(jget(meta, "annotations"),
                           "scheduling.k8s.io/group-name");
    if (ann) {
        snprintf(buf, n, "PodGroup %s/%s", ns, ann);
        return buf;
    }
    if (s->gang_job)
        for (const struct gs_json *o = gs_json_first(jget(meta,
                                                          "ownerReferences"));
             o; o = gs_json_next(o))
            if (jstr(o, "kind") && strcmp(jstr(o, "kind"), "Job") == 0 &&
                jstr(o, "uid")) {
                snprintf(buf, n, "Job %s/%s", ns, jstr(o, "uid"));
                return buf;
            }
    buf[0] = '\0';
    return buf;
}

static int is_daemon(const struct gs_json *meta)
{
    for (const struct gs_json *o = gs_json_first(jget(meta,
                                                      "ownerReferences"));
         o; o = gs_json_next(o))
        if (jstr(o, "kind") && strcmp(jstr(o, "kind"), "DaemonSet") == 0)
            return 1;
    return 0;
}

/* The latest finishedAt (and, for the export time, the latest of any
 * timestamp) of a status's containers. */
static int pod_times(const struct kctx *k, const struct gs_json *st,
                     struct kpod *p, int64_t *latest)
{
    static const char *const lists[] = { "containerStatuses",
                                         "initContainerStatuses" };
    int rc;
    p->end = -1;
    for (int l = 0; l < 2; l++) {
        int i = 0;
        for (const struct gs_json *c = gs_json_first(jget(st, lists[l])); c;
             c = gs_json_next(c), i++) {
            char f[160];
            int64_t fin, sta;
            snprintf(f, sizeof f, "status.%s[%d].state.terminated", lists[l],
                     i);
            const struct gs_json *term = jget(jget(c, "state"), "terminated");
            if ((rc = ktime(k, term, f, "finishedAt", &fin)) < 0 ||
                (rc = ktime(k, term, f, "startedAt", &sta)) < 0)
                return rc;
            if (l == 0 && fin > p->end)
                p->end = fin;
            if (fin > *latest)
                *latest = fin;
            if (sta > *latest)
                *latest = sta;
            snprintf(f, sizeof f, "status.%s[%d].state.running", lists[l], i);
            if ((rc = ktime(k, jget(jget(c, "state"), "running"), f,
                            "startedAt", &sta)) < 0)
                return rc;
            if (sta > *latest)
                *latest = sta;
        }
    }
    return 0;
}

static int pod_phase(const struct kctx *k, const struct gs_json *st, int *ph)
{
    const char *s = jstr(st, "phase");
    if (s == NULL)
        return kfail(k, "status.phase", "missing");
    *ph = strcmp(s, "Pending") == 0 ? PH_PENDING
          : strcmp(s, "Running") == 0 ? PH_RUNNING
          : strcmp(s, "Succeeded") == 0 || strcmp(s, "Failed") == 0 ? PH_DONE
          : strcmp(s, "Unknown") == 0 ? PH_UNKNOWN : -1;
    if (*ph < 0)
        return kfail(k, "status.phase", "'%s' is not a pod phase (Pending, "
                     "Running, Succeeded, Failed, Unknown)", s);
    return 0;
}

/* Read one Pod into p. */
static int pod_read(const struct kpods *s, const struct kctx *k,
                    const struct gs_json *it, struct kpod *p,
                    int64_t *latest)
{
    memset(p, 0, sizeof *p);
    const struct gs_json *meta = jget(it, "metadata");
    const struct gs_json *spec = jget(it, "spec");
    const struct gs_json *st = jget(it, "status");
    const char *uid = jstr(meta, "uid"), *ns = jstr(meta, "namespace");
    int rc;
    if (uid == NULL || strlen(uid) >= sizeof p->uid)
        return kfail(k, "metadata.uid", uid ? "longer than %d characters" :
                     "missing", (int)sizeof p->uid - 1);
    if (ns == NULL)
        return kfail(k, "metadata.namespace", "missing");
    snprintf(p->uid, sizeof p->uid, "%s", uid);
    snprintf(p->obj, sizeof p->obj, "%s", k->obj);
    if ((rc = ktime(k, meta, "metadata", "creationTimestamp",
                    &p->created)) < 0 ||
        (rc = ktime(k, st, "status", "startTime", &p->start)) < 0 ||
        (rc = pod_phase(k, st, &p->phase)) < 0 ||
        (rc = pod_times(k, st, p, latest)) < 0)
        return rc;
    if (p->created < 0)
        return kfail(k, "metadata.creationTimestamp", "missing");
    *latest = p->created > *latest ? p->created : *latest;
    *latest = p->start > *latest ? p->start : *latest;
    struct kres r;
    if ((rc = pod_res(k, spec, &r)) < 0)
        return rc;
    p->cpu = r.cpu;
    p->mem = r.mem;
    p->gpus = (int)r.gpu;
    p->migs = (int)r.migs;
    snprintf(p->mig, sizeof p->mig, "%s", r.mig);
    const char *tl = s->tenant_label[0] ? label(meta, s->tenant_label) : NULL;
    snprintf(p->tenant, sizeof p->tenant, "%.*s", GS_TENANT_NAME - 1,
             tl ? tl : ns);
    p->tier = gs_cimp_tier(&s->tiers, jstr(spec, "priorityClassName"));
    pod_gang(s, meta, p->gang, sizeof p->gang);
    p->daemon = is_daemon(meta);
    const char *node = jstr(spec, "nodeName");
    snprintf(p->node, sizeof p->node, "%s", node ? node : "");
    const char *sel = jstr(jget(spec, "nodeSelector"),
                           "nvidia.com/gpu.product");
    snprintf(p->family, sizeof p->family, "%s", sel ? sel : "");
    double ad = gs_json_number(jget(spec, "activeDeadlineSeconds"));
    p->estimate = ad > 0 && ad < 1e10 ? (int64_t)llround(ad * 1000) : 0;
    return 0;
}

/* Read one snapshot file (index fi) into s->v. */
static int pods_file(struct kpods *s, const char *path, int fi,
                     struct gs_diag *d)
{
    struct gs_json *root = NULL;
    const struct gs_json *it;
    int rc = load_json(path, &root, d);
    if (rc == 0)
        rc = items(root, path, "Pod", &it, d);
    int64_t latest = -1;
    long first = s->n;
    for (int idx = 0; rc == 0 && it;
         it = it == root ? NULL : gs_json_next(it), idx++) {
        struct kctx k = { .file = path, .d = d };
        const struct gs_json *meta = jget(it, "metadata");
        snprintf(k.obj, sizeof k.obj, "items[%d] (Pod %s/%s)", idx,
                 jstr(meta, "namespace") ? jstr(meta, "namespace") : "?",
                 jstr(meta, "name") ? jstr(meta, "name") : "?");
        if (s->n == s->cap) {
            long nc = s->cap ? 2 * s->cap : 256;
            struct kpod *nv = realloc(s->v, (size_t)nc * sizeof *nv);
            if (nv == NULL) {
                rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
                break;
            }
            s->v = nv;
            s->cap = nc;
        }
        rc = pod_read(s, &k, it, &s->v[s->n], &latest);
        if (rc == GS_EPARSE && s->skip && d) {
            const char *field = strrchr(d->where, ':');
            char why[112], ex[160];
            snprintf(why, sizeof why, "malformed, field%.70s (skip_bad_rows)",
                     field ? field + 1 : " ?");
            snprintf(ex, sizeof ex, "%.60s: %.90s", k.obj, d->what);
            memset(d, 0, sizeof *d);
            gs_cimp_leave(&s->left, why, ex);
            s->bad++;
            rc = 0;
            continue;
        }
        if (rc == 0) {
            const char *base = strrchr(path, '/');
            snprintf(s->v[s->n].obj, sizeof s->v[0].obj, "%.40s %.110s",
                     base ? base + 1 : path, k.obj);
            s->v[s->n].file = fi;
            s->n++;
        }
    }
    /* Running pods of this snapshot end at its export time. */
    int64_t exp = s->export_ms >= 0 ? s->export_ms : latest;
    for (long i = first; rc == 0 && i < s->n; i++)
        if (s->v[i].phase == PH_RUNNING)
            s->v[i].end = exp;
    gs_json_free(root);
    return rc;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The snapshot files: path itself, or a folder's *.json[.gz] by name. */
static int pods_paths(const char *path, char ***out, int *n,
                      struct gs_diag *d)
{
    struct stat st;
    *out = NULL;
    *n = 0;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        char **v = malloc(sizeof *v);
        if (v == NULL || (v[0] = strdup(path)) == NULL) {
            free(v);
            return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
        }
        *out = v;
        *n = 1;
        return 0;
    }
    DIR *dir = opendir(path);
    if (dir == NULL)
        return gs_diag_set(d, GS_EIO, path, "cannot read the folder");
    char **v = NULL;
    int cap = 0, rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(dir)) != NULL;) {
        size_t l = strlen(e->d_name);
        if (!(l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) &&
            !(l > 8 && strcmp(e->d_name + l - 8, ".json.gz") == 0))
            continue;
        if (*n == 100000) {
            rc = gs_diag_set(d, GS_ERANGE, path, "more than 100000 snapshot "
                             "files");
            break;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            char **nv = realloc(v, (size_t)cap * sizeof *nv);
            if (nv == NULL) {
                rc = GS_ENOMEM;
                break;
            }
            v = nv;
        }
        size_t pl = strlen(path) + l + 2;
        if ((v[*n] = malloc(pl)) == NULL) {
            rc = GS_ENOMEM;
            break;
        }
        snprintf(v[*n], pl, "%s/%s", path, e->d_name);
        (*n)++;
    }
    closedir(dir);
    if (rc == GS_ENOMEM)
        gs_diag_set(d, rc, path, "out of memory");
    if (rc == 0 && *n == 0)
        rc = gs_diag_set(d, GS_EIO, path, "no *.json or *.json.gz snapshot "
                         "in the folder");
    if (rc == 0)
        qsort(v, (size_t)*n, sizeof *v, str_cmp);
    *out = v;
    return rc;
}

/* Order for merging: uid, then how far the pod got, then the file. */
static int by_uid(const void *a, const void *b)
{
    const struct kpod *x = a, *y = b;
    int c = strcmp(x->uid, y->uid);
    if (c)
        return c;
    int rx = x->phase == PH_UNKNOWN ? -1 : x->phase;
    int ry = y->phase == PH_UNKNOWN ? -1 : y->phase;
    if (rx != ry)
        return rx - ry;
    return x->file - y->file;
}

/* Keep the last record of each uid. */
static void merge_uids(struct kpods *s)
{
    if (s->n == 0)
        return;
    qsort(s->v, (size_t)s->n, sizeof *s->v, by_uid);
    long w = 0;
    for (long i = 0; i < s->n; i++) {
        if (i + 1 < s->n && strcmp(s->v[i].uid, s->v[i + 1].uid) == 0)
            continue;
        s->v[w++] = s->v[i];
    }
    s->n = w;
}

/* Why pod p is left out, or NULL. */
static const char *pod_why(const struct kpods *s, const struct kpod *p)
{
    if (p->daemon)
        return "owned by a DaemonSet (a per-node agent, not a workload)";
    if (p->phase == PH_PENDING)
        return "Pending when last seen (never started)";
    if (p->phase == PH_UNKNOWN)
        return "phase Unknown (the node stopped reporting)";
    if (p->start < 0)
        return "finished without starting (no status.startTime)";
    if (p->phase == PH_RUNNING && s->running_drop)
        return "Running at the export (option running \"drop\")";
    if (p->end < 0)
        return "finished, but no container's terminated.finishedAt";
    if (p->migs > 1)
        return "asks for more than one MIG instance (a job takes one)";
    if (p->migs == 1 && p->gpus > 0)
        return "asks for a MIG instance and whole GPUs";
    if (p->gpus == 0 && p->migs == 0 && !s->cpu_pods)
        return "asks for no GPU (option cpu_pods)";
    return NULL;
}

/* The node-derived parts: family and MIG single strategy. */
static void pod_node(const struct kpods *s, struct kpod *p,
                     struct gs_jobspec *j)
{
    for (int i = 0; i < s->nnodes; i++)
        if (strcmp(s->nodes[i].name, p->node) == 0) {
            int m = s->nodes[i].model;
            int sm = gs_catalog_find(&s->sc->cat, s->cat.m[m].name);
            if (sm >= 0) {
                snprintf(j->gpu_family, sizeof j->gpu_family, "%s",
                         s->cat.m[m].name);
                j->ref_model = sm;  /* the time was measured there */
            }
            if (s->nodes[i].mig[0] && p->gpus == 1 && p->migs == 0) {
                snprintf(j->mig_profile, sizeof j->mig_profile, "%s",
                         s->nodes[i].mig);
            }
            return;
        }
    if (p->family[0]) {
        struct gs_catalog c = s->sc->cat;
        int w = 0, m = gs_cimp_gpu_model(&c, p->family, 0, &w);
        if (m >= 0 && !w)
            snprintf(j->gpu_family, sizeof j->gpu_family, "%s", c.m[m].name);
    }
}

/* Turn pods [a, b) -- one pod, or one gang -- into a job. */
static int pods_job(struct kpods *s, long a, long b, int64_t origin,
                    int64_t id)
{
    struct gs_jobspec j;
    gs_jobspec_init(&j);
    int64_t created = INT64_MAX, start = -1, end = -1;
    double cpu = 0, mem = 0;
    int gpus = 0;
    for (long i = a; i < b; i++) {
        struct kpod *p = &s->v[i];
        created = p->created < created ? p->created : created;
        start = p->start > start ? p->start : start;
        end = p->end > end ? p->end : end;
        cpu += p->cpu;
        mem += p->mem;
        gpus += p->gpus + p->migs;
    }
    struct kpod *p0 = &s->v[a];
    if (b - a > 1 && s->v[a].migs > 0) {
        gs_cimp_leave(&s->left, "a gang of MIG pods (a job takes one "
                      "instance)", p0->gang);
        return 0;
    }
    j.id = id;
    j.arrival = created - origin;
    j.work = end > start ? (double)(end - start) : 1.0;
    j.gpus = gpus;
    j.tier = p0->tier;
    j.estimate = p0->estimate;
    snprintf(j.tenant, sizeof j.tenant, "%s", p0->tenant);
    j.cpu_milli = (int32_t)fmin(llround(cpu * 1000), 2.0e9);
    j.mem_mib = (int32_t)fmin(mem / 1048576.0, 2.0e9);
    if (p0->migs == 1)
        snprintf(j.mig_profile, sizeof j.mig_profile, "%s", p0->mig);
    pod_node(s, p0, &j);
    if (j.mig_profile[0]) {
        /* The recorded time ran on the instance's Ng of the 7 compute
         * slices; the simulator runs a job there at N/7 of full speed, so
         * its full-speed work is the time times N/7. */
        j.gpus = 1;
        int slices = j.mig_profile[0] - '0';
        if (slices >= 1 && slices <= 7 && j.mig_profile[1] == 'g')
            j.work = fmax(1.0, j.work * slices / 7.0);
    }
    return gs_jlist_add(&s->jobs, &j, start - origin) < 0 ? GS_ENOMEM : 1;
}

static int by_gang(const void *a, const void *b)
{
    const struct kpod *x = a, *y = b;
    int c = strcmp(x->gang, y->gang);
    if (c)
        return c;
    if (x->created != y->created)
        return x->created < y->created ? -1 : 1;
    return strcmp(x->uid, y->uid);
}

/* Pods (merged) into the job list. */
static int pods_build(struct kpods *s, const char *path, struct gs_diag *d)
{
    long w = 0;
    for (long i = 0; i < s->n; i++) {
        const char *why = pod_why(s, &s->v[i]);
        if (why)
            gs_cimp_leave(&s->left, why, s->v[i].obj);
        else
            s->v[w++] = s->v[i];
    }
    s->n = w;
    if (s->n == 0)
        return gs_diag_set(d, GS_EPARSE, path, "no pod to replay (%ld left "
                           "out)", s->left.n);
    /* Gangs together (pods without one each alone), by creation. */
    qsort(s->v, (size_t)s->n, sizeof *s->v, by_gang);
    int64_t origin = INT64_MAX;
    for (long i = 0; i < s->n; i++)
        origin = s->v[i].created < origin ? s->v[i].created : origin;
    for (long a = 0, b; a < s->n; a = b) {
        b = a + 1;
        if (s->v[a].gang[0])
            while (b < s->n && strcmp(s->v[b].gang, s->v[a].gang) == 0)
                b++;
        int rc = pods_job(s, a, b, origin, 0);
        if (rc < 0)
            return gs_diag_set(d, rc, path, "out of memory");
    }
    gs_jlist_sort(&s->jobs);
    for (long i = 0; i < s->jobs.n; i++)
        s->jobs.v[i].s.id = i + 1;
    char when[32];
    gs_cimp_fmt_utc(origin, when, sizeof when);
    if (gs_trace_log())
        fprintf(gs_trace_log(), "gpusim: %s: %ld jobs from %ld pods; time 0 "
                "is %s\n", path, s->jobs.n, s->n, when);
    gs_cimp_left_print(path, "pods", &s->left);
    return gs_cimp_publish(&s->jobs, origin) < 0
           ? gs_diag_set(d, GS_ENOMEM, path, "out of memory") : 0;
}

static void pods_close(void *st)
{
    struct kpods *s = st;
    if (s == NULL)
        return;
    free(s->v);
    free(s->nodes);
    gs_jlist_free(&s->jobs);
    free(s);
}

static int pods_options(struct kpods *s, const struct gs_scenario *sc,
                        struct gs_params *o, char *nodes, size_t nn,
                        struct gs_diag *d)
{
    const char *gang = NULL, *exp = NULL, *tl = NULL;
    const char *tiers = NULL;
    int rc, found = 0;
    if ((rc = gs_topt_skip(o, &s->skip, d)) < 0 ||
        (rc = gs_cimp_opt_running(o, &s->running_drop, d)) < 0 ||
        (rc = gs_params_str(o, "gang_from", &gang, d)) < 0 ||
        (rc = gs_params_str(o, "export_time", &exp, d)) < 0 ||
        (rc = gs_params_str(o, "tenant_label", &tl, d)) < 0 ||
        (rc = gs_params_bool(o, "cpu_pods", &s->cpu_pods, d)) < 0 ||
        (rc = gs_topt_path(sc, o, "nodes", 0, nodes, nn, &found, d)) < 0 ||
        (rc = gs_params_str(o, "tiers", &tiers, d)) < 0)
        return rc;
    if (tiers && gs_cimp_tiers_parse(tiers, &s->tiers) < 0)
        return gs_cimp_opt_fail(o, "tiers", d, "expected up to 16 "
                       "priorityClassName=tier pairs, tier one of "
                       "inference, training, interactive, data");
    if (!found)
        nodes[0] = '\0';
    if (gang && strcmp(gang, "podgroup") != 0) {
        if (strcmp(gang, "job") != 0 && strcmp(gang, "none") != 0)
            return gs_cimp_opt_fail(o, "gang_from", d, "expected \"podgroup\", "
                           "\"job\" or \"none\"");
        s->gang_job = strcmp(gang, "job") == 0;
        s->gang_none = strcmp(gang, "none") == 0;
    }
    s->export_ms = -1;
    if (exp && gs_cimp_rfc3339(exp, &s->export_ms) < 0)
        return gs_cimp_opt_fail(o, "export_time", d, "expected an RFC 3339 time, "
                       "\"2024-05-01T12:00:00Z\"");
    if (tl && (tl[0] == '\0' || strlen(tl) >= sizeof s->tenant_label))
        return gs_cimp_opt_fail(o, "tenant_label", d, "expected a label key");
    snprintf(s->tenant_label, sizeof s->tenant_label, "%s", tl ? tl : "");
    return 0;
}

static int pods_open(const struct gs_scenario *sc, struct gs_params *o,
                     void **state, struct gs_diag *d)
{
    *state = NULL;
    struct kpods *s = calloc(1, sizeof *s);
    if (s == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    s->sc = sc;
    s->cat = sc->cat;
    char path[1024], nodes[1024];
    char **files = NULL;
    int nfiles = 0, rc;
    if ((rc = gs_topt_path(sc, o, "path", 1, path, sizeof path, NULL, d)) < 0 ||
        (rc = pods_options(s, sc, o, nodes, sizeof nodes, d)) < 0)
        goto out;
    if (nodes[0]) {
        struct gs_cimp_left left = { 0 };
        FILE *log = gs_trace_log();
        gs_trace_set_log(NULL);     /* the fleet reports its own */
        rc = nodes_load(nodes, &s->cat, &s->nodes, &s->nnodes, &left, d);
        gs_trace_set_log(log);
        if (rc < 0)
            goto out;
    }
    if ((rc = pods_paths(path, &files, &nfiles, d)) < 0)
        goto out;
    for (int i = 0; i < nfiles && rc == 0; i++)
        rc = pods_file(s, files[i], i, d);
    if (rc == 0) {
        merge_uids(s);
        rc = pods_build(s, path, d);
    }
out:
    for (int i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    free(s->v);
    s->v = NULL;
    if (rc < 0) {
        pods_close(s);
        return rc;
    }
    *state = s;
    return 0;
}

static int pods_next(void *st, struct gs_jobspec *out, struct gs_diag *d)
{
    (void)d;
    struct kpods *s = st;
    return gs_jlist_next(&s->jobs, out);
}

const struct gs_trace_format gs_kube_pods_format = {
    .name = "k8s-pods",
    .summary = "kubectl get pods -A -o json snapshots (a file or a folder), "
               "merged by uid",
    .open = pods_open,
    .next = pods_next,
    .close = pods_close,
};

/* --- Kueue ------------------------------------------------------------------------ */

/* The nominal quota of nvidia.com/gpu over a ClusterQueue's flavors. */
static int cq_gpus(const struct kctx *k, const struct gs_json *spec,
                   double *gpus)
{
    *gpus = 0;
    int g = 0;
    for (const struct gs_json *rg = gs_json_first(jget(spec,
                                                       "resourceGroups"));
         rg; rg = gs_json_next(rg), g++) {
        int f = 0;
        for (const struct gs_json *fl = gs_json_first(jget(rg, "flavors"));
             fl; fl = gs_json_next(fl), f++) {
            int r = 0;
            for (const struct gs_json *res = gs_json_first(jget(fl,
                                                           "resources"));
                 res; res = gs_json_next(res), r++) {
                const char *name = jstr(res, "name");
                if (name == NULL || strcmp(name, "nvidia.com/gpu") != 0)
                    continue;
                char field[160];
                double v;
                snprintf(field, sizeof field, "spec.resourceGroups[%d]."
                         "flavors[%d].resources[%d]", g, f, r);
                int rc = qty(k, res, field, "nominalQuota", &v);
                if (rc < 0)
                    return rc;
                *gpus += v;
            }
        }
    }
    return 0;
}

int gs_kube_kueue_tenants(const char *path, FILE *fp, struct gs_diag *d)
{
    struct gs_json *root = NULL;
    const struct gs_json *it;
    int rc = load_json(path, &root, d);
    if (rc == 0)
        rc = items(root, path, "ClusterQueue", &it, d);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = rc == 0 ? open_memstream(&text, &len) : NULL;
    if (rc == 0 && mem == NULL)
        rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    int n = 0, idx = 0;
    for (; rc == 0 && it; it = it == root ? NULL : gs_json_next(it), idx++) {
        struct kctx k = { .file = path, .d = d };
        const char *name = jstr(jget(it, "metadata"), "name");
        const char *kind = jstr(it, "kind");
        snprintf(k.obj, sizeof k.obj, "items[%d] (%s %s)", idx,
                 kind ? kind : "?", name ? name : "?");
        if (kind && strcmp(kind, "ClusterQueue") != 0)
            continue;           /* LocalQueues and the rest */
        if (name == NULL || strlen(name) >= GS_TENANT_NAME) {
            rc = kfail(&k, "metadata.name", name ? "longer than %d "
                       "characters" : "missing", GS_TENANT_NAME - 1);
            break;
        }
        double gpus, w = 1;
        const struct gs_json *wj = jget(jget(jget(it, "spec"), "fairSharing"),
                                        "weight");
        if ((rc = cq_gpus(&k, jget(it, "spec"), &gpus)) < 0)
            break;
        if (wj && (rc = qty(&k, jget(jget(it, "spec"), "fairSharing"),
                            "spec.fairSharing", "weight", &w)) < 0)
            break;
        fprintf(mem, "%s\n    {\"name\": \"%s\", \"quota_gpus\": %.17g, "
                "\"weight\": %.17g}", n ? "," : "", name, gpus, w);
        n++;
    }
    if (mem)
        fclose(mem);
    if (rc == 0 && n == 0)
        rc = gs_diag_set(d, GS_EPARSE, path, "no ClusterQueue");
    if (rc == 0)
        fprintf(fp, "{\n  \"tenants\": [%s\n  ]\n}\n", text);
    free(text);
    gs_json_free(root);
    return rc;
}
