/* test_traces.c -- the trace importers on hand-written fixtures and on the
 * public traces in ../shared/traces.
 *
 * Expected figures for the public traces were computed outside gpusim,
 * with awk and Python over the files (the one-liners are in the comments),
 * so a wrong mapping rule shows up as a wrong count or sum.  The fixtures
 * in tests/fixtures/traces/ are small enough to check by hand: each bad-row
 * fixture has one good row and then the bad one, so the error must name
 * line 3 (2 without a header) and the field at fault. */
#include "tracetest.h"
#include "../traces/llmreq.h"
#include "../traces/native.h"
#include "../traces/nodelist.h"
#include "../traces/sia.h"

#include <limits.h>
#include <sys/stat.h>
#include <math.h>

static int find_model(const struct gs_catalog *cat, const char *name)
{
    int m = gs_catalog_find(cat, name);
    CU_ASSERT(m >= 0);
    return m;
}

/* --- alibaba --------------------------------------------------------------- */

static void test_alibaba_fixture(void)
{
    struct gs_scenario *sc = tt_scenario();
    const struct gs_catalog *cat = &sc->cat;
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    tt_log_start();
    long n = tt_read("alibaba-gpu-2023", FIX "ali_ok.csv", NULL, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    /* pod 7: LS, a quarter GPU, held from 12 s to 110 s */
    CU_ASSERT_EQUAL(j[0].id, 7);
    CU_ASSERT_EQUAL(j[0].arrival, 10000);
    CU_ASSERT_EQUAL(j[0].gpus, 0);
    CU_ASSERT_EQUAL(j[0].milli, 250);
    CU_ASSERT_EQUAL(j[0].work, 98000.0);
    CU_ASSERT_EQUAL(j[0].tier, GS_TIER_INFERENCE);
    CU_ASSERT_EQUAL(j[0].priority, 100);
    CU_ASSERT_EQUAL(j[0].allowed, 0);
    CU_ASSERT_EQUAL(j[0].line, 2);
    CU_ASSERT_STRING_EQUAL(j[0].tenant, "default");
    /* pod 8: BE, two V100s of either memory size */
    CU_ASSERT_EQUAL(j[1].id, 8);
    CU_ASSERT_EQUAL(j[1].gpus, 2);
    CU_ASSERT_EQUAL(j[1].work, 30000.0);
    CU_ASSERT_EQUAL(j[1].tier, GS_TIER_TRAINING);
    CU_ASSERT_EQUAL(j[1].priority, 10);
    CU_ASSERT_EQUAL(j[1].allowed, (1ULL << find_model(cat, "V100-16GB")) |
                                  (1ULL << find_model(cat, "V100-32GB")));
    /* pod 9: Burstable, CPU-only, Failed (kept), zero time -> 1 ms */
    CU_ASSERT_EQUAL(j[2].id, 9);
    CU_ASSERT_EQUAL(j[2].gpus, 0);
    CU_ASSERT_EQUAL(j[2].milli, 0);
    CU_ASSERT_EQUAL(j[2].work, 1.0);
    CU_ASSERT_EQUAL(j[2].priority, 50);
    CU_ASSERT_EQUAL(j[2].tier, GS_TIER_TRAINING);
    /* pod 10 is Pending: left out.  pod 11: decimal creation time, T4 */
    CU_ASSERT_EQUAL(j[3].id, 11);
    CU_ASSERT_EQUAL(j[3].arrival, 35500);
    CU_ASSERT_EQUAL(j[3].gpus, 1);
    CU_ASSERT_EQUAL(j[3].work, 60000.0);
    CU_ASSERT_EQUAL(j[3].allowed, 1ULL << find_model(cat, "T4"));
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "left out 1 row by the "
                                  "importer's rules"));
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "1 x pod_phase Pending"));
    free(j);

    /* pending="keep": pod 10 waits from 30 s to 90 s; G2 (custom model) */
    static const char *const keep[] = { "pending=keep", "tenant=pai", NULL };
    n = tt_read("alibaba-gpu-2023", FIX "ali_ok.csv", keep, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 5);
    CU_ASSERT_EQUAL(j[3].id, 10);
    CU_ASSERT_EQUAL(j[3].gpus, 8);
    CU_ASSERT_EQUAL(j[3].work, 60000.0);
    CU_ASSERT_EQUAL(j[3].tier, GS_TIER_INFERENCE);
    CU_ASSERT_EQUAL(j[3].priority, 120);
    CU_ASSERT_EQUAL(j[3].allowed, 1ULL << find_model(cat, "G2"));
    CU_ASSERT_STRING_EQUAL(j[3].tenant, "pai");
    free(j);

    static const char *const nofail[] = { "failed=skip", NULL };
    n = tt_read("alibaba-gpu-2023", FIX "ali_ok.csv", nofail, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(j[2].id, 11);
    free(j);
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

static void test_alibaba_sorting(void)
{
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    tt_log_start();
    long n = tt_read("alibaba-gpu-2023", FIX "ali_unsorted.csv", NULL, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 5);
    /* arrivals 50,20,50,10,20 -> 10(p-4) 20(p-2) 20(p-5) 50(p-1) 50(p-3) */
    static const int ids[5] = { 4, 2, 5, 1, 3 };
    for (int i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(j[i].id, ids[i]);
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "ali_unsorted.csv: 2 rows "
                                  "arrived before the row above; sorted all "
                                  "5 by arrival (stable)"));
    free(j);
    gs_diag_free(&d);
}

static void test_alibaba_bad_rows(void)
{
    static const struct { const char *file, *field, *what; } cases[] = {
        { "ali_bad_num_gpu.csv", "num_gpu", "'two' is not a GPU count" },
        { "ali_bad_gpu_milli.csv", "gpu_milli", "'1500' is not a share" },
        { "ali_bad_cpu_milli.csv", "gpu_milli", "500 with num_gpu 0" },
        { "ali_bad_multi_milli.csv", "gpu_milli", "500 with num_gpu 4" },
        { "ali_bad_spec.csv", "gpu_spec", "unknown GPU model 'H100'" },
        { "ali_bad_qos.csv", "qos", "unknown QoS class 'Gold'" },
        { "ali_bad_phase.csv", "pod_phase", "unknown phase 'Evicted'" },
        { "ali_bad_creation.csv", "creation_time", "'-6' is not a time" },
        { "ali_bad_deletion.csv", "deletion_time", "4 is before the pod" },
        { "ali_bad_scheduled.csv", "scheduled_time", "empty for a pod in "
          "phase Succeeded" },
        { "ali_bad_sched_early.csv", "scheduled_time", "3 is before "
          "creation_time 6" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[256], where[300];
        snprintf(path, sizeof path, FIX "%s", cases[i].file);
        snprintf(where, sizeof where, "%s:3: field '%s'", path,
                 cases[i].field);
        tt_bad("alibaba-gpu-2023", path, NULL, where, cases[i].what);
    }
    tt_bad("alibaba-gpu-2023", FIX "ali_bad_fields.csv", NULL,
           FIX "ali_bad_fields.csv:3", "10 fields where the header has 11");
    tt_bad("alibaba-gpu-2023", FIX "ali_bad_wide.csv", NULL,
           FIX "ali_bad_wide.csv:3", "70 fields; no format here has more "
           "than 64");
    static const char *const skipw[] = { "skip_bad_rows=true", NULL };
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    tt_log_start();
    CU_ASSERT_EQUAL(tt_read("alibaba-gpu-2023", FIX "ali_bad_wide.csv", skipw,
                            &j, &d), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "1 x row shape, first at "
                                  "line 3"));
    free(j);
    tt_bad("alibaba-gpu-2023", FIX "ali_bad_header.csv", NULL,
           FIX "ali_bad_header.csv:1", "has some of creation_time, deletion_time and scheduled_time but not all three");
    tt_bad("alibaba-gpu-2023", FIX "no_such_file.csv", NULL,
           FIX "no_such_file.csv", "cannot open trace");
    static const char *const badopt[] = { "pending=maybe", NULL };
    tt_bad("alibaba-gpu-2023", FIX "ali_ok.csv", badopt,
           "t: $.workload.trace.pending", "neither \"keep\" nor \"skip\"");
    static const char *const typo[] = { "pendng=keep", NULL };
    tt_bad("alibaba-gpu-2023", FIX "ali_ok.csv", typo,
           "t: $.workload.trace.pendng", "unknown key 'pendng'");
    static const char *const noskip[] = { "skip_bad_rows=yes", NULL };
    tt_bad("alibaba-gpu-2023", FIX "ali_ok.csv", noskip,
           "t: $.workload.trace.skip_bad_rows", "expected true or false");
    gs_diag_free(&d);
}

static void test_alibaba_skip_bad_rows(void)
{
    /* Without the option the first bad row (line 3) stops the read. */
    tt_bad("alibaba-gpu-2023", FIX "ali_mixed.csv", NULL,
           FIX "ali_mixed.csv:3: field 'num_gpu'", "'x' is not a GPU count");
    static const char *const skip[] = { "skip_bad_rows=true", NULL };
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    tt_log_start();
    long n = tt_read("alibaba-gpu-2023", FIX "ali_mixed.csv", skip, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(j[0].id, 7);        /* arrival 3 s, sorted first */
    CU_ASSERT_EQUAL(j[1].id, 1);
    CU_ASSERT_EQUAL(j[2].id, 3);
    const char *log = tt_log_text();
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "skipped 3 bad rows (skip_bad_rows)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "2 x field 'num_gpu', first at line "
                                  "3: 'x' is not a GPU count"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 x field 'qos', first at line 5: "
                                  "unknown QoS class 'Gold'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 x pod_phase Pending"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 row arrived before the row above"));
    free(j);
    gs_diag_free(&d);
}

static void test_node_list_fixture(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    int n0 = cat.n;
    struct gs_pool_spec *p;
    int np;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_node_list_read("alibaba-gpu-2023",
                          FIX "nodes_ok.csv", &cat, &p, &np, &d), 0);
    CU_ASSERT_EQUAL_FATAL(np, 4);
    CU_ASSERT_STRING_EQUAL(p[0].name, "G2-x8");
    CU_ASSERT_EQUAL(p[0].nodes, 2);
    CU_ASSERT_EQUAL(p[0].gpn, 8);
    /* n1 has no GPU: a pool without GPUs, for CPU-only jobs */
    CU_ASSERT_STRING_EQUAL(p[1].name, "cpu-1m-1mi");
    CU_ASSERT_EQUAL(p[1].gpn, 0);
    CU_ASSERT_EQUAL(p[1].nodes, 1);
    CU_ASSERT_STRING_EQUAL(p[2].name, "T4-x2");
    CU_ASSERT_EQUAL(p[2].nodes, 2);
    CU_ASSERT_EQUAL(p[2].model, gs_catalog_find(&cat, "T4"));
    CU_ASSERT_STRING_EQUAL(p[3].name, "V100-32GB-x4");
    CU_ASSERT_EQUAL(p[3].nodes, 1);
    /* G2 is built in with the documented figures: nothing declared */
    CU_ASSERT_EQUAL(cat.n, n0);
    int g2 = gs_catalog_find(&cat, "G2");
    CU_ASSERT_EQUAL(p[0].model, g2);
    CU_ASSERT_EQUAL_FATAL(g2 >= 0, 1);
    CU_ASSERT_EQUAL(cat.m[g2].custom, 0);
    CU_ASSERT_EQUAL(cat.m[g2].mem_gb, 32.0);
    CU_ASSERT_EQUAL(cat.m[g2].tflops, 125.0);
    CU_ASSERT_EQUAL(cat.m[g2].bw_gbs, 900.0);
    free(p);

    struct gs_diag d2 = { 0 };
    CU_ASSERT(gs_node_list_read("alibaba-gpu-2023", FIX "nodes_bad_gpu.csv",
                                &cat, &p, &np, &d2) < 0);
    CU_ASSERT_STRING_EQUAL(d2.where, FIX "nodes_bad_gpu.csv:3: field 'gpu'");
    CU_ASSERT_PTR_NOT_NULL(strstr(d2.what, "'two' is not a GPU count"));
    struct gs_diag d3 = { 0 };
    CU_ASSERT(gs_node_list_read("alibaba-gpu-2023", FIX "nodes_bad_model.csv",
                                &cat, &p, &np, &d3) < 0);
    CU_ASSERT_STRING_EQUAL(d3.where,
                           FIX "nodes_bad_model.csv:3: field 'model'");
    CU_ASSERT_PTR_NOT_NULL(strstr(d3.what, "unknown GPU model 'X100'"));
    struct gs_diag d4 = { 0 };
    CU_ASSERT_EQUAL(gs_node_list_read("borg", FIX "nodes_ok.csv", &cat, &p,
                                      &np, &d4), GS_ENOTFOUND);
    CU_ASSERT_PTR_NOT_NULL(strstr(d4.what, "unknown node-list format 'borg'"));
    gs_diag_free(&d);
    gs_diag_free(&d2);
    gs_diag_free(&d3);
    gs_diag_free(&d4);
}

static void test_openb_real(void)
{
    if (!have_traces("test_openb_real"))
        return;
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    tt_log_start();
    /* awk -F, 'NR>1' openb_pod_list_default.csv | wc -l  -> 8152 */
    static const char *const keep[] = { "pending=keep", NULL };
    const char *def = SHARED "alibaba-gpu-v2023/openb_pod_list_default.csv";
    long n = tt_read("alibaba-gpu-2023", def, keep, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 8152);
    long frac = 0, inf = 0, cpu = 0;
    for (long i = 0; i < n; i++) {
        frac += j[i].gpus == 0 && j[i].milli > 0;
        inf += j[i].tier == GS_TIER_INFERENCE;
        cpu += j[i].gpus == 0 && j[i].milli == 0;
    }
    /* awk -F, 'NR>1 && $4==1 && $5<1000' ... -> 3078 ask a fraction */
    CU_ASSERT_EQUAL(frac, 3078);
    /* qos LS 4647 + Guaranteed 7; num_gpu 0: 1088 */
    CU_ASSERT_EQUAL(inf, 4654);
    CU_ASSERT_EQUAL(cpu, 1088);
    /* first row openb-pod-0000 at 0 s, last openb-pod-8151 at 12,901,761 s */
    CU_ASSERT_EQUAL(j[0].id, 0);
    CU_ASSERT_EQUAL(j[0].arrival, 0);
    CU_ASSERT_EQUAL(j[n - 1].id, 8151);
    CU_ASSERT_EQUAL(j[n - 1].arrival, 12901761000LL);
    free(j);

    /* Default rule: the 897 Pending pods are left out. */
    n = tt_read("alibaba-gpu-2023", def, NULL, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 7255);
    double gh = 0;
    frac = 0;
    for (long i = 0; i < n; i++) {
        gh += tt_gpus(&j[i]) * j[i].work / 3.6e6;
        frac += j[i].gpus == 0 && j[i].milli > 0;
    }
    /* Python: sum(gpus * max(1 ms, (deletion - scheduled)) / 3.6e6) over
     * non-Pending pods = 51470.674 GPU-hours; 2573 fractional pods kept. */
    CU_ASSERT_DOUBLE_EQUAL(gh, 51470.674, 0.001);
    CU_ASSERT_EQUAL(frac, 2573);
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "897 x pod_phase Pending"));
    free(j);

    /* gpushare40 is not sorted: 3,043 of its 7,171 kept rows arrive before
     * the row above (Python over the non-Pending rows); after a stable sort
     * the first is openb-pod-8073 and the last openb-pod-3314. */
    tt_log_start();
    n = tt_read("alibaba-gpu-2023",
                SHARED "alibaba-gpu-v2023/openb_pod_list_gpushare40.csv", NULL,
                &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 7171);
    CU_ASSERT_EQUAL(j[0].id, 8073);
    CU_ASSERT_EQUAL(j[n - 1].id, 3314);
    for (long i = 1; i < n; i++)
        if (j[i].arrival < j[i - 1].arrival ||
            (j[i].arrival == j[i - 1].arrival && j[i].line < j[i - 1].line)) {
            CU_FAIL("not sorted stably");
            break;
        }
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "3043 rows arrived before "
                                  "the row above; sorted all 7171"));
    free(j);

    /* multigpu20 has only name, cpu_milli, memory_mib, num_gpu, gpu_milli:
     * 8,324 pods, all at time 0; its first pod asks 12 cores, 16 GiB and a
     * whole GPU */
    n = tt_read("alibaba-gpu-2023",
                SHARED "alibaba-gpu-v2023/openb_pod_list_multigpu20.csv", NULL,
                &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 8324);
    CU_ASSERT_EQUAL(j[0].cpu_milli, 12000);
    CU_ASSERT_EQUAL(j[0].mem_mib, 16384);
    CU_ASSERT_EQUAL(j[0].gpus, 1);
    CU_ASSERT_EQUAL(j[n - 1].arrival, 0);
    long cpu_only = 0;
    for (long i = 0; i < n; i++)
        cpu_only += j[i].gpus == 0 && j[i].milli == 0;
    CU_ASSERT_EQUAL(cpu_only, 1088);
    free(j);
    gs_diag_free(&d);
}

static void test_node_lists_real(void)
{
    if (!have_traces("test_node_lists_real"))
        return;
    static const struct { const char *fmt, *file; int nodes, gpus, pools; }
    cases[] = {
        /* awk -F, 'NR>1{n++; s+=$4} END{print n, s}' -> 1213 6212; 15
         * distinct (model, gpu, cpu_milli, memory_mib) (sort | uniq) */
        { "alibaba-gpu-2023", "alibaba-gpu-v2023/openb_node_list_gpu_node.csv",
          1213, 6212, 15 },
        /* the same GPUs and 310 CPU-only nodes, as pools without GPUs:
         * 12 distinct (cpu_milli, memory_mib) among them */
        { "alibaba-gpu-2023", "alibaba-gpu-v2023/openb_node_list_all_node.csv",
          1523, 6212, 27 },
        /* 4,278 nodes, 10,412 GPUs, 10 (model, count, cpu_num) */
        { "alibaba-spot-gpu-2026", "alibaba-spot-gpu-2026/node_info_df.csv",
          4278, 10412, 10 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct gs_catalog cat;
        gs_catalog_init(&cat);
        struct gs_pool_spec *p;
        int np, nodes = 0, gpus = 0;
        struct gs_diag d = { 0 };
        char path[256];
        snprintf(path, sizeof path, SHARED "%s", cases[i].file);
        CU_ASSERT_EQUAL_FATAL(gs_node_list_read(cases[i].fmt, path, &cat, &p,
                                                &np, &d), 0);
        for (int k = 0; k < np; k++) {
            nodes += p[k].nodes;
            gpus += p[k].nodes * p[k].gpn;
        }
        CU_ASSERT_EQUAL(nodes, cases[i].nodes);
        CU_ASSERT_EQUAL(gpus, cases[i].gpus);
        CU_ASSERT_EQUAL(np, cases[i].pools);
        if (i == 0) {
            /* 549 eight-GPU G2 nodes of 96 cores and 384 GiB; 387 two-GPU
             * T4 nodes of 104 cores and 512 GiB; P100 x2 in three sizes */
            int p100 = 0;
            for (int k = 0; k < np; k++) {
                if (strcmp(p[k].name, "G2-x8") == 0) {
                    CU_ASSERT_EQUAL(p[k].nodes, 549);
                    CU_ASSERT_EQUAL(p[k].cpu_milli, 96000);
                    CU_ASSERT_EQUAL(p[k].mem_mib, 393216);
                }
                if (strcmp(p[k].name, "T4-x2") == 0) {
                    CU_ASSERT_EQUAL(p[k].nodes, 387);
                    CU_ASSERT_EQUAL(p[k].cpu_milli, 104000);
                }
                if (strncmp(p[k].name, "P100-16GB-x2", 12) == 0)
                    p100 += p[k].nodes;
            }
            CU_ASSERT_EQUAL(p100, 107 + 22 + 2);
        }
        if (i == 2) {
            /* 432 eight-GPU A100-SXM4-80GB nodes */
            int found = 0;
            for (int k = 0; k < np; k++)
                if (strcmp(p[k].name, "A100-80GB-x8") == 0) {
                    found = 1;
                    CU_ASSERT_EQUAL(p[k].nodes, 432);
                    CU_ASSERT_EQUAL(p[k].cpu_milli, 128000);
                }
            CU_ASSERT(found);
        }
        free(p);
        gs_diag_free(&d);
    }
}

/* --- philly ---------------------------------------------------------------- */

static void test_philly_fixture(void)
{
    struct gs_scenario *sc = tt_scenario();
    const struct gs_catalog *cat = &sc->cat;
    int k80 = find_model(cat, "K80"), p100 = find_model(cat, "P100-16GB");
    int v100 = find_model(cat, "V100-16GB");
    uint64_t all = (1ULL << cat->n) - 1;
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    static const char *const o[] = { "throughputs=" FIX "thr.json", NULL };
    long n = tt_read("philly-gavel", FIX "philly_ok.trace", o, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    /* A at 1 GPU: 400 steps at 4 steps/s on a V100 = 100 s; measured ratios
     * P100 2x, K80 4x slower give cb = 0.0153387... (least squares, Python) */
    CU_ASSERT_EQUAL(j[0].id, 1);
    CU_ASSERT_EQUAL(j[0].gpus, 1);
    CU_ASSERT_EQUAL(j[0].work, 100000.0);
    CU_ASSERT_EQUAL(j[0].ref_model, v100);
    CU_ASSERT_DOUBLE_EQUAL(j[0].cb, 0.015338723497090862, 1e-12);
    CU_ASSERT_EQUAL(j[0].allowed, 0);
    CU_ASSERT_EQUAL(j[0].tier, GS_TIER_TRAINING);
    CU_ASSERT_STRING_EQUAL(j[0].tenant, "philly_ok");
    /* A at 4 GPUs: not measured; from 2 GPUs (6 steps/s) times 4/2 = 12
     * steps/s: 1200 steps = 100 s.  Ratios 2 and 3 give cb < 0 -> 0. */
    CU_ASSERT_EQUAL(j[1].gpus, 4);
    CU_ASSERT_EQUAL(j[1].arrival, 5500);
    CU_ASSERT_EQUAL(j[1].work, 100000.0);
    CU_ASSERT_EQUAL(j[1].cb, 0.0);
    /* B: 0 steps/s on a K80 -> not allowed there; cb from the P100 alone */
    CU_ASSERT_EQUAL(j[2].work, 100000.0);
    CU_ASSERT_EQUAL(j[2].allowed, all & ~(1ULL << k80));
    CU_ASSERT_DOUBLE_EQUAL(j[2].cb, 0.16510356255178127, 1e-12);
    /* C runs only on a K80: it becomes the reference; cb stays 0.5 */
    CU_ASSERT_EQUAL(j[3].ref_model, k80);
    CU_ASSERT_EQUAL(j[3].work, 100000.0);
    CU_ASSERT_EQUAL(j[3].cb, 0.5);
    CU_ASSERT_EQUAL(j[3].allowed, all & ~((1ULL << p100) | (1ULL << v100)));
    free(j);

    static const char *const o2[] = { "throughputs=" FIX "thr.json",
                                      "reference_gpu=k80", "tenant=vc1",
                                      NULL };
    n = tt_read("philly-gavel", FIX "philly_ok.trace", o2, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    CU_ASSERT_EQUAL(j[0].ref_model, k80);
    CU_ASSERT_EQUAL(j[0].work, 400000.0);
    CU_ASSERT_EQUAL(j[2].ref_model, v100);   /* B cannot run on a K80 */
    CU_ASSERT_STRING_EQUAL(j[0].tenant, "vc1");
    free(j);
    gs_scenario_free(sc);

    static const struct { const char *file, *field, *what; } cases[] = {
        { "philly_bad_steps.trace", "total_steps", "'many' is not a whole" },
        { "philly_bad_arrival.trace", "arrival_time_s", "'-1' is not a time" },
        { "philly_bad_scale.trace", "scale_factor", "'0' is not a GPU count" },
        { "philly_bad_job.trace", "job_type", "no throughput above 0 for "
          "('D', 1)" },
        { "philly_bad_datadir.trace", "needs_data_dir", "'2' is not 0 or 1" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[256], where[300];
        snprintf(path, sizeof path, FIX "%s", cases[i].file);
        snprintf(where, sizeof where, "%s:2: field '%s'", path,
                 cases[i].field);
        tt_bad("philly-gavel", path, o, where, cases[i].what);
    }
    tt_bad("philly-gavel", FIX "philly_bad_fields.trace", o,
           FIX "philly_bad_fields.trace:2", "6 tab-separated fields where a Gavel trace line has 7 (traces/msr), 9, or 10");
    static const char *const ob[] = { "throughputs=" FIX "thr_bad.json",
                                       NULL };
    tt_bad("philly-gavel", FIX "philly_ok.trace", ob,
           FIX "thr_bad.json:3:31", "malformed JSON");
    static const char *const or[] = { "throughputs=" FIX "thr.json",
                                       "reference_gpu=a100", NULL };
    tt_bad("philly-gavel", FIX "philly_ok.trace", or,
           "t: $.workload.trace.reference_gpu", "'a100' is not one of");
    /* default throughputs file: beside the trace or up to 3 folders above,
     * absent here; the message names the option */
    tt_bad("philly-gavel", FIX "philly_ok.trace", NULL,
           FIX "philly_ok.trace", "no simulation_throughputs.json beside the "
           "trace or in the 3 folders above it (Gavel keeps it in "
           "scheduler/): give it with --opt throughputs=FILE");
    tt_bad("philly-gavel", FIX "philly_bad_weight.trace", o,
           FIX "philly_bad_weight.trace:1: field 'priority_weight'",
           "'0' is not a weight > 0");
    gs_diag_free(&d);
}

/* Gavel's physical_cluster layout (10 fields: working directory, priority
 * weight and SLO, arrival last) and the 9-field one read the same jobs as
 * the 7-field philly_ok.trace, plus deadlines from the SLO; the throughputs
 * file is found where Gavel keeps it, in scheduler/ above
 * traces/physical_cluster/. */
static void test_philly_layouts(void)
{
    static const char *const o[] = { "throughputs=" FIX "thr.json", NULL };
    struct gs_jobspec *a, *b, *c;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(tt_read("philly-gavel", FIX "philly_ok.trace", o,
                                  &a, &d), 4);
    CU_ASSERT_EQUAL_FATAL(tt_read("philly-gavel", FIX "philly_pc.trace", o,
                                  &b, &d), 4);
    CU_ASSERT_EQUAL_FATAL(tt_read("philly-gavel", FIX "philly_pc9.trace", o,
                                  &c, &d), 4);
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(a[i].arrival, b[i].arrival);
        CU_ASSERT_EQUAL(a[i].gpus, b[i].gpus);
        CU_ASSERT_EQUAL(a[i].work, b[i].work);
        CU_ASSERT_EQUAL(a[i].cb, b[i].cb);
        CU_ASSERT_EQUAL(a[i].allowed, b[i].allowed);
        CU_ASSERT_EQUAL(a[i].ref_model, b[i].ref_model);
        CU_ASSERT_EQUAL(a[i].deadline, 0);
        CU_ASSERT_EQUAL(b[i].work, c[i].work);
        CU_ASSERT_EQUAL(b[i].arrival, c[i].arrival);
        CU_ASSERT_EQUAL(b[i].deadline, c[i].deadline);
    }
    /* SLO x duration: 2.5 x 100 s, 1.5 x 100 s; -1 = none */
    CU_ASSERT_EQUAL(b[0].deadline, 0);
    CU_ASSERT_EQUAL(b[1].deadline, 250000);
    CU_ASSERT_EQUAL(b[2].deadline, 0);
    CU_ASSERT_EQUAL(b[3].deadline, 150000);
    free(a);
    free(b);
    free(c);

    char root[] = "/tmp/gs_gavelXXXXXX", cmd[512], trace[256];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
    snprintf(cmd, sizeof cmd, "mkdir -p %s/scheduler/traces/physical_cluster "
             "&& cp " FIX "thr.json %s/scheduler/simulation_throughputs.json "
             "&& cp " FIX "philly_pc.trace %s/scheduler/traces/"
             "physical_cluster/", root, root, root);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    snprintf(trace, sizeof trace, "%s/scheduler/traces/physical_cluster/"
             "philly_pc.trace", root);
    long n = tt_read("philly-gavel", trace, NULL, &b, &d);
    if (n != 4)
        printf("\n    %s: %s", d.where, d.what);
    CU_ASSERT_EQUAL(n, 4);
    if (n == 4)
        CU_ASSERT_EQUAL(b[1].deadline, 250000);
    free(b);
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CU_ASSERT_EQUAL(system(cmd), 0);
    gs_diag_free(&d);
}

static void test_philly_real(void)
{
    if (!have_traces("test_philly_real"))
        return;
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    long n = tt_read("philly-gavel", SHARED "philly-gavel/0e4a51.trace", NULL,
                     &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 1181);
    /* Line 1: Transformer (batch size 128), 95121 steps, 1 GPU; v100
     * throughput 5.44610521981264 steps/s -> 17465.876 s. */
    CU_ASSERT_EQUAL(j[0].work, 17465876.0);
    CU_ASSERT_DOUBLE_EQUAL(j[0].cb, 0.07384809256774584, 1e-9);
    CU_ASSERT_STRING_EQUAL(j[0].tenant, "0e4a51");
    CU_ASSERT_EQUAL(j[n - 1].arrival, 7363956000LL);
    /* Python with the documented rule (197 jobs scaled from a smaller
     * measured scale factor, 25 with a model left out): 92221.609 GPU-h. */
    double gh = 0;
    long excl = 0;
    for (long i = 0; i < n; i++) {
        gh += j[i].gpus * j[i].work / 3.6e6;
        excl += j[i].allowed != 0;
    }
    CU_ASSERT_DOUBLE_EQUAL(gh, 92221.609, 0.001);
    CU_ASSERT_EQUAL(excl, 25);
    free(j);
    /* 2869ce has 70 jobs of 32 GPUs and 2 of 16, none measured there. */
    n = tt_read("philly-gavel", SHARED "philly-gavel/2869ce.trace", NULL, &j,
                &d);
    CU_ASSERT_EQUAL_FATAL(n, 533);
    long g32 = 0;
    for (long i = 0; i < n; i++)
        g32 += j[i].gpus == 32;
    CU_ASSERT_EQUAL(g32, 70);
    free(j);
    gs_diag_free(&d);
}

/* --- sia --------------------------------------------------------------------- */

static void test_sia(void)
{
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    static const char *const o[] = { "gpu_hours_mine=2", "tenant=sia",
                                     NULL };
    long n = tt_read("sia", FIX "sia_ok.csv", o, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    /* cifar10: 0.5 GPU-h over 6 replicas = 300 s */
    CU_ASSERT_EQUAL(j[0].id, 0);
    CU_ASSERT_EQUAL(j[0].arrival, 107000);
    CU_ASSERT_EQUAL(j[0].gpus, 6);
    CU_ASSERT_EQUAL(j[0].work, 300000.0);
    /* bert: sqrt(10) GPU-h over 2 = 5692.0998... s */
    CU_ASSERT_EQUAL(j[1].id, 1);
    CU_ASSERT_EQUAL(j[1].work, round(sqrt(10.0) * 3600.0 * 1000.0 / 2.0));
    /* mine: 2 GPU-h (option) over 4 = 1800 s */
    CU_ASSERT_EQUAL(j[2].id, 7);
    CU_ASSERT_EQUAL(j[2].work, 1800000.0);
    CU_ASSERT_STRING_EQUAL(j[2].tenant, "sia");
    CU_ASSERT_EQUAL(j[2].ref_model, -1);
    free(j);
    CU_ASSERT_EQUAL(gs_sia_gpu_hours("imagenet"), sqrt(100000.0));
    CU_ASSERT_EQUAL(gs_sia_gpu_hours("gpt"), -1.0);
    tt_bad("sia", FIX "sia_ok.csv", NULL, FIX "sia_ok.csv:4: field "
           "'application'", "unknown application 'mine'");
    static const struct { const char *file, *field, *what; } cases[] = {
        { "sia_bad_time.csv", "time", "'soon' is not a time" },
        { "sia_bad_replicas.csv", "num_replicas", "'0' is not a GPU count" },
        { "sia_bad_batch.csv", "batch_size", "'big' is not a whole number" },
        { "sia_bad_app.csv", "application", "unknown application 'gpt'" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[256], where[300];
        snprintf(path, sizeof path, FIX "%s", cases[i].file);
        snprintf(where, sizeof where, "%s:3: field '%s'", path,
                 cases[i].field);
        tt_bad("sia", path, NULL, where, cases[i].what);
    }
    if (!have_traces("test_sia real"))
        return;
    n = tt_read("sia", SHARED "sia-philly/workload-1.csv", NULL, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 160);
    /* Python: 1612 GPUs in all; sum of GPU-h by application 1486.863 */
    double gh = 0;
    long g = 0;
    for (long i = 0; i < n; i++) {
        gh += j[i].gpus * j[i].work / 3.6e6;
        g += j[i].gpus;
    }
    CU_ASSERT_EQUAL(g, 1612);
    CU_ASSERT_DOUBLE_EQUAL(gh, 1486.863, 0.001);
    CU_ASSERT_EQUAL(j[n - 1].id, 159);
    CU_ASSERT_EQUAL(j[n - 1].arrival, 27695000);
    free(j);
    gs_diag_free(&d);
}

/* --- swf ------------------------------------------------------------------------ */

static void test_swf(void)
{
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    static const char *const o[] = { "procs_per_gpu=8", NULL };
    tt_log_start();
    long n = tt_read("swf", FIX "swf_ok.swf", o, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    /* job 1: 16 processors / 8 = 2 GPUs, 100 s, requested 200 s, user 3 */
    CU_ASSERT_EQUAL(j[0].id, 1);
    CU_ASSERT_EQUAL(j[0].gpus, 2);
    CU_ASSERT_EQUAL(j[0].work, 100000.0);
    CU_ASSERT_EQUAL(j[0].estimate, 200000);
    CU_ASSERT_STRING_EQUAL(j[0].tenant, "user3");
    /* job 3: allocated unknown, 12 requested -> ceil(1.5) = 2 GPUs */
    CU_ASSERT_EQUAL(j[1].id, 3);
    CU_ASSERT_EQUAL(j[1].gpus, 2);
    CU_ASSERT_EQUAL(j[1].arrival, 20000);
    CU_ASSERT_EQUAL(j[1].estimate, 0);
    /* job 5: 1 processor -> 1 GPU */
    CU_ASSERT_EQUAL(j[2].id, 5);
    CU_ASSERT_EQUAL(j[2].gpus, 1);
    CU_ASSERT_STRING_EQUAL(j[2].tenant, "user5");
    const char *log = tt_log_text();
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 x run time unknown (-1) (first at "
                                  "line 5)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 x no processor count"));
    free(j);

    static const char *const st1[] = { "procs_per_gpu=8", "status=1",
                                       "tenant_from=queue", "estimate=false",
                                       NULL };
    n = tt_read("swf", FIX "swf_ok.swf", st1, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(j[0].id, 1);
    CU_ASSERT_EQUAL(j[1].id, 5);
    CU_ASSERT_STRING_EQUAL(j[0].tenant, "queue0");
    CU_ASSERT_EQUAL(j[0].estimate, 0);
    free(j);
    static const char *const st2[] = { "procs_per_gpu=0.5", "status=0|5",
                                       NULL };
    n = tt_read("swf", FIX "swf_ok.swf", st2, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(j[0].id, 3);
    CU_ASSERT_EQUAL(j[0].gpus, 24);
    free(j);

    tt_bad("swf", FIX "swf_ok.swf", NULL, "t: $.workload.trace",
           "missing required key 'procs_per_gpu'");
    static const char *const bst[] = { "procs_per_gpu=8", "status=done",
                                       NULL };
    tt_bad("swf", FIX "swf_ok.swf", bst, "t: $.workload.trace.status",
           "expected \"all\" or status codes");
    static const struct { const char *file, *field, *what; } cases[] = {
        { "swf_bad_number.swf", "run_time", "'abc' is not a number" },
        { "swf_bad_status.swf", "status", "9 is not an SWF status" },
        { "swf_bad_submit.swf", "submit_time", "unknown (-1)" },
        { "swf_bad_frac.swf", "allocated_processors", "'8.5' is not a whole" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[256], where[300];
        snprintf(path, sizeof path, FIX "%s", cases[i].file);
        snprintf(where, sizeof where, "%s:3: field '%s'", path,
                 cases[i].field);
        tt_bad("swf", path, o, where, cases[i].what);
    }
    tt_bad("swf", FIX "swf_bad_fields.swf", o, FIX "swf_bad_fields.swf:3",
           "17 fields where an SWF line has 18");

    /* gzip: the whole file reads; the same cut in half is an error */
    n = tt_read("swf", FIX "swf_long.swf.gz", o, &j, &d);
    CU_ASSERT_EQUAL(n, 3000);
    if (n == 3000) {
        CU_ASSERT_EQUAL(j[2999].id, 3000);
        CU_ASSERT_EQUAL(j[2999].arrival, 3000 * 37 * 1000LL);
        /* 2^(3000 mod 8) = 1 processor */
        CU_ASSERT_EQUAL(j[2999].gpus, 1);
    }
    free(j);
    tt_bad("swf", FIX "swf_trunc.swf.gz", o, FIX "swf_trunc.swf.gz",
           "truncated gzip file");
    gs_diag_free(&d);
}

static void test_swf_real(void)
{
    if (!have_traces("test_swf_real"))
        return;
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    static const char *const o[] = { "procs_per_gpu=8", NULL };
    long n = tt_read("swf", SHARED "swf/NASA-iPSC-1993-3.1-cln.swf.gz", o, &j,
                     &d);
    /* zcat | grep -v '^;' | wc -l -> 18239 jobs (status all -1) */
    CU_ASSERT_EQUAL_FATAL(n, 18239);
    long g = 0;
    double gh = 0;
    for (long i = 0; i < n; i++) {
        g += j[i].gpus;
        gh += j[i].gpus * j[i].work / 3.6e6;
    }
    /* Python: sum ceil(procs/8) = 45726; sum GPUs * run time = 17150.310 h */
    CU_ASSERT_EQUAL(g, 45726);
    CU_ASSERT_DOUBLE_EQUAL(gh, 17150.310, 0.001);
    CU_ASSERT_EQUAL(j[0].arrival, 0);
    CU_ASSERT_EQUAL(j[0].gpus, 16);
    CU_ASSERT_EQUAL(j[n - 1].id, 42264);
    CU_ASSERT_EQUAL(j[n - 1].arrival, 7948936000LL);
    free(j);
    /* status 1 only: the log has none (all -1) -> an empty trace */
    static const char *const o1[] = { "procs_per_gpu=8", "status=1", NULL };
    n = tt_read("swf", SHARED "swf/NASA-iPSC-1993-3.1-cln.swf.gz", o1, &j, &d);
    CU_ASSERT_EQUAL(n, 0);
    free(j);
    gs_diag_free(&d);
}

/* --- request tables --------------------------------------------------------------- */

static void req_bad(const char *fmt, const char *file, const char *where,
                    const char *what)
{
    struct gs_reqtable *t;
    struct gs_diag d = { 0 };
    int rc = gs_reqtable_load(fmt, file, 0, &t, &d);
    if (rc >= 0 || strcmp(d.where, where) != 0 || !strstr(d.what, what))
        printf("\n    %s: got rc=%d where='%s' what='%s'", file, rc, d.where,
               d.what);
    CU_ASSERT(rc < 0);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_STRING_EQUAL(d.where, where);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, what));
    gs_diag_free(&d);
}

static void test_requests(void)
{
    struct gs_reqtable *t;
    struct gs_diag d = { 0 };
    tt_log_start();
    CU_ASSERT_EQUAL_FATAL(gs_reqtable_load("azure-llm", FIX "azure_ok.csv", 0,
                                           &t, &d), 0);
    CU_ASSERT_EQUAL_FATAL(t->n, 4);
    /* 2023-11-16 10:00:00.25 UTC = 1700128800250 ms (Python datetime) */
    CU_ASSERT_EQUAL(t->origin_ms, 1700128800250LL);
    static const long arr[4] = { 0, 1250, 1250, 1750 };
    static const int in[4] = { 200, 100, 400, 300 };
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(t->r[i].arrival, arr[i]);
        CU_ASSERT_EQUAL(t->r[i].input_tokens, in[i]);
        CU_ASSERT_EQUAL(t->r[i].output_tokens, in[i] / 10);
    }
    CU_ASSERT_EQUAL(t->rep.unsorted, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "azure_ok.csv: 2 rows "
                                  "arrived before the row above; sorted all "
                                  "4"));
    gs_reqtable_free(t);

    CU_ASSERT_EQUAL_FATAL(gs_reqtable_load("mooncake", FIX "mooncake_ok.jsonl",
                                           0, &t, &d), 0);
    CU_ASSERT_EQUAL_FATAL(t->n, 3);
    CU_ASSERT_EQUAL(t->nblocks, 6);
    CU_ASSERT_EQUAL(t->r[1].arrival, 100);
    CU_ASSERT_EQUAL(t->r[1].nblocks, 1);
    CU_ASSERT_EQUAL(gs_request_blocks(t, &t->r[1])[0], 3);
    CU_ASSERT_EQUAL(t->r[2].nblocks, 3);
    CU_ASSERT_EQUAL(gs_request_blocks(t, &t->r[2])[2], 2);
    CU_ASSERT_EQUAL(t->r[2].input_tokens, 1500);
    /* Written as a request CSV and read back: the same table. */
    char path[] = "/tmp/gs_req_XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    gs_reqtable_write(fp, t);
    fclose(fp);
    struct gs_reqtable *u;
    CU_ASSERT_EQUAL_FATAL(gs_reqtable_load("requests", path, 0, &u, &d), 0);
    CU_ASSERT_EQUAL_FATAL(u->n, t->n);
    CU_ASSERT_EQUAL(u->nblocks, t->nblocks);
    for (long i = 0; i < t->n; i++) {
        CU_ASSERT_EQUAL(u->r[i].id, t->r[i].id);
        CU_ASSERT_EQUAL(u->r[i].arrival, t->r[i].arrival);
        CU_ASSERT_EQUAL(u->r[i].input_tokens, t->r[i].input_tokens);
        CU_ASSERT_EQUAL(u->r[i].output_tokens, t->r[i].output_tokens);
        CU_ASSERT_EQUAL(u->r[i].nblocks, t->r[i].nblocks);
        CU_ASSERT_EQUAL(memcmp(gs_request_blocks(u, &u->r[i]),
                               gs_request_blocks(t, &t->r[i]),
                               t->r[i].nblocks * sizeof(int64_t)), 0);
    }
    gs_reqtable_free(u);
    gs_reqtable_free(t);
    unlink(path);

    req_bad("azure-llm", FIX "azure_bad_ts.csv",
            FIX "azure_bad_ts.csv:3: field 'TIMESTAMP'", "is not a time");
    req_bad("azure-llm", FIX "azure_bad_tokens.csv",
            FIX "azure_bad_tokens.csv:3: field 'ContextTokens'",
            "'-5' is not a token count");
    req_bad("mooncake", FIX "mooncake_bad_json.jsonl",
            FIX "mooncake_bad_json.jsonl:2", "malformed JSON at column");
    req_bad("mooncake", FIX "mooncake_bad_field.jsonl",
            FIX "mooncake_bad_field.jsonl:2: field 'input_length'",
            "expected a token count");
    req_bad("mooncake", FIX "mooncake_bad_hash.jsonl",
            FIX "mooncake_bad_hash.jsonl:2: field 'hash_ids'",
            "element 1 is not a block id");
    req_bad("vllm", FIX "azure_ok.csv", FIX "azure_ok.csv",
            "unknown request format 'vllm'");
    /* skip_bad: the bad row is counted, the good one kept */
    tt_log_start();
    CU_ASSERT_EQUAL_FATAL(gs_reqtable_load("mooncake",
                                           FIX "mooncake_bad_hash.jsonl", 1,
                                           &t, &d), 0);
    CU_ASSERT_EQUAL(t->n, 1);
    CU_ASSERT_EQUAL(t->rep.skipped, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "1 x field 'hash_ids', "
                                  "first at line 2"));
    gs_reqtable_free(t);

    int64_t ms;
    CU_ASSERT_EQUAL(gs_parse_datetime_ms("1970-01-02 00:00:01.5", &ms), 0);
    CU_ASSERT_EQUAL(ms, 86401500);
    CU_ASSERT_EQUAL(gs_parse_datetime_ms("2024-02-30 00:00:00", &ms), -1);
    CU_ASSERT_EQUAL(gs_parse_datetime_ms("2024-02-29 00:00:00x", &ms), -1);
    gs_diag_free(&d);
}

static void test_requests_real(void)
{
    if (!have_traces("test_requests_real"))
        return;
    struct gs_reqtable *t;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_reqtable_load("azure-llm",
        SHARED "azure-llm-2023/AzureLLMInferenceTrace_code.csv", 0, &t, &d), 0);
    /* Python: 8819 rows, first 2023-11-16 18:17:03.97996 UTC, last 3435.948 s
     * later; 18,059,974 context and 245,896 generated tokens */
    CU_ASSERT_EQUAL(t->n, 8819);
    CU_ASSERT_EQUAL(t->origin_ms, 1700158623980LL);
    CU_ASSERT_EQUAL(t->r[t->n - 1].arrival, 3435948);
    long long in = 0, out = 0;
    for (long i = 0; i < t->n; i++) {
        in += t->r[i].input_tokens;
        out += t->r[i].output_tokens;
    }
    CU_ASSERT_EQUAL(in, 18059974);
    CU_ASSERT_EQUAL(out, 245896);
    CU_ASSERT_EQUAL(t->rep.sorted, 0);
    gs_reqtable_free(t);
    CU_ASSERT_EQUAL_FATAL(gs_reqtable_load("mooncake",
        SHARED "mooncake/synthetic_trace.jsonl", 0, &t, &d), 0);
    /* Python: 3993 requests, 121,877 prefix blocks, 61,194,628 input tokens,
     * last timestamp 1,022,025 ms */
    CU_ASSERT_EQUAL(t->n, 3993);
    CU_ASSERT_EQUAL(t->nblocks, 121877);
    in = 0;
    for (long i = 0; i < t->n; i++)
        in += t->r[i].input_tokens;
    CU_ASSERT_EQUAL(in, 61194628);
    CU_ASSERT_EQUAL(t->r[t->n - 1].arrival, 1022025);
    gs_reqtable_free(t);
    CU_ASSERT_EQUAL_FATAL(gs_reqtable_load("splitwise",
        SHARED "splitwise/test_trace.csv", 0, &t, &d), 0);
    CU_ASSERT_EQUAL(t->n, 3);
    CU_ASSERT_EQUAL(t->r[2].arrival, 4000);
    CU_ASSERT_EQUAL(t->r[2].input_tokens, 2048);
    CU_ASSERT_EQUAL(t->r[2].output_tokens, 16);
    gs_reqtable_free(t);
    gs_diag_free(&d);
}

/* --- convert then read: the same jobs ------------------------------------------------ */

static void same_jobs(const struct gs_jobspec *a, const struct gs_jobspec *b,
                      long n)
{
    long bad = 0;
    for (long i = 0; i < n; i++) {
        const struct gs_jobspec *x = &a[i], *y = &b[i];
        if (x->id != y->id || x->arrival != y->arrival || x->gpus != y->gpus ||
            (x->gpus == 0 && x->milli != y->milli) || x->work != y->work ||
            strcmp(x->tenant, y->tenant) != 0 || x->tier != y->tier ||
            x->mem_gb != y->mem_gb || x->ref_model != y->ref_model ||
            x->cb != y->cb || x->estimate != y->estimate ||
            x->priority != y->priority || x->preemptible != y->preemptible ||
            x->allowed != y->allowed || x->max_wait != y->max_wait ||
            x->deadline != y->deadline || x->ckpt != y->ckpt) {
            if (bad++ == 0)
                printf("\n    job %ld (id %lld) differs", i, (long long)x->id);
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
}

static void roundtrip(const char *fmt, const char *path,
                      const char *const *opts, long expect)
{
    struct gs_jobspec *a;
    struct gs_diag d = { 0 };
    long n = tt_read(fmt, path, opts, &a, &d);
    CU_ASSERT_EQUAL_FATAL(n, expect);
    struct gs_scenario *sc = tt_scenario();
    char tmp[] = "/tmp/gs_native_XXXXXX";
    int fd = mkstemp(tmp);
    FILE *fp = fdopen(fd, "w");
    gs_native_write_header(fp);
    for (long i = 0; i < n; i++)
        gs_native_write_row(fp, &a[i], &sc->cat);
    fclose(fp);
    struct gs_native *r;
    CU_ASSERT_EQUAL_FATAL(gs_native_open(tmp, &sc->cat, &r, &d), 0);
    struct gs_jobspec *b = malloc((size_t)(n + 1) * sizeof *b);
    long m = 0;
    int rc;
    while (m <= n && (rc = gs_native_next(r, &b[m], &d)) == 1)
        m++;
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(m, n);
    if (m == n)
        same_jobs(a, b, n);
    gs_native_close(r);
    unlink(tmp);
    free(a);
    free(b);
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

static void test_convert_roundtrip(void)
{
    static const char *const keep[] = { "pending=keep", NULL };
    static const char *const thr[] = { "throughputs=" FIX "thr.json", NULL };
    static const char *const swf[] = { "procs_per_gpu=8", NULL };
    static const char *const sia[] = { "gpu_hours_mine=2", NULL };
    roundtrip("alibaba-gpu-2023", FIX "ali_ok.csv", keep, 5);
    roundtrip("philly-gavel", FIX "philly_ok.trace", thr, 4);
    roundtrip("swf", FIX "swf_ok.swf", swf, 3);
    roundtrip("sia", FIX "sia_ok.csv", sia, 3);
    if (!have_traces("test_convert_roundtrip real"))
        return;
    roundtrip("alibaba-gpu-2023",
              SHARED "alibaba-gpu-v2023/openb_pod_list_gpuspec10.csv", keep,
              8152);
    roundtrip("philly-gavel", SHARED "philly-gavel/6214e9.trace", NULL, 2000);
    roundtrip("sia", SHARED "sia-philly/workload-3.csv", NULL, 160);
    roundtrip("swf", SHARED "swf/NASA-iPSC-1993-3.1-cln.swf.gz", swf, 18239);
}

/* A UTF-8 byte-order mark before the header (spreadsheets write one) is
 * skipped by every CSV reader, as cJSON skips it in JSON: the jobs are the
 * same as without it. */
static void bom_same(const char *fmt, const char *fixture,
                     const char *const *opts, long want)
{
    char path[] = "/tmp/gs_bomXXXXXX";
    int fd = mkstemp(path);
    FILE *out = fdopen(fd, "w"), *in = fopen(fixture, "rb");
    fputs("\xEF\xBB\xBF", out);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    fclose(in);
    fclose(out);
    struct gs_jobspec *a, *b;
    struct gs_diag d = { 0 };
    long na = tt_read(fmt, fixture, opts, &a, &d);
    long nb = tt_read(fmt, path, opts, &b, &d);
    if (nb != want)
        printf("\n    %s with a BOM: %ld jobs: %s: %s", fmt, nb, d.where, d.what);
    CU_ASSERT_EQUAL(na, want);
    CU_ASSERT_EQUAL_FATAL(nb, want);
    for (long i = 0; i < want; i++) {
        CU_ASSERT_EQUAL(a[i].id, b[i].id);
        CU_ASSERT_EQUAL(a[i].arrival, b[i].arrival);
        CU_ASSERT_EQUAL(a[i].work, b[i].work);
    }
    free(a);
    free(b);
    unlink(path);
    gs_diag_free(&d);
}

static void test_bom(void)
{
    static const char *const sia[] = { "gpu_hours_mine=2", NULL };
    static const char *const keep[] = { "pending=keep", NULL };
    char nat[] = "/tmp/gs_bom_native-XXXXXX";   /* no name shared with a
                                                  concurrent run */
    int fd = mkstemp(nat);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs("id,arrival,gpus,duration\n1,0,1,60\n2,5,0.5,30\n", fp);
    fclose(fp);
    bom_same("native", nat, NULL, 2);
    unlink(nat);
    bom_same("sia", FIX "sia_ok.csv", sia, 3);
    bom_same("alibaba-gpu-2023", FIX "ali_ok.csv", keep, 5);
}

/* --- Alibaba PAI 2020: a sample written from the published schema -------- */

static void put_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    fputs(text, fp);
    fclose(fp);
}

/* Native CSV names a row by the file's own line: blank lines, CRLF and a
 * quoted field across two lines before a bad row leave it named at its
 * line (the reader counted rows, so each shifted the name: ":3" for the
 * bad row of line 5 after two blank lines), and the job's line too. */
static void test_native_lines(void)
{
    char path[] = "/tmp/gs_natlineXXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    static const struct { const char *text; const char *line; } c[] = {
        { "id,arrival,gpus,duration\n1,0,1,10\n\n  \n2,5,x,10\n", "5" },
        { "\nid,arrival,gpus,duration\r\n1,0,1,10\r\n\r\n2,5,x,10\r\n",
          "5" },
        { "id,arrival,gpus,duration,tenant\n1,0,1,10,\"a\nb\"\n"
          "2,5,1,10,c\n3,6,x,10,\"d\ne\"\n", "5" },
        { "id,arrival,gpus,duration\n1,0,1,10\n\n2,5,x,10", "4" },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        put_file(path, c[i].text);
        char where[128];
        snprintf(where, sizeof where, "%s:%s: field 'gpus'", path, c[i].line);
        tt_bad("native", path, NULL, where, "'x' is not a GPU count");
    }
    /* the jobs carry their lines */
    put_file(path, "id,arrival,gpus,duration,tenant\n\n1,0,1,10,\"a\nb\"\n"
             "\n2,5,1,10,c\n");
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(tt_read("native", path, NULL, &j, &d), 2);
    CU_ASSERT_EQUAL(j[0].line, 3);
    CU_ASSERT_EQUAL(j[1].line, 6);
    free(j);
    gs_diag_free(&d);
    unlink(path);
}

/* A folder path of exactly len characters under base (components of at
 * most 200), made; malloc'ed, NULL on error. */
static char *deep_dir(const char *base, size_t len)
{
    char *d = strdup(base);
    while (d && strlen(d) < len) {
        size_t left = len - strlen(d) - 1, c = left > 200 ? 200 : left;
        if (left > 200 && left - 200 < 2)
            c = 190;
        char *next = NULL;
        if (asprintf(&next, "%s/%.*s", d, (int)c, "dddddddddddddddddddddddd"
                     "dddddddddddddddddddddddddddddddddddddddddddddddddddddd"
                     "dddddddddddddddddddddddddddddddddddddddddddddddddddddd"
                     "dddddddddddddddddddddddddddddddddddddddddddddddddddddd"
                     "dddddddddddddd") < 0 || mkdir(next, 0700) != 0) {
            free(next);
            free(d);
            return NULL;
        }
        free(d);
        d = next;
    }
    return d;
}

/* The job table looked for beside a task table is named in memory: in a
 * folder of 4,085 characters, "FOLDER/pai_job_table.csv" passes PATH_MAX
 * and no file is tried (a FOLDER/pai_job_t beside it, which the name cut
 * to 4,095 bytes was, is not read: it gave j1 the tenant "cut"). */
static void test_pai_sibling_long(void)
{
    char base[] = "/tmp/gs_paiXXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(base));
    char *dir = deep_dir(base, 4085);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *tasks = NULL, *cut = NULL;
    CU_ASSERT_FATAL(asprintf(&tasks, "%s/t.csv", dir) > 0);
    CU_ASSERT_FATAL(asprintf(&cut, "%s/pai_job_t", dir) > 0);
    CU_ASSERT_EQUAL(strlen(cut), PATH_MAX - 1);
    put_file(cut, "job_name,inst_id,user,status,start_time,end_time\n"
             "j1,i1,cut,Terminated,100.0,500.0\n");
    put_file(tasks, "j1,worker,1.0,Terminated,150.0,450.0,600.0,29.3,"
             "100.0,V100\n");
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    long n = tt_read("alibaba-pai-2020", tasks, NULL, &j, &d);
    if (n != 1)
        printf("\n    %s: %s", gs_diag_where(&d), gs_diag_what(&d));
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_STRING_EQUAL(j[0].tenant, "default");
    CU_ASSERT_EQUAL(j[0].arrival, 150000);     /* its own start: no job */
    free(j);
    gs_diag_free(&d);
    unlink(cut);
    unlink(tasks);
    for (char *sl; strlen(dir) > strlen(base); *sl = 0) {
        rmdir(dir);
        sl = strrchr(dir, '/');
    }
    rmdir(base);
    free(cut);
    free(tasks);
    free(dir);
}

static void test_pai(void)
{
    char dir[] = "/tmp/gs_paiXXXXXX", tasks[128], jobs[128], other[128];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(tasks, sizeof tasks, "%s/pai_task_table.csv", dir);
    snprintf(jobs, sizeof jobs, "%s/pai_job_table.csv", dir);
    snprintf(other, sizeof other, "%s/t.csv", dir);
    /* pai_job_table.header: job_name,inst_id,user,status,start_time,
     * end_time (here with the header line copied on top) */
    put_file(jobs, "job_name,inst_id,user,status,start_time,end_time\n"
             "j1,i1,u1,Terminated,100.0,500.0\n"
             "j2,i2,u2,Failed,200.0,900.0\n");
    /* pai_task_table.header: job_name,task_name,inst_num,status,start_time,
     * end_time,plan_cpu,plan_mem,plan_gpu,gpu_type (no header line) */
    put_file(tasks,
             "j1,worker,2.0,Terminated,150.0,450.0,600.0,29.3,50.0,V100\n"
             "j1,ps,1.0,Terminated,150.0,460.0,600.0,10.0,,\n"
             "j2,tensorflow,1.0,Failed,300.0,400.0,400.0,8.0,800.0,T4\n"
             "j3,worker,1.0,Running,600.0,,100.0,1.0,25.0,MISC\n"
             "j4,worker,3.0,Terminated,50.0,80.0,100.0,1.0,25.0,MISC\n"
             "j5,worker,1.0,Terminated,70.0,70.0,100.0,1.0,150.0,V100M32\n");
    struct gs_scenario *sc = tt_scenario();
    int v16 = gs_catalog_find(&sc->cat, "V100-16GB");
    int v32 = gs_catalog_find(&sc->cat, "V100-32GB");
    int t4 = gs_catalog_find(&sc->cat, "T4"), k80 = gs_catalog_find(&sc->cat,
                                                                    "K80");
    gs_scenario_free(sc);
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    tt_log_start();
    long n = tt_read("alibaba-pai-2020", tasks, NULL, &j, &d);
    const char *log = tt_log_text();
    if (n != 5)
        printf("\n    %s: %s", d.where, d.what);
    CU_ASSERT_EQUAL_FATAL(n, 5);
    /* sorted by arrival (stable): j4's task (no job row: its own start,
     * 50 s), j5 (70 s), then j1's two tasks at the job's submit (100 s),
     * j2's at 200 s; j3 has no end and is left out */
    CU_ASSERT_EQUAL(j[0].id, 5);
    CU_ASSERT_EQUAL(j[0].arrival, 50000);
    CU_ASSERT_EQUAL(j[0].gpus, 0);
    CU_ASSERT_EQUAL(j[0].milli, 750);          /* 3 x 25% */
    CU_ASSERT_EQUAL(j[0].ref_model, k80);      /* MISC */
    CU_ASSERT_STRING_EQUAL(j[0].tenant, "default");
    CU_ASSERT_EQUAL(j[1].id, 6);
    CU_ASSERT_EQUAL(j[1].gpus, 2);             /* ceil(1.5) */
    CU_ASSERT_EQUAL(j[1].work, 1.0);           /* 0 s -> 1 ms */
    CU_ASSERT_EQUAL(j[1].ref_model, v32);
    CU_ASSERT_EQUAL(j[2].id, 1);
    CU_ASSERT_EQUAL(j[2].arrival, 100000);     /* the job's submit time */
    CU_ASSERT_EQUAL(j[2].gpus, 1);             /* 2 x 50% */
    CU_ASSERT_EQUAL(j[2].milli, 0);
    CU_ASSERT_EQUAL(j[2].work, 300000.0);      /* 450 - 150 s */
    CU_ASSERT_EQUAL(j[2].ref_model, v16);
    CU_ASSERT_STRING_EQUAL(j[2].tenant, "u1");
    CU_ASSERT_EQUAL(j[2].tier, GS_TIER_TRAINING);
    CU_ASSERT_EQUAL(j[2].allowed, 0);
    CU_ASSERT_EQUAL(j[3].id, 2);               /* ps: CPU-only */
    CU_ASSERT_EQUAL(j[3].gpus, 0);
    CU_ASSERT_EQUAL(j[3].milli, 0);
    CU_ASSERT_EQUAL(j[3].ref_model, -1);
    CU_ASSERT_EQUAL(j[3].work, 310000.0);
    CU_ASSERT_EQUAL(j[4].id, 3);
    CU_ASSERT_EQUAL(j[4].arrival, 200000);
    CU_ASSERT_EQUAL(j[4].gpus, 8);
    CU_ASSERT_EQUAL(j[4].ref_model, t4);
    CU_ASSERT_STRING_EQUAL(j[4].tenant, "u2");
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 x no start_time or end_time"));
    free(j);

    /* failed = "skip"; the job table named by the option; a header line */
    char opt[200];
    snprintf(opt, sizeof opt, "jobs=%s", jobs);
    const char *const o[] = { opt, "failed=skip", "tenant=t0", NULL };
    put_file(other, "job_name,task_name,inst_num,status,start_time,end_time,"
             "plan_cpu,plan_mem,plan_gpu,gpu_type\n"
             "j2,tensorflow,1.0,Failed,300.0,400.0,400.0,8.0,800.0,T4\n"
             "j9,worker,1.0,Terminated,10.0,20.0,100.0,1.0,100.0,P100\n");
    n = tt_read("alibaba-pai-2020", other, o, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(j[0].arrival, 10000);
    CU_ASSERT_STRING_EQUAL(j[0].tenant, "t0");
    free(j);

    /* bad rows name the line and the field */
    static const struct { const char *row, *field, *what; } bad[] = {
        { "j1,w,0,Terminated,1,2,1,1,100,V100", "inst_num", "'0' is not" },
        { "j1,w,1.5,Terminated,1,2,1,1,100,V100", "inst_num", "'1.5'" },
        { "j1,w,1,Terminated,1,2,1,1,-5,V100", "plan_gpu", "'-5'" },
        { "j1,w,1,Terminated,1,2,1,1,100,A100", "gpu_type", "unknown GPU "
          "type 'A100' (the trace uses V100, V100M32, P100, T4, MISC)" },
        { "j1,w,1,Terminated,5,2,1,1,100,V100", "end_time", "'2' is not" },
        { "j1,w,1,Terminated,x,2,1,1,100,V100", "start_time", "'x'" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256], where[256];
        snprintf(text, sizeof text, "j0,w,1,Terminated,1,2,1,1,100,V100\n"
                 "%s\n", bad[i].row);
        put_file(other, text);
        snprintf(where, sizeof where, "%s:2: field '%s'", other,
                 bad[i].field);
        tt_bad("alibaba-pai-2020", other, NULL, where, bad[i].what);
    }
    put_file(other, "j0,w,1,Terminated,1,2\n");
    char where[256];
    snprintf(where, sizeof where, "%s:1", other);
    tt_bad("alibaba-pai-2020", other, NULL, where, "6 fields where a "
           "pai_task_table row has 10");
    snprintf(opt, sizeof opt, "jobs=%s/nope.csv", dir);
    const char *const onojobs[] = { opt, NULL };
    put_file(other, "j0,w,1,Terminated,1,2,1,1,100,V100\n");
    snprintf(where, sizeof where, "%s/nope.csv", dir);
    tt_bad("alibaba-pai-2020", other, onojobs, where, "cannot open");

    /* pai_machine_spec as a node list: pools per (GPU type, GPUs each) */
    char spec[128];
    snprintf(spec, sizeof spec, "%s/pai_machine_spec.csv", dir);
    put_file(spec, "machine,gpu_type,cap_cpu,cap_mem,cap_gpu\n"
             "m1,V100,96,512,8\nm2,T4,96,512,2\nm3,V100,96,512,8\n"
             "m4,CPU,64,256,0\nm5,MISC,32,128,4\n");
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_pool_spec *pools;
    int np;
    CU_ASSERT_EQUAL_FATAL(gs_node_list_read("alibaba-pai-2020", spec, &cat,
                                            &pools, &np, &d), 0);
    CU_ASSERT_EQUAL_FATAL(np, 4);
    CU_ASSERT_STRING_EQUAL(pools[0].name, "V100-16GB-x8");
    CU_ASSERT_EQUAL(pools[0].nodes, 2);
    CU_ASSERT_EQUAL(pools[0].model, v16);
    CU_ASSERT_STRING_EQUAL(pools[1].name, "T4-x2");
    CU_ASSERT_STRING_EQUAL(pools[2].name, "cpu-64c");    /* m4 */
    CU_ASSERT_EQUAL(pools[2].gpn, 0);
    CU_ASSERT_EQUAL(pools[2].cpu_milli, 64000);
    CU_ASSERT_STRING_EQUAL(pools[3].name, "K80-x4");
    free(pools);
    put_file(spec, "m1,A100,96,512,8\n");
    struct gs_diag d2 = { 0 };
    CU_ASSERT_EQUAL(gs_node_list_read("alibaba-pai-2020", spec, &cat, &pools,
                                      &np, &d2), GS_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(d2.where, "pai_machine_spec.csv:1: field "
                                  "'gpu_type'"));
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
    gs_diag_free(&d);
    gs_diag_free(&d2);
}

static void test_registry(void)
{
    int n = 0;
    for (int i = 0; gs_trace_formats[i]; i++, n++)
        for (int k = 0; k < i; k++)
            CU_ASSERT(strcmp(gs_trace_formats[i]->name,
                             gs_trace_formats[k]->name) != 0);
    CU_ASSERT(n >= 5);
    static const char *const want[] = { "native", "alibaba-gpu-2023",
                                        "philly-gavel", "sia", "swf" };
    for (int i = 0; i < 5; i++)
        CU_ASSERT_PTR_NOT_NULL(gs_trace_format_find(want[i]));
    for (int i = 0; gs_node_list_formats[i]; i++)
        for (int k = 0; k < i; k++)
            CU_ASSERT(strcmp(gs_node_list_formats[i]->name,
                             gs_node_list_formats[k]->name) != 0);
    for (int i = 0; gs_request_formats[i]; i++) {
        CU_ASSERT(gs_request_format_known(gs_request_formats[i]));
        CU_ASSERT_PTR_NULL(gs_trace_format_find(gs_request_formats[i]));
    }
}

static void test_tread(void)
{
    char a[] = "x,\"b,c\",\"say \"\"hi\"\"\",,last";
    char *f[8];
    CU_ASSERT_EQUAL(gs_tsplit(a, ',', f, 8), 5);
    CU_ASSERT_STRING_EQUAL(f[1], "b,c");
    CU_ASSERT_STRING_EQUAL(f[2], "say \"hi\"");
    CU_ASSERT_STRING_EQUAL(f[3], "");
    CU_ASSERT_STRING_EQUAL(f[4], "last");
    char b[] = "  1   2\t3  ";
    CU_ASSERT_EQUAL(gs_tsplit(b, ' ', f, 8), 3);
    CU_ASSERT_STRING_EQUAL(f[2], "3");
    char c[] = "a\tb\t";
    CU_ASSERT_EQUAL(gs_tsplit(c, '\t', f, 8), 3);
    CU_ASSERT_STRING_EQUAL(f[2], "");
    double v;
    CU_ASSERT_EQUAL(gs_tnum(" 2.5 ", &v), 0);
    CU_ASSERT_EQUAL(v, 2.5);
    CU_ASSERT_EQUAL(gs_tnum("2.5x", &v), -1);
    CU_ASSERT_EQUAL(gs_tnum("", &v), -1);
    CU_ASSERT_EQUAL(gs_tnum("nan", &v), -1);
    long long k;
    CU_ASSERT_EQUAL(gs_tint("12", 0, 10, &k), -1);
    CU_ASSERT_EQUAL(gs_tint("-3", -5, 10, &k), 0);
    CU_ASSERT_EQUAL(k, -3);
    char name[64];
    gs_tbasename("a/b/0e4a51.trace", name, sizeof name);
    CU_ASSERT_STRING_EQUAL(name, "0e4a51");
    gs_tbasename("x.swf.gz", name, sizeof name);
    CU_ASSERT_STRING_EQUAL(name, "x");
}


/* --- the scenarios shipped in scenarios/ --------------------------------------------- */

static long scenario_jobs(const char *file, double *gpus, int *npools)
{
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    if (gs_scenario_load(file, &sc, &d) < 0) {
        printf("\n    %s: %s", d.where, d.what);
        return -1;
    }
    *gpus = 0;
    for (int i = 0; i < sc->npools; i++)
        *gpus += (double)sc->pools[i].nodes * sc->pools[i].gpn;
    *npools = sc->npools;
    struct gs_source src;
    long n = 0;
    if (gs_source_open(sc, sc->seed, &src, &d) == 0) {
        struct gs_jobspec j;
        int rc;
        while ((rc = gs_source_next(&src, &j, &d)) == 1)
            n++;
        if (rc < 0)
            n = -1;
        gs_source_close(&src);
    } else {
        n = -1;
    }
    if (n < 0)
        printf("\n    %s: %s", d.where, d.what);
    gs_scenario_free(sc);
    gs_diag_free(&d);
    return n;
}

static void test_shipped_scenarios(void)
{
    double gpus;
    int np;
    tt_log_start();
    /* generated: 40/h for 7 days; the daily cycle averages out over whole
     * days, the weekend keeps 0.6 of the rate, bursts keep the mean: 40 x
     * 168 x (5 + 2 x 0.6)/7 = 5,952 jobs expected; the bursts make the count
     * vary by a few per cent, 15% is several sd */
    long n = scenario_jobs("scenarios/mixed-tier-generated.json", &gpus, &np);
    CU_ASSERT(n > 5952 * 0.85 && n < 5952 * 1.15);
    CU_ASSERT_EQUAL(gpus, 160.0);
    CU_ASSERT_EQUAL(np, 3);
    if (!have_traces("test_shipped_scenarios real"))
        return;
    n = scenario_jobs("scenarios/openb-default.json", &gpus, &np);
    CU_ASSERT_EQUAL(n, 7255);
    CU_ASSERT_EQUAL(gpus, 6212.0);
    CU_ASSERT_EQUAL(np, 15);         /* (model, GPUs, CPU, memory) */
    n = scenario_jobs("scenarios/philly-training.json", &gpus, &np);
    CU_ASSERT_EQUAL(n, 1181);
    CU_ASSERT_EQUAL(gpus, 144.0);
}

static CU_TestInfo tests[] = {
    { "a UTF-8 byte-order mark is skipped", test_bom },
    { "alibaba-pai-2020 rule (sample from the schema)", test_pai },
    { "native: rows named by the file's lines", test_native_lines },
    { "alibaba-pai-2020: the job table beside a long path is not cut",
      test_pai_sibling_long },
    { "line and field helpers", test_tread },
    { "format registries", test_registry },
    { "alibaba pod mapping (fixture)", test_alibaba_fixture },
    { "alibaba unsorted rows are sorted stably", test_alibaba_sorting },
    { "alibaba bad rows name file:line and field", test_alibaba_bad_rows },
    { "alibaba skip_bad_rows counts and reasons", test_alibaba_skip_bad_rows },
    { "node list to pools (fixture)", test_node_list_fixture },
    { "openb pod lists (real)", test_openb_real },
    { "node lists (real)", test_node_lists_real },
    { "philly-gavel rule (fixture)", test_philly_fixture },
    { "philly-gavel: Gavel's three layouts, throughputs found", test_philly_layouts },
    { "philly-gavel (real)", test_philly_real },
    { "sia", test_sia },
    { "swf, gzip and truncated gzip", test_swf },
    { "swf (real)", test_swf_real },
    { "request tables", test_requests },
    { "request tables (real)", test_requests_real },
    { "convert then read gives the same jobs", test_convert_roundtrip },
    { "the shipped scenarios load and stream", test_shipped_scenarios },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("traces", tests)
