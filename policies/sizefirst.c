/* sizefirst.c -- the static size-ordered baselines of the HPS paper:
 * smallest (its "SJF"), shortest and shortest-gpu.
 *
 * A. Mamirov, "Reducing Fragmentation and Starvation in GPU Clusters
 * through Dynamic Multi-Objective Scheduling", arXiv 2512.10980 (2025),
 * compares its three dynamic schedulers with four static ones: FIFO, SJF,
 * Shortest and Shortest-GPU.  The names come from the Tiresias simulator
 * (Gu et al., NSDI 2019), and the paper's own scheduler code defines them
 * the same way:
 *
 *   SJF           smallest job first: fewest GPUs asked;
 *   Shortest      shortest remaining time first;
 *   Shortest-GPU  shortest remaining GPU-time first (remaining time x GPUs).
 *
 * Each picks the best-ranked waiting job by its one key and nothing else:
 * no aging, no backfilling, no look at the cluster.  A pass starts jobs in
 * key order while they fit; the best-ranked job that does not fit blocks
 * every job ranked behind it (as FIFO's head does), which is what makes
 * these policies static.  Ties go to the job that entered the queue first.
 * gpusim already has `fifo`; SJF is registered as `smallest` because `sjf`
 * is the name of the plug-in example (policies/examples/sjf.c, shortest
 * estimated job first) that the plug-in loader must not see taken.
 *
 * Keys: GPUs count fractions in thousandths (a half GPU ranks before one
 * GPU); remaining time is gs_sim_estimate() (the stated estimate, else the
 * true remaining runtime, as the paper's simulator reads job.remaining_time)
 * taken when the job enters the queue -- a pending job's remaining work
 * does not change until it runs, and a preempted job re-enters with its new
 * remainder.
 *
 * Cost: the waiting jobs sit in a heap on the key (the job's pnode; a
 * counted heap, look.h), so a pass costs O(log n) per job it starts plus
 * one look at the job that blocks, whatever the queue length. */
#include "policy.h"
#include "needtab.h"
#include "../sim/core/sim.h"

#include <stddef.h>
#include <stdlib.h>

enum { KEY_GPUS, KEY_TIME, KEY_GPUTIME };

struct sizefirst {
    int key;
    struct gs_lheap q;
};

static struct gs_job *of_node(struct gs_hnode *n)
{
    return (struct gs_job *)((char *)n - offsetof(struct gs_job, pnode));
}

static long milli(const struct gs_job *j)
{
    return j->need.gpus > 0 ? (long)j->need.gpus * 1000 : j->need.milli;
}

/* The job's rank; smaller first.  GPU-time is in GPU-milliseconds (the
 * product overflows only past 4e9 GPU-hours). */
static gs_time sf_key(const struct sizefirst *s, struct gs_sim *sim,
                      const struct gs_job *j)
{
    switch (s->key) {
    case KEY_GPUS:
        return milli(j);
    case KEY_TIME:
        return gs_sim_estimate(sim, j);
    default: {
        double k = (double)gs_sim_estimate(sim, j) * (double)milli(j) / 1000.0;
        return k >= 9.0e18 ? (gs_time)9.0e18 : (gs_time)k;
    }
    }
}

static int sf_init(struct gs_sim *sim, int key, void **state)
{
    struct sizefirst *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    s->key = key;
    gs_lheap_init(&s->q, sim);
    *state = s;
    return 0;
}

static int smallest_init(struct gs_sim *sim, struct gs_params *p,
                         void **state, struct gs_diag *d)
{
    (void)p;
    (void)d;
    return sf_init(sim, KEY_GPUS, state);
}

static int shortest_init(struct gs_sim *sim, struct gs_params *p,
                         void **state, struct gs_diag *d)
{
    (void)p;
    (void)d;
    return sf_init(sim, KEY_TIME, state);
}

static int shortest_gpu_init(struct gs_sim *sim, struct gs_params *p,
                             void **state, struct gs_diag *d)
{
    (void)p;
    (void)d;
    return sf_init(sim, KEY_GPUTIME, state);
}

static void sf_free(void *state)
{
    struct sizefirst *s = state;
    if (s == NULL)
        return;
    gs_lheap_clear(&s->q);
    free(s);
}

static void sf_arrive(void *state, struct gs_sim *sim, struct gs_job *j)
{
    struct sizefirst *s = state;
    GS_ASSERT(gs_lheap_push(&s->q, &j->pnode, sf_key(s, sim, j)) == 0);
}

/* A job killed while waiting leaves the queue (a running job is not in it). */
static void sf_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                       int why)
{
    (void)sim;
    (void)why;
    struct sizefirst *s = state;
    gs_lheap_remove(&s->q, &j->pnode);
}

static void sf_schedule(void *state, struct gs_sim *sim)
{
    struct sizefirst *s = state;
    struct gs_hnode *n;
    while ((n = gs_lheap_top(&s->q)) != NULL) {
        struct gs_job *j = of_node(n);
        if (gs_job_sure_miss(sim, j, NULL, 0) ||
            gs_sim_try_start(sim, j, NULL, 0) < 0)
            break;
        gs_lheap_remove(&s->q, n);
    }
}

const struct gs_policy_ops gs_policy_smallest = {
    .abi = GS_POLICY_ABI,
    .name = "smallest",
    .summary = "the HPS paper's SJF: fewest GPUs first, the first that does "
               "not fit blocks",
    .init = smallest_init,
    .free = sf_free,
    .arrive = sf_arrive,
    .stopped = sf_stopped,
    .schedule = sf_schedule,
};

const struct gs_policy_ops gs_policy_shortest = {
    .abi = GS_POLICY_ABI,
    .name = "shortest",
    .summary = "shortest remaining time first, the first that does not fit "
               "blocks",
    .init = shortest_init,
    .free = sf_free,
    .arrive = sf_arrive,
    .stopped = sf_stopped,
    .schedule = sf_schedule,
};

const struct gs_policy_ops gs_policy_shortest_gpu = {
    .abi = GS_POLICY_ABI,
    .name = "shortest-gpu",
    .summary = "shortest remaining GPU-time first, the first that does not "
               "fit blocks",
    .init = shortest_gpu_init,
    .free = sf_free,
    .arrive = sf_arrive,
    .stopped = sf_stopped,
    .schedule = sf_schedule,
};
