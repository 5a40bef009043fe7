/* test_resources.c -- node resources beyond GPUs in simulation runs:
 * CPU-only jobs and pools without GPUs (placement, waits, the bill), the
 * per-tier host defaults, GPUs asked by attribute (DRA selectors), the
 * topology factor of spread gangs, and the stranded-GPU series.
 *
 * Every figure is worked by hand in the comment above its test. */
#include "cutest.h"
#include "simutil.h"

#include "../sim/cloud/cloud.h"
#include "../sim/core/metrics.h"
#include "../traces/tread.h"

#include <math.h>

#define S 1000  /* ms */

/* What job id asked of host CPU and memory (defaults included). */
static struct gs_jobhost host_of(const struct run *r, int64_t id)
{
    long n;
    const struct gs_jobrec *rec = gs_sim_records(r->sim, &n);
    for (long i = 0; i < n; i++)
        if (rec[i].id == id)
            return gs_sim_record_host(r->sim, i);
    return (struct gs_jobhost){ -1, -1 };
}

/* --- CPU-only jobs ------------------------------------------------------ */

/* A T4 node (2 GPUs, 16 cores) and a CPU-only pool of one node (32 cores,
 * 128 GiB).  Jobs 2 and 3 ask no GPU, 16 cores and 64 GiB: both go to the
 * CPU pool (pools without GPUs first) at 0.  Job 4 (30 cores) arrives at
 * 10 s: the CPU pool is full and the T4 node has 12 cores left after job
 * 1's 4, so it waits for jobs 2 and 3 to end at 50 s and runs 50 s there.
 * Job 5 (8 cores) at 20 s fits the GPU node: CPU-only jobs use GPU nodes'
 * CPU when the CPU pool is full.  The bill: the CPU pool's default price is
 * m7i's $3.2256 per 64 vCPUs an hour, so $1.6128/h for 32; a job there
 * pays the mean of its CPU and memory shares -- jobs 2 and 3 half the node
 * each for 50 s, job 4 (30/32 + 1/2)/2 for 50 s; job 5 on the GPU node
 * pays nothing (that node's price is its GPUs'). */
static void test_cpu_only_jobs(void)
{
    struct run r;
    run_text(&r,
             "{\"fleet\": [{\"name\": \"g\", \"gpu\": \"T4\", \"nodes\": 1,"
             " \"gpus_per_node\": 2, \"cpu_milli\": 16000,"
             " \"price_per_hour\": 2},"
             " {\"name\": \"cpu\", \"nodes\": 1, \"gpus_per_node\": 0,"
             " \"cpu_milli\": 32000, \"mem_mib\": 131072}],"
             " \"policy\": \"fifo-backfill\","
             " \"workload\": {\"trace\": {\"format\": \"native\","
             " \"path\": \"%s\"}}}",
             "id,arrival,gpus,duration,tier,cpu_milli,mem_mib\n"
             "1,0,1,100,training,4000,8192\n"
             "2,0,0,50,data,16000,65536\n"
             "3,0,0,50,data,16000,65536\n"
             "4,10,0,50,data,30000,65536\n"
             "5,20,0,10,data,8000,8192\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->start, 0);
    CU_ASSERT_EQUAL(rec_of(&r, 3)->start, 0);
    CU_ASSERT_EQUAL(rec_of(&r, 4)->start, 50 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 4)->end, 100 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 5)->start, 20 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 5)->end, 30 * S);
    for (int id = 2; id <= 5; id++) {
        CU_ASSERT_EQUAL(rec_of(&r, id)->model, -1);
        CU_ASSERT_DOUBLE_EQUAL(rec_of(&r, id)->gpu_hours, 0, 1e-12);
        CU_ASSERT_EQUAL(rec_of(&r, id)->state, GS_JOB_DONE);
    }
    double price = 3.2256 / 64 * 32;
    double want2 = 0.5 * price * 50 / 3600.0;
    double want4 = (30.0 / 32 + 0.5) / 2 * price * 50 / 3600.0;
    CU_ASSERT_DOUBLE_EQUAL(rec_of(&r, 2)->cost, want2, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(rec_of(&r, 4)->cost, want4, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(rec_of(&r, 5)->cost, 0, 1e-12);
    const struct gs_summary *su = gs_sim_summary(r.sim);
    const struct gs_cloudsum *cs = gs_cloud_summary(gs_sim_cloud(r.sim));
    CU_ASSERT_EQUAL(su->all.jobs, 5);
    CU_ASSERT_EQUAL(su->all.done, 5);
    /* the bill adds up: GPU job 1 of 2 GPUs for 100 s, then the CPU jobs */
    double jobs = 0.5 * 2 * 100 / 3600.0 + 2 * want2 + want4;
    CU_ASSERT_DOUBLE_EQUAL(cs->cost_jobs, jobs, 1e-3);
    CU_ASSERT(cs->cost_idle >= 0);
    run_free(&r);
}

/* A pool without GPUs takes no GPU job, names no GPU model, and refuses
 * GPU keys; a CPU-only job larger than every node is refused at
 * admission with its trace line. */
static void test_cpu_pool_input(void)
{
    struct run r;
    const char *fleet_cpu = "{\"fleet\": [{\"name\": \"cpu\", \"nodes\": 2,"
                            " \"gpus_per_node\": 0}],"
                            " \"workload\": {\"trace\": {\"format\":"
                            " \"native\", \"path\": \"%s\"}}}";
    run_text(&r, fleet_cpu, "id,arrival,gpus,duration\n1,0,1,10\n");
    CU_ASSERT_EQUAL(r.rc, GS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.d.where, "trace line 2"));
    run_free(&r);
    run_text(&r, fleet_cpu, "id,arrival,gpus,duration,cpu_milli\n"
                            "1,0,0,10,65000\n");
    CU_ASSERT_EQUAL(r.rc, GS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.d.what, "no GPU"));
    run_free(&r);
    /* the default CPU node is 64 vCPUs: 64 cores fit */
    run_text(&r, fleet_cpu, "id,arrival,gpus,duration,cpu_milli\n"
                            "1,0,0,10,64000\n");
    CU_ASSERT_EQUAL(r.rc, 0);
    run_free(&r);
    run_text(&r, "{\"fleet\": [{\"gpu\": \"T4\", \"nodes\": 1,"
                 " \"gpus_per_node\": 0}]}", NULL);
    CU_ASSERT_EQUAL(r.rc, GS_EINVAL);
    CU_ASSERT_STRING_EQUAL(r.d.where, "test.json: $.fleet[0]");
    run_free(&r);
    run_text(&r, "{\"fleet\": [{\"nodes\": 1, \"gpus_per_node\": 0,"
                 " \"sharing\": {\"mode\": \"mig\"}}]}", NULL);
    CU_ASSERT_EQUAL(r.rc, GS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.d.what, "'sharing'"));
    run_free(&r);
}

/* --- host defaults ------------------------------------------------------- */

/* Jobs that state no CPU or memory ask their tier's: training 3,150
 * milli-cores and 5,632 MiB a GPU (2 GPUs: 6,300 and 11,264), a CPU-only
 * data job 12,500 and 51,200; inference asks 8,000 and 48 GiB a GPU but
 * never more than its GPUs' share of a node -- a T4 node of 4 GPUs with 8
 * cores gives one GPU 2 cores.  A tier's keys override the table; what a
 * job states is kept. */
static void test_host_defaults(void)
{
    struct run r;
    run_text(&r,
             "{\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1,"
             " \"gpus_per_node\": 8},"
             " {\"gpu\": \"T4\", \"nodes\": 1, \"gpus_per_node\": 4,"
             " \"cpu_milli\": 8000}],"
             " \"tiers\": {\"interactive\": {\"cpu_milli_per_gpu\": 1000,"
             " \"mem_mib_per_gpu\": 2048}},"
             " \"workload\": {\"trace\": {\"format\": \"native\","
             " \"path\": \"%s\"}}}",
             "id,arrival,gpus,duration,tier,allowed_gpus,cpu_milli\n"
             "1,0,2,10,training,,\n"
             "2,0,0,10,data,,\n"
             "3,0,1,10,inference,T4,\n"
             "4,0,1,10,inference,H100-80GB,\n"
             "5,0,0.5,10,interactive,,\n"
             "6,0,1,10,training,,777\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL(host_of(&r, 1).cpu_milli, 6300);
    CU_ASSERT_EQUAL(host_of(&r, 1).mem_mib, 11264);
    CU_ASSERT_EQUAL(host_of(&r, 2).cpu_milli, 12500);
    CU_ASSERT_EQUAL(host_of(&r, 2).mem_mib, 51200);
    CU_ASSERT_EQUAL(host_of(&r, 3).cpu_milli, 2000);        /* capped */
    CU_ASSERT_EQUAL(host_of(&r, 3).mem_mib, 48 * 1024);     /* < 244/4 GiB */
    CU_ASSERT_EQUAL(host_of(&r, 4).cpu_milli, 8000);
    CU_ASSERT_EQUAL(host_of(&r, 4).mem_mib, 48 * 1024);
    CU_ASSERT_EQUAL(host_of(&r, 5).cpu_milli, 500);
    CU_ASSERT_EQUAL(host_of(&r, 5).mem_mib, 1024);
    CU_ASSERT_EQUAL(host_of(&r, 6).cpu_milli, 777);
    CU_ASSERT_EQUAL(host_of(&r, 6).mem_mib, 5632);
    run_free(&r);
}

/* A generator class's host keys: per GPU drawn, and for draws of 0. */
static void test_class_host_keys(void)
{
    struct run r;
    run_text(&r,
             "{\"seed\": 5, \"fleet\": [{\"gpu\": \"A100-80GB\","
             " \"nodes\": 4, \"gpus_per_node\": 8}],"
             " \"workload\": {\"generate\": {\"jobs\": 200,"
             " \"rate_per_hour\": 100, \"classes\": [{\"tier\": \"data\","
             " \"gpus\": {\"values\": [0, 2], \"weights\": [1, 1]},"
             " \"duration\": {\"dist\": \"exponential\", \"mean\": \"5m\"},"
             " \"cpu_milli_per_gpu\": 1500, \"mem_mib_per_gpu\": 3000,"
             " \"cpu_milli\": 2500, \"mem_mib\": 4000}]}}}", NULL);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    long n = 0;
    const struct gs_jobrec *rec = gs_sim_records(r.sim, &n);
    CU_ASSERT_EQUAL(n, 200);
    int zero = 0, two = 0;
    for (long i = 0; i < n; i++) {
        if (rec[i].gpus == 0) {
            zero++;
            CU_ASSERT_EQUAL(gs_sim_record_host(r.sim, i).cpu_milli, 2500);
            CU_ASSERT_EQUAL(gs_sim_record_host(r.sim, i).mem_mib, 4000);
        } else {
            two++;
            CU_ASSERT_EQUAL(gs_sim_record_host(r.sim, i).cpu_milli, 3000);
            CU_ASSERT_EQUAL(gs_sim_record_host(r.sim, i).mem_mib, 6000);
        }
    }
    CU_ASSERT(zero > 50 && two > 50);
    run_free(&r);
}

/* --- GPUs by attribute -------------------------------------------------- */

/* An A10 pool (24 GB) listed first, then A100-40GB and H100-80GB: a job
 * asking at least 40 GiB never lands on the A10s, under every placer,
 * though first-fit would take them; "H100" takes only the H100s; a half
 * GPU with at least 20 GiB may use the A10. */
static void test_attr_memory_family(void)
{
    const char *placers[] = { "first-fit", "best-fit", "random", "packing",
                              "dot-product", "clustering", "fgd" };
    for (size_t i = 0; i < sizeof placers / sizeof *placers; i++) {
        char json[900];
        snprintf(json, sizeof json,
                 "{\"fleet\": [{\"name\": \"a10\", \"gpu\": \"A10\","
                 " \"nodes\": 2, \"gpus_per_node\": 4},"
                 " {\"name\": \"a100\", \"gpu\": \"A100-40GB\", \"nodes\": 1,"
                 " \"gpus_per_node\": 4},"
                 " {\"name\": \"h100\", \"gpu\": \"H100-80GB\", \"nodes\": 1,"
                 " \"gpus_per_node\": 4}],"
                 " \"policy\": \"fifo-backfill\", \"placement\": \"%s\","
                 " \"workload\": {\"trace\": {\"format\": \"native\","
                 " \"path\": \"%%s\"}}}", placers[i]);
        struct run r;
        run_text(&r, json,
                 "id,arrival,gpus,duration,gpu_mem_min_gib,gpu_family\n"
                 "1,0,1,100,40,\n2,0,2,100,40,\n3,0,1,100,,H100\n"
                 "4,0,1,100,,NVIDIA H100|A10\n5,0,0.5,100,20,A10\n"
                 "6,1,4,100,41,\n");
        CU_ASSERT_EQUAL_FATAL(r.rc, 0);
        int a10 = gs_catalog_find(&r.sc->cat, "A10");
        int h100 = gs_catalog_find(&r.sc->cat, "H100-80GB");
        for (int id = 1; id <= 2; id++)
            CU_ASSERT(rec_of(&r, id)->model != a10);
        CU_ASSERT_EQUAL(rec_of(&r, 3)->model, h100);
        CU_ASSERT(rec_of(&r, 4)->model == h100 || rec_of(&r, 4)->model == a10);
        CU_ASSERT_EQUAL(rec_of(&r, 5)->model, a10);
        /* 41 GiB: the H100s only, after jobs 3 (and maybe 4) leave them */
        CU_ASSERT_EQUAL(rec_of(&r, 6)->model, h100);
        CU_ASSERT(rec_of(&r, 6)->start >= 100 * S);
        run_free(&r);
    }
}

/* MIG: a fraction asking at least 20 GiB on an H100 takes the smallest
 * instance with 20 GB (1g.20gb, 2 of 8 memory slices: booked 0.25), not
 * 1g.10gb; naming 1g.10gb with 20 GiB asked is refused at admission, as
 * is a family no allowed model belongs to; a family no model has is a bad
 * trace field. */
static void test_attr_mig_and_errors(void)
{
    const char *mig = "{\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1,"
                      " \"gpus_per_node\": 1, \"sharing\": {\"mode\": \"mig\","
                      " \"layout\": \"1g.10gb+1g.20gb+3g.40gb\"}}],"
                      " \"workload\": {\"trace\": {\"format\": \"native\","
                      " \"path\": \"%s\"}}}";
    struct run r;
    run_text(&r, mig, "id,arrival,gpus,duration,gpu_mem_min_gib\n"
                      "1,0,0.1,10,20\n2,0,0.1,10,\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_DOUBLE_EQUAL(rec_of(&r, 1)->gpus, 0.25, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(rec_of(&r, 2)->gpus, 0.125, 1e-6);
    run_free(&r);
    run_text(&r, mig, "id,arrival,gpus,duration,gpu_mem_min_gib,mig_profile\n"
                      "1,0,0.1,10,20,1g.10gb\n");
    CU_ASSERT_EQUAL(r.rc, GS_EINVAL);
    run_free(&r);
    run_text(&r, mig, "id,arrival,gpus,duration,gpu_family,allowed_gpus\n"
                      "1,0,1,10,H100,T4\n");
    CU_ASSERT_EQUAL(r.rc, GS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.d.what, "gpu_family 'H100'"));
    run_free(&r);
    /* (not B200: the catalog has a B200-180GB) */
    run_text(&r, mig, "id,arrival,gpus,duration,gpu_family\n1,0,1,10,Z900\n");
    CU_ASSERT_EQUAL(r.rc, GS_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.d.where, ":2: field 'gpu_family'"));
    run_free(&r);
    /* "A10" is a family of its own: it does not take A100s */
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    uint64_t m = gs_jobspec_attr_models(&cat, "A10", 0);
    CU_ASSERT_EQUAL(m, 1ULL << gs_catalog_find(&cat, "A10"));
    m = gs_jobspec_attr_models(&cat, "H100", 0);
    CU_ASSERT_EQUAL(m, 1ULL << gs_catalog_find(&cat, "H100-80GB"));
    m = gs_jobspec_attr_models(&cat, "", 80);
    CU_ASSERT(m & (1ULL << gs_catalog_find(&cat, "H200-141GB")));
    CU_ASSERT_FALSE(m & (1ULL << gs_catalog_find(&cat, "A100-40GB")));
}

/* --- topology ---------------------------------------------------------- */

/* A 4-GPU job with communication share 0.2 on A100-80GB nodes of 8 GPUs.
 * Consolidated it runs its 1,000 s.  Spread (one GPU on each of 4 nodes)
 * its ring crosses the network 4 times: NVLink 118.26 GB/s against
 * 400 Gbit/s / 8 / 8 GPUs = 6.25 GB/s, p = 0.2 (118.26/6.25 - 1)/4 =
 * 0.89608, F = 1 + 4p = 4.58432: 4,584.32 s.  A one-GPU job is not
 * slowed.  With per_hop_slowdown 0.5, a 12-GPU job (2 nodes at least,
 * 2 hops) spread 3 + 3 + 3 + 3 over 4 nodes adds 2 hops: F = 2. */
static void test_topology_factor(void)
{
    const char *json = "{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 4,"
                       " \"gpus_per_node\": 8}], \"topology\":"
                       " {\"gang_placement\": \"%s\"%s},"
                       " \"workload\": {\"trace\": {\"format\": \"native\","
                       " \"path\": \"%%s\"}}}";
    const char *csv = "id,arrival,gpus,duration,comm_share\n"
                      "1,0,4,1000,0.2\n2,0,1,1000,0.2\n";
    char text[600];
    struct run r;
    snprintf(text, sizeof text, json, "consolidate", "");
    run_text(&r, text, csv);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->end, 1000 * S);
    run_free(&r);
    snprintf(text, sizeof text, json, "spread", "");
    run_text(&r, text, csv);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    double f = 1 + 4 * (0.2 * (118.26 / 6.25 - 1) / 4);
    CU_ASSERT(llabs(rec_of(&r, 1)->end - (long long)llround(1e6 * f)) <= 1);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->end, 1000 * S);
    run_free(&r);
    snprintf(text, sizeof text, json, "spread",
             ", \"per_hop_slowdown\": 0.5");
    run_text(&r, text, "id,arrival,gpus,duration\n1,0,12,1000\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->end, 2000 * S);
    run_free(&r);
    snprintf(text, sizeof text, json, "consolidate",
             ", \"per_hop_slowdown\": 0.5");
    run_text(&r, text, "id,arrival,gpus,duration\n1,0,12,1000\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL(rec_of(&r, 1)->end, 1000 * S);     /* 8 + 4: no extra */
    run_free(&r);
    snprintf(text, sizeof text, json, "sideways", "");
    run_text(&r, text, NULL);
    CU_ASSERT_EQUAL(r.rc, GS_EINVAL);
    CU_ASSERT_STRING_EQUAL(r.d.where, "test.json: $.topology.gang_placement");
    run_free(&r);
}

/* The shipped scenario scenarios/topology.json: the same gangs placed
 * consolidated finish sooner on average than spread. */
static void test_topology_scenario(void)
{
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_scenario_load("scenarios/topology.json", &sc,
                                           &d), 0);
    double jct[2];
    for (int g = 0; g < 2; g++) {
        sc->topo.gang = g == 0 ? GS_GANG_CONSOLIDATE : GS_GANG_SPREAD;
        struct gs_sim *sim = NULL;
        CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, NULL, &sim, &d), 0);
        CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
        jct[g] = gs_sim_summary(sim)->all.jct_mean;
        gs_sim_free(sim);
    }
    printf("\n    [topology.json: mean JCT consolidate %.0f s, spread %.0f s]",
           jct[0], jct[1]);
    CU_ASSERT(jct[0] < 0.9 * jct[1]);
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

/* --- stranded GPUs ------------------------------------------------------ */

/* One node of 2 T4s and 8 cores; job 1 takes a GPU and all 8 cores for
 * 100 s: the other GPU is free but unusable -- stranded -- for those
 * 100 s (1/36 GPU-hour), in the series and the summary; job 2 (a GPU and
 * 1 core) waits for it. */
static void test_stranded_series(void)
{
    struct run r;
    run_text(&r,
             "{\"sample_step\": \"10s\", \"fleet\": [{\"gpu\": \"T4\","
             " \"nodes\": 1, \"gpus_per_node\": 2, \"cpu_milli\": 8000}],"
             " \"workload\": {\"trace\": {\"format\": \"native\","
             " \"path\": \"%s\"}}}",
             "id,arrival,gpus,duration,cpu_milli,mem_mib\n"
             "1,0,1,100,8000,1024\n2,0,1,50,1000,1024\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->start, 100 * S);
    const struct gs_metrics *m = gs_sim_metrics(r.sim);
    CU_ASSERT_FATAL(m->ts.n >= 12);
    for (long i = 0; i < m->ts.n; i++) {
        double t = m->ts.t[i];
        CU_ASSERT_DOUBLE_EQUAL(m->ts.stranded[i], t < 100 ? 1.0 : 0.0, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(m->ts.cpu_alloc[i], t < 100 ? 8.0 : 1.0, 1e-12);
    }
    CU_ASSERT_DOUBLE_EQUAL(gs_sim_summary(r.sim)->stranded_gpu_hours,
                           100.0 / 3600, 1e-9);
    run_free(&r);
}

/* openb's CPU-only pods (its default pod list on its GPU node list) are
 * jobs on the GPU nodes' CPU: all of them run to the end, hold no GPU,
 * ask what the trace says, and the CPU-hours count them.  Skipped when
 * ../shared/traces is absent. */
static void test_openb_cpu_pods(void)
{
    if (access("../shared/traces/alibaba-gpu-v2023/openb_pod_list_default.csv",
               R_OK) != 0) {
        printf("\n    [skipped: ../shared/traces is missing]");
        return;
    }
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_scenario_load("scenarios/openb-default.json", &sc,
                                           &d), 0);
    struct gs_sim *sim = NULL;
    FILE *log = gs_trace_log();
    gs_trace_set_log(NULL);
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, NULL, &sim, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
    gs_trace_set_log(log);
    long n = 0, cpu_only = 0;
    const struct gs_jobrec *r = gs_sim_records(sim, &n);
    for (long i = 0; i < n; i++) {
        if (r[i].gpus != 0)
            continue;
        cpu_only++;
        CU_ASSERT_EQUAL(r[i].state, GS_JOB_DONE);
        CU_ASSERT_EQUAL(r[i].model, -1);
        CU_ASSERT(gs_sim_record_host(sim, i).cpu_milli > 0);
        CU_ASSERT_DOUBLE_EQUAL(r[i].gpu_hours, 0, 1e-12);
    }
    printf("\n    [openb default: %ld CPU-only pods of %ld]", cpu_only, n);
    /* 1,088 CPU-only pods in the list, less its 36 Pending ones (left out
     * by default): awk -F, '$4==0 && $8!="Pending"' */
    CU_ASSERT_EQUAL(cpu_only, 1052);
    CU_ASSERT(gs_sim_summary(sim)->cpu_core_hours > 0);
    gs_sim_free(sim);
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

/* Jobs of one shape (GPUs, tier, priority) may ask different host CPU:
 * the policies that keep alike jobs together and set a group aside at
 * its first miss (priority, fifo-backfill's classes, rl-lite's classes,
 * fair's groups; policies/jobgroup.h; hps's classes and sbs's needs,
 * policies/needtab.h) must not take one member's miss for another's.
 * One T4 node of 2 GPUs and 16 cores; job 1 (4 cores) runs from 0 to
 * 100 s, leaving a GPU and 12 cores.  Jobs 2 and 3 (14 cores)
 * cannot start beside it; job 4, of the same shape but asking 2 cores,
 * fits at once when it comes at 20 s, and ends by 100 s (backfilling
 * takes it too).  With groups keyed without the host asks, jobs 2, 3 and
 * 4 were one group: 2's or 3's miss set 4 aside until 100 s (hps and sbs
 * too, until their need table keyed by the host asks). */
/* Runs csv under policy pol (JSON) on fleet (the fleet array's entries),
 * placed best-fit. */
static void run_under(struct run *r, const char *fleet, const char *pol,
                      const char *csv)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"fleet\": [%s], \"policy\": %s, \"placement\": \"best-fit\","
             " \"workload\": {\"trace\": {\"format\": \"native\","
             " \"path\": \"%%s\"}}}", fleet, pol);
    run_text(r, json, csv);
    CU_ASSERT_EQUAL_FATAL(r->rc, 0);
}

/* Job id started at t seconds under pol (said when not). */
static void starts_at(const struct run *r, const char *pol, int64_t id,
                      gs_time t)
{
    gs_time got = rec_of(r, id)->start;
    if (got != t * S)
        printf("\n    %s: job %lld started at %.1f s, not %lld", pol,
               (long long)id, (double)got / S, (long long)t);
    CU_ASSERT_EQUAL(got, t * S);
}

static void test_host_asks_split_groups(void)
{
    static const char *const pol[] = {
        "\"priority\"", "{\"name\": \"priority\", \"preempt\": true}",
        "\"fifo-backfill\"", "\"rl-lite\"", "\"fair\"",
        "{\"name\": \"fair\", \"reclaim\": false}", "\"hps\"",
        "\"sbs\"", NULL
    };
    for (int i = 0; pol[i]; i++) {
        struct run r;
        run_under(&r, "{\"name\": \"g\", \"gpu\": \"T4\", \"nodes\": 1,"
                  " \"gpus_per_node\": 2, \"cpu_milli\": 16000}", pol[i],
                  "id,arrival,gpus,duration,tier,cpu_milli,mem_mib\n"
                  "1,0,1,100,training,4000,4096\n"
                  "2,10,1,50,training,14000,4096\n"
                  "3,12,1,10,training,14000,4096\n"
                  "4,20,1,10,training,2000,4096\n");
        starts_at(&r, pol[i], 4, 20);
        /* 2 and 3 wait for job 1's cores; one of them starts then */
        gs_time a = rec_of(&r, 2)->start, b = rec_of(&r, 3)->start;
        CU_ASSERT_EQUAL(a < b ? a : b, 100 * S);
        run_free(&r);
    }
}

/* pbs under gang spreading: 2 nodes of 4 GPUs.  Jobs 1 and 2 (3 GPUs,
 * 1,000 s, spread one GPU at a time to the node with most free) leave one
 * GPU free on each node; job 3 (8 GPUs) waits for both, its reservation at
 * their predicted end, 1,000 s (their estimates; spread, they run to
 * 1,564 s, slowed by the topology factor).  Job 4 (2 GPUs, 10 s, at 2 s)
 * is predicted to end long before: EASY backfills it, and spread, its two
 * GPUs go one on each node -- so it starts at 2 s.  pbs's look at the
 * pools' free-GPU masks wanted both GPUs on one node and passed it over:
 * it started at 1,664 s, after job 3. */
static void test_pbs_spread(void)
{
    struct run r;
    run_text(&r, "{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 2,"
             " \"gpus_per_node\": 4}], \"topology\": {\"gang_placement\":"
             " \"spread\"}, \"policy\": \"pbs\", \"placement\": \"best-fit\","
             " \"workload\": {\"trace\": {\"format\": \"native\","
             " \"path\": \"%s\"}}}",
             "id,arrival,gpus,duration,estimate\n"
             "1,0,3,1000,1000\n2,0,3,1000,1000\n3,1,8,100,100\n"
             "4,2,2,10,10\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL(rec_of(&r, 4)->start, 2 * S);
    /* job 3 waits for 1 and 2 only, as before */
    CU_ASSERT_EQUAL(rec_of(&r, 3)->start, rec_of(&r, 1)->end);
    run_free(&r);
}

/* priority with preempt under gang spreading: three nodes of 8 GPUs and
 * 16 cores.  At 0 s, 1-GPU inference jobs fill two nodes (best fit: one,
 * then the other), five of the first holding 3.19 cores each (it keeps 47
 * millicores), and three of each end at 5 s; a training job V of 7 GPUs
 * lands whole on the third node, the only one with room, and one more
 * inference job takes its last GPU.  At 10 s come, in this order and all
 * inference: J1 (8 GPUs, 8 millicores), K (4 GPUs, 4 cores), J2 (as J1).
 * J1 finds 6 GPUs idle (3 + 3), and no node could free 8 (the third: 7
 * from V).  K fits no node, and spread over the two with most free it
 * would take 2 cores of the first: it preempts V and starts on the third
 * node, leaving 3 GPUs free there -- 9 in all, and J2, spread, fits: the
 * walk over the queue starts it at 10 s.  The grouped pass had set J1's
 * group aside at its miss (miss_repeats reasoned about one node: none had
 * 8 free), so J2 was not tried in that pass: J1 started at 110 s and J2
 * at 210 s. */
static void test_priority_spread_gang_retried(void)
{
    char csv[2048];
    int n = snprintf(csv, sizeof csv, "id,arrival,gpus,duration,tier,"
                     "cpu_milli\n");
    int id = 1;
    for (int node = 0; node < 2; node++)
        for (int k = 0; k < 8; k++)
            n += snprintf(csv + n, sizeof csv - (size_t)n,
                          "%d,0,1,%d,inference,%d\n", id++,
                          k < 5 ? 1000 : 5, node == 0 && k < 5 ? 3190 : 1);
    n += snprintf(csv + n, sizeof csv - (size_t)n,
                  "17,0,7,1000,training,1\n18,0,1,1000,inference,1\n"
                  "19,10,8,100,inference,8\n20,10,4,100,inference,4000\n"
                  "21,10,8,100,inference,8\n");
    struct run r;
    run_text(&r, "{\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 3,"
             " \"gpus_per_node\": 8, \"cpu_milli\": 16000}], \"topology\":"
             " {\"gang_placement\": \"spread\", \"comm_share\": 0},"
             " \"policy\": {\"name\": \"priority\", \"preempt\": true},"
             " \"placement\": \"best-fit\", \"workload\": {\"trace\":"
             " {\"format\": \"native\", \"path\": \"%s\"}}}", csv);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->preemptions, 1);
    CU_ASSERT_EQUAL(rec_of(&r, 20)->start, 10 * S);     /* K, V's node */
    CU_ASSERT_EQUAL(rec_of(&r, 21)->start, 10 * S);     /* J2, spread */
    CU_ASSERT_EQUAL(rec_of(&r, 19)->start, 110 * S);    /* J1, after J2 */
    run_free(&r);
}

/* priority with strict under a placer that draws on a miss (random: the
 * queue is walked, not grouped): the pass that stopped at a job that did
 * not fit kept that job twice in its queue -- once as the one it stopped
 * at and once among the rest -- so the job was tried again while running
 * (sharing.json under strict crashed).  One node of 2 GPUs: job 1 holds
 * both from 0 to 100 s; job 2 (2 GPUs, 100 s) waits from 1 s, job 3 (1
 * GPU, 10 s) behind it from 2 s; job 2 runs at 100 s and job 3, which
 * may not overtake, at 200 s. */
static void test_priority_strict_walk(void)
{
    struct run r;
    run_text(&r, "{\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1,"
             " \"gpus_per_node\": 2}], \"policy\": {\"name\": \"priority\","
             " \"strict\": true}, \"placement\": \"random\","
             " \"workload\": {\"trace\": {\"format\": \"native\","
             " \"path\": \"%s\"}}}",
             "id,arrival,gpus,duration\n1,0,2,100\n2,1,2,100\n3,2,1,10\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL(rec_of(&r, 2)->start, 100 * S);
    CU_ASSERT_EQUAL(rec_of(&r, 3)->start, 200 * S);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->preemptions, 0);
    run_free(&r);
}

/* The same for the tier, which the spot rule reads: inference may not run
 * on spot pools (the default), training may.  One spot T4 and one
 * on-demand H100, a GPU each; job 1 holds the H100 (it allows only that)
 * from 0 to 100 s.  Job 2 (inference) at 10 s misses: the T4 is spot.
 * Job 3, the same need and host asks but training, fits the T4 at once at
 * 20 s; job 2 starts at 100 s on the H100.  hps ranks job 2 first among
 * the two (inference's priority, then the older), sbs its group first
 * (the older oldest member): with needs keyed without the tier, 2's miss
 * set 3 aside until 100 s. */
static void test_tier_splits_needs(void)
{
    static const char *const pol[] = {
        "\"hps\"", "\"sbs\"", "\"priority\"", "\"fifo-backfill\"",
        "\"rl-lite\"", "\"fair\"", NULL
    };
    for (int i = 0; pol[i]; i++) {
        struct run r;
        run_under(&r, "{\"name\": \"spot\", \"gpu\": \"T4\", \"nodes\": 1,"
                  " \"gpus_per_node\": 1, \"market\": \"spot\","
                  " \"spot\": {\"interruptions_per_hour\": 0}},"
                  " {\"name\": \"od\", \"gpu\": \"H100-80GB\", \"nodes\": 1,"
                  " \"gpus_per_node\": 1}", pol[i],
                  "id,arrival,gpus,duration,tier,cpu_milli,mem_mib,"
                  "allowed_gpus\n"
                  "1,0,1,100,training,1000,4096,H100-80GB\n"
                  "2,10,1,10,inference,1000,4096,\n"
                  "3,20,1,10,training,1000,4096,\n");
        starts_at(&r, pol[i], 3, 20);
        CU_ASSERT_EQUAL(rec_of(&r, 3)->model,
                        gs_catalog_find(&r.sc->cat, "T4"));
        CU_ASSERT_EQUAL(rec_of(&r, 2)->start, 100 * S);
        CU_ASSERT_EQUAL(rec_of(&r, 2)->model,
                        gs_catalog_find(&r.sc->cat, "H100-80GB"));
        run_free(&r);
    }
}

static CU_TestInfo tests[] = {
    { "CPU-only jobs: CPU pools first, GPU nodes' CPU, waits, the bill",
      test_cpu_only_jobs },
    { "pools without GPUs: input checks", test_cpu_pool_input },
    { "host defaults per tier, capped at a node's share", test_host_defaults },
    { "host keys of a generator class", test_class_host_keys },
    { "DRA: least memory and family, every placer", test_attr_memory_family },
    { "DRA: MIG instance memory, refusals", test_attr_mig_and_errors },
    { "pbs under gang spreading backfills a job over two nodes",
      test_pbs_spread },
    { "priority+preempt under gang spreading retries a spread gang's group",
      test_priority_spread_gang_retried },
    { "topology: spread gangs slowed by hand-worked factors",
      test_topology_factor },
    { "topology: consolidating beats spreading on topology.json",
      test_topology_scenario },
    { "stranded GPUs: series and summary", test_stranded_series },
    { "openb's CPU-only pods run on GPU nodes' CPU", test_openb_cpu_pods },
    { "a group's miss is not its members' when they ask less of the host",
      test_host_asks_split_groups },
    { "... nor when they are of a tier the spot rule lets in",
      test_tier_splits_needs },
    { "priority with strict keeps a stopped walk's queue",
      test_priority_strict_walk },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("resources", tests)
