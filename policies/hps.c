/* hps.c -- the Hybrid Priority Scheduler: one score mixing priority,
 * efficiency, fairness by aging and fragmentation.
 *
 * Source: A. Mamirov, "Reducing Fragmentation and Starvation in GPU Clusters
 * through Dynamic Multi-Objective Scheduling", arXiv 2512.10980 (2025).  HPS
 * ranks the waiting jobs by a weighted multi-objective score -- the job's
 * priority, its efficiency (short, small jobs raise jobs/hour), a fairness
 * term that boosts a job once it has waited past a threshold (aging, which
 * is what cuts the starved jobs, those waiting over 30 minutes, from 156 to
 * 12 in the paper), and a fragmentation term that prefers the job filling
 * the free GPUs of a node most tightly -- and starts jobs in score order.
 * The paper gives the terms and their intent; the normalizations below are
 * this implementation's, each in [0, 1] before aging:
 *
 *   score(j) = w_priority  * P(j)       P = tier priority / highest tier
 *                                           priority (clamped to [0, 1])
 *            + w_efficiency * E(j)      E = 1 / (1 + estimated GPU-hours)
 *            + w_aging     * A(j)       A = 0 while wait <= aging_after, else
 *                                           1 + (wait - aging_after) /
 *                                           aging_scale
 *            + w_fragmentation * (1 - F(j))
 *                                       F = what the best-fit placement
 *                                           leaves free on the node it picks:
 *                                           free GPUs / GPUs per node, or for
 *                                           a fraction the free share of the
 *                                           GPU (+1 if it breaks a whole GPU),
 *                                           halved; 1 if the job fits nowhere
 *
 * With the default weights (priority 1, efficiency 1, aging 3,
 * fragmentation 0.5) a job past the threshold outranks every job that is
 * not, which is the "boost".  Starvation guard (block_aged, default true):
 * when the best-ranked job is aged and does not fit, nothing ranked below it
 * starts in that pass, so running jobs drain and it gets its room -- without
 * it, a steady stream of small efficient jobs could hold a large job off
 * forever (tests/test_policies.c scripts exactly that).
 *
 * Parameters: w_priority, w_efficiency, w_aging, w_fragmentation (>= 0),
 * aging_after (duration, default 5 min, as the seeds suggest), aging_scale
 * (default 30 min), block_aged (bool), depth (pending jobs ranked per pass,
 * oldest first, default 256). */
#include "policy.h"
#include "../sim/sim.h"

#include <stdlib.h>

struct hps {
    double wp, we, wa, wf;
    gs_time after, scale;
    int block;
    long depth;
    double maxprio;
    struct cand { struct gs_job *j; double score, aged; } *c;
    long capc;
    struct gs_job *held;        /* the starved job holding the reservation */
    struct gs_job **run;        /* scratch: running jobs by estimated end */
    long caprun;
};

static int hps_init(struct gs_sim *sim, struct gs_params *p, void **state,
                    struct gs_diag *d)
{
    struct hps *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    *s = (struct hps){ .wp = 1.0, .we = 1.0, .wa = 3.0, .wf = 0.5,
                       .after = 5 * GS_MIN, .scale = 30 * GS_MIN, .block = 1,
                       .depth = 256 };
    int rc;
    if ((rc = gs_params_num(p, "w_priority", 0, 1e6, &s->wp, d)) < 0 ||
        (rc = gs_params_num(p, "w_efficiency", 0, 1e6, &s->we, d)) < 0 ||
        (rc = gs_params_num(p, "w_aging", 0, 1e6, &s->wa, d)) < 0 ||
        (rc = gs_params_num(p, "w_fragmentation", 0, 1e6, &s->wf, d)) < 0 ||
        (rc = gs_params_time(p, "aging_after", &s->after, d)) < 0 ||
        (rc = gs_params_time(p, "aging_scale", &s->scale, d)) < 0 ||
        (rc = gs_params_bool(p, "block_aged", &s->block, d)) < 0 ||
        (rc = gs_params_int(p, "depth", 1, 100000000, &s->depth, d)) < 0) {
        free(s);
        return rc;
    }
    if (s->scale <= 0) {
        free(s);
        return gs_diag_set(d, GS_EINVAL, p->where, "aging_scale must be > 0");
    }
    const struct gs_scenario *sc = gs_sim_scenario(sim);
    for (int t = 0; t < GS_NTIERS; t++)
        if (sc->tiers[t].priority > s->maxprio)
            s->maxprio = sc->tiers[t].priority;
    *state = s;
    return 0;
}

static void hps_free(void *state)
{
    struct hps *s = state;
    free(s->c);
    free(s->run);
    free(s);
}

/* F(j): what the tightest placement leaves free, in [0, 1]; 1 = no room. */
static double frag(struct gs_sim *sim, const struct gs_job *j)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    double best = 1.0;
    struct gs_alloc a = { .pool = -1 };
    for (int p = 0; p < f->npools; p++) {
        if (!gs_fleet_pool_eligible(f, p, &j->need))
            continue;
        struct gs_range r = { p, 0, f->pools[p].s.nodes };
        int score;
        if (gs_fleet_find(f, &r, &j->need, GS_FIT_BEST, &a, &score) < 0)
            continue;
        double x = j->need.gpus > 0
                       ? (double)score / f->pools[p].s.gpn
                       : (double)score / 2000.0;
        if (x > 1)
            x = 1;
        if (x < best)
            best = x;
    }
    gs_alloc_reset(&a);
    return best;
}

static double job_gpus(const struct gs_job *j)
{
    return j->need.gpus > 0 ? j->need.gpus : j->need.milli / 1000.0;
}

/* The reservation of a starved job (EASY, as in backfill.c): the earliest
 * time t at which, running jobs ending at their estimated ends, enough GPUs
 * of the pools it may use are free, and how many beyond its need are free
 * then (extra). */
struct shadow {
    gs_time t;
    double extra;
};

static int end_cmp(const void *x, const void *y)
{
    const struct gs_job *a = *(struct gs_job *const *)x;
    const struct gs_job *b = *(struct gs_job *const *)y;
    if (a->est_end != b->est_end)
        return a->est_end < b->est_end ? -1 : 1;
    return a->rec < b->rec ? -1 : a->rec > b->rec;
}

static struct shadow shadow(struct hps *s, struct gs_sim *sim,
                            const struct gs_job *h)
{
    const struct gs_fleet *f = gs_sim_fleet(sim);
    double avail = 0, need = job_gpus(h);
    for (int p = 0; p < f->npools; p++)
        if (gs_fleet_pool_eligible(f, p, &h->need))
            avail += (double)f->pools[p].gpus_up -
                     (double)f->pools[p].used_milli / 1000.0;
    struct shadow sh = { gs_sim_now(sim), avail - need };
    if (avail >= need - 1e-9)
        return sh;              /* enough GPUs, but not on one node */
    long nrun;
    struct gs_job *const *run = gs_sim_running(sim, &nrun);
    if (nrun > s->caprun) {
        free(s->run);
        s->run = malloc((size_t)nrun * sizeof *s->run);
        GS_ASSERT(s->run != NULL);
        s->caprun = nrun;
    }
    long m = 0;
    for (long i = 0; i < nrun; i++)
        if (run[i]->alloc.pool >= 0 &&
            gs_fleet_pool_eligible(f, run[i]->alloc.pool, &h->need))
            s->run[m++] = run[i];
    qsort(s->run, (size_t)m, sizeof *s->run, end_cmp);
    sh.t = GS_TIME_MAX;
    for (long i = 0; i < m; i++) {
        avail += job_gpus(s->run[i]);
        if (avail >= need - 1e-9) {
            sh.t = s->run[i]->est_end;
            break;
        }
    }
    sh.extra = avail - need;
    return sh;
}

static int cand_cmp(const void *x, const void *y)
{
    const struct cand *a = x, *b = y;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    if (a->j->s.arrival != b->j->s.arrival)
        return a->j->s.arrival < b->j->s.arrival ? -1 : 1;
    return a->j->rec < b->j->rec ? -1 : a->j->rec > b->j->rec;
}

static void hps_schedule(void *state, struct gs_sim *sim)
{
    struct hps *s = state;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    if (f->used_milli >= f->gpus_up * 1000)
        return;
    long n = gs_sim_npending(sim);
    if (n > s->depth)
        n = s->depth;
    if (n > s->capc) {
        free(s->c);
        s->c = malloc((size_t)n * sizeof *s->c);
        GS_ASSERT(s->c != NULL);
        s->capc = n;
    }
    gs_time now = gs_sim_now(sim);
    long k = 0;
    for (struct gs_job *j = gs_sim_pending_head(sim); j && k < n;
         j = j->next) {
        double p = s->maxprio > 0 ? j->prio / s->maxprio : 0;
        p = p < 0 ? 0 : p > 1 ? 1 : p;
        double gpus = j->need.gpus > 0 ? j->need.gpus : j->need.milli / 1000.0;
        double e = 1.0 / (1.0 + (double)gs_sim_estimate(sim, j) / GS_HOUR *
                                    gpus);
        gs_time wait = now - j->s.arrival;
        double a = wait > s->after
                       ? 1.0 + (double)(wait - s->after) / (double)s->scale
                       : 0.0;
        double fr = s->wf > 0 ? frag(sim, j) : 1.0;
        s->c[k++] = (struct cand){ j, s->wp * p + s->we * e + s->wa * a +
                                          s->wf * (1.0 - fr), a };
    }
    qsort(s->c, (size_t)k, sizeof *s->c, cand_cmp);
    /* The starved job holding the reservation keeps it until it starts,
     * even when others age past it. */
    struct shadow sh = { GS_TIME_MAX, 0 };
    if (s->held) {
        if (gs_sim_try_start(sim, s->held, NULL, 0) == 0)
            s->held = NULL;
        else
            sh = shadow(s, sim, s->held);
    }
    for (long i = 0; i < k; i++) {
        if (f->used_milli >= f->gpus_up * 1000)
            break;
        struct gs_job *j = s->c[i].j;
        if (j == s->held)
            continue;
        if (s->held) {
            double g = job_gpus(j);
            int ends_first = now + gs_sim_estimate(sim, j) <= sh.t;
            int shares = 0;
            for (int p = 0; p < f->npools; p++)
                if (gs_fleet_pool_eligible(f, p, &j->need) &&
                    gs_fleet_pool_eligible(f, p, &s->held->need))
                    shares = 1;
            if (!ends_first && shares && g > sh.extra + 1e-9)
                continue;
            if (gs_sim_try_start(sim, j, NULL, 0) == 0 && !ends_first &&
                shares)
                sh.extra -= g;
            continue;
        }
        if (gs_sim_try_start(sim, j, NULL, 0) == 0)
            continue;
        if (s->block && s->c[i].aged > 0 && s->wa > 0) {
            s->held = j;        /* the starved job gets the reservation */
            sh = shadow(s, sim, j);
        }
    }
}

/* A held job killed while waiting gives the reservation up. */
static void hps_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                        int why)
{
    (void)sim;
    (void)why;
    struct hps *s = state;
    if (j == s->held)
        s->held = NULL;
}

const struct gs_policy_ops gs_policy_hps = {
    .abi = GS_POLICY_ABI,
    .name = "hps",
    .summary = "Hybrid Priority Scheduler: priority + efficiency + aging + "
               "fragmentation score (arXiv 2512.10980)",
    .init = hps_init,
    .free = hps_free,
    .stopped = hps_stopped,
    .schedule = hps_schedule,
};
