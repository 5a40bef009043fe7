/* test_hps.c -- the HPS paper's schedulers: the static baselines (smallest,
 * shortest, shortest-gpu), hps, pbs and sbs, and the paper's ordering on
 * scenarios/hps-paper.json. */
#include "cutest.h"
#include "simutil.h"
#include "../sim/base/steady.h"

#define S 1000

/* One 8-GPU node.  Job 1 holds it until 100 s; then, all waiting:
 *   id  GPUs  runtime  GPU-time
 *   2    6     60 s     360
 *   3    4     30 s     120
 *   4    1    200 s     200
 *   5    3     50 s     150
 *   6    1   5000 s    5000 */
static const char order_csv[] =
    "id,arrival,gpus,duration\n"
    "1,0,8,100\n2,1,6,60\n3,2,4,30\n4,3,1,200\n5,4,3,50\n6,5,1,5000\n";

static void order_run(struct run *r, const char *policy)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"name\": \"o\", \"fleet\": [{\"gpu\": \"A100-80GB\", "
             "\"nodes\": 1, \"gpus_per_node\": 8}], \"policy\": \"%s\","
             " \"workload\": {\"trace\": {\"format\": \"native\", "
             "\"path\": \"%%s\"}}}", policy);
    run_text(r, json, order_csv);
    CU_ASSERT_EQUAL_FATAL(r->rc, 0);
    CU_ASSERT_EQUAL(gs_sim_summary(r->sim)->all.done, 6);
}

static gs_time start(const struct run *r, int id)
{
    return rec_of(r, id)->start;
}

/* Fewest GPUs first (4 and 6 tie at one GPU: arrival order), and 3 (4 GPUs)
 * does not fit in the 3 left at 100 s, so it blocks 2 behind it; 5 ends at
 * 150 s and 3 starts, then 2 when 3 ends at 180 s. */
static void test_smallest(void)
{
    struct run r;
    order_run(&r, "smallest");
    CU_ASSERT_EQUAL(start(&r, 4), 100 * S);
    CU_ASSERT_EQUAL(start(&r, 6), 100 * S);
    CU_ASSERT_EQUAL(start(&r, 5), 100 * S);
    CU_ASSERT_EQUAL(start(&r, 3), 150 * S);
    CU_ASSERT_EQUAL(start(&r, 2), 180 * S);
    run_free(&r);
}

/* Shortest time first: 3 and 5 start at 100 s, 2 (6 GPUs) does not fit in
 * the 1 left and blocks 4, which would fit; at 150 s 5 has ended and 3
 * too: 2, 4 and 6 start. */
static void test_shortest(void)
{
    struct run r;
    order_run(&r, "shortest");
    CU_ASSERT_EQUAL(start(&r, 3), 100 * S);
    CU_ASSERT_EQUAL(start(&r, 5), 100 * S);
    CU_ASSERT_EQUAL(start(&r, 2), 150 * S);
    CU_ASSERT_EQUAL(start(&r, 4), 150 * S);
    CU_ASSERT_EQUAL(start(&r, 6), 150 * S);
    run_free(&r);
}

/* Shortest GPU-time first: 3, 5, 4 fill the node at 100 s; 2 (360) waits
 * for 7 free GPUs at 150 s and goes before 6 (5000). */
static void test_shortest_gpu(void)
{
    struct run r;
    order_run(&r, "shortest-gpu");
    CU_ASSERT_EQUAL(start(&r, 3), 100 * S);
    CU_ASSERT_EQUAL(start(&r, 5), 100 * S);
    CU_ASSERT_EQUAL(start(&r, 4), 100 * S);
    CU_ASSERT_EQUAL(start(&r, 2), 150 * S);
    CU_ASSERT_EQUAL(start(&r, 6), 150 * S);
    run_free(&r);
}

/* --- pbs ---------------------------------------------------------------- */

/* One 8-GPU node.  Tenant a's 1-GPU jobs 1, 2, 3 ran one after another
 * (runtimes h1, h2, h3, all done by 920 s).  At 1000 s job 10 (tenant b, 7
 * GPUs, a stated estimate of 200 s, true runtime 1000 s) starts: predicted
 * end 1200 s.  At 1001 s job 11 (8 GPUs) waits for it: the reservation is
 * at 1200 s with no GPU to spare.  At 1002 s job 12 (tenant a, 1 GPU, true
 * runtime 150 s, which would end in time) may backfill only if predicted to
 * end by 1200 s: if the mean of a's last two runtimes is at most 198 s. */
static gs_time pbs_start12(int h1, int h2, int h3)
{
    char csv[512];
    snprintf(csv, sizeof csv,
             "id,arrival,gpus,duration,tenant,estimate\n"
             "1,0,1,%d,a,\n2,310,1,%d,a,\n3,620,1,%d,a,\n"
             "10,1000,7,1000,b,200\n11,1001,8,10,c,\n12,1002,1,150,a,\n",
             h1, h2, h3);
    struct run r;
    run_text(&r, "{\"name\": \"p\", \"fleet\": [{\"gpu\": \"A100-80GB\", "
             "\"nodes\": 1, \"gpus_per_node\": 8}], \"policy\": \"pbs\","
             " \"workload\": {\"trace\": {\"format\": \"native\", "
             "\"path\": \"%s\"}}}", csv);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->all.done, 6);
    CU_ASSERT_EQUAL(start(&r, 10), 1000 * S);
    gs_time t = start(&r, 12);
    run_free(&r);
    return t;
}

static void test_pbs_learns(void)
{
    /* last two 100 and 50: predicted 75 s: backfilled */
    CU_ASSERT_EQUAL(pbs_start12(300, 100, 50), 1002 * S);
    /* last two 100 and 300: predicted 200 s, past 1200 s: it waits (the
     * mean of all three, 137 s, would have backfilled it) */
    CU_ASSERT(pbs_start12(10, 100, 300) > 1002 * S);
    /* last two 150 and 246: 198 s, just in time */
    CU_ASSERT_EQUAL(pbs_start12(300, 150, 246), 1002 * S);
    CU_ASSERT(pbs_start12(300, 150, 248) > 1002 * S);
}

/* --- sbs ---------------------------------------------------------------- */

/* One 8-GPU node held by job 1 until 100 s.  Jobs 2 and 3 (tenant b, 3
 * GPUs, 1 min) score better alone than 4, 5, 6 (tenant a, 2 GPUs, 30 min),
 * but 4-6 are a batch of three similar jobs (6 GPUs): they start together
 * at 100 s; 2 does not fit in the 2 GPUs left and waits for the batch to
 * end at 1900 s.  With batch_min 4 there is no batch: 2 and 3 go first,
 * then 4; 5 and 6 start when 2 and 3 end at 160 s. */
static void sbs_run(struct run *r, const char *params)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"name\": \"b\", \"fleet\": [{\"gpu\": \"A100-80GB\", "
             "\"nodes\": 1, \"gpus_per_node\": 8}],"
             " \"policy\": {\"name\": \"sbs\"%s},"
             " \"workload\": {\"trace\": {\"format\": \"native\", "
             "\"path\": \"%%s\"}}}", params);
    run_text(r, json,
             "id,arrival,gpus,duration,tenant\n"
             "1,0,8,100,c\n2,1,3,60,b\n3,2,3,60,b\n"
             "4,3,2,1800,a\n5,4,2,1800,a\n6,5,2,1800,a\n");
    CU_ASSERT_EQUAL_FATAL(r->rc, 0);
    CU_ASSERT_EQUAL(gs_sim_summary(r->sim)->all.done, 6);
}

static void test_sbs_batches(void)
{
    struct run r;
    sbs_run(&r, "");
    for (int id = 4; id <= 6; id++)
        CU_ASSERT_EQUAL(start(&r, id), 100 * S);
    CU_ASSERT_EQUAL(start(&r, 2), 1900 * S);
    CU_ASSERT_EQUAL(start(&r, 3), 1900 * S);
    run_free(&r);
    sbs_run(&r, ", \"batch_min\": 4");
    CU_ASSERT_EQUAL(start(&r, 2), 100 * S);
    CU_ASSERT_EQUAL(start(&r, 3), 100 * S);
    CU_ASSERT_EQUAL(start(&r, 4), 100 * S);
    CU_ASSERT_EQUAL(start(&r, 5), 160 * S);
    CU_ASSERT_EQUAL(start(&r, 6), 160 * S);
    run_free(&r);
}

/* --- hps ---------------------------------------------------------------- */

/* Two 8-GPU nodes A and B, first-fit.  Job 1 (6 GPUs, 1000 s) takes A,
 * job 2 (6 GPUs, 1100 s) B; job 3 (8 GPUs) waits from 2 s.  At 350 s,
 * aged, it gets a reservation once job 7 (1 GPU, 10 s, ranked higher) has
 * started on A: node A, at 1000 s.  At 400 s job 4 (1 GPU, 300 s) ends
 * before then and takes A's free GPU; job 5 (1 GPU, 2000 s) would outlive
 * the reservation and is kept off A: it takes one of B's.  So job 3 starts
 * at 1000 s.  Without the reservation first-fit puts job 5 on A too, and
 * job 3 waits for B to empty at 1101 s. */
static gs_time hps_start3(const char *params)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"name\": \"h\", \"fleet\": [{\"gpu\": \"A100-80GB\", "
             "\"nodes\": 2, \"gpus_per_node\": 8}],"
             " \"policy\": {\"name\": \"hps\"%s},"
             " \"placement\": \"first-fit\","
             " \"workload\": {\"trace\": {\"format\": \"native\", "
             "\"path\": \"%%s\"}}}", params);
    struct run r;
    run_text(&r, json,
             "id,arrival,gpus,duration\n1,0,6,1000\n2,1,6,1100\n"
             "3,2,8,100\n7,350,1,10\n4,400,1,300\n5,400,1,2000\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->all.done, 6);
    CU_ASSERT_EQUAL(start(&r, 7), 350 * S);
    CU_ASSERT_EQUAL(start(&r, 4), 400 * S);
    CU_ASSERT_EQUAL(start(&r, 5), 400 * S);
    gs_time t = start(&r, 3);
    run_free(&r);
    return t;
}

static void test_hps_reservation(void)
{
    CU_ASSERT_EQUAL(hps_start3(""), 1000 * S);
    CU_ASSERT_EQUAL(hps_start3(", \"block_aged\": false"), 1101 * S);
}

/* One 8-GPU node: job 1 (7 GPUs) holds it to 10,000 s, job 2 (1 GPU) to
 * 4,000 s.  Job 3 (1 GPU, from 1 s) is past the 30-minute mark by 1,801 s:
 * it starves whatever happens.  Job 4 (1 GPU, from 3,000 s) can still
 * start within 30 minutes, when job 2 ends at 4,000 s; job 5 (8 GPUs, at
 * 3,400 s) only triggers a pass once job 4 is aging.  Starts of jobs 3 and
 * 4 as "s3 s4". */
static void hps_late(const char *params, char *out, size_t n)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"name\": \"h\", \"fleet\": [{\"gpu\": \"A100-80GB\", "
             "\"nodes\": 1, \"gpus_per_node\": 8}],"
             " \"policy\": {\"name\": \"hps\"%s},"
             " \"workload\": {\"trace\": {\"format\": \"native\", "
             "\"path\": \"%%s\"}}}", params);
    struct run r;
    run_text(&r, json,
             "id,arrival,gpus,duration\n1,0,7,10000\n2,0,1,4000\n"
             "3,1,1,1000\n4,3000,1,1000\n5,3400,8,10\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->all.done, 5);
    snprintf(out, n, "%lld %lld", (long long)(start(&r, 3) / S),
             (long long)(start(&r, 4) / S));
    run_free(&r);
}

/* Past the mark a job goes to the back (its lateness is counted already):
 * job 4, which can still be saved, gets the GPU at 4,000 s -- by rank
 * without reservations, and with them by taking the reservation job 3
 * held (it saves job 4, not job 3).  With the boost kept past the mark
 * ("cap", or "grow") job 3 goes first and job 4 starves too. */
static void test_hps_late_back(void)
{
    char got[64];
    hps_late("", got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "5000 4000");
    hps_late(", \"block_aged\": false", got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "5000 4000");
    hps_late(", \"block_aged\": false, \"past_mark\": \"cap\"", got,
             sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "4000 5000");
    hps_late(", \"block_aged\": false, \"past_mark\": \"grow\"", got,
             sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "4000 5000");
    struct run r;
    run_text(&r, "{\"name\": \"h\", \"fleet\": [{\"gpu\": \"A100-80GB\", "
             "\"nodes\": 1, \"gpus_per_node\": 8}], \"policy\": {\"name\": "
             "\"hps\", \"past_mark\": \"later\"}, \"workload\": {\"trace\": "
             "{\"format\": \"native\", \"path\": \"%s\"}}}",
             "id,arrival,gpus,duration\n1,0,1,10\n");
    CU_ASSERT_EQUAL(r.rc, GS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.d.what, "past_mark"));
    run_free(&r);
}

/* --- the paper's ordering, on held-out seeds ---------------------------- */

/* The HPS rules were designed on seeds 1-10 and seeds 1-50 have all been
 * looked at; these tests use seeds 101-130 (docs/policies.md measured
 * 101-160 and 201-260) and assert only what held on both: paired
 * differences over the same seeds (common random numbers), significant
 * after Holm's correction over every comparison a test makes
 * (sim/base/steady.h). */

#define SEED0 101
#define NSEEDS 30

enum { UTIL, JPH, STARVED, FAIR, NMEAS };

/* Per seed, the measures of scenarios/hps-paper.json at `rate` jobs an
 * hour (0: the scenario's) under policy, each run over its own span
 * (compare --bill-until own); v[m * NSEEDS + k]. */
static void paper_run(const char *policy, double rate, double *v)
{
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_scenario_load("scenarios/hps-paper.json", &sc,
                                           &d), 0);
    if (rate > 0)
        sc->gen.rate_per_hour = rate;
    for (int k = 0; k < NSEEDS; k++) {
        struct gs_sim *sim = NULL;
        struct gs_sim_opts o = { .seed = (uint64_t)(SEED0 + k),
                                 .set_seed = 1, .policy = policy };
        CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, &o, &sim, &d), 0);
        CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
        const struct gs_summary *su = gs_sim_summary(sim);
        /* conservation: every job done, nothing over capacity */
        CU_ASSERT_EQUAL(su->all.done, sc->gen.jobs);
        CU_ASSERT(su->util > 0 && su->util <= 1);
        CU_ASSERT(su->gpu_hours_used <= su->gpu_hours_avail + 1e-9);
        long n;
        const struct gs_jobrec *rec = gs_sim_records(sim, &n);
        double gh = 0;
        for (long i = 0; i < n; i++)
            gh += rec[i].gpu_hours;
        CU_ASSERT_DOUBLE_EQUAL(gh, su->gpu_hours_used,
                               su->gpu_hours_used * 1e-4);
        v[UTIL * NSEEDS + k] = su->util;
        v[JPH * NSEEDS + k] = su->throughput_jph;
        v[STARVED * NSEEDS + k] = (double)su->starved;
        v[FAIR * NSEEDS + k] = su->fairness_var;
        gs_sim_free(sim);
    }
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

/* The paper's seven: the static ones, then hps, pbs, sbs. */
static const char *const seven[] = { "fifo", "smallest", "shortest",
                                     "shortest-gpu", "hps", "pbs", "sbs" };
#define HPS 4

/* A claim: HPS better than policy `other` on measure m. */
struct claim {
    int other, m;
};

/* Every claim holds: HPS's paired difference is on the better side and
 * significant after Holm's correction over all the claims together. */
static void check_claims(double v[7][NMEAS * NSEEDS], const struct claim *c,
                         int n)
{
    double p[64] = { 0 };
    int sig[64] = { 0 };
    GS_ASSERT(n <= 64);
    for (int i = 0; i < n; i++) {
        struct gs_ci ci;
        const double *h = &v[HPS][c[i].m * NSEEDS];
        const double *o = &v[c[i].other][c[i].m * NSEEDS];
        CU_ASSERT_EQUAL_FATAL(gs_paired(o, h, NSEEDS, 0.95, &ci, &p[i]), 0);
        /* more is better for utilization and throughput, less otherwise */
        int better = c[i].m == UTIL || c[i].m == JPH ? ci.est > 0
                                                     : ci.est < 0;
        if (!better)
            printf("\n    hps vs %s, measure %d: %+.4g", seven[c[i].other],
                   c[i].m, ci.est);
        CU_ASSERT(better);
    }
    CU_ASSERT_EQUAL_FATAL(gs_holm(p, n, 0.05, sig), 0);
    for (int i = 0; i < n; i++) {
        if (!sig[i])
            printf("\n    hps vs %s, measure %d: p %.3g, not significant",
                   seven[c[i].other], c[i].m, p[i]);
        CU_ASSERT(sig[i]);
    }
}

/* At the scenario's 31 jobs an hour, on seeds 101-130: HPS has fewer
 * starved jobs than each of the other six; higher utilization and
 * throughput than the four static schedulers and SBS (not PBS: no
 * significant difference on seeds 101-160 or 201-260); a lower variance
 * of waits than fifo and smallest (not shortest: significant on 101-160,
 * not on 201-260; not shortest-gpu, SBS or PBS). */
static void test_paper_heldout(void)
{
    static double v[7][NMEAS * NSEEDS];
    for (int i = 0; i < 7; i++)
        paper_run(seven[i], 0, v[i]);
    struct claim c[32];
    int n = 0;
    for (int i = 0; i < 7; i++)
        if (i != HPS)
            c[n++] = (struct claim){ i, STARVED };
    const int ahead[] = { 0, 1, 2, 3, 6 };
    for (int i = 0; i < 5; i++) {
        c[n++] = (struct claim){ ahead[i], UTIL };
        c[n++] = (struct claim){ ahead[i], JPH };
    }
    for (int i = 0; i < 2; i++)
        c[n++] = (struct claim){ i, FAIR };
    check_claims(v, c, n);
}

/* At 37 jobs an hour (offered load about 1.0), seeds 101-130: HPS first
 * of the seven on utilization and throughput, and the fewest starved
 * jobs, each difference significant.  (fifo-backfill, not one of the
 * seven, is ahead of HPS on utilization and throughput at this load.) */
static void test_paper_heavier(void)
{
    static double v[7][NMEAS * NSEEDS];
    for (int i = 0; i < 7; i++)
        paper_run(seven[i], 37, v[i]);
    struct claim c[32];
    int n = 0;
    for (int i = 0; i < 7; i++)
        if (i != HPS) {
            c[n++] = (struct claim){ i, UTIL };
            c[n++] = (struct claim){ i, JPH };
            c[n++] = (struct claim){ i, STARVED };
        }
    check_claims(v, c, n);
}

static CU_TestInfo tests[] = {
    { "smallest: fewest GPUs first, the first misfit blocks", test_smallest },
    { "shortest: shortest time first, the first misfit blocks",
      test_shortest },
    { "shortest-gpu: least GPU-time first", test_shortest_gpu },
    { "pbs: backfills on the mean of the last two runtimes",
      test_pbs_learns },
    { "sbs: a batch of similar jobs goes first", test_sbs_batches },
    { "hps: the starved job's node is kept, the rest used",
      test_hps_reservation },
    { "hps: a job past the mark goes to the back", test_hps_late_back },
    { "hps paper: what held on held-out seeds 101-130, paired and "
      "Holm-corrected", test_paper_heldout },
    { "hps paper: first of the seven at 37 jobs/h on held-out seeds",
      test_paper_heavier },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("hps", tests)
