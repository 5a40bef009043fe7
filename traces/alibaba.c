/* alibaba.c -- Alibaba PAI GPU traces: openb pod lists to jobs, node lists
 * to fleets.
 *
 * Source: alibaba/clusterdata, cluster-trace-gpu-v2023 (the FGD paper,
 * USENIX ATC'23); field meanings from its README (SOURCE-README.md).
 *
 * Pod list -> jobs (format "alibaba-gpu-2023"); columns are found by their
 * header names, in any order.  name, num_gpu and gpu_milli are required;
 * the multigpu* lists have only those and cpu_milli, memory_mib.
 *   CPU, mem  cpu_milli (milli-cores) and memory_mib (MiB): the pod's host
 *             CPU and memory request (0 when the column is missing).
 *             CPU-only pods (num_gpu 0) are jobs like any other.
 *   id        the number at the end of `name` (openb-pod-0017 -> 17), else
 *             the row number
 *   arrival   creation_time (s)
 *   GPUs      num_gpu >= 2: that many whole GPUs (gpu_milli must be 1000);
 *             num_gpu == 1: gpu_milli/1000 of one GPU (1000 = a whole GPU);
 *             num_gpu == 0: a CPU-only pod (gpu_milli must be 0)
 *   duration  deletion_time - scheduled_time, the time the pod held its
 *             resources; a duration of 0 becomes 1 ms.  The 34 pods of the
 *             default list deleted exactly at the trace end (12,902,960 s)
 *             were cut short by the end of the collection.
 *   phases    Pending pods (never scheduled; no scheduled_time) are left out
 *             and reported, or with pending="keep" kept with duration
 *             deletion_time - creation_time (how long they were wanted).
 *             Failed pods ran until they failed: kept with the same rule as
 *             Succeeded/Running, or left out with failed="skip".
 *   tier      qos: Guaranteed -> inference, priority 120; LS (latency
 *             sensitive) -> inference, priority 100; Burstable -> training,
 *             priority 50; BE (best effort) -> training, priority 10.
 *             Preemptibility and the SLA wait are the tier's defaults.
 *   models    gpu_spec: '|'-separated allowed models, empty or "nan" = any.
 *             Names map onto the catalog: P100 -> P100-16GB, T4 -> T4,
 *             V100M16 -> V100-16GB, V100M32 -> V100-32GB, A10 -> A10.  G1,
 *             G2 and G3 are undisclosed internal codes: they are built-in
 *             catalog models of the same names (sim/cluster/gpu.c) with the
 *             figures of a V100-32GB -- an assumption that matters
 *             only for power and for jobs with a reference GPU, which openb
 *             pods never state.  A scenario can redefine them under
 *             gpu_models.  A name the catalog lacks is a bad row.
 *   tenant    the option "tenant" (default "default"): the trace has no
 *             user field.
 *
 * Node lists -> pools: one pool per (model, GPUs per node), named
 * MODEL-xN; nodes without GPUs become pools without GPUs (gpus_per_node
 * 0, fleet.h), one per (CPU, memory), named cpu-Cc-Gg (cores, GiB;
 * m for milli-cores, mi for MiB when not whole), where CPU-only jobs
 * run.  openb_node_list_gpu_node.csv gives
 * 1,213 nodes and 6,212 GPUs.  The 2026 spot trace's node_info_df.csv maps
 * A100-SXM4-80GB -> A100-80GB, A800-SXM4-80GB -> A800-80GB, H800 ->
 * H800-80GB, A10 -> A10; its undisclosed GPU-series-1 and GPU-series-2 are
 * built in like G1-G3 (figures of an A100-80GB, the fleet's main model).
 *
 * The pod lists other than gpushare40 and cpu050 are sorted by
 * creation_time; those two are loaded and sorted (tread.c).  The multigpu*
 * lists ship without qos, phase, gpu_spec and time columns: their pods are
 * training (BE) pods on any model that all arrive at 0 and hold their
 * resources 1 ms -- a population for the placement experiment
 * (placeexp.h), not a replay.
 *
 * Node lists: cpu_milli and memory_mib, when present, give each node's CPU
 * and host memory; nodes of one model and GPU count but different CPU or
 * memory go to different pools, named MODEL-xN-Cc (C = cores) after the
 * first (which keeps MODEL-xN). */
#include "alibaba.h"
#include "../sim/base/suggest.h"
#include "pai.h"
#include "tread.h"

#include "../sim/spec/scenario.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* --- GPU model names --------------------------------------------------------- */

struct name_map {
    const char *trace, *catalog;
};

static const struct name_map models_2023[] = {
    { "P100", "P100-16GB" }, { "T4", "T4" }, { "V100M16", "V100-16GB" },
    { "V100M32", "V100-32GB" }, { "A10", "A10" },
    { "G1", "G1" }, { "G2", "G2" }, { "G3", "G3" }, { NULL, NULL }
};

static const struct name_map models_2026[] = {
    { "A100-SXM4-80GB", "A100-80GB" }, { "A800-SXM4-80GB", "A800-80GB" },
    { "H800", "H800-80GB" }, { "A10", "A10" },
    { "GPU-series-1", "GPU-series-1" }, { "GPU-series-2", "GPU-series-2" },
    { NULL, NULL }
};

/* A mapped name's catalog index: the undisclosed models are built in
 * (gpu.c), and a scenario may redefine any model. */
static int declare(const struct gs_catalog *cat, const char *name)
{
    int m = gs_catalog_find(cat, name);
    return m >= 0 ? m : GS_ENOTFOUND;
}

static const char *map_name(const struct name_map *m, const char *trace)
{
    for (int i = 0; m[i].trace; i++)
        if (strcmp(m[i].trace, trace) == 0)
            return m[i].catalog;
    return NULL;
}

/* --- pod lists ----------------------------------------------------------------- */

enum { P_NAME, P_NUMGPU, P_MILLI, P_SPEC, P_QOS, P_PHASE, P_CREATE, P_DELETE,
       P_SCHED, P_CPU, P_MEM, NPCOLS };

static const char *const pcol[NPCOLS] = {
    "name", "num_gpu", "gpu_milli", "gpu_spec", "qos", "pod_phase",
    "creation_time", "deletion_time", "scheduled_time", "cpu_milli",
    "memory_mib"
};

/* Columns a pod list must have; the others may be missing (the multigpu*
 * lists have only name, cpu_milli, memory_mib, num_gpu and gpu_milli). */
#define P_REQUIRED ((1u << P_NAME) | (1u << P_NUMGPU) | (1u << P_MILLI))
/* The time columns come as a set: all three or none. */
#define P_TIMES ((1u << P_CREATE) | (1u << P_DELETE) | (1u << P_SCHED))

struct pods {
    const struct gs_catalog *cat;
    int col[NPCOLS];
    int ncols;
    int keep_pending, keep_failed;
    char tenant[GS_TENANT_NAME];
    struct gs_rows *rows;
};

static int pods_header(void *st, struct gs_trow *r)
{
    struct pods *p = st;
    for (int k = 0; k < NPCOLS; k++)
        p->col[k] = -1;
    for (int i = 0; i < r->nf; i++) {
        int known = 0;
        for (int k = 0; k < NPCOLS; k++)
            if (strcmp(r->f[i], pcol[k]) == 0) {
                if (p->col[k] >= 0)
                    return gs_trow_fail(r, NULL, "column '%s' appears twice",
                                        pcol[k]);
                p->col[k] = i;
                known = 1;
            }
        if (!known) {
            /* a misspelled column would silently drop what it holds
             * (cpu_milliX: every pod's CPU demand) */
            char hint[128];
            const char *cands[NPCOLS + 1];
            memcpy(cands, pcol, sizeof pcol);
            cands[NPCOLS] = NULL;
            gs_suggest_fmt(r->f[i], cands, hint, sizeof hint);
            return gs_trow_fail(r, NULL, "unknown column '%.100s' in the "
                                "header%s (a pod list's columns: name, "
                                "cpu_milli, memory_mib, num_gpu, gpu_milli, "
                                "gpu_spec, qos, pod_phase, creation_time, "
                                "deletion_time, scheduled_time)", r->f[i],
                                hint);
        }
    }
    unsigned have = 0;
    for (int k = 0; k < NPCOLS; k++)
        if (p->col[k] >= 0)
            have |= 1u << k;
    for (int k = 0; k < NPCOLS; k++)
        if ((P_REQUIRED >> k & 1) && p->col[k] < 0)
            return gs_trow_fail(r, NULL, "the header lacks the column '%s' "
                                "(an openb pod list has at least name, "
                                "num_gpu and gpu_milli; the full lists add "
                                "cpu_milli, memory_mib, gpu_spec, qos, "
                                "pod_phase, creation_time, deletion_time, "
                                "scheduled_time)", pcol[k]);
    if ((have & P_TIMES) != 0 && (have & P_TIMES) != P_TIMES)
        return gs_trow_fail(r, NULL, "the header has some of creation_time, "
                            "deletion_time and scheduled_time but not all "
                            "three");
    p->ncols = r->nf;
    return 0;
}

static int seconds(struct gs_trow *r, int k, const char *s, gs_time *out)
{
    double v;
    if (gs_tnum(s, &v) < 0 || v < 0 || v > 9.0e12)
        return gs_trow_fail(r, pcol[k], "'%s' is not a time in seconds >= 0",
                            s);
    *out = (gs_time)llround(v * 1000.0);
    return 0;
}

static int pods_row(void *st, struct gs_trow *r, struct gs_jobspec *j)
{
    struct pods *p = st;
    if (r->nf != p->ncols)
        return gs_trow_fail(r, NULL, "%d fields where the header has %d",
                            r->nf, p->ncols);
    const char *v[NPCOLS];
    for (int k = 0; k < NPCOLS; k++)
        v[k] = p->col[k] >= 0 ? r->f[p->col[k]] : NULL;

    /* id */
    const char *e = v[P_NAME] + strlen(v[P_NAME]);
    const char *dg = e;
    while (dg > v[P_NAME] && isdigit((unsigned char)dg[-1]))
        dg--;
    long long id;
    if (dg < e && e - dg <= 15 && gs_tint(dg, 0, 999999999999999LL, &id) == 0)
        j->id = id;
    else
        j->id = r->line - 1;

    long long ng, milli;
    if (gs_tint(v[P_NUMGPU], 0, 1000000, &ng) < 0)
        return gs_trow_fail(r, "num_gpu", "'%s' is not a GPU count (a whole "
                            "number >= 0)", v[P_NUMGPU]);
    if (gs_tint(v[P_MILLI], 0, 1000, &milli) < 0)
        return gs_trow_fail(r, "gpu_milli", "'%s' is not a share of a GPU in "
                            "thousandths (0 to 1000)", v[P_MILLI]);
    if (ng == 0 && milli != 0)
        return gs_trow_fail(r, "gpu_milli", "%lld with num_gpu 0 (a CPU-only "
                            "pod asks 0)", milli);
    if (ng == 1 && milli == 0)
        return gs_trow_fail(r, "gpu_milli", "0 with num_gpu 1 (a GPU pod asks "
                            "1 to 1000)");
    if (ng >= 2 && milli != 1000)
        return gs_trow_fail(r, "gpu_milli", "%lld with num_gpu %lld (only a "
                            "one-GPU pod may ask a fraction)", milli, ng);
    if (ng == 1 && milli < 1000) {
        j->gpus = 0;
        j->milli = (int)milli;
    } else {
        j->gpus = (int)ng;
    }

    long long cpu = 0, mem = 0;
    if (v[P_CPU] && v[P_CPU][0] &&
        gs_tint(v[P_CPU], 0, 1000000000LL, &cpu) < 0)
        return gs_trow_fail(r, "cpu_milli", "'%s' is not a CPU request in "
                            "milli-cores (a whole number >= 0)", v[P_CPU]);
    if (v[P_MEM] && v[P_MEM][0] &&
        gs_tint(v[P_MEM], 0, 1000000000LL, &mem) < 0)
        return gs_trow_fail(r, "memory_mib", "'%s' is not a memory request in "
                            "MiB (a whole number >= 0)", v[P_MEM]);
    j->cpu_milli = (int32_t)cpu;
    j->mem_mib = (int32_t)mem;

    const char *spec = v[P_SPEC] ? v[P_SPEC] : "";
    if (spec[0] && strcmp(spec, "nan") != 0) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", spec);
        for (char *s = buf, *bar; s; s = bar) {
            bar = strchr(s, '|');
            if (bar)
                *bar++ = '\0';
            const char *cn = map_name(models_2023, s);
            int m = cn ? gs_catalog_find(p->cat, cn) : -1;
            if (cn == NULL)
                return gs_trow_fail(r, "gpu_spec", "unknown GPU model '%s' "
                                    "(the trace uses P100, T4, V100M16, "
                                    "V100M32, A10, G1, G2, G3)", s);
            if (m < 0)
                return gs_trow_fail(r, "gpu_spec", "GPU model '%s' is not in "
                                    "the scenario's catalog (declare it "
                                    "under gpu_models, or take the fleet "
                                    "from the node list)", cn);
            j->allowed |= 1ULL << m;
        }
    }

    const char *q = v[P_QOS] ? v[P_QOS] : "BE";
    if (strcasecmp(q, "Guaranteed") == 0) {
        j->tier = GS_TIER_INFERENCE;
        j->priority = 120;
    } else if (strcasecmp(q, "LS") == 0) {
        j->tier = GS_TIER_INFERENCE;
        j->priority = 100;
    } else if (strcasecmp(q, "Burstable") == 0) {
        j->tier = GS_TIER_TRAINING;
        j->priority = 50;
    } else if (strcasecmp(q, "BE") == 0) {
        j->tier = GS_TIER_TRAINING;
        j->priority = 10;
    } else {
        return gs_trow_fail(r, "qos", "unknown QoS class '%s' (LS, BE, "
                            "Burstable, Guaranteed)", q);
    }

    const char *ph = v[P_PHASE] ? v[P_PHASE] : "Succeeded";
    int pending = 0;
    if (strcmp(ph, "Pending") == 0)
        pending = 1;
    else if (strcmp(ph, "Failed") == 0) {
        if (!p->keep_failed) {
            r->why = "pod_phase Failed (failed=\"skip\")";
            return 0;
        }
    } else if (strcmp(ph, "Succeeded") != 0 && strcmp(ph, "Running") != 0)
        return gs_trow_fail(r, "pod_phase", "unknown phase '%s' (Succeeded, "
                            "Running, Pending, Failed)", ph);

    gs_time created, deleted, sched = 0;
    int rc;
    if (v[P_CREATE] == NULL) {
        /* a list without times (multigpu*): placement only */
        j->arrival = 0;
        j->work = 1;
        snprintf(j->tenant, sizeof j->tenant, "%s", p->tenant);
        return 1;
    }
    if ((rc = seconds(r, P_CREATE, v[P_CREATE], &created)) < 0 ||
        (rc = seconds(r, P_DELETE, v[P_DELETE], &deleted)) < 0)
        return rc;
    if (v[P_SCHED][0] == '\0') {
        if (!pending)
            return gs_trow_fail(r, "scheduled_time", "empty for a pod in "
                                "phase %s (only Pending pods lack it)", ph);
    } else if ((rc = seconds(r, P_SCHED, v[P_SCHED], &sched)) < 0) {
        return rc;
    }
    if (pending) {
        if (!p->keep_pending) {
            r->why = "pod_phase Pending (never scheduled; pending=\"keep\" "
                     "keeps them)";
            return 0;
        }
        sched = created;
    }
    if (sched < created)
        return gs_trow_fail(r, "scheduled_time", "%s is before creation_time "
                            "%s", v[P_SCHED], v[P_CREATE]);
    if (deleted < sched)
        return gs_trow_fail(r, "deletion_time", "%s is before the pod was "
                            "scheduled (%s)", v[P_DELETE],
                            pending ? v[P_CREATE] : v[P_SCHED]);
    j->arrival = created;
    j->work = (double)(deleted - sched > 0 ? deleted - sched : 1);
    snprintf(j->tenant, sizeof j->tenant, "%s", p->tenant);
    return 1;
}

static const struct gs_rows_ops pods_ops = {
    .delim = ',',
    .has_header = 1,
    .header = pods_header,
    .row = pods_row,
};

static int choice(struct gs_params *o, const char *key, const char *a,
                  const char *b, int *is_a, struct gs_diag *d)
{
    const char *s = NULL;
    int rc = gs_params_str(o, key, &s, d);
    if (rc < 0 || s == NULL)
        return rc;
    if (strcmp(s, a) == 0)
        *is_a = 1;
    else if (strcmp(s, b) == 0)
        *is_a = 0;
    else {
        char *where;
        where = gs_strf("%s.%s", o->where, key);
        return gs_diag_set_at(d, GS_EINVAL, where, "'%s' is neither \"%s\" "
                              "nor \"%s\"", s, a, b);
    }
    return 0;
}

static void pods_close(void *st)
{
    struct pods *p = st;
    if (p == NULL)
        return;
    gs_rows_close(p->rows);
    free(p);
}

static int pods_open(const struct gs_scenario *sc, struct gs_params *o,
                     void **state, struct gs_diag *d)
{
    *state = NULL;
    struct pods *p = calloc(1, sizeof *p);
    if (p == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    p->cat = &sc->cat;
    p->keep_failed = 1;
    snprintf(p->tenant, sizeof p->tenant, "%s", "default");
    char *path = NULL;
    int skip = 0, rc;
    if ((rc = gs_topt_path(sc, o, "path", 1, &path, NULL, d)) < 0 ||
        (rc = gs_topt_skip(o, &skip, d)) < 0 ||
        (rc = choice(o, "pending", "keep", "skip", &p->keep_pending, d)) < 0 ||
        (rc = choice(o, "failed", "keep", "skip", &p->keep_failed, d)) < 0 ||
        (rc = gs_topt_tenant(o, "tenant", p->tenant, d)) < 0 ||
        (rc = gs_rows_open(path, &pods_ops, p, skip, &p->rows, d)) < 0) {
        free(path);
        pods_close(p);
        return rc;
    }
    free(path);
    *state = p;
    return 0;
}

static int pods_next(void *st, struct gs_jobspec *out, struct gs_diag *d)
{
    struct pods *p = st;
    return gs_rows_next(p->rows, out, d);
}

const struct gs_trace_format gs_alibaba_format = {
    .name = "alibaba-gpu-2023",
    .summary = "Alibaba PAI openb pod list (cluster-trace-gpu-v2023)",
    .open = pods_open,
    .next = pods_next,
    .close = pods_close,
};

/* --- node lists ---------------------------------------------------------------------- */

struct nodes {
    const struct name_map *map;
    const char *(*mapfn)(const char *);     /* instead of map */
    const char *count_col, *model_col, *cpu_col, *mem_col;
    int ci, mi, cpui, memi, ncols;
    double cpu_scale;           /* cpu column -> milli-cores */
    struct gs_catalog *cat;
    struct gs_pool_spec *pools;
    int npools, cap;
};

static int nodes_header(struct nodes *n, struct gs_trow *r)
{
    n->ci = n->mi = n->cpui = n->memi = -1;
    for (int i = 0; i < r->nf; i++) {
        if (strcmp(r->f[i], n->count_col) == 0)
            n->ci = i;
        if (strcmp(r->f[i], n->model_col) == 0)
            n->mi = i;
        if (n->cpu_col && strcmp(r->f[i], n->cpu_col) == 0)
            n->cpui = i;
        if (n->mem_col && strcmp(r->f[i], n->mem_col) == 0)
            n->memi = i;
    }
    if (n->ci < 0 || n->mi < 0)
        return gs_trow_fail(r, NULL, "the header lacks the column '%s'",
                            n->ci < 0 ? n->count_col : n->model_col);
    n->ncols = r->nf;
    return 0;
}

static int nodes_row(struct nodes *n, struct gs_trow *r)
{
    if (r->nf != n->ncols)
        return gs_trow_fail(r, NULL, "%d fields where the header has %d",
                            r->nf, n->ncols);
    long long g;
    if (gs_tint(r->f[n->ci], 0, GS_MAX_GPN, &g) < 0)
        return gs_trow_fail(r, n->count_col, "'%s' is not a GPU count from 0 "
                            "to %d", r->f[n->ci], GS_MAX_GPN);
    int m = 0;
    const char *cn = "cpu";
    if (g > 0) {
        const char *tm = r->f[n->mi];
        cn = n->mapfn ? n->mapfn(tm) : map_name(n->map, tm);
        if (cn == NULL)
            return gs_trow_fail(r, n->model_col, "unknown GPU model '%s'", tm);
        m = declare(n->cat, cn);
        if (m < 0)
            return gs_trow_fail(r, n->model_col, "GPU model '%s' is not in "
                                "the catalog", cn);
    }
    double cpu = 0;
    long long mem = 0;
    if (n->cpui >= 0 && r->f[n->cpui][0] &&
        (gs_tnum(r->f[n->cpui], &cpu) < 0 || !(cpu >= 0) ||
         cpu * n->cpu_scale > 2.0e9))
        return gs_trow_fail(r, n->cpu_col, "'%s' is not a CPU count >= 0",
                            r->f[n->cpui]);
    if (n->memi >= 0 && r->f[n->memi][0] &&
        gs_tint(r->f[n->memi], 0, 2000000000LL, &mem) < 0)
        return gs_trow_fail(r, n->mem_col, "'%s' is not a memory size in MiB",
                            r->f[n->memi]);
    int32_t cpum = (int32_t)llround(cpu * n->cpu_scale);
    int same = 0;
    for (int i = 0; i < n->npools; i++)
        if (n->pools[i].model == m && n->pools[i].gpn == (int)g) {
            if (n->pools[i].cpu_milli == cpum &&
                n->pools[i].mem_mib == (int32_t)mem) {
                n->pools[i].nodes++;
                return 1;
            }
            same++;
        }
    if (n->npools == n->cap) {
        int cap = n->cap ? n->cap * 2 : 8;
        struct gs_pool_spec *np = realloc(n->pools, (size_t)cap * sizeof *np);
        if (np == NULL)
            return gs_diag_set(r->d, GS_ENOMEM, r->path, "out of memory");
        n->pools = np;
        n->cap = cap;
    }
    struct gs_pool_spec *ps = &n->pools[n->npools++];
    memset(ps, 0, sizeof *ps);
    if (g == 0) {               /* CPU-only nodes: by their CPU and memory */
        char c[24] = "", m2[24] = "";
        if (cpum % 1000 == 0)
            snprintf(c, sizeof c, "-%dc", cpum / 1000);
        else
            snprintf(c, sizeof c, "-%dm", cpum);
        if (mem > 0 && mem % 1024 == 0)
            snprintf(m2, sizeof m2, "-%lldg", mem / 1024);
        else if (mem > 0)
            snprintf(m2, sizeof m2, "-%lldmi", mem);
        snprintf(ps->name, sizeof ps->name, "cpu%s%s", c, m2);
    } else if (same == 0)
        snprintf(ps->name, sizeof ps->name, "%s-x%d", cn, (int)g);
    else if (cpum % 1000 == 0)
        snprintf(ps->name, sizeof ps->name, "%s-x%d-%dc-%lldg", cn, (int)g,
                 cpum / 1000, mem / 1024);
    else
        snprintf(ps->name, sizeof ps->name, "%s-x%d-%dm-%lldg", cn, (int)g,
                 cpum, mem / 1024);
    ps->model = m;
    ps->gpn = (int)g;
    ps->nodes = 1;
    ps->cpu_milli = cpum;
    ps->mem_mib = (int32_t)mem;
    ps->market = GS_MKT_ONDEMAND;
    return 1;
}

int gs_alibaba_node_list(const char *format, const char *path,
                         struct gs_catalog *cat, struct gs_pool_spec **pools,
                         int *npools, struct gs_diag *d)
{
    *pools = NULL;
    *npools = 0;
    struct nodes n = { .cat = cat };
    int fixed = 0;              /* columns known, no header row */
    if (strcmp(format, "alibaba-gpu-2023") == 0) {
        n.map = models_2023;
        n.count_col = "gpu";
        n.model_col = "model";
        n.cpu_col = "cpu_milli";
        n.mem_col = "memory_mib";
        n.cpu_scale = 1;
    } else if (strcmp(format, "alibaba-spot-gpu-2026") == 0) {
        n.map = models_2026;
        n.count_col = "gpu_capacity_num";
        n.model_col = "gpu_model";
        n.cpu_col = "cpu_num";
        n.cpu_scale = 1000;
    } else if (strcmp(format, "alibaba-pai-2020") == 0) {
        /* pai_machine_spec: no header row; machine,gpu_type,cap_cpu,
         * cap_mem,cap_gpu (pai.c); cap_mem (GB) is not read */
        n.mapfn = gs_pai_gpu_model;
        n.count_col = "cap_gpu";
        n.model_col = "gpu_type";
        n.cpu_col = "cap_cpu";
        n.cpu_scale = 1000;
        n.ci = 4;
        n.mi = 1;
        n.cpui = 2;
        n.memi = -1;
        n.ncols = 5;
        fixed = 1;
    } else {
        return gs_diag_set(d, GS_ENOTFOUND, path, "unknown node-list format "
                           "'%s'", format);
    }
    struct gs_tread *t;
    int rc = gs_tread_open(path, &t, d);
    if (rc < 0)
        return rc;
    char *line, *f[64];
    int header = fixed;
    while ((rc = gs_tread_line(t, &line, d)) == 1) {
        if (line[strspn(line, " \t")] == '\0')
            continue;
        struct gs_trow r = { .path = path, .line = gs_tread_lineno(t), .f = f,
                             .d = d };
        r.nf = gs_tsplit(line, ',', f, 64);
        if (r.nf > 64) {
            rc = gs_trow_fail(&r, NULL, "too many fields (%d)", r.nf);
            break;
        }
        if (fixed && r.line == 1 && strcmp(f[0], "machine") == 0)
            continue;           /* the .header line copied on top */
        rc = header ? nodes_row(&n, &r) : nodes_header(&n, &r);
        header = 1;
        if (rc < 0)
            break;
    }
    int gpu_pools = 0;
    for (int i = 0; i < n.npools; i++)
        gpu_pools += n.pools[i].gpn > 0;
    if (rc == 0 && gpu_pools == 0)
        rc = gs_diag_set(d, GS_EINVAL, path, "no node with GPUs in the list");
    gs_tread_close(t);
    if (rc < 0) {
        free(n.pools);
        return rc;
    }
    *pools = n.pools;
    *npools = n.npools;
    return 0;
}
