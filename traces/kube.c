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
 * toleration), so it is ignored; every other NoSchedule or NoExecute
 * taint is interned in the catalog's taints (sim/cluster/taint.h) and the
 * node goes to a pool of its own carrying them, named "...-taint-KEY"
 * (the first taint's key): only jobs that tolerate them all may use it
 * (pods' spec.tolerations, kubepods.c).
 * Nodes are grouped into pools by (node pool, zone, market, taints, model,
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
 * Pods ("k8s-pods", "k8s-ksm"): kubepods.c.  kubeint.h is what the two
 * files share. */
#include "kube.h"
#include "kubeint.h"
#include "cimport.h"
#include "tread.h"

#include "../sim/cluster/mig.h"
#include "../sim/io/jsonio.h"
#include "../sim/io/report.h"
#include "../sim/spec/scenario.h"

#include <ctype.h>
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

int gs_kube_fail(const struct gs_kctx *k, const char *field, const char *fmt, ...)
{
    char what[400];
    char *where = gs_strf("%s: %s%s%s", k->file, k->obj, field ? ": " : "",
                          field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gs_diag_set_at(k->d, GS_EPARSE, where, "%s", what);
}

const struct gs_json *gs_kube_get(const struct gs_json *o, const char *key)
{
    return gs_json_is_object(o) ? gs_json_get(o, key) : NULL;
}

const char *gs_kube_str(const struct gs_json *o, const char *key)
{
    return gs_json_string(gs_kube_get(o, key));
}

/* A label's value, or NULL. */
const char *gs_kube_label(const struct gs_json *meta, const char *key)
{
    return gs_kube_str(gs_kube_get(meta, "labels"), key);
}

/* A quantity member of a resource list: 0 with *v (0 when absent), or the
 * error naming field.key.  Kubernetes writes quantities as strings; a
 * number is taken too. */
int gs_kube_qty(const struct gs_kctx *k, const struct gs_json *list,
               const char *field, const char *key, double *v)
{
    const struct gs_json *q = gs_kube_get(list, key);
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
        int rc = gs_kube_fail(k, f, "%s is not a Kubernetes quantity (\"64\", "
                       "\"500m\", \"16Gi\", \"129e6\")", txt ? txt : "?");
        free(txt);
        return rc;
    }
    if (!(*v >= 0) || *v > 1e18)
        return gs_kube_fail(k, f, "%g is out of range", *v);
    return 0;
}

/* The items of a List, or the document itself when it is one object. */
int gs_kube_items(const struct gs_json *root, const char *file,
                 const char *kind, const struct gs_json **first,
                 struct gs_diag *d)
{
    if (gs_json_is_object(root) && gs_json_is_array(gs_kube_get(root, "items"))) {
        *first = gs_json_first(gs_kube_get(root, "items"));
        return 0;
    }
    if (gs_json_is_object(root) && gs_kube_str(root, "kind") &&
        strcmp(gs_kube_str(root, "kind"), kind) == 0) {
        *first = root;
        return 0;
    }
    char *where;
    where = gs_strf("%s: $", file);
    return gs_diag_set_at(d, GS_EPARSE, where, "expected a List with "
                          "\"items\" (kubectl get ... -o json) or one %s",
                          kind);
}

int gs_kube_load_json(const char *path, struct gs_json **root,
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


static int node_market(const struct gs_json *meta)
{
    const char *c = gs_kube_label(meta, "karpenter.sh/capacity-type");
    const char *e = gs_kube_label(meta, "eks.amazonaws.com/capacityType");
    const char *gs = gs_kube_label(meta, "cloud.google.com/gke-spot");
    const char *gp = gs_kube_label(meta, "cloud.google.com/gke-preemptible");
    const char *az = gs_kube_label(meta, "kubernetes.azure.com/scalesetpriority");
    if ((c && strcmp(c, "spot") == 0) || (e && strcmp(e, "SPOT") == 0) ||
        (gs && strcmp(gs, "true") == 0) || (gp && strcmp(gp, "true") == 0) ||
        (az && strcmp(az, "spot") == 0))
        return GS_MKT_SPOT;
    if (c && strcmp(c, "reserved") == 0)
        return GS_MKT_RESERVED;
    return GS_MKT_ONDEMAND;
}

/* spec.unschedulable and taints: *why a reason to leave the node out (or
 * NULL); the other NoSchedule/NoExecute taints interned in cat's taints
 * and their mask in n->taints, the first one's key in n->taint (the pool's
 * name).  0 or the error naming spec.taints[i]. */
static int node_taints(const struct gs_kctx *k, const struct gs_json *spec,
                       struct gs_catalog *cat, struct gs_knode *n,
                       const char **why)
{
    char *u = gs_kube_get(spec, "unschedulable")
              ? gs_json_print(gs_kube_get(spec, "unschedulable")) : NULL;
    int cordoned = u && strcmp(u, "true") == 0;
    free(u);
    *why = NULL;
    if (cordoned) {
        *why = "cordoned (spec.unschedulable)";
        return 0;
    }
    int i = 0;
    for (const struct gs_json *t = gs_json_first(gs_kube_get(spec, "taints")); t;
         t = gs_json_next(t), i++) {
        const char *key = gs_kube_str(t, "key"), *eff = gs_kube_str(t, "effect");
        if (key == NULL || eff == NULL || (strcmp(eff, "NoSchedule") != 0 &&
                                           strcmp(eff, "NoExecute") != 0))
            continue;
        if (strncmp(key, "node.kubernetes.io/", 19) == 0 ||
            strncmp(key, "node.cloudprovider.kubernetes.io/", 33) == 0) {
            *why = "a node-lifecycle taint (not ready, unreachable, "
                   "cordoned, ...)";
            return 0;
        }
        if (strcmp(key, "nvidia.com/gpu") == 0)
            continue;
        int b = gs_taints_add(&cat->taints, key, gs_kube_str(t, "value"), eff);
        if (b < 0) {
            char f[40];
            snprintf(f, sizeof f, "spec.taints[%d]", i);
            return gs_kube_fail(k, f, b == GS_ERANGE
                                ? "more than %d distinct taints in the fleet"
                                : "a key and value longer than %d characters",
                                b == GS_ERANGE ? GS_MAX_TAINTS
                                               : GS_TAINT_NAME - 14);
        }
        n->taints |= 1ULL << b;
        if (n->taint[0] == '\0')
            snprintf(n->taint, sizeof n->taint, "%s", key);
    }
    return 0;
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
    const char *s = gs_kube_label(meta, key);
    long long v;
    if (s == NULL)
        return 0;
    if (gs_tint(s, 0, 1000000000, &v) < 0)
        return -1;
    return (long)v;
}

/* The MIG mixed strategy's resources: per-profile counts into cnt (indexed
 * like g's profiles), their total returned; GS_EPARSE on a bad one. */
static int mig_mixed(const struct gs_kctx *k, const struct gs_json *res,
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
        int rc = gs_kube_qty(k, res, field, key, &v);
        if (rc < 0)
            return rc;
        if (v == 0)
            continue;
        const struct gs_mig_profile *p = g ? gs_mig_profile_find(g, key + 15)
                                           : NULL;
        if (p == NULL) {
            char f[200];
            snprintf(f, sizeof f, "%s.%s", field, key);
            return gs_kube_fail(k, f, "no MIG profile '%s' on this GPU model",
                         key + 15);
        }
        int idx = (int)(p - g->profiles);
        if (idx < 0 || idx >= 32 || v != floor(v) || v > 448)
            return gs_kube_fail(k, field, "'%s': %g instances", key, v);
        cnt[idx] += (int)v;
        *total += (int)v;
    }
    return 0;
}

/* How the node's GPUs are shared, and how many GPUs it has. */
static int node_sharing(const struct gs_kctx *k, const struct gs_json *meta,
                        const struct gs_json *res, const char *field,
                        const char *product, double gpu_res,
                        struct gs_catalog *cat, struct gs_knode *n)
{
    long count = int_label(meta, "nvidia.com/gpu.count");
    long reps = int_label(meta, "nvidia.com/gpu.replicas");
    if (count < 0 || reps < 0)
        return gs_kube_fail(k, count < 0 ? "metadata.labels[nvidia.com/gpu.count]"
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
            return gs_kube_fail(k, "metadata.labels[nvidia.com/gpu.product]",
                         "MIG profile '%s' is not one of %s's", prof,
                         cat->m[n->model].name);
        mig_fill(&n->share, g, p);
        snprintf(n->mig, sizeof n->mig, "%s", p->name);
        int per = n->share.layout.n;
        n->gpn = count > 0 ? (int)count : (int)ceil(gpu_res / per);
    } else if (mixed > 0) {
        int whole = (int)gpu_res, migs = (int)count - whole;
        if (count <= 0 || migs <= 0)
            return gs_kube_fail(k, "metadata.labels[nvidia.com/gpu.count]",
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
                    return gs_kube_fail(k, field, "the MIG instances (%d GPUs "
                                 "cut alike) do not fit a GPU", migs);
        n->gpn = (int)count;
    } else if (shared) {
        int r = reps > 1 ? (int)reps
                : count > 0 ? (int)lround(gpu_res / (double)count) : 0;
        if (r < 1 || r > GS_SHARE_MAX_REPLICAS)
            return gs_kube_fail(k, "metadata.labels[nvidia.com/gpu.replicas]",
                         "time-slicing needs the replicas label (1 to %d) or "
                         "the GPU count label", GS_SHARE_MAX_REPLICAS);
        ts_fill(&n->share, r);
        n->gpn = count > 0 ? (int)count : (int)(gpu_res / r);
    }
    if (n->gpn < 1 || n->gpn > GS_MAX_GPN)
        return gs_kube_fail(k, field, "%d GPUs on one node (1 to %d)", n->gpn,
                     GS_MAX_GPN);
    return 0;
}

/* The GPU model of a node; warns once per product it declares. */
static int node_model(const struct gs_kctx *k, const struct gs_json *meta,
                      struct gs_catalog *cat, const char **product, int *m)
{
    *product = gs_kube_label(meta, "nvidia.com/gpu.product");
    if (*product == NULL)
        return gs_kube_fail(k, "metadata.labels[nvidia.com/gpu.product]", "missing: "
                     "a GPU node needs NVIDIA GPU feature discovery's labels "
                     "to say its model");
    long mem = int_label(meta, "nvidia.com/gpu.memory");
    if (mem < 0)
        return gs_kube_fail(k, "metadata.labels[nvidia.com/gpu.memory]", "'%s' is "
                     "not a whole number of MiB",
                     gs_kube_label(meta, "nvidia.com/gpu.memory"));
    int n0 = cat->n, warned = 0;
    /* MIG single strategy: the memory label is the slice's, the name the
     * GPU's. */
    double gb = strstr(*product, "-MIG-") ? 0 : (double)mem / 1024.0;
    *m = gs_cimp_gpu_model(cat, *product, gb, &warned);
    if (*m == GS_ENOTFOUND && gb == 0 && mem > 0)
        *m = gs_cimp_gpu_model(cat, *product, (double)mem / 1024.0, &warned);
    if (*m < 0)
        return gs_kube_fail(k, "metadata.labels[nvidia.com/gpu.product]",
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
static int node_read(const struct gs_kctx *k, const struct gs_json *it,
                     struct gs_catalog *cat, struct gs_knode *n,
                     const char **why)
{
    memset(n, 0, sizeof *n);
    const struct gs_json *meta = gs_kube_get(it, "metadata");
    const struct gs_json *st = gs_kube_get(it, "status");
    int rc = node_taints(k, gs_kube_get(it, "spec"), cat, n, why);
    if (rc < 0 || *why)
        return rc;
    const char *field = "status.allocatable";
    const struct gs_json *res = gs_kube_get(st, "allocatable");
    if (!gs_json_is_object(res)) {
        field = "status.capacity";
        res = gs_kube_get(st, "capacity");
    }
    if (!gs_json_is_object(res))
        return gs_kube_fail(k, "status.allocatable", "missing (and no "
                     "status.capacity): a node's resources are needed");
    double cpu, mem, gpu;
    char f[64];
    snprintf(f, sizeof f, "%s", field);
    if ((rc = gs_kube_qty(k, res, f, "cpu", &cpu)) < 0 ||
        (rc = gs_kube_qty(k, res, f, "memory", &mem)) < 0 ||
        (rc = gs_kube_qty(k, res, f, "nvidia.com/gpu", &gpu)) < 0)
        return rc;
    if (gs_kube_get(res, "cpu") == NULL || gs_kube_get(res, "memory") == NULL)
        return gs_kube_fail(k, field, "no %s", gs_kube_get(res, "cpu") ? "memory" : "cpu");
    if (cpu * 1000 > 2.0e9 || mem / 1048576.0 > 2.0e9 || gpu != floor(gpu))
        return gs_kube_fail(k, field, "cpu %g, memory %g, nvidia.com/gpu %g: out of "
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
    const char *pool = gs_kube_label(meta, "karpenter.sh/nodepool");
    if (!pool)
        pool = gs_kube_label(meta, "eks.amazonaws.com/nodegroup");
    if (!pool)
        pool = gs_kube_label(meta, "cloud.google.com/gke-nodepool");
    const char *inst = gs_kube_label(meta, "node.kubernetes.io/instance-type");
    snprintf(n->pool, sizeof n->pool, "%s", pool ? pool : inst ? inst : "");
    snprintf(n->instance, sizeof n->instance, "%s", inst ? inst : "");
    const char *zone = gs_kube_label(meta, "topology.kubernetes.io/zone");
    snprintf(n->zone, sizeof n->zone, "%s", zone ? zone : "");
    return 1;
}

static int same_group(const struct gs_knode *a, const struct gs_knode *b)
{
    return strcmp(a->pool, b->pool) == 0 && strcmp(a->zone, b->zone) == 0 &&
           a->taints == b->taints && a->market == b->market &&
           a->model == b->model && a->gpn == b->gpn &&
           a->share.mode == b->share.mode &&
           a->share.replicas == b->share.replicas &&
           memcmp(&a->share.layout, &b->share.layout,
                  sizeof a->share.layout) == 0;
}

/* Name pool i after its group, unique among the first i. */
static void pool_name(struct gs_pool_spec *ps, int i, const struct gs_knode *g,
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
static int group_pools(const struct gs_knode *v, int n,
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
            ps[p].taints = v[i].taints;
            snprintf(ps[p].instance, sizeof ps[p].instance, "%s",
                     v[i].instance);
            pool_name(ps, p, &v[i], cat);
        }
        gs_cimp_pool_node(&ps[p], v[i].cpu_milli, v[i].mem_mib);
    }
    free(rep);
    *pools = ps;
    *npools = np;
    return 0;
}

/* Read the Nodes of path: the kept ones into *out (caller frees), those
 * left out counted in left. */
int gs_kube_nodes_load(const char *path, struct gs_catalog *cat,
                      struct gs_knode **out, int *nout,
                      struct gs_cimp_left *left, struct gs_diag *d)
{
    struct gs_json *root = NULL;
    const struct gs_json *it;
    int rc = gs_kube_load_json(path, &root, d);
    if (rc == 0)
        rc = gs_kube_items(root, path, "Node", &it, d);
    struct gs_knode *v = NULL;
    int n = 0, idx = 0;
    long cap = 0;
    for (; rc == 0 && it; it = it == root ? NULL : gs_json_next(it), idx++) {
        struct gs_kctx k = { .file = path, .d = d };
        const char *name = gs_kube_str(gs_kube_get(it, "metadata"), "name");
        snprintf(k.obj, sizeof k.obj, "items[%d] (Node %s)", idx,
                 name ? name : "?");
        if (name == NULL || (gs_kube_str(it, "kind") &&
                             strcmp(gs_kube_str(it, "kind"), "Node") != 0)) {
            rc = gs_kube_fail(&k, name ? "kind" : "metadata.name", name ?
                       "'%s' where a Node was expected" : "missing",
                       gs_kube_str(it, "kind"));
            break;
        }
        if (gs_cimp_grow(&v, &cap, n, sizeof *v) < 0) {
            rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
            break;
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
    struct gs_knode *v;
    int n;
    struct gs_cimp_left left = { 0 };
    int rc = gs_kube_nodes_load(path, cat, &v, &n, &left, d);
    if (rc == 0 && group_pools(v, n, cat, pools, npools) < 0)
        rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    if (rc == 0)
        gs_cimp_left_print(path, "nodes", &left);
    free(v);
    return rc;
}

/* --- Kueue ------------------------------------------------------------------------ */

/* The nominal quota of nvidia.com/gpu over a ClusterQueue's flavors. */
static int cq_gpus(const struct gs_kctx *k, const struct gs_json *spec,
                   double *gpus)
{
    *gpus = 0;
    int g = 0;
    for (const struct gs_json *rg = gs_json_first(gs_kube_get(spec,
                                                       "resourceGroups"));
         rg; rg = gs_json_next(rg), g++) {
        int f = 0;
        for (const struct gs_json *fl = gs_json_first(gs_kube_get(rg, "flavors"));
             fl; fl = gs_json_next(fl), f++) {
            int r = 0;
            for (const struct gs_json *res = gs_json_first(gs_kube_get(fl,
                                                           "resources"));
                 res; res = gs_json_next(res), r++) {
                const char *name = gs_kube_str(res, "name");
                if (name == NULL || strcmp(name, "nvidia.com/gpu") != 0)
                    continue;
                char field[160];
                double v;
                snprintf(field, sizeof field, "spec.resourceGroups[%d]."
                         "flavors[%d].resources[%d]", g, f, r);
                int rc = gs_kube_qty(k, res, field, "nominalQuota", &v);
                if (rc < 0)
                    return rc;
                *gpus += v;
            }
        }
    }
    return 0;
}

int gs_kube_kueue_read(const char *path, struct gs_tenant **out, int *nout,
                       struct gs_diag *d)
{
    struct gs_json *root = NULL;
    const struct gs_json *it;
    *out = NULL;
    *nout = 0;
    int rc = gs_kube_load_json(path, &root, d);
    if (rc == 0)
        rc = gs_kube_items(root, path, "ClusterQueue", &it, d);
    struct gs_tenant *v = NULL;
    int n = 0, idx = 0;
    long cap = 0;
    for (; rc == 0 && it; it = it == root ? NULL : gs_json_next(it), idx++) {
        struct gs_kctx k = { .file = path, .d = d };
        const char *name = gs_kube_str(gs_kube_get(it, "metadata"), "name");
        const char *kind = gs_kube_str(it, "kind");
        snprintf(k.obj, sizeof k.obj, "items[%d] (%s %s)", idx,
                 kind ? kind : "?", name ? name : "?");
        if (kind && strcmp(kind, "ClusterQueue") != 0)
            continue;           /* LocalQueues and the rest */
        if (name == NULL || name[0] == '\0' ||
            strlen(name) >= GS_TENANT_NAME) {
            rc = gs_kube_fail(&k, "metadata.name", name ? "empty or longer "
                              "than %d characters" : "missing",
                              GS_TENANT_NAME - 1);
            break;
        }
        double gpus, w = 1;
        const struct gs_json *spec = gs_kube_get(it, "spec");
        const struct gs_json *fs = gs_kube_get(spec, "fairSharing");
        if ((rc = cq_gpus(&k, spec, &gpus)) < 0)
            break;
        if (gs_kube_get(fs, "weight") &&
            (rc = gs_kube_qty(&k, fs, "spec.fairSharing", "weight", &w)) < 0)
            break;
        if (!(w > 0) || w > 1e9 || gpus > 1e9) {
            rc = gs_kube_fail(&k, "spec", "fairSharing.weight %g or quota %g "
                              "GPUs out of range (weight above 0)", w, gpus);
            break;
        }
        if (gs_cimp_grow(&v, &cap, n, sizeof *v) < 0) {
            rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
            break;
        }
        memset(&v[n], 0, sizeof v[n]);
        snprintf(v[n].name, sizeof v[n].name, "%s", name);
        v[n].quota_gpus = gpus;
        v[n].weight = w;
        n++;
    }
    gs_json_free(root);
    if (rc == 0 && n == 0)
        rc = gs_diag_set(d, GS_EPARSE, path, "no ClusterQueue");
    if (rc < 0) {
        free(v);
        return rc;
    }
    *out = v;
    *nout = n;
    return 0;
}

int gs_kube_kueue_tenants(const char *path, FILE *fp, struct gs_diag *d)
{
    struct gs_tenant *v;
    int n;
    int rc = gs_kube_kueue_read(path, &v, &n, d);
    if (rc < 0)
        return rc;
    fprintf(fp, "{\n  \"tenants\": [");
    for (int i = 0; i < n; i++) {
        fprintf(fp, "%s\n    {\"name\": ", i ? "," : "");
        gs_report_json_str(fp, v[i].name);
        fprintf(fp, ", \"quota_gpus\": %.17g, \"weight\": %.17g}",
                v[i].quota_gpus, v[i].weight);
    }
    fprintf(fp, "\n  ]\n}\n");
    free(v);
    return 0;
}
