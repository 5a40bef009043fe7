/* test_sharing.c -- MIG, time-slicing and fractional GPUs in whole runs, with
 * every expected time worked by hand in the comments.
 *
 * Times in the traces are seconds; records hold milliseconds.  A finish
 * time is the instant of the last rate change plus ceil(work left / rate),
 * in ms. */
#include "cutest.h"
#include "simutil.h"

#include "../sim/cluster/frag.h"
#include "../sim/cluster/mig.h"
#include "../sim/core/share.h"

#include <math.h>

#define S 1000     /* ms per second */

static void run_ok(struct run *r, const char *json, const char *csv)
{
    run_text(r, json, csv);
    if (r->rc != 0)
        fprintf(stderr, "run failed: %s: %s\n", r->d.where, r->d.what);
    CU_ASSERT_EQUAL_FATAL(r->rc, 0);
}

/* --- MIG, fixed layout ------------------------------------------------------- */

/* One H100 in the "balanced" layout: 3g.40gb + 2g.20gb + 2 x 1g.10gb.  Each
 * job runs at compute slices / 7 of its whole-GPU speed:
 *   1  3g.40gb, 70 s of work: 70 * 7/3 = 163.333.. s -> ends at 163,334 ms;
 *   2  1g.10gb, 70 s: 490 s;
 *   3  15 GB and 0.1 GPU: the smallest fit is 1g.20gb, which the layout
 *      lacks; the smallest larger instance that fits is the 2g.20gb:
 *      70 * 7/2 = 245 s;
 *   4  1g.10gb, 70 s: the second 1g, 490 s;
 *   5  1g.10gb, 7 s, arrives at 1 s: both 1g are busy until 490 s, then
 *      7 * 7 = 49 s: ends at 539 s. */
static const char mig_fixed[] =
    "{\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1, \"gpus_per_node\": 1,"
    " \"sharing\": {\"mode\": \"mig\", \"layout\": \"balanced\"}}],"
    " \"policy\": \"fifo\","
    " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}";

static void test_mig_fixed_speeds(void)
{
    struct run r;
    run_ok(&r, mig_fixed,
           "id,arrival,gpus,duration,memory_gb,mig_profile\n"
           "1,0,0.1,70,,3g.40gb\n"
           "2,0,0.1,70,,1g.10gb\n"
           "3,0,0.1,70,15,\n"
           "4,0,0.1,70,,1g.10gb\n"
           "5,1,0.1,7,,1g.10gb\n");
    CU_ASSERT_EQUAL(rec_of(&r, 1)->end, 163334);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->end, 490 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 3)->end, 245 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 4)->end, 490 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 5)->start, 490 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 5)->end, 539 * S);
    const struct gs_summary *su = gs_sim_summary(r.sim);
    /* busy compute slices: 7 until 163.334 s, 4 until 245, 2 until 490,
     * 1 until 539; available: 7 x 539 s */
    double busy = 7 * 163.334 + 4 * (245 - 163.334) + 2 * 245.0 + 49.0;
    CU_ASSERT_DOUBLE_EQUAL(su->mig_slice_util, busy / (7 * 539.0), 1e-9);
    CU_ASSERT_EQUAL(su->mig_reconfigs, 0);
    /* slowdowns 7/3, 7, 7/2, 7, 7 (wall time over unshared time) */
    CU_ASSERT_DOUBLE_EQUAL(su->sharing_slowdown,
                           (7.0 / 3 + 7 + 3.5 + 7 + 7) / 5, 1e-9);
    /* allocated: memory slices held, 125 milli each (4 + 2 + 1 + 1 = 8) */
    CU_ASSERT_EQUAL(gs_sim_fleet(r.sim)->used_milli, 0);
    run_free(&r);
}

/* A profile no instance of the layout has, asked by name, never fits:
 * the job is refused at admission (exit 2 at the CLI). */
static void test_mig_unknown_profile(void)
{
    struct run r;
    run_text(&r, mig_fixed,
             "id,arrival,gpus,duration,mig_profile\n"
             "1,0,0.1,70,4g.40gb\n");
    CU_ASSERT_EQUAL(r.rc, GS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.d.what, "MIG profile"));
    run_free(&r);
}

/* --- MIG, reconfiguration ------------------------------------------------------ */

/* Two H100s in the "full" layout, reconfigured on demand in 30 s.
 *   1  1g.10gb, 70 s, at 0: no 1g instance anywhere; GPU 0 is empty, so it
 *      gets 7 x 1g.10gb, ready at 30 s; the job holds its instance from 0
 *      but runs from 30 s: 30 + 490 = 520 s;
 *   2  a whole GPU, 100 s, at 10: GPU 1 is still "full": no change, ends
 *      at 110 s;
 *   3  1g.10gb, 7 s, at 20: a free 1g on GPU 0, which is ready at 30 s:
 *      30 + 49 = 79 s;
 *   4  3g.40gb, 30 s, at 200: GPU 1 (empty since 110 s) becomes 2 x 3g,
 *      ready at 230 s: 230 + 70 = 300 s;
 *   5  a whole GPU, 100 s, at 600: both GPUs are empty; best-fit takes
 *      GPU 0, whose 7 x 1g layout becomes "full" again: 630 + 100 = 730 s.
 * Three reconfigurations. */
static void test_mig_reconfigure(void)
{
    struct run r;
    run_ok(&r,
           "{\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1,"
           " \"gpus_per_node\": 2, \"sharing\": {\"mode\": \"mig\","
           " \"reconfigure\": true, \"reconfigure_time\": \"30s\"}}],"
           " \"policy\": \"fifo\","
           " \"workload\": {\"trace\": {\"format\": \"native\","
           " \"path\": \"%s\"}}}",
           "id,arrival,gpus,duration,mig_profile\n"
           "1,0,0.1,70,1g.10gb\n"
           "2,10,1,100,\n"
           "3,20,0.1,7,1g.10gb\n"
           "4,200,0.1,30,3g.40gb\n"
           "5,600,1,100,\n");
    CU_ASSERT_EQUAL(rec_of(&r, 1)->start, 0);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->end, 520 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->end, 110 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 3)->start, 20 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 3)->end, 79 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 4)->end, 300 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 5)->end, 730 * S);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->mig_reconfigs, 3);
    run_free(&r);
}

/* --- time-slicing ---------------------------------------------------------------- */

static const char ts_pool[] =
    "{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1, \"gpus_per_node\": 1,"
    " \"sharing\": {\"mode\": \"time-slicing\", \"replicas\": 4,"
    " \"switch_overhead\": 0.02%s}}],"
    " \"policy\": \"fifo\","
    " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%%s\"}}}";

static void run_ts(struct run *r, const char *extra, const char *csv)
{
    char json[1024];
    snprintf(json, sizeof json, ts_pool, extra);
    run_ok(r, json, csv);
}

/* Duty cycles 0.3 + 0.5 = 0.8 <= 1: both run at 1 - 0.02 = 0.98.  Job 2
 * (49 s of work) ends at 50 s; job 1 (98 s) has done 49 s by then and runs
 * alone at full speed: ends at 99 s. */
static void test_ts_under_one(void)
{
    struct run r;
    run_ts(&r, "", "id,arrival,gpus,duration,duty_cycle\n"
                   "1,0,1,98,0.3\n"
                   "2,0,1,49,0.5\n");
    CU_ASSERT_EQUAL(rec_of(&r, 2)->end, 50 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->end, 99 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->start, 0);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->start, 0);
    run_free(&r);
}

/* Duty cycles 0.6 + 0.6 + 0.8 = 2: three contexts cost 4 %, and the GPU is
 * shared in proportion: (1 - 0.04) / 2 = 0.48.  Job 1 (48 s) ends at 100 s.
 * Then 0.6 + 0.8 = 1.4 and two contexts: 0.98 / 1.4 = 0.7; jobs 2 and 3
 * (96 s each, 48 done) need 48 / 0.7 = 68.571.. s more: 168,572 ms. */
static void test_ts_over_one(void)
{
    struct run r;
    run_ts(&r, "", "id,arrival,gpus,duration,duty_cycle\n"
                   "1,0,1,48,0.6\n"
                   "2,0,1,96,0.6\n"
                   "3,0,1,96,0.8\n");
    CU_ASSERT_EQUAL(rec_of(&r, 1)->end, 100 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->end, 168572);
    CU_ASSERT_EQUAL(rec_of(&r, 3)->end, 168572);
    /* slowdown of job 1: 100 s of wall time for 48 s of work */
    const struct gs_summary *su = gs_sim_summary(r.sim);
    double s1 = 100.0 / 48, s23 = 168.572 / 96;
    CU_ASSERT_DOUBLE_EQUAL(su->sharing_slowdown, (s1 + 2 * s23) / 3, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(su->ts_p99_added_ms, 0, 1e-12);   /* < 12 */
    run_free(&r);
}

/* At most `replicas` jobs per GPU: the fifth waits. */
static void test_ts_replicas_limit(void)
{
    struct run r;
    run_ts(&r, "", "id,arrival,gpus,duration,duty_cycle\n"
                   "1,0,1,10,0.1\n2,0,1,10,0.1\n3,0,1,10,0.1\n"
                   "4,0,1,10,0.1\n5,0,1,10,0.1\n");
    /* four contexts: 1 - 0.06 = 0.94; 10 / 0.94 = 10.638.. s */
    for (int i = 1; i <= 4; i++)
        CU_ASSERT_EQUAL(rec_of(&r, i)->end, 10639);
    CU_ASSERT_EQUAL(rec_of(&r, 5)->start, 10639);
    CU_ASSERT_EQUAL(rec_of(&r, 5)->end, 10639 + 10 * S);
    run_free(&r);
}

/* Twelve contexts on one GPU (16 replicas, duty 0.05 each: 0.6 in all)
 * add 5 ms to p99 latency for as long as they share it; they run at
 * 1 - 11 * 0.02 = 0.78 and all end together at 10 / 0.78 = 12.821 s. */
static void test_ts_latency(void)
{
    char json[1024], csv[1024] = "id,arrival,gpus,duration,duty_cycle\n";
    snprintf(json, sizeof json, ts_pool, "");
    char *r16 = strstr(json, "\"replicas\": 4");
    memcpy(r16, "\"replicas\":16", 13);
    for (int i = 1; i <= 12; i++)
        snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "%d,0,1,10,0.05\n",
                 i);
    struct run r;
    run_ok(&r, json, csv);
    for (int i = 1; i <= 12; i++)
        CU_ASSERT_EQUAL(rec_of(&r, i)->end, 12821);
    CU_ASSERT_DOUBLE_EQUAL(gs_sim_summary(r.sim)->ts_p99_added_ms, 5.0, 1e-9);
    run_free(&r);
}

/* The overhead and latency curves. */
static void test_ts_curves(void)
{
    struct gs_share_cfg c = { .mode = GS_SHARE_TS, .replicas = 48,
                              .switch_overhead = GS_SHARE_SWITCH,
                              .max_overhead = GS_SHARE_MAX_OVERHEAD,
                              .latency_from = GS_SHARE_LAT_FROM,
                              .latency_min_ms = GS_SHARE_LAT_MIN_MS,
                              .latency_max_ms = GS_SHARE_LAT_MAX_MS };
    CU_ASSERT_DOUBLE_EQUAL(gs_share_ts_overhead(&c, 1), 0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_share_ts_overhead(&c, 4), 0.03, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_share_ts_overhead(&c, 8), 0.07, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_share_ts_overhead(&c, 48), 0.25, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_share_ts_latency_ms(&c, 8), 0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_share_ts_latency_ms(&c, 12), 5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_share_ts_latency_ms(&c, 30), 12.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_share_ts_latency_ms(&c, 48), 20, 1e-12);
}

/* --- the OOM rule --------------------------------------------------------------------- */

/* 40 + 30 + 20 GB on an 80 GB GPU: when job 3 arrives at 20 s the GPU is
 * over, and one job is killed at that instant.  "newest" kills job 3, the
 * one whose allocation found the memory gone; "largest" kills job 1 (40
 * GB).  Job 2 (20 s of work, duty 1, from 10 s) shares with job 1 at
 * (1 - 0.02) / 2 = 0.49 either way under "newest": 20 / 0.49 = 40.816.. s,
 * ending at 50,817 ms. */
static const char oom_csv[] =
    "id,arrival,gpus,duration,memory_gb\n"
    "1,0,1,100,40\n"
    "2,10,1,20,30\n"
    "3,20,1,100,20\n";

static void test_oom_newest(void)
{
    struct run r;
    run_ts(&r, "", oom_csv);
    const struct gs_jobrec *j3 = rec_of(&r, 3);
    CU_ASSERT_EQUAL(j3->state, GS_JOB_KILLED);
    CU_ASSERT_EQUAL(j3->kill, GS_KILL_OOM);
    CU_ASSERT_EQUAL(j3->start, 20 * S);
    CU_ASSERT_EQUAL(j3->end, 20 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->state, GS_JOB_DONE);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->state, GS_JOB_DONE);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->end, 50817);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->oom_kills, 1);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->all.killed, 1);
    run_free(&r);
}

static void test_oom_largest(void)
{
    struct run r;
    run_ts(&r, ", \"oom_victim\": \"largest\"", oom_csv);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->state, GS_JOB_KILLED);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->kill, GS_KILL_OOM);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->end, 20 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 3)->state, GS_JOB_DONE);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->state, GS_JOB_DONE);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->oom_kills, 1);
    run_free(&r);
}

/* No memory stated: each job counts GPU memory / replicas, so a full GPU
 * never runs out. */
static void test_oom_unstated(void)
{
    struct run r;
    run_ts(&r, "", "id,arrival,gpus,duration\n"
                   "1,0,1,10\n2,0,1,10\n3,0,1,10\n4,0,1,10\n");
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->oom_kills, 0);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->all.done, 4);
    run_free(&r);
}

/* --- fractional GPUs ------------------------------------------------------------------- */

static const char frac_pool[] =
    "{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1, \"gpus_per_node\": 1,"
    " \"sharing\": {\"mode\": \"fractional\", \"reclaim\": \"%s\"}}],"
    " \"policy\": \"fifo\","
    " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%%s\"}}}";

static void run_frac(struct run *r, const char *reclaim, const char *csv)
{
    char json[1024];
    snprintf(json, sizeof json, frac_pool, reclaim);
    run_ok(r, json, csv);
}

/* B (owner, 0.3) and A (0.4 guaranteed, bursting to 1.0) start at 0.  Idle
 * is 300: A borrows it and runs at (400 + 300) / 1000 = 0.7.  B (50 s)
 * ends at 50 s; A has done 35 of its 70 s, borrows 600 and finishes at full
 * speed at 85 s. */
static void test_frac_burst_speed(void)
{
    struct run r;
    run_frac(&r, "kill", "id,arrival,gpus,duration,gpu_guarantee,gpu_burst\n"
                         "1,0,0.3,50,,\n"
                         "2,0,0.4,70,0.4,1.0\n");
    CU_ASSERT_EQUAL(rec_of(&r, 1)->end, 50 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->end, 85 * S);
    const struct gs_summary *su = gs_sim_summary(r.sim);
    /* A: 85 s of wall time for 70 s of work; B: 1 */
    CU_ASSERT_DOUBLE_EQUAL(su->sharing_slowdown, (85.0 / 70 + 1) / 2, 1e-9);
    CU_ASSERT_EQUAL(su->reclaim_kills + su->reclaim_evictions, 0);
    run_free(&r);
}

/* A borrows 300 (0.2 guaranteed, bursts to 0.5) at 0; B borrows 200 (0.2,
 * bursts to 0.4) at 1 s; 100 stays idle.  An owner arriving at 2 s needs
 * its guarantee back: */
static const char reclaim_head[] =
    "id,arrival,gpus,duration,gpu_guarantee,gpu_burst\n"
    "1,0,0.2,1000,0.2,0.5\n"
    "2,1,0.2,1000,0.2,0.4\n";

static void reclaim_case(const char *reclaim, const char *owner, int a_dies,
                         int b_dies)
{
    char csv[512];
    snprintf(csv, sizeof csv, "%s3,2,%s,100,,\n", reclaim_head, owner);
    struct run r;
    run_frac(&r, reclaim, csv);
    const struct gs_jobrec *a = rec_of(&r, 1), *b = rec_of(&r, 2);
    CU_ASSERT_EQUAL(a->state, a_dies ? GS_JOB_KILLED : GS_JOB_DONE);
    CU_ASSERT_EQUAL(b->state, b_dies ? GS_JOB_KILLED : GS_JOB_DONE);
    if (a_dies) {
        CU_ASSERT_EQUAL(a->kill, GS_KILL_RECLAIM);
        CU_ASSERT_EQUAL(a->end, 2 * S);
    }
    if (b_dies) {
        CU_ASSERT_EQUAL(b->kill, GS_KILL_RECLAIM);
        CU_ASSERT_EQUAL(b->end, 2 * S);
    }
    CU_ASSERT_EQUAL(rec_of(&r, 3)->start, 2 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 3)->end, 102 * S);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->reclaim_kills, a_dies + b_dies);
    run_free(&r);
}

/* The owner's deficit decides who dies, newest borrower first:
 *   0.3: idle 100 - 300 = -200: B (loan 200) covers it; A keeps its loan
 *        and ends at 1000 s;
 *   0.35: -250: B's loan is 200, but killing B frees its guarantee too:
 *        idle 1000 - 550 - 300 = 150 >= 0; A survives;
 *   0.6: -500: B frees 400, still -100: A dies too. */
static void test_reclaim_exact(void)
{
    reclaim_case("kill", "0.3", 0, 1);
    reclaim_case("kill", "0.35", 0, 1);
    reclaim_case("kill", "0.6", 1, 1);
}

/* With "evict", B is requeued instead (work since its last checkpoint --
 * none -- is lost) and restarts at once on its guarantee alone: idle is
 * 1000 - 700 - 300 = 0, so it runs at 200 / 400 = 0.5.  When the owner
 * ends at 102 s, B borrows 200 again: 100 s at 0.5 = 50 done, 950 left at
 * full speed: ends at 1052 s. */
static void test_reclaim_evict(void)
{
    char csv[512];
    snprintf(csv, sizeof csv, "%s3,2,0.3,100,,\n", reclaim_head);
    struct run r;
    run_frac(&r, "evict", csv);
    const struct gs_jobrec *b = rec_of(&r, 2);
    CU_ASSERT_EQUAL(b->state, GS_JOB_DONE);
    CU_ASSERT_EQUAL(preempts_of(&r, 2), 1);
    CU_ASSERT_EQUAL(b->end, 1052 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->end, 1000 * S);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->reclaim_evictions, 1);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->reclaim_kills, 0);
    run_free(&r);
}

/* Placement counts lent capacity as taken and reclaims only when nothing
 * unlent fits.  Two GPUs: A (0.2, bursting to 1.0) borrows 800 of GPU 0.
 * B (0.5) at 1 s goes to the untouched GPU 1: no reclaim.  C (0.6) at 2 s
 * fits nowhere unlent (GPU 0: 0, GPU 1: 500), so it takes GPU 0's lent
 * capacity back: A, its only borrower, is killed. */
static void test_reclaim_last_resort(void)
{
    struct run r;
    run_ok(&r,
           "{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1,"
           " \"gpus_per_node\": 2, \"sharing\": {\"mode\": \"fractional\"}}],"
           " \"policy\": \"fifo\", \"placement\": \"best-fit\","
           " \"workload\": {\"trace\": {\"format\": \"native\","
           " \"path\": \"%s\"}}}",
           "id,arrival,gpus,duration,gpu_guarantee,gpu_burst\n"
           "1,0,0.2,100,0.2,1.0\n"
           "2,1,0.5,100,,\n"
           "3,2,0.6,100,,\n");
    const struct gs_summary *su = gs_sim_summary(r.sim);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->state, GS_JOB_DONE);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->end, 101 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->state, GS_JOB_KILLED);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->kill, GS_KILL_RECLAIM);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->end, 2 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 3)->start, 2 * S);
    CU_ASSERT_EQUAL(su->reclaim_kills, 1);
    run_free(&r);
}

/* All three sharing modes beside the cloud models (failures, spot
 * reclaims, autoscaling that cordons and drains nodes, the reaper;
 * tests/fixtures/sharing/cloud-combo.json), under every placer: the run
 * ends, every job is accounted for, and the sharing books moved.  (With
 * clustering, job 317 once went to a cordoned node.) */
static void test_with_cloud_models(void)
{
    static const char *const placers[] = { "first-fit", "best-fit", "random",
                                           "packing", "dot-product",
                                           "clustering", "fgd" };
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_scenario_load("tests/fixtures/sharing/"
                                           "cloud-combo.json", &sc, &d), 0);
    for (size_t i = 0; i < sizeof placers / sizeof placers[0]; i++) {
        struct gs_sim_opts o = { .placer = placers[i] };
        struct gs_sim *sim = NULL;
        int rc = gs_sim_new(sc, &o, &sim, &d);
        if (rc == 0)
            rc = gs_sim_run(sim, &d);
        if (rc != 0)
            fprintf(stderr, "%s: %s: %s\n", placers[i], d.where, d.what);
        CU_ASSERT_EQUAL(rc, 0);
        if (rc == 0) {
            const struct gs_summary *su = gs_sim_summary(sim);
            CU_ASSERT(su->all.jobs > 1000);
            CU_ASSERT_EQUAL(su->all.done + su->all.killed +
                            su->all.unfinished, su->all.jobs);
            CU_ASSERT(su->mig_slice_util > 0 && su->mig_slice_util < 1);
            CU_ASSERT(su->oom_kills > 0);
            CU_ASSERT(su->sharing_slowdown >= 1);
            CU_ASSERT(su->fragmentation >= 0 && su->fragmentation < 1);
        }
        gs_sim_free(sim);
    }
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

/* --- scenario keys ---------------------------------------------------------------------------- */

static void expect_error(const char *sharing, const char *where,
                         const char *what)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"fleet\": [{\"gpu\": \"%s\", \"nodes\": 1, \"sharing\": %s}],"
             " \"workload\": {\"trace\": {\"format\": \"native\","
             " \"path\": \"x\"}}}",
             strstr(sharing, "T4MIG") ? "T4" : "H100-80GB",
             strstr(sharing, "T4MIG") ? "{\"mode\": \"mig\"}" : sharing);
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_scenario_parse(json, "t.json", "/", &sc, &d), GS_EINVAL);
    if (strstr(d.where, where) == NULL || strstr(d.what, what) == NULL)
        fprintf(stderr, "got %s: %s\n", d.where, d.what);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.where, where));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, what));
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

static void test_scenario_errors(void)
{
    expect_error("{\"mode\": \"mps\"}", "$.fleet[0].sharing.mode",
                 "unknown sharing mode 'mps'");
    expect_error("T4MIG", "$.fleet[0].sharing.mode", "no MIG profiles");
    expect_error("{\"mode\": \"mig\", \"layout\": \"4g.40gb+4g.40gb\"}",
                 "$.fleet[0].sharing.layout", "at most 1");
    expect_error("{\"mode\": \"mig\", \"layout\": \"2g.10gb\"}",
                 "$.fleet[0].sharing.layout", "unknown MIG profile");
    expect_error("{\"mode\": \"time-slicing\", \"replicas\": 49}",
                 "$.fleet[0].sharing.replicas", "outside the allowed range");
    expect_error("{\"mode\": \"time-slicing\"}", "$.fleet[0].sharing",
                 "missing required key 'replicas'");
    expect_error("{\"mode\": \"time-slicing\", \"replicas\": 4, "
                 "\"oom_victim\": \"oldest\"}",
                 "$.fleet[0].sharing.oom_victim", "unknown rule 'oldest'");
    expect_error("{\"mode\": \"time-slicing\", \"replicas\": 4, "
                 "\"layout\": \"full\"}", "$.fleet[0].sharing",
                 "unknown key 'layout'");
    expect_error("{\"mode\": \"fractional\", \"reclaim\": \"swap\"}",
                 "$.fleet[0].sharing.reclaim", "unknown reclaim 'swap'");
}

/* Trace columns are checked row by row. */
static void test_trace_errors(void)
{
    struct run r;
    char json[1024];
    snprintf(json, sizeof json, frac_pool, "kill");
    run_text(&r, json, "id,arrival,gpus,duration,gpu_guarantee,"
                       "gpu_burst\n1,0,0.5,10,0.5,0.3\n");
    CU_ASSERT_EQUAL(r.rc, GS_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.d.where, ":2: field 'gpu_burst'"));
    run_free(&r);
    run_text(&r, json, "id,arrival,gpus,duration,duty_cycle\n"
                       "1,0,1,10,1.5\n");
    CU_ASSERT_EQUAL(r.rc, GS_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.d.where, ":2: field 'duty_cycle'"));
    run_free(&r);
}

static CU_TestInfo tests[] = {
    { "MIG: instance speeds, smallest fit, fit upward", test_mig_fixed_speeds },
    { "MIG: a profile the layout lacks is refused", test_mig_unknown_profile },
    { "MIG: reconfiguration timing and count", test_mig_reconfigure },
    { "time-slicing: duty cycles under 1", test_ts_under_one },
    { "time-slicing: duty cycles over 1", test_ts_over_one },
    { "time-slicing: replicas limit", test_ts_replicas_limit },
    { "time-slicing: overhead and latency curves", test_ts_curves },
    { "time-slicing: p99 latency added at 12 contexts", test_ts_latency },
    { "OOM: newest victim", test_oom_newest },
    { "OOM: largest victim", test_oom_largest },
    { "OOM: unstated memory never overflows", test_oom_unstated },
    { "fractional: burst speed", test_frac_burst_speed },
    { "fractional: reclaim takes exactly the borrowers needed",
      test_reclaim_exact },
    { "fractional: reclaim by eviction", test_reclaim_evict },
    { "fractional: reclaim only when nothing unlent fits",
      test_reclaim_last_resort },
    { "all modes beside the cloud models, every placer",
      test_with_cloud_models },
    { "scenario: sharing keys checked with JSON paths", test_scenario_errors },
    { "trace: sharing columns checked with file:line", test_trace_errors },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("sharing", tests)
