/* test_tenants.c -- policies as tenants and partitions grow (issue 27).
 *
 * The fleet: NODES nodes of 8 H100s; jobs of 1-8 GPUs in four tiers spread
 * over T tenants ("tenants": T in every class), each tenant a GPU quota
 * adding up to the fleet, and min(T, 16) static partitions, partition i
 * holding tenant i's jobs on (NODES - 8) / P nodes, the rest shared by the
 * other tenants (the setup of
 * bench/bench_tenants.c at a smaller scale), offered load 1.2.
 *
 *   - watched ranges (sim/core/rwatch.c): a test policy places every job
 *     within one of two node ranges and checks that a range's epoch moves
 *     exactly when a job on its nodes stops, never on a start or on a stop
 *     in the other range;
 *   - static skips a blocked partition until its watch moves: its records
 *     must equal, job for job, those of a test policy that walks the whole
 *     pending list every pass and tries each partition's first job, as the
 *     essay of static.c says it does; and its work per job must stay flat
 *     from 4 to 16 partitions (it grew with them: a placement per blocked
 *     partition per pass). */
#include "cutest.h"
#include "simutil.h"
#include "../sim/setup/scenario.h"
#include "../sim/setup/setup.h"
#include "../policies/policy.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODES 64
#define MAXPARTS 16
/* Offered load 1.0 on NODES * 8 GPUs: GPUs / 2.061 GPU-hours a job. */
#define RATE_AT_1 (NODES * 8 / 2.061)

/* A growing string. */
struct buf { char *s; size_t n, cap; };

static void put(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (k >= 0 && (size_t)k < b->cap - b->n) {
            b->n += (size_t)k;
            return;
        }
        b->cap = b->cap * 2 + (size_t)(k > 0 ? k : 0) + 256;
        b->s = realloc(b->s, b->cap);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b->s);
    }
}

/* The scenario: T tenants, policy pol (JSON), jobs at load 1.2; quotas
 * adding up to share q of the fleet, every tier non-preemptible when
 * borrow is 0 (bench_tenants' "borrowing off"). */
static char *scenario_q(int T, const char *pol, long jobs, double q,
                        int borrow)
{
    struct buf b = { NULL, 0, 0 };
    put(&b, "{\"name\": \"tenants-test\", \"seed\": 5, \"sample_step\": "
        "\"1h\", \"fleet\": [{\"name\": \"p\", \"gpu\": \"H100-80GB\", "
        "\"nodes\": %d, \"gpus_per_node\": 8}], \"tiers\": {\"training\": "
        "{\"checkpoint_interval\": \"20m\"%s}%s}, \"tenants\": [", NODES,
        borrow ? "" : ", \"preemptible\": false",
        borrow ? "" : ", \"inference\": {\"preemptible\": false}, "
                      "\"interactive\": {\"preemptible\": false}, "
                      "\"data\": {\"preemptible\": false}");
    for (int i = 0; i < T; i++)
        put(&b, "%s{\"name\": \"tenant%d\", \"quota_gpus\": %.4f}",
            i ? ", " : "", i + 1, q * NODES * 8.0 / T);
    int P = T < MAXPARTS ? T : MAXPARTS;
    put(&b, "], \"partitions\": [");
    for (int i = 0; i < P; i++)
        put(&b, "%s{\"name\": \"q%d\", \"tenant\": \"tenant%d\", "
            "\"pool\": \"p\", \"nodes\": %d}", i ? ", " : "", i + 1, i + 1,
            (NODES - 8) / P);
    put(&b, "], \"policy\": %s, \"placement\": \"best-fit\", \"workload\": "
        "{\"generate\": {\"jobs\": %ld, \"rate_per_hour\": %.3f, "
        "\"classes\": [", pol, jobs, 1.2 * RATE_AT_1);
    static const char *const tiers[4] = { "inference", "training",
                                          "interactive", "data" };
    static const double w[4] = { 0.1, 0.6, 0.2, 0.1 };
    for (int k = 0; k < 4; k++)
        put(&b, "%s{\"name\": \"c%d\", \"tier\": \"%s\", \"weight\": %g, "
            "\"tenants\": %d, \"gpus\": {\"values\": [1, 2, 4, 8], "
            "\"weights\": [0.5, 0.2, 0.2, 0.1]}, \"duration\": {\"dist\": "
            "\"lognormal\", \"median\": \"30m\", \"sigma\": 1.0, \"max\": "
            "\"12h\"}}", k ? ", " : "", k, tiers[k], w[k], T);
    put(&b, "]}}}");
    return b.s;
}

/* Quotas adding up to the fleet, the tiers as shipped. */
static char *scenario(int T, const char *pol, long jobs)
{
    return scenario_q(T, pol, jobs, 1.0, 1);
}

static struct gs_sim *sim_of(const char *text, struct gs_scenario **sc,
                             const struct gs_policy_ops *ops)
{
    struct gs_sim *sim = NULL;
    struct gs_diag d = { 0 };
    struct gs_sim_opts o = { .policy_ops = ops };
    CU_ASSERT_EQUAL_FATAL(gs_scenario_parse(text, "tenants", ".", sc, &d),
                          0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(*sc, &o, &sim, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
    gs_diag_free(&d);
    return sim;
}

/* --- watched ranges ---------------------------------------------------- */

static struct wt {
    int id[2];
    uint64_t seen[2];
    long stops, moved, starts, bad;
} wt;

static const struct gs_range wt_r[2] = { { 0, 0, 2 }, { 0, 2, 4 } };

static int wt_init(struct gs_sim *sim, struct gs_params *p, void **state,
                   struct gs_diag *d)
{
    (void)p;
    (void)d;
    memset(&wt, 0, sizeof wt);
    for (int i = 0; i < 2; i++)
        wt.id[i] = gs_sim_watch(sim, &wt_r[i], 1);
    *state = &wt;
    return 0;
}

/* Neither epoch moved since last seen (1), or note it (0). */
static int wt_still(struct gs_sim *sim)
{
    return gs_sim_watch_epoch(sim, wt.id[0]) == wt.seen[0] &&
           gs_sim_watch_epoch(sim, wt.id[1]) == wt.seen[1];
}

static void wt_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                       int why)
{
    (void)state;
    if (why != GS_STOP_DONE)
        return;
    int k = j->alloc.one.node >= 2, o = !k;
    uint64_t ek = gs_sim_watch_epoch(sim, wt.id[k]);
    uint64_t eo = gs_sim_watch_epoch(sim, wt.id[o]);
    wt.stops++;
    wt.moved += ek != wt.seen[k];
    wt.bad += eo != wt.seen[o];
    wt.seen[k] = ek;
}

/* Job r goes to range r % 2, in arrival order, as long as they fit. */
static void wt_schedule(void *state, struct gs_sim *sim)
{
    (void)state;
    wt.bad += !wt_still(sim);
    for (struct gs_job *j = gs_sim_pending_head(sim), *n; j; j = n) {
        n = j->next;
        if (gs_sim_try_start(sim, j, &wt_r[j->rec % 2], 1) == 0) {
            wt.starts++;
            wt.bad += !wt_still(sim);
        }
    }
}

static const struct gs_policy_ops watch_policy = {
    .abi = GS_POLICY_ABI, .name = "watch-test", .init = wt_init,
    .stopped = wt_stopped, .schedule = wt_schedule,
};

static void test_watch(void)
{
    char *text = scenario(1, "\"fifo\"", 400);
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = sim_of(text, &sc, &watch_policy);
    CU_ASSERT(wt.id[0] >= 0 && wt.id[1] == wt.id[0] + 1);
    CU_ASSERT(wt.starts >= 400);
    CU_ASSERT(wt.stops >= 400);
    CU_ASSERT_EQUAL(wt.moved, wt.stops);    /* every stop moved its own */
    CU_ASSERT_EQUAL(wt.bad, 0);             /* and nothing else did */
    gs_sim_free(sim);
    gs_scenario_free(sc);
    free(text);
}

/* --- static against a walk of the whole pending list -------------------- */

static struct walk {
    int P, T;
    int blocked[MAXPARTS + 1];
    struct gs_range r[MAXPARTS + 1];
} wk;

static int wk_init(struct gs_sim *sim, struct gs_params *p, void **state,
                   struct gs_diag *d)
{
    (void)p;
    (void)d;
    const struct gs_scenario *sc = gs_sim_scenario(sim);
    wk.P = sc->nparts;
    for (int i = 0; i < wk.P; i++)
        wk.r[i] = (struct gs_range){ sc->parts[i].pool, sc->parts[i].lo,
                                     sc->parts[i].hi };
    wk.r[wk.P] = (struct gs_range){ 0, sc->parts[wk.P - 1].hi, NODES };
    *state = &wk;
    return 0;
}

/* Tenant "tenantK" is partition K - 1, or the rest. */
static int wk_part(struct gs_sim *sim, const struct gs_job *j)
{
    int k = atoi(gs_sim_tenant_name(sim, j->tenant) + strlen("tenant"));
    return k >= 1 && k <= wk.P ? k - 1 : wk.P;
}

static void wk_schedule(void *state, struct gs_sim *sim)
{
    (void)state;
    memset(wk.blocked, 0, sizeof wk.blocked);
    for (struct gs_job *j = gs_sim_pending_head(sim), *n; j; j = n) {
        n = j->next;
        int p = wk_part(sim, j);
        if (!wk.blocked[p] && gs_sim_try_start(sim, j, &wk.r[p], 1) < 0)
            wk.blocked[p] = 1;
    }
}

static const struct gs_policy_ops walk_policy = {
    .abi = GS_POLICY_ABI, .name = "static-walk", .init = wk_init,
    .schedule = wk_schedule,
};

static void test_static_same(void)
{
    static const int tenants[] = { 4, 16, 40 };
    double work[3];
    for (int t = 0; t < 3; t++) {
        char *text = scenario(tenants[t], "\"static\"", 3000);
        struct gs_scenario *sa = NULL, *sb = NULL;
        struct gs_sim *a = sim_of(text, &sa, NULL);
        struct gs_sim *b = sim_of(text, &sb, &walk_policy);
        long na = 0, nb = 0;
        const struct gs_jobrec *ra = gs_sim_records(a, &na);
        const struct gs_jobrec *rb = gs_sim_records(b, &nb);
        CU_ASSERT_EQUAL(na, 3000);
        CU_ASSERT_EQUAL(na, nb);
        long diff = 0;
        for (long i = 0; i < na && i < nb; i++)
            diff += memcmp(&ra[i], &rb[i], sizeof *ra) != 0;
        CU_ASSERT_EQUAL(diff, 0);
        work[t] = (double)gs_sim_summary(a)->policy_work / 3000.0;
        gs_sim_free(a);
        gs_sim_free(b);
        gs_scenario_free(sa);
        gs_scenario_free(sb);
        free(text);
    }
    /* one placement per start and per partition whose nodes gave back
     * capacity, not per blocked partition per pass: flat in P */
    printf("\n    static work per job at 4, 16, 16+24 tenants: %.2f %.2f "
           "%.2f\n", work[0], work[1], work[2]);
    CU_ASSERT(work[1] <= 1.25 * work[0]);
    CU_ASSERT(work[2] <= 1.25 * work[0]);
}

/* text with every generated class's user estimate at three times its
 * jobs' runtime (text is freed). */
static char *with_estimates(char *text)
{
    struct buf b = { NULL, 0, 0 };
    const char *p = text, *q;
    while ((q = strstr(p, "\"duration\"")) != NULL) {
        put(&b, "%.*s\"estimate_factor\": 3, ", (int)(q - p), p);
        put(&b, "\"duration\"");
        p = q + strlen("\"duration\"");
    }
    put(&b, "%s", p);
    free(text);
    return b.s;
}

/* fifo-backfill keeps a single-node head's reservation between passes
 * while every change since provably leaves it as it was (backfill.c, "the
 * kept reservation"): its records must be those of walking to the shadow
 * time in every pass ("keep": false), job for job, at load 1.2 where
 * nearly every pass has a head waiting, with perfect estimates and with
 * user estimates three times the runtime (jobs end long before their
 * entries, out of the heap's order). */
#define JOBS_KEPT 8000
static void test_backfill_kept(void)
{
    static const int tenants[] = { 1, 16 };
    for (int t = 0; t < 2; t++)
        for (int est = 0; est < 2; est++) {
            char *ta = scenario(tenants[t], "\"fifo-backfill\"", JOBS_KEPT);
            char *tb = scenario(tenants[t], "{\"name\": \"fifo-backfill\", "
                                "\"keep\": false}", JOBS_KEPT);
            if (est) {          /* estimates three times the runtime */
                ta = with_estimates(ta);
                tb = with_estimates(tb);
            }
            struct gs_scenario *sa = NULL, *sb = NULL;
            struct gs_sim *a = sim_of(ta, &sa, NULL);
            struct gs_sim *b = sim_of(tb, &sb, NULL);
            long na = 0, nb = 0;
            const struct gs_jobrec *ra = gs_sim_records(a, &na);
            const struct gs_jobrec *rb = gs_sim_records(b, &nb);
            CU_ASSERT_EQUAL(na, JOBS_KEPT);
            CU_ASSERT_EQUAL(na, nb);
            long diff = 0, waited = 0;
            for (long i = 0; i < na && i < nb; i++) {
                diff += memcmp(&ra[i], &rb[i], sizeof *ra) != 0;
                waited += ra[i].start > ra[i].arrival;
            }
            CU_ASSERT_EQUAL(diff, 0);
            CU_ASSERT(waited > 300);    /* heads did wait: passes scanned */
            /* the kept reservation saved walks: less work */
            CU_ASSERT(gs_sim_summary(a)->policy_work <=
                      gs_sim_summary(b)->policy_work);
            gs_sim_free(a);
            gs_sim_free(b);
            gs_scenario_free(sa);
            gs_scenario_free(sb);
            free(ta);
            free(tb);
        }
}

/* --- work per job as tenants grow -------------------------------------- */

/* Policies whose work still grows faster than log T (docs/overload.md,
 * "Tenants and partitions"), in this test's setting (borrowing on, full
 * quotas): none since fair's passes read indexes (its owner list and shape
 * heaps) instead of walking every tenant's groups (with borrowing off and
 * half quotas too: test_fair_strict_log). */
static const char *const over_log[] = { NULL };

/* Work per job of policy (a name, or JSON when it starts with '{') at T
 * tenants, quota share q, borrowing on (1) or off. */
static double work_per_job_q(const char *policy, int T, long jobs, double q,
                             int borrow)
{
    char pol[96];
    snprintf(pol, sizeof pol, policy[0] == '{' ? "%s" : "\"%s\"", policy);
    char *text = scenario_q(T, pol, jobs, q, borrow);
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = sim_of(text, &sc, NULL);
    double w = (double)gs_sim_summary(sim)->policy_work / (double)jobs;
    gs_sim_free(sim);
    gs_scenario_free(sc);
    free(text);
    return w;
}

static double work_per_job(const char *policy, int T, long jobs)
{
    return work_per_job_q(policy, T, jobs, 1.0, 1);
}

/* Every registered policy on the same workload spread over 1 and 64
 * tenants (16 partitions): work per job may grow by at most 1 + log2 64 =
 * 7 times -- a pass that scans every tenant, or every partition, breaks
 * it (static's placement per blocked partition per pass did: 63 and 244
 * a job at 16 and 64 partitions against 6 at one). */
static void test_work_log(void)
{
    for (int i = 0; gs_policies[i]; i++) {
        const char *name = gs_policies[i]->name;
        int skip = 0;
        for (int k = 0; over_log[k]; k++)
            skip |= strcmp(over_log[k], name) == 0;
        if (skip)
            continue;
        double w1 = work_per_job(name, 1, 2000);
        double w64 = work_per_job(name, 64, 2000);
        printf("\n    %-14s work per job at 1 and 64 tenants: %.1f %.1f",
               name, w1, w64);
        CU_ASSERT(w1 > 0);
        CU_ASSERT(w64 <= w1 * 7.0);
    }
    printf("\n");
}

/* --- no placement whose miss is foreseen --------------------------------
 * A placer that counts the searches it is asked for a job of whole GPUs
 * (within the policy's ranges, or every pool the job may use) and those
 * where no open node of the ranges has that many GPUs fully free -- a
 * search that must miss, which a policy can tell from the pools' masks
 * (needtab.h: gs_sure_miss, gs_sure_miss_in) -- then searches as
 * best-fit does. */
static struct fm {
    long searches, foreseen;
} fm;

struct fm_state {
    const struct gs_placer_ops *in;
    void *st;
};

static int fm_init(struct gs_sim *sim, struct gs_params *p, void **state,
                   struct gs_diag *d)
{
    struct fm_state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    s->in = gs_placer_find("best-fit");
    int rc = s->in->init ? s->in->init(sim, p, &s->st, d) : 0;
    if (rc < 0) {
        free(s);
        return rc;
    }
    *state = s;
    return 0;
}

static void fm_free(void *state)
{
    struct fm_state *s = state;
    if (s && s->in->free)
        s->in->free(s->st);
    free(s);
}

static int fm_place(void *state, struct gs_sim *sim, const struct gs_job *job,
                    const struct gs_range *r, int n, struct gs_alloc *out)
{
    struct fm_state *s = state;
    if (r != NULL && n > 0 && job->need.gpus > 0 && !job->need.profile) {
        int most = 0;
        for (int i = 0; i < n; i++) {
            int m = gs_fleet_most_free(gs_sim_fleet(sim), &r[i]);
            most = m > most ? m : most;
        }
        fm.searches++;
        fm.foreseen += job->need.gpus > most;
    }
    return s->in->place(s->st, sim, job, r, n, out);
}

static const struct gs_placer_ops fm_placer = {
    .abi = GS_POLICY_ABI,
    .name = "foreseen",
    .summary = "best-fit, counting searches that must miss",
    .init = fm_init,
    .free = fm_free,
    .place = fm_place,
    .draws_on_miss = 0,
};

/* pbs and hps ask no search whose miss is foreseen: a job that would
 * outlive the head's reservation is tried off the reserved nodes, or on a
 * single reserved node's spare GPUs, only when some open node there has
 * its GPUs free, and hps's late job only when some node could take it.
 * The code before asked anyway: pbs 40,366 of its 48,366 searches at one
 * tenant here (49,937 of 57,937 at 16), hps 286 of 8,286 (its fallback's
 * try of the late job and of the spare node); in bench_tenants' 200 k
 * jobs at one tenant pbs's were 225 k, every one a miss.  rl-lite
 * tried a window member whose class had fit when the pass began after
 * the pass's own starts had taken the room: 3,676 of 11,676 searches
 * at one tenant before it asked gs_job_sure_miss first.  Decisions are
 * the same (a miss changes nothing where misses repeat), so every job
 * starts through one search. */
static void test_no_foreseen_miss(void)
{
    static const char *const pols[] = {
        "pbs", "hps", "fifo-backfill", "static", "priority", "smallest",
        "shortest", "shortest-gpu", "rl-lite" };
    int npols = (int)(sizeof pols / sizeof *pols);
    const struct gs_placer_ops *placers[] = { &fm_placer, NULL };
    struct gs_sim_env env = gs_builtin;
    env.placers = placers;
    for (int p = 0; p < npols; p++)
        for (int T = 1; T <= 16; T *= 16) {
            char pol[64];
            snprintf(pol, sizeof pol, "\"%s\"", pols[p]);
            char *text = scenario(T, pol, 8000);
            char *at = strstr(text, "\"best-fit\"");
            CU_ASSERT_PTR_NOT_NULL_FATAL(at);
            struct buf b = { NULL, 0, 0 };
            put(&b, "%.*s\"foreseen\"%s", (int)(at - text), text,
                at + strlen("\"best-fit\""));
            struct gs_scenario *sc = NULL;
            struct gs_sim *sim = NULL;
            struct gs_diag d = { 0 };
            CU_ASSERT_EQUAL_FATAL(gs_scenario_parse(b.s, "tenants", ".", &sc,
                                                    &d), 0);
            CU_ASSERT_EQUAL_FATAL(gs_sim_build(&env, sc, NULL, &sim, &d), 0);
            fm = (struct fm){ 0 };
            CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
            printf("\n    %-13s T = %2d: %ld searches, %ld foreseen misses",
                   pols[p], T, fm.searches, fm.foreseen);
            CU_ASSERT(fm.searches >= 8000);     /* one a job at least */
            CU_ASSERT_EQUAL(fm.foreseen, 0);
            gs_sim_free(sim);
            gs_scenario_free(sc);
            free(b.s);
            free(text);
        }
    printf("\n");
}

/* --- no pass made again when nothing changed ---------------------------
 * pbs wrapped: each pass is told apart as "the same as the last" when the
 * last started nothing and since then no capacity came back (the fleet's
 * epoch, gs_sim_epoch), no job stopped and none arrived within the
 * look-ahead (the default depth, 32, behind the head) -- its tries would
 * all miss again (misses repeat here) and it would start nothing.  Such
 * a pass must read nothing (the work counter stays put). */
extern const struct gs_policy_ops gs_policy_pbs;
static struct pw {
    void *in;
    int quiet, changed;
    uint64_t epoch;
    long passes, same, same_read;
} pw;

static int pw_init(struct gs_sim *sim, struct gs_params *p, void **state,
                   struct gs_diag *d)
{
    *state = &pw;
    return gs_policy_pbs.init(sim, p, &pw.in, d);
}

static void pw_free(void *state)
{
    (void)state;
    gs_policy_pbs.free(pw.in);
}

static void pw_arrive(void *state, struct gs_sim *sim, struct gs_job *j)
{
    (void)state;
    if (gs_sim_npending(sim) <= 33 || j != gs_sim_pending_tail(sim))
        pw.changed = 1;
    gs_policy_pbs.arrive(pw.in, sim, j);
}

static void pw_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                       int why)
{
    (void)state;
    pw.changed = 1;
    gs_policy_pbs.stopped(pw.in, sim, j, why);
}

static void pw_schedule(void *state, struct gs_sim *sim)
{
    (void)state;
    uint64_t ep = gs_sim_epoch(sim), w0 = gs_sim_work(sim);
    long r0 = gs_sim_nrunning(sim);
    int same = pw.quiet && !pw.changed && ep == pw.epoch;
    gs_policy_pbs.schedule(pw.in, sim);
    pw.passes++;
    pw.same += same;
    pw.same_read += same && gs_sim_work(sim) != w0;
    pw.quiet = gs_sim_nrunning(sim) == r0;
    pw.changed = 0;
    pw.epoch = ep;
}

static const struct gs_policy_ops pw_policy = {
    .abi = GS_POLICY_ABI, .name = "pbs-watched", .init = pw_init,
    .free = pw_free, .arrive = pw_arrive, .stopped = pw_stopped,
    .schedule = pw_schedule,
};

/* pbs makes no pass again while nothing changed (pbs.c, same_as_last).
 * It made one whenever a running job had passed its predicted end --
 * nearly always at load 1.2, where predictions run short -- though with a
 * node-by-node reservation that leaves the pass as it was (the same walk
 * over the same running jobs, its shadow time fixed or now): 4,296 of
 * 16,000 passes here at one tenant (4,278 of 15,998 at 16) read the
 * fleet and the queue again to start nothing.  The wrapped run's records
 * are those of pbs unwrapped. */
static void test_pbs_no_repeat(void)
{
    for (int T = 1; T <= 16; T *= 16) {
        char *text = scenario(T, "\"pbs\"", 8000);
        struct gs_scenario *sa = NULL, *sb = NULL;
        pw = (struct pw){ 0 };
        struct gs_sim *a = sim_of(text, &sa, &pw_policy);
        struct gs_sim *b = sim_of(text, &sb, NULL);
        printf("\n    T = %2d: %ld passes, %ld the same as the last, %ld of "
               "them read", T, pw.passes, pw.same, pw.same_read);
        CU_ASSERT(pw.same > 1000);      /* the case arises */
        CU_ASSERT_EQUAL(pw.same_read, 0);
        long na = 0, nb = 0;
        const struct gs_jobrec *ra = gs_sim_records(a, &na);
        const struct gs_jobrec *rb = gs_sim_records(b, &nb);
        CU_ASSERT_EQUAL(na, 8000);
        CU_ASSERT_EQUAL(na, nb);
        long diff = 0;
        for (long i = 0; i < na && i < nb; i++)
            diff += memcmp(&ra[i], &rb[i], sizeof *ra) != 0;
        CU_ASSERT_EQUAL(diff, 0);
        gs_sim_free(a);
        gs_sim_free(b);
        gs_scenario_free(sa);
        gs_scenario_free(sb);
        free(text);
    }
    printf("\n");
}

/* fair with every tier non-preemptible and quotas adding up to half the
 * fleet (bench_tenants' borrowing off, quotas half): a job past its
 * tenant's guarantee may start only into the unreserved half, and once
 * that is taken start() refuses every such job.  A pass that tried each
 * tenant's groups to see them refused grew linearly in T (work per job
 * 634, 2,291 and 5,511 at 1, 4 and 64 tenants here); the shapes' heaps
 * keep those groups apart, by their GPUs beyond the guarantee too, so
 * that a pass skips them unread when the least would be refused (85, 82
 * and 61).  With and without reclaim; at 4 tenants the bound is x3. */
static void test_fair_strict_log(void)
{
    static const char *const pol[2] = {
        "fair", "{\"name\": \"fair\", \"reclaim\": false}" };
    for (int i = 0; i < 2; i++) {
        double w1 = work_per_job_q(pol[i], 1, 2000, 0.5, 0);
        double w4 = work_per_job_q(pol[i], 4, 2000, 0.5, 0);
        double w64 = work_per_job_q(pol[i], 64, 2000, 0.5, 0);
        printf("\n    %s, borrowing off, quotas half: work per job at 1, "
               "4 and 64 tenants: %.1f %.1f %.1f", i ? "fair-noreclaim"
                                                    : "fair", w1, w4, w64);
        CU_ASSERT(w1 > 0);
        CU_ASSERT(w4 <= w1 * 3.0);
        CU_ASSERT(w64 <= w1 * 7.0);
    }
    printf("\n");
}

/* fair with reclaim at 4 tenants, quotas adding up to the fleet and the
 * tiers as shipped (bench_tenants' worst cell: owners reclaim from
 * borrowers of three other tenants, where one tenant has no one to
 * reclaim from).  Reclaim's search read the victims of nodes that could
 * not give enough back: victims larger than any tenant's margin, or the
 * owner's own.  On bench_tenants' fleet that passed the logarithmic bound
 * (247 a job against 3 x 42 + 1); on this small one it was 2.04x one
 * tenant's work (132.5 against 64.8, main 7aab5d8), 1.34x since the
 * search passes such nodes over unread (71.6 against 53.4).  The bound,
 * 1.5x, holds the gain. */
static void test_fair_reclaim_log(void)
{
    double w1 = work_per_job("fair", 1, 4000);
    double w4 = work_per_job("fair", 4, 4000);
    printf("\n    fair work per job at 1 and 4 tenants: %.1f %.1f\n", w1, w4);
    CU_ASSERT(w1 > 0);
    CU_ASSERT(w4 <= w1 * 1.5);
}

/* fair without reclaim at 16 tenants, full quotas, borrowing on
 * (bench_tenants' other cell past the bound: 195 a job against 5 x 38.1
 * + 1 at 200 k jobs).  Its owners' pass pushed every owner group into a
 * heap each pass and popped them one by one, though a group whose shape
 * had missed was then passed over; the groups kept by shape, in order,
 * let a pass leave such a shape out whole (owners_quiet).  Here: 50.5
 * and 64.8 a job at 1 and 16 tenants on main 5d53030 (1.28x), 48.4 and
 * 39.2 since (0.81x); the bound, 1.1x, holds the gain. */
static void test_fair_noreclaim_log(void)
{
    static const char pol[] = "{\"name\": \"fair\", \"reclaim\": false}";
    double w1 = work_per_job(pol, 1, 4000);
    double w16 = work_per_job(pol, 16, 4000);
    printf("\n    fair-noreclaim work per job at 1 and 16 tenants: %.1f "
           "%.1f\n", w1, w16);
    CU_ASSERT(w1 > 0);
    CU_ASSERT(w16 <= w1 * 1.1);
}

/* fair's owners' pass, when misses repeat, takes the owner groups from a
 * heap and sets aside a group whose first job changed nothing, taking
 * it back when something changes (owners_merge; owners_quiet with
 * nothing to reclaim); and reclaim's search, when at most LS_MAX tenants
 * lend, passes over a node whose lenders' victims no larger than their
 * margins fall short, read off their per-node sums.  Its records must
 * be those of walking every owner job in pass order and reading every
 * candidate node's victims ("walk": true), job for job -- with reclaim
 * at 4 and 16 tenants, where a change sends back groups set aside whose
 * jobs all come before it (revive() leaves them as they are, since the
 * eleventh session, instead of taking their jobs out one by one), and
 * without.  The indexed passes read less. */
#define JOBS_WALK 6000
static void test_fair_walk_same(void)
{
    static const int tenants[] = { 4, 16 };
    for (int t = 0; t < 2; t++)
        for (int rc = 0; rc < 2; rc++) {
            char pa[96], pb[96];
            const char *r = rc ? "true" : "false";
            snprintf(pa, sizeof pa, "{\"name\": \"fair\", \"reclaim\": %s}",
                     r);
            snprintf(pb, sizeof pb, "{\"name\": \"fair\", \"reclaim\": %s, "
                     "\"walk\": true}", r);
            char *ta = scenario(tenants[t], pa, JOBS_WALK);
            char *tb = scenario(tenants[t], pb, JOBS_WALK);
            struct gs_scenario *sa = NULL, *sb = NULL;
            struct gs_sim *a = sim_of(ta, &sa, NULL);
            struct gs_sim *b = sim_of(tb, &sb, NULL);
            long na = 0, nb = 0;
            const struct gs_jobrec *ra = gs_sim_records(a, &na);
            const struct gs_jobrec *rb = gs_sim_records(b, &nb);
            CU_ASSERT_EQUAL(na, JOBS_WALK);
            CU_ASSERT_EQUAL(na, nb);
            long diff = 0;
            for (long i = 0; i < na && i < nb; i++)
                diff += memcmp(&ra[i], &rb[i], sizeof *ra) != 0;
            CU_ASSERT_EQUAL(diff, 0);
            const struct gs_summary *ua = gs_sim_summary(a);
            const struct gs_summary *ub = gs_sim_summary(b);
            if (rc)             /* reclaim ran: owners were given room */
                CU_ASSERT(ua->preemptions > 0);
            CU_ASSERT(ua->preemptions == ub->preemptions);
            printf("\n    fair, %d tenants, reclaim %s: work per job %.1f, "
                   "walking %.1f", tenants[t], r,
                   (double)ua->policy_work / JOBS_WALK,
                   (double)ub->policy_work / JOBS_WALK);
            CU_ASSERT(ua->policy_work < ub->policy_work);
            gs_sim_free(a);
            gs_sim_free(b);
            gs_scenario_free(sa);
            gs_scenario_free(sb);
            free(ta);
            free(tb);
        }
    printf("\n");
}


/* A group set aside in the owners' pass that must come back.  Two nodes of
 * 8 GPUs and 32 cores, best-fit; quotas a 2, b 1, c 5, d 8 GPUs.  At 0 s:
 * d's inference job 1 (8 GPUs, 8 cores) fills node 0; c's inference job 2
 * (5 GPUs, 4 cores) and its training job 3 (2 GPUs, 28 cores: a borrower,
 * c then 2 GPUs over its quota, so job 3 is its to lose) leave node 1 one
 * GPU and no core.  At 10 s b's jobs 4 and 6 (1 GPU, 4 cores each) and
 * a's job 5 (2 GPUs, 4 cores), all owners, in that pass order: 4 misses
 * (node 1's GPU has no core left) and finds nothing to reclaim (node 1
 * already has the GPU it needs), so b's group is set aside; 5 reclaims
 * node 1, preempting job 3 -- the smallest victim covering its one GPU
 * short, 2 GPUs -- which leaves a GPU and 24 cores there after 5 starts.
 * The change sends b's group back past job 4, and job 6 starts at once, at
 * 10 s, as the walk of every owner job in pass order starts it; job 4,
 * passed over, starts at 100 s, when job 1 ends.  Dropped instead
 * (revive() losing the groups set aside), b's group is next read by the
 * borrowers' pass, which starts job 4 at 10 s and leaves job 6 to 100 s:
 * the records differ from the walk's (they did; the fair test above
 * passes either way -- no revived group matters in its workloads). */
static void test_fair_revive(void)
{
    static const char json[] =
        "{\"fleet\": [{\"name\": \"p\", \"gpu\": \"H100-80GB\", "
        "\"nodes\": 2, \"gpus_per_node\": 8, \"cpu_milli\": 32000}], "
        "\"tenants\": [{\"name\": \"a\", \"quota_gpus\": 2}, "
        "{\"name\": \"b\", \"quota_gpus\": 1}, "
        "{\"name\": \"c\", \"quota_gpus\": 5}, "
        "{\"name\": \"d\", \"quota_gpus\": 8}], "
        "\"policy\": {\"name\": \"fair\", \"walk\": %s}, "
        "\"placement\": \"best-fit\", "
        "\"workload\": {\"trace\": {\"format\": \"native\", "
        "\"path\": \"%%s\"}}}";
    static const char csv[] =
        "id,arrival,gpus,duration,tenant,tier,cpu_milli\n"
        "1,0,8,100,d,inference,8000\n"
        "2,0,5,1000,c,inference,4000\n"
        "3,0,2,1000,c,training,28000\n"
        "4,10,1,1000,b,training,4000\n"
        "5,10,2,1000,a,training,4000\n"
        "6,10,1,1000,b,training,4000\n";
    struct run r[2];
    for (int w = 0; w < 2; w++) {
        char text[1024];
        snprintf(text, sizeof text, json, w ? "true" : "false");
        run_text(&r[w], text, csv);
        CU_ASSERT_EQUAL_FATAL(r[w].rc, 0);
        const struct gs_jobrec *j5 = rec_of(&r[w], 5), *j6 = rec_of(&r[w], 6);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j5);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j6);
        CU_ASSERT_EQUAL(j5->start, 10 * 1000);
        CU_ASSERT_EQUAL(j6->start, 10 * 1000);
        CU_ASSERT_EQUAL(rec_of(&r[w], 4)->start, 100 * 1000);
        CU_ASSERT_EQUAL(preempts_of(&r[w], 3), 1);
        CU_ASSERT_EQUAL(gs_sim_summary(r[w].sim)->preemptions, 1);
    }
    long na = 0, nb = 0;
    const struct gs_jobrec *ra = gs_sim_records(r[0].sim, &na);
    const struct gs_jobrec *rb = gs_sim_records(r[1].sim, &nb);
    CU_ASSERT_EQUAL(na, 6);
    CU_ASSERT_EQUAL(na, nb);
    for (long i = 0; i < na && i < nb; i++)
        CU_ASSERT(memcmp(&ra[i], &rb[i], sizeof *ra) == 0);
    run_free(&r[0]);
    run_free(&r[1]);
}

/* A shape that missed comes back when capacity does -- unless its jobs
 * still ask more GPUs than are idle, which then stays out (sq_sync,
 * since the thirteenth session: it used to come back and leave again at
 * the borrowers' first look).  One node of 8 GPUs; tenant a, guaranteed
 * 1 GPU, so every job here borrows.  At 0 s jobs 1 (4 GPUs, 100 s) and 2
 * (4 GPUs, 50 s) fill the node; job 3 (8 GPUs) at 1 s and job 4 (4 GPUs)
 * at 2 s miss, and their shapes are set aside.  At 50 s job 2 ends: 4
 * GPUs idle, so job 3's shape stays out and job 4's comes back -- job 4
 * starts at 50 s and ends at 60 s, and job 3 at 100 s, when job 1 ends.
 * Both shapes kept out until the fleet is idle, job 4 would start at
 * 110 s, after job 3 (it did, with sq_sync's test made always true); the
 * same decisions as the old code, which brought both back at 50 s. */
static void test_fair_miss_back(void)
{
    static const char json[] =
        "{\"fleet\": [{\"name\": \"p\", \"gpu\": \"H100-80GB\", "
        "\"nodes\": 1, \"gpus_per_node\": 8}], "
        "\"tenants\": [{\"name\": \"a\", \"quota_gpus\": 1}], "
        "\"policy\": \"fair\", \"placement\": \"best-fit\", "
        "\"workload\": {\"trace\": {\"format\": \"native\", "
        "\"path\": \"%s\"}}}";
    static const char csv[] =
        "id,arrival,gpus,duration,tenant,tier\n"
        "1,0,4,100,a,training\n"
        "2,0,4,50,a,training\n"
        "3,1,8,10,a,training\n"
        "4,2,4,10,a,training\n";
    struct run r;
    run_text(&r, json, csv);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    static const int64_t start[] = { 0, 0, 100, 50 };
    for (int i = 0; i < 4; i++) {
        const struct gs_jobrec *j = rec_of(&r, i + 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        CU_ASSERT_EQUAL(j->start, start[i] * 1000);
    }
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->preemptions, 0);
    run_free(&r);
}

static CU_TestInfo tests[] = {
    { "pbs: no pass made again while nothing changed", test_pbs_no_repeat },
    { "pbs and hps: no search whose miss is foreseen",
      test_no_foreseen_miss },
    { "work per job at most x(1 + log2 T) from 1 to 64 tenants",
      test_work_log },
    { "fair, borrowing off, half quotas: work per job x(1 + log2 T)",
      test_fair_strict_log },
    { "fair with reclaim: work per job at 4 tenants x(1 + log2 4)",
      test_fair_reclaim_log },
    { "fair without reclaim: work per job at 16 tenants",
      test_fair_noreclaim_log },
    { "watched ranges move on their own releases only", test_watch },
    { "static: a walk's decisions, work flat in partitions",
      test_static_same },
    { "fifo-backfill's kept reservation: the same records as walking",
      test_backfill_kept },
    { "fair's owners' pass: the same records as walking",
      test_fair_walk_same },
    { "fair: a missed shape comes back when its jobs could fit",
      test_fair_miss_back },
    { "fair: a group set aside comes back when reclaim makes room",
      test_fair_revive },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("tenants", tests)
