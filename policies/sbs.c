/* sbs.c -- Smart Batch: structurally similar waiting jobs are started
 * together, as a batch.
 *
 * The HPS paper (A. Mamirov, arXiv 2512.10980, 2025) names Smart Batch
 * (SBS) as its third dynamic scheduler: it groups jobs of the same
 * structure and runs them as batches, which raises efficiency for
 * structurally similar jobs (74.6% utilization against HPS's 78.2%).  The
 * paper's scheduler code groups jobs by model family and prefers the batch
 * with the most similar members (low variance of duration and GPU count)
 * whose GPUs add up to at most one node (max_batch_gpu 8), with at least
 * three members (batch_size_threshold 3); without such a batch it picks the
 * single job with the best efficiency x 1/(1 + GPUs/4) x 1/(1 + hours).
 *
 * Here a job's structure is what the scheduler can see of it: tenant, tier,
 * its exact request (GPUs or fraction, memory, GPU models, MIG profile,
 * sharing terms) and the octave of its estimated runtime (floor of log2 of
 * minutes, so members of a group differ by less than 2x in duration).  Jobs
 * of a group have no variance in GPUs and little in duration, which is the
 * paper's similarity.  A pass repeatedly takes the best group:
 *
 *   1. groups with at least batch_min (3) waiting jobs before the others;
 *   2. then the group whose oldest job has the best individual score,
 *      1 / (1 + GPUs/4) / (1 + estimated hours) (the paper's fallback
 *      without its work term, which gpusim's jobs do not carry);
 *   3. then the oldest.
 *
 * and starts its members in arrival order -- a batch of them whose GPUs add
 * up to at most max_batch_gpus (default 8), at least one -- placed by the
 * scenario's placer (best-fit packs a batch onto one node when it can).
 * A group whose next member does not fit, or whose batch is out, waits for
 * the next pass.  There is no aging and no reservation: a job whose group
 * keeps losing can wait long, which is why SBS starves more than HPS.
 *
 * Cost: members of a group sit in a heap on arrival (their pnode); a pass
 * costs O(groups) per job it starts (groups are few: tenants x requests x
 * duration octaves). */
#include "policy.h"
#include "../sim/sim.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct group {
    int tenant, tier, oct;
    struct gs_need need;
    char profile[GS_MIG_PROFILE_NAME];
    struct gs_heap q;           /* waiting members by arrival */
    long n;
    int live;                   /* index in s->live, or -1 */
    uint64_t done;              /* pass stamp when it had its turn */
};

struct sbs {
    long batch_min;
    double max_gpus;
    long depth;
    struct group *g;
    int ng, capg;
    int *live, nlive;
    uint64_t stamp;
};

static struct gs_job *job_of(struct gs_hnode *n)
{
    return (struct gs_job *)((char *)n - offsetof(struct gs_job, pnode));
}

static double gpus_of(const struct gs_job *j)
{
    return j->need.gpus > 0 ? j->need.gpus : j->need.milli / 1000.0;
}

static int sbs_init(struct gs_sim *sim, struct gs_params *p, void **state,
                    struct gs_diag *d)
{
    (void)sim;
    struct sbs *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    s->batch_min = 3;
    s->max_gpus = 8;
    s->depth = 256;
    int rc;
    if ((rc = gs_params_int(p, "batch_min", 1, 1000000, &s->batch_min,
                            d)) < 0 ||
        (rc = gs_params_num(p, "max_batch_gpus", 0.001, 1e6, &s->max_gpus,
                            d)) < 0 ||
        (rc = gs_params_int(p, "depth", 1, 100000000, &s->depth, d)) < 0) {
        free(s);
        return rc;
    }
    *state = s;
    return 0;
}

static void sbs_free(void *state)
{
    struct sbs *s = state;
    if (s == NULL)
        return;
    for (int i = 0; i < s->ng; i++)
        gs_heap_clear(&s->g[i].q);
    free(s->g);
    free(s->live);
    free(s);
}

static int octave(struct gs_sim *sim, const struct gs_job *j)
{
    double m = (double)gs_sim_estimate(sim, j) / GS_MIN;
    if (m < 1)
        return 0;
    int o = (int)floor(log2(m)) + 1;
    return o > 40 ? 40 : o;
}

static int same(const struct group *g, const struct gs_job *j, int oct)
{
    const struct gs_need *n = &j->need;
    return g->tenant == j->tenant && g->tier == j->s.tier && g->oct == oct &&
           g->need.gpus == n->gpus && g->need.milli == n->milli &&
           g->need.mem_gb == n->mem_gb && g->need.allowed == n->allowed &&
           g->need.guar == n->guar && g->need.burst == n->burst &&
           strcmp(g->profile, n->profile ? n->profile : "") == 0;
}

static int group_of(struct sbs *s, struct gs_sim *sim, const struct gs_job *j)
{
    int oct = octave(sim, j);
    for (int i = 0; i < s->ng; i++)
        if (same(&s->g[i], j, oct))
            return i;
    if (s->ng == s->capg) {
        int cap = s->capg ? 2 * s->capg : 16;
        struct group *g = realloc(s->g, (size_t)cap * sizeof *g);
        int *l = realloc(s->live, (size_t)cap * sizeof *l);
        if (g)
            s->g = g;
        if (l)
            s->live = l;
        GS_ASSERT(g != NULL && l != NULL);
        s->capg = cap;
    }
    struct group *g = &s->g[s->ng];
    memset(g, 0, sizeof *g);
    g->tenant = j->tenant;
    g->tier = j->s.tier;
    g->oct = oct;
    g->need = j->need;
    if (j->need.profile)
        snprintf(g->profile, sizeof g->profile, "%s", j->need.profile);
    g->need.profile = NULL;
    /* A job re-enters the queue (after a preemption) perhaps in another
     * group: each heap numbers its entries from its own base, so a stale
     * entry left in the old one can never look live (heap.h). */
    gs_heap_init(&g->q);
    g->q.seq = (uint64_t)(s->ng + 1) << 40;
    g->live = -1;
    return s->ng++;
}

static void sbs_arrive(void *state, struct gs_sim *sim, struct gs_job *j)
{
    struct sbs *s = state;
    int gi = group_of(s, sim, j);
    struct group *g = &s->g[gi];
    GS_ASSERT(gs_heap_push(&g->q, &j->pnode, j->s.arrival) == 0);
    j->pslot = gi;
    if (g->n++ == 0) {
        g->live = s->nlive;
        s->live[s->nlive++] = gi;
    }
}

static void unqueue(struct sbs *s, struct gs_job *j)
{
    struct group *g = &s->g[j->pslot];
    gs_heap_remove(&g->q, &j->pnode);
    if (--g->n == 0) {
        int last = s->live[--s->nlive];
        s->live[g->live] = last;
        s->g[last].live = g->live;
        g->live = -1;
    }
}

static void sbs_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                        int why)
{
    (void)sim;
    (void)why;
    struct sbs *s = state;
    if (gs_hnode_queued(&j->pnode))
        unqueue(s, j);          /* killed while waiting */
}

/* The individual score of a job (the paper's fallback). */
static double indiv(struct gs_sim *sim, const struct gs_job *j)
{
    return 1.0 / (1.0 + gpus_of(j) / 4.0) /
           (1.0 + (double)gs_sim_estimate(sim, j) / GS_HOUR);
}

/* 1 if group a goes before group b. */
static int before(struct sbs *s, struct gs_sim *sim, const struct group *a,
                  const struct group *b)
{
    int ba = a->n >= s->batch_min, bb = b->n >= s->batch_min;
    if (ba != bb)
        return ba;
    struct gs_job *ja = job_of(gs_heap_top(&a->q));
    struct gs_job *jb = job_of(gs_heap_top(&b->q));
    double sa = indiv(sim, ja), sb = indiv(sim, jb);
    if (sa != sb)
        return sa > sb;
    if (ja->s.arrival != jb->s.arrival)
        return ja->s.arrival < jb->s.arrival;
    return ja->rec < jb->rec;
}

static void sbs_schedule(void *state, struct gs_sim *sim)
{
    struct sbs *s = state;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    uint64_t stamp = ++s->stamp;
    long tried = 0;
    while (tried < s->depth && f->used_milli < f->gpus_up * 1000) {
        struct group *best = NULL;
        for (int i = 0; i < s->nlive; i++) {
            struct group *g = &s->g[s->live[i]];
            if (g->done != stamp && (!best || before(s, sim, g, best)))
                best = g;
        }
        if (best == NULL)
            break;
        best->done = stamp;
        double sum = 0;
        long started = 0;
        struct gs_hnode *n;
        while (tried < s->depth && (n = gs_heap_top(&best->q)) != NULL) {
            struct gs_job *j = job_of(n);
            if (started > 0 && sum + gpus_of(j) > s->max_gpus + 1e-9)
                break;
            tried++;
            if (gs_sim_try_start(sim, j, NULL, 0) < 0)
                break;
            sum += gpus_of(j);
            started++;
            unqueue(s, j);
        }
    }
}

const struct gs_policy_ops gs_policy_sbs = {
    .abi = GS_POLICY_ABI,
    .name = "sbs",
    .summary = "Smart Batch: structurally similar jobs started together as "
               "batches (arXiv 2512.10980)",
    .init = sbs_init,
    .free = sbs_free,
    .arrive = sbs_arrive,
    .stopped = sbs_stopped,
    .schedule = sbs_schedule,
};
