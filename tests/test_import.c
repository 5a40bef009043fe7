/* test_import.c -- the importers of a team's own cluster (traces/kube.c,
 * traces/slurm.c, traces/cimport.c) on the fixtures in
 * tests/fixtures/import/, written from the Kubernetes API reference, the
 * sacct(1) and scontrol(1) man pages and NVIDIA's GPU feature discovery
 * labels.  Every expected figure is worked out by hand in the comments
 * from the fixture's text, so a wrong mapping rule shows up as a wrong
 * number. */
#include "tracetest.h"
#include "../traces/cimport.h"
#include "../traces/kube.h"
#include "../traces/nodelist.h"
#include "../traces/slurm.h"
#include "../sim/cluster/mig.h"
#include "../sim/setup/setup.h"
#include "../sim/studies/replay.h"
#include "../traces/dcgm.h"

#include <fcntl.h>
#include <zlib.h>

#include <math.h>

#define IMP "tests/fixtures/import/"

/* --- quantities, times, names ---------------------------------------------- */

static void test_quantities(void)
{
    static const struct { const char *s; double v; } ok[] = {
        { "64", 64 }, { "63500m", 63.5 }, { "515716Mi", 515716.0 * 1048576 },
        { "1.5Gi", 1.5 * 1073741824.0 }, { "129e6", 129e6 },
        { "129E6", 129e6 }, { "2k", 2000 }, { "3M", 3e6 }, { "4G", 4e9 },
        { "1Ki", 1024 }, { "1Ti", 1099511627776.0 }, { "100n", 100e-9 },
        { "0.5", 0.5 }, { ".5", 0.5 }, { "5u", 5e-6 }, { "+1", 1 },
        { "1e3", 1000 }, { "2P", 2e15 }, { "1Ei", 1152921504606846976.0 },
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double v = -1;
        CU_ASSERT_EQUAL(gs_kube_quantity(ok[i].s, &v), 0);
        CU_ASSERT(fabs(v - ok[i].v) <= 1e-12 * fabs(ok[i].v));
    }
    static const char *const bad[] = { "", "Gi", "1.5.5Gi", "1 Gi", "1gi",
                                       "12x", "1e", "e3", "1Mb", ".", "1e99",
                                       "0x10" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v;
        CU_ASSERT_EQUAL(gs_kube_quantity(bad[i], &v), -1);
    }
}

static void test_times(void)
{
    int64_t ms;
    /* 2024-05-01T09:00:00Z: 19844 days after the epoch, x 86400 + 9 h */
    CU_ASSERT_EQUAL(gs_cimp_rfc3339("2024-05-01T09:00:00Z", &ms), 0);
    CU_ASSERT_EQUAL(ms, (19844LL * 86400 + 9 * 3600) * 1000);
    CU_ASSERT_EQUAL(gs_cimp_rfc3339("2024-05-01T11:00:00.25+02:00", &ms), 0);
    CU_ASSERT_EQUAL(ms, (19844LL * 86400 + 9 * 3600) * 1000 + 250);
    CU_ASSERT_EQUAL(gs_cimp_rfc3339("2024-02-29T00:00:00Z", &ms), 0);
    CU_ASSERT_EQUAL(gs_cimp_rfc3339("2023-02-29T00:00:00Z", &ms), -1);
    CU_ASSERT_EQUAL(gs_cimp_rfc3339("2024-05-01T09:00:00", &ms), -1);
    CU_ASSERT_EQUAL(gs_cimp_rfc3339("yesterday", &ms), -1);
    struct gs_cimp_tz tz;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_cimp_tz_parse("+05:30", &tz, &d), 0);
    CU_ASSERT_EQUAL(gs_cimp_localtime("2024-05-01T14:30:00", &tz, &ms), 0);
    CU_ASSERT_EQUAL(ms, (19844LL * 86400 + 9 * 3600) * 1000);
    CU_ASSERT(gs_cimp_tz_parse("Mars/Olympus", &tz, &d) < 0);
    CU_ASSERT(gs_cimp_tz_parse("../../etc/passwd", &tz, &d) < 0);
    /* Europe/Berlin: CET (+1) before 2024-03-31 01:00 UTC, CEST (+2)
     * after, so 01:05 and 03:05 local are one hour apart. */
    if (access("/usr/share/zoneinfo/Europe/Berlin", R_OK) != 0) {
        printf("\n    [skipped the Europe/Berlin case: no tz database]");
        return;
    }
    int64_t a, b;
    CU_ASSERT_EQUAL(gs_cimp_tz_parse("Europe/Berlin", &tz, &d), 0);
    CU_ASSERT_EQUAL(gs_cimp_localtime("2024-03-31T01:05:00", &tz, &a), 0);
    CU_ASSERT_EQUAL(gs_cimp_localtime("2024-03-31T03:05:00", &tz, &b), 0);
    CU_ASSERT_EQUAL(b - a, 3600 * 1000);
    CU_ASSERT_EQUAL(a, (19813LL * 86400 + 5 * 60) * 1000);
    gs_diag_free(&d);
}

static void test_gpu_names(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    int w = 0, n0 = cat.n;
    CU_ASSERT_EQUAL(gs_cimp_gpu_model(&cat, "NVIDIA-A100-SXM4-80GB", 80, &w),
                    gs_catalog_find(&cat, "A100-80GB"));
    CU_ASSERT_EQUAL(gs_cimp_gpu_model(&cat, "NVIDIA-A100-PCIE-40GB", 0, &w),
                    gs_catalog_find(&cat, "A100-40GB"));
    CU_ASSERT_EQUAL(gs_cimp_gpu_model(&cat, "NVIDIA-H100-80GB-HBM3",
                                      81559 / 1024.0, &w),
                    gs_catalog_find(&cat, "H100-80GB"));
    CU_ASSERT_EQUAL(gs_cimp_gpu_model(&cat, "Tesla-T4-SHARED", 15, &w),
                    gs_catalog_find(&cat, "T4"));
    CU_ASSERT_EQUAL(gs_cimp_gpu_model(&cat, "Tesla-V100-SXM2-32GB", 0, &w),
                    gs_catalog_find(&cat, "V100-32GB"));
    CU_ASSERT_EQUAL(gs_cimp_gpu_model(&cat, "NVIDIA-A10G", 22.5, &w),
                    gs_catalog_find(&cat, "A10G"));
    CU_ASSERT_EQUAL(gs_cimp_gpu_model(&cat,
                                      "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", 0,
                                      &w),
                    gs_catalog_find(&cat, "A100-40GB"));
    CU_ASSERT_EQUAL(w, 0);
    CU_ASSERT_EQUAL(cat.n, n0);
    /* unknown: declared from the memory, with a warning */
    int m = gs_cimp_gpu_model(&cat, "NVIDIA-L4", 23034 / 1024.0, &w);
    CU_ASSERT_EQUAL(w, 1);
    CU_ASSERT_EQUAL(m, n0);
    CU_ASSERT_STRING_EQUAL(cat.m[m].name, "L4-22GB");
    CU_ASSERT_DOUBLE_EQUAL(cat.m[m].mem_gb, 23034 / 1024.0, 1e-9);
    /* now the catalog has an L4; a product without memory is not known */
    CU_ASSERT_EQUAL(gs_cimp_gpu_model(&cat, "NVIDIA-L4", 0, &w), m);
    CU_ASSERT_EQUAL(gs_cimp_gpu_model(&cat, "NVIDIA-B300", 0, &w),
                    GS_ENOTFOUND);
    char fam[48];
    CU_ASSERT_EQUAL(gs_cimp_gpu_family(&cat, "a100_80gb", fam, sizeof fam),
                    0);
    CU_ASSERT_STRING_EQUAL(fam, "A100");
    CU_ASSERT_EQUAL(gs_cimp_gpu_family(&cat, "rtx9090", fam, sizeof fam), -1);
}

/* --- Kubernetes nodes --------------------------------------------------------- */

static const struct gs_pool_spec *pool_named(const struct gs_pool_spec *p,
                                             int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(p[i].name, name) == 0)
            return &p[i];
    printf("\n    no pool '%s'", name);
    return NULL;
}

static void test_k8s_nodes(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_pool_spec *p = NULL;
    int n = 0;
    struct gs_diag d = { 0 };
    tt_log_start();
    CU_ASSERT_EQUAL_FATAL(gs_node_list_read("k8s-nodes", IMP "k8s-nodes.json",
                                            &cat, &p, &n, &d), 0);
    /* 11 nodes: gpu-x (cordoned), gpu-nr (not ready) and cpu-1 (no GPU)
     * left out; gpu-a1 and gpu-a2 share a pool; gpu-d is apart (taint). */
    CU_ASSERT_EQUAL_FATAL(n, 7);
    const struct gs_pool_spec *a = pool_named(p, n, "train-us-east-1a-spot");
    CU_ASSERT_FATAL(a != NULL);
    CU_ASSERT_EQUAL(a->model, gs_catalog_find(&cat, "A100-80GB"));
    CU_ASSERT_EQUAL(a->nodes, 2);
    CU_ASSERT_EQUAL(a->gpn, 8);
    CU_ASSERT_EQUAL(a->market, GS_MKT_SPOT);
    /* the smaller node: 95690m CPU; memory min(1056345684Ki = 1031587.6
     * MiB, 1031584Mi) */
    CU_ASSERT_EQUAL(a->cpu_milli, 95690);
    CU_ASSERT_EQUAL(a->mem_mib, 1031584);
    CU_ASSERT_EQUAL(a->share.mode, GS_SHARE_NONE);
    CU_ASSERT_STRING_EQUAL(a->instance, "p4de.24xlarge");
    const struct gs_pool_spec *t = pool_named(p, n,
                                              "train-us-east-1a-spot-taint-"
                                              "dedicated");
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->nodes, 1);
    /* no pool label: the instance type; EKS ON_DEMAND */
    const struct gs_pool_spec *h = pool_named(p, n, "p5.48xlarge-us-east-1b");
    CU_ASSERT_FATAL(h != NULL);
    CU_ASSERT_EQUAL(h->model, gs_catalog_find(&cat, "H100-80GB"));
    CU_ASSERT_EQUAL(h->market, GS_MKT_ONDEMAND);
    CU_ASSERT_EQUAL(h->cpu_milli, 191450);
    CU_ASSERT_EQUAL(h->mem_mib, 2000 * 1024);
    /* time-slicing: 16 replicas on 4 T4s; capacity (no allocatable),
     * memory 192e9 bytes = 183105.47 MiB */
    const struct gs_pool_spec *ts = pool_named(p, n, "infer-t4");
    CU_ASSERT_FATAL(ts != NULL);
    CU_ASSERT_EQUAL(ts->model, gs_catalog_find(&cat, "T4"));
    CU_ASSERT_EQUAL(ts->gpn, 4);
    CU_ASSERT_EQUAL(ts->share.mode, GS_SHARE_TS);
    CU_ASSERT_EQUAL(ts->share.replicas, 4);
    CU_ASSERT_EQUAL(ts->cpu_milli, 48000);
    CU_ASSERT_EQUAL(ts->mem_mib, 183105);
    /* MIG single: 56 slices of 1g.5gb on 8 A100-40GB, 7 a GPU */
    const struct gs_pool_spec *ms = pool_named(p, n, "p4d.24xlarge");
    CU_ASSERT_FATAL(ms != NULL);
    CU_ASSERT_EQUAL(ms->model, gs_catalog_find(&cat, "A100-40GB"));
    CU_ASSERT_EQUAL(ms->gpn, 8);
    CU_ASSERT_EQUAL(ms->share.mode, GS_SHARE_MIG);
    CU_ASSERT_EQUAL(ms->share.layout.n, 7);
    CU_ASSERT_STRING_EQUAL(ms->share.layout.inst[0].profile->name, "1g.5gb");
    CU_ASSERT_EQUAL(ms->mem_mib, 1179648);      /* 1.125Ti */
    /* MIG mixed: 8 x 1g.10gb + 4 x 3g.40gb on 4 H100s: 2 + 1 a GPU */
    const struct gs_pool_spec *mm = pool_named(p, n, "H100-80GB-x4");
    CU_ASSERT_FATAL(mm != NULL);
    CU_ASSERT_EQUAL(mm->share.mode, GS_SHARE_MIG);
    CU_ASSERT_EQUAL(mm->share.layout.n, 3);
    char spec[128];
    gs_mig_layout_format(&mm->share.layout, spec, sizeof spec);
    CU_ASSERT_STRING_EQUAL(spec, "1g.10gb@0+1g.10gb@1+3g.40gb@4");
    CU_ASSERT_EQUAL(mm->mem_mib, 476837);       /* 500G = 500e9 bytes */
    /* an unknown product, declared with a warning */
    const struct gs_pool_spec *l = pool_named(p, n, "L4-22GB-x1");
    CU_ASSERT_FATAL(l != NULL);
    CU_ASSERT_EQUAL(l->cpu_milli, 7910);
    const char *log = tt_log_text();
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "GPU 'NVIDIA-L4' is not in the "
                                  "catalog; declared as L4-22GB"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "left out 3 nodes"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 cordoned (spec.unschedulable) "
                                  "(first: items[7] (Node gpu-x))"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "(first: items[8] (Node gpu-nr))"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 no GPUs"));
    free(p);
    gs_diag_free(&d);
}

static void bad_nodes(const char *fmt, const char *path, const char *where,
                      const char *what)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_pool_spec *p = NULL;
    int n = 0;
    struct gs_diag d = { 0 };
    CU_ASSERT(gs_node_list_read(fmt, path, &cat, &p, &n, &d) < 0);
    if (strcmp(d.where, where) != 0 || !strstr(d.what, what))
        printf("\n    %s: got where='%s' what='%s'", path, d.where, d.what);
    CU_ASSERT_STRING_EQUAL(d.where, where);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, what));
    CU_ASSERT_PTR_NULL(p);
    gs_diag_free(&d);
}

static void test_k8s_nodes_bad(void)
{
    tt_log_start();
    bad_nodes("k8s-nodes", IMP "k8s-nodes-bad-product.json",
              IMP "k8s-nodes-bad-product.json: items[2] (Node gpu-h1): "
              "metadata.labels[nvidia.com/gpu.product]", "missing");
    bad_nodes("k8s-nodes", IMP "k8s-nodes-bad-mem.json",
              IMP "k8s-nodes-bad-mem.json: items[1] (Node gpu-a2): "
              "status.allocatable.memory", "\"1.5.5Gi\" is not a Kubernetes "
              "quantity");
    bad_nodes("k8s-nodes", "/dev/null", "/dev/null", "not a regular file");
    bad_nodes("k8s-nodes", IMP "kueue.json", IMP "kueue.json: items[0] "
              "(Node team-a): kind", "'ClusterQueue' where a Node");
}

/* --- taints and tolerations ------------------------------------------------- */

static void test_tolerations_rules(void)
{
    struct gs_taints t = { 0 };
    CU_ASSERT_EQUAL(gs_taints_add(&t, "dedicated", "ml", "NoSchedule"), 0);
    CU_ASSERT_EQUAL(gs_taints_add(&t, "gpu-maint", "", "NoExecute"), 1);
    CU_ASSERT_EQUAL(gs_taints_add(&t, "dedicated", "ml", "NoSchedule"), 0);
    CU_ASSERT_EQUAL(gs_taints_add(&t, "x", "y", "PreferNoSchedule"),
                    GS_EINVAL);
    CU_ASSERT_EQUAL(gs_taints_add(&t, "", "y", "NoSchedule"), GS_EINVAL);
    CU_ASSERT_STRING_EQUAL(t.name[0], "dedicated=ml:NoSchedule");
    CU_ASSERT_STRING_EQUAL(t.name[1], "gpu-maint:NoExecute");
    /* Equal: key and value; Exists: key (any value); empty key with
     * Exists: everything; an effect narrows it */
    const struct gs_toleration eq = { "dedicated", "ml", NULL, 0 };
    const struct gs_toleration eqw = { "dedicated", "web", NULL, 0 };
    const struct gs_toleration ex = { "dedicated", NULL, NULL, 1 };
    const struct gs_toleration all = { NULL, NULL, NULL, 1 };
    const struct gs_toleration allx = { "", NULL, "NoExecute", 1 };
    const struct gs_toleration eff = { "dedicated", "ml", "NoExecute", 0 };
    const struct gs_toleration mk = { "gpu-maint", "", "NoExecute", 0 };
    CU_ASSERT_EQUAL(gs_taints_tolerated(&t, &eq, 1), 1);
    CU_ASSERT_EQUAL(gs_taints_tolerated(&t, &eqw, 1), 0);
    CU_ASSERT_EQUAL(gs_taints_tolerated(&t, &ex, 1), 1);
    CU_ASSERT_EQUAL(gs_taints_tolerated(&t, &all, 1), 3);
    CU_ASSERT_EQUAL(gs_taints_tolerated(&t, &allx, 1), 2);
    CU_ASSERT_EQUAL(gs_taints_tolerated(&t, &eff, 1), 0);
    CU_ASSERT_EQUAL(gs_taints_tolerated(&t, &mk, 1), 2);
    const struct gs_toleration two[] = { eqw, mk };
    CU_ASSERT_EQUAL(gs_taints_tolerated(&t, two, 2), 2);
    /* ex is "dedicated" with any value: not "dedicatedX" */
    CU_ASSERT_EQUAL(gs_taints_add(&t, "dedicatedX", "ml", "NoSchedule"), 2);
    CU_ASSERT_EQUAL(gs_taints_tolerated(&t, &ex, 1), 1);
}

/* Pods with and without tolerations on a fleet of a tainted H100 node
 * (dedicated=ml:NoSchedule; its PreferNoSchedule and nvidia.com/gpu taints
 * do not count) and a plain A100 node, 8 GPUs each; every pod asks 8 GPUs
 * for 1 h, created a second apart, replayed under fifo.  Pods 1 (Equal),
 * 2 (Exists, no key) and 7 (Exists on the key) tolerate the taint; 3 (no
 * tolerations), 4 (only nvidia.com/gpu), 5 (a wrong value) and 6 (a wrong
 * effect) do not, so they take the A100 one after the other even while
 * the H100 stands idle: starts 3,601, 7,201, 10,801 and 14,401 s (each
 * when the A100's previous job ends), never on the H100.  Without
 * tolerations honoured, pod 3 would start on the H100 at 3,600 s. */
static void test_tolerations_replay(void)
{
    struct gs_diag d = { 0 };
    tt_log_start();
    struct gs_scenario *sc = NULL;
    const char *text =
        "{\"seed\": 1, \"policy\": \"fifo\","
        " \"fleet\": [{\"from_node_list\": {\"format\": \"k8s-nodes\","
        " \"path\": \"nodes.json\"}}],"
        " \"workload\": {\"trace\": {\"format\": \"k8s-pods\","
        " \"path\": \"pods.json\"}}}";
    int rc = gs_scenario_parse(text, "taints.json", IMP "taints", &sc, &d);
    if (rc)
        printf("\n    %s: %s", d.where, d.what);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL_FATAL(sc->npools, 2);
    CU_ASSERT_EQUAL(sc->cat.taints.n, 1);
    CU_ASSERT_STRING_EQUAL(sc->cat.taints.name[0], "dedicated=ml:NoSchedule");
    int hp = strstr(sc->pools[0].name, "taint-dedicated") ? 0 : 1;
    CU_ASSERT_EQUAL(sc->pools[hp].taints, 1);
    CU_ASSERT_EQUAL(sc->pools[1 - hp].taints, 0);
    CU_ASSERT_EQUAL(sc->pools[hp].model, gs_catalog_find(&sc->cat,
                                                         "H100-80GB"));
    struct gs_sim *sim = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, NULL, &sim, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
    long n;
    const struct gs_jobrec *r = gs_sim_records(sim, &n);
    CU_ASSERT_EQUAL_FATAL(n, 7);
    int h100 = gs_catalog_find(&sc->cat, "H100-80GB");
    int a100 = gs_catalog_find(&sc->cat, "A100-80GB");
    const int64_t start[] = { 3601000, 7201000, 10801000, 14401000 };
    for (int i = 2; i < 6; i++) {
        CU_ASSERT_EQUAL(r[i].id, i + 1);
        CU_ASSERT_EQUAL(r[i].model, a100);
        CU_ASSERT_EQUAL(r[i].start, start[i - 2]);
    }
    /* the tolerating pods: one of 1 and 2 on each node at once; 7, behind
     * the others in fifo order, on the H100 when 6 starts on the A100 */
    CU_ASSERT_EQUAL(r[0].start, 0);
    CU_ASSERT_EQUAL(r[1].start, 1000);
    CU_ASSERT_NOT_EQUAL(r[0].model, r[1].model);
    CU_ASSERT_EQUAL(r[6].model, h100);
    CU_ASSERT_EQUAL(r[6].start, 14401000);
    gs_sim_free(sim);
    gs_scenario_free(sc);
    /* a bad operator, named */
    tt_bad("k8s-pods", IMP "taints/pods-bad.json", NULL,
           IMP "taints/pods-bad.json: items[0] (Pod ml/bad): "
           "spec.tolerations[0]", "operator 'In' is not Exists or Equal");
    gs_diag_free(&d);
}

/* --- Kubernetes pods ---------------------------------------------------------- */

static void test_k8s_pods(void)
{
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    tt_log_start();
    long n = tt_read("k8s-pods", IMP "k8s-snaps", NULL, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    /* time 0 = 09:00:00, u1's creation.  u1: Running in the first
     * snapshot, Succeeded in the second (which wins): start 09:00:30, end
     * the later container's finishedAt 09:45:30: 2,700 s.  Asks: GPUs
     * from the limit (no request), CPU max(4 + 0.5, init 8) = 8 cores,
     * memory max(32Gi + 512Mi, 1Gi) = 33,280 MiB. */
    CU_ASSERT_EQUAL(j[0].id, 1);
    CU_ASSERT_EQUAL(j[0].arrival, 0);
    CU_ASSERT_EQUAL(j[0].work, 2700000.0);
    CU_ASSERT_EQUAL(j[0].gpus, 4);
    CU_ASSERT_EQUAL(j[0].cpu_milli, 8000);
    CU_ASSERT_EQUAL(j[0].mem_mib, 33280);
    CU_ASSERT_EQUAL(j[0].tier, GS_TIER_TRAINING);
    CU_ASSERT_STRING_EQUAL(j[0].tenant, "team-a");
    /* u3: still Running at the second snapshot, whose latest timestamp is
     * 11:00:00 (the gang's finishedAt): 11:00:00 - 09:10:05 = 6,595 s */
    CU_ASSERT_EQUAL(j[1].arrival, 600000);
    CU_ASSERT_EQUAL(j[1].work, 6595000.0);
    CU_ASSERT_EQUAL(j[1].gpus, 1);
    CU_ASSERT_EQUAL(j[1].tier, GS_TIER_INFERENCE);
    CU_ASSERT_STRING_EQUAL(j[1].tenant, "team-b");
    /* the PodGroup pg-1 (u5, u6): 16 GPUs, arrival 10:00:00, start the
     * later 10:03:00, end the later 11:00:00: 3,420 s */
    CU_ASSERT_EQUAL(j[2].arrival, 3600000);
    CU_ASSERT_EQUAL(j[2].gpus, 16);
    CU_ASSERT_EQUAL(j[2].work, 3420000.0);
    CU_ASSERT_EQUAL(j[2].cpu_milli, 64000);
    CU_ASSERT_EQUAL(j[2].mem_mib, 524288);
    /* u7: one 1g.10gb instance, Failed after 600 s (kept): 1/7 of the
     * compute for 600 s is 600/7 s of full-speed work */
    CU_ASSERT_EQUAL(j[3].arrival, 4800000);
    CU_ASSERT_STRING_EQUAL(j[3].mig_profile, "1g.10gb");
    CU_ASSERT_EQUAL(j[3].gpus, 1);
    CU_ASSERT_DOUBLE_EQUAL(j[3].work, 600000.0 / 7, 1e-6);
    CU_ASSERT_STRING_EQUAL(j[3].tenant, "team-c");
    const char *log = tt_log_text();
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "4 jobs from 5 pods; time 0 is "
                                  "2024-05-01T09:00:00Z"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "left out 5 pods"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 Pending when last seen (never "
                                  "started) (first: 2024-05-01T1000.json "
                                  "items[1] (Pod team-b/pend))"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 owned by a DaemonSet"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 asks for no GPU"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 finished without starting"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 asks for more than one MIG"));
    /* the recorded waits, for replay-check: 30 s, 5 s, 180 s, 10 s */
    const struct gs_cimp_history *hi = gs_cimp_history();
    CU_ASSERT_EQUAL_FATAL(hi->n, 4);
    CU_ASSERT_EQUAL(hi->wait[0], 30000);
    CU_ASSERT_EQUAL(hi->wait[1], 5000);
    CU_ASSERT_EQUAL(hi->wait[2], 180000);
    CU_ASSERT_EQUAL(hi->wait[3], 10000);
    free(j);
    gs_diag_free(&d);
}

static void test_k8s_pods_options(void)
{
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    tt_log_start();
    /* the second snapshot alone: u3 dropped as Running, the CPU pod kept,
     * tenants from the "team" label, gangs off: u5 and u6 alone */
    const char *const o[] = { "running=drop", "cpu_pods=true",
                              "tenant_label=team", "gang_from=none",
                              "tiers=batch-training=interactive", NULL };
    long n = tt_read("k8s-pods", IMP "k8s-snaps/2024-05-01T1100.json", o, &j,
                     &d);
    CU_ASSERT_EQUAL_FATAL(n, 5);
    CU_ASSERT_EQUAL(j[0].tier, GS_TIER_INTERACTIVE);        /* u1 */
    CU_ASSERT_EQUAL(j[1].gpus, 8);                           /* u5 */
    CU_ASSERT_EQUAL(j[1].work, 3480000.0);  /* 10:02 -> 11:00 */
    CU_ASSERT_EQUAL(j[2].gpus, 8);                           /* u6 */
    CU_ASSERT_EQUAL(j[3].gpus, 0);                           /* u8 */
    CU_ASSERT_EQUAL(j[3].cpu_milli, 16000);
    CU_ASSERT_STRING_EQUAL(j[4].tenant, "research");         /* u7 */
    CU_ASSERT_STRING_EQUAL(j[3].tenant, "team-c");
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "1 Running at the export"));
    free(j);
    /* option nodes: u1 ran on gpu-a1 (A100-80GB), u3 on gpu-h1 */
    const char *const o2[] = { "nodes=" IMP "k8s-nodes.json", NULL };
    n = tt_read("k8s-pods", IMP "k8s-snaps", o2, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    CU_ASSERT_STRING_EQUAL(j[0].gpu_family, "A100-80GB");
    CU_ASSERT_EQUAL(j[0].ref_model, gs_catalog_find(&cat, "A100-80GB"));
    CU_ASSERT_STRING_EQUAL(j[1].gpu_family, "H100-80GB");
    CU_ASSERT_EQUAL(j[1].ref_model, gs_catalog_find(&cat, "H100-80GB"));
    CU_ASSERT_EQUAL(j[2].ref_model, -1);
    CU_ASSERT_STRING_EQUAL(j[2].gpu_family, "");
    free(j);
    gs_diag_free(&d);
}

static void test_k8s_pods_bad(void)
{
    tt_log_start();
    tt_bad("k8s-pods", IMP "k8s-pods-bad-qty.json", NULL,
           IMP "k8s-pods-bad-qty.json: items[2] (Pod team-a/mpi-0): "
           "spec.containers[0].resources.requests.cpu",
           "\"4x\" is not a Kubernetes quantity");
    tt_bad("k8s-pods", IMP "k8s-pods-bad-time.json", NULL,
           IMP "k8s-pods-bad-time.json: items[1] (Pod team-b/infer): "
           "metadata.creationTimestamp", "'yesterday' is not an RFC 3339");
    tt_bad("k8s-pods", IMP "k8s-pods-bad-phase.json", NULL,
           IMP "k8s-pods-bad-phase.json: items[3] (Pod team-a/mpi-1): "
           "status.phase", "missing");
    const char *const o[] = { "running=later", NULL };
    tt_bad("k8s-pods", IMP "k8s-snaps", o, "t: $.workload.trace.running",
           "expected \"end\"");
    /* skip_bad_rows: the bad pod counted and left out */
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    const char *const sk[] = { "skip_bad_rows=true", NULL };
    long n = tt_read("k8s-pods", IMP "k8s-pods-bad-qty.json", sk, &j, &d);
    CU_ASSERT_EQUAL(n, 4);      /* u1, u3, u7, and u6 alone */
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "malformed, field "
                                  "spec.containers[0].resources.requests."
                                  "cpu"));
    free(j);
    gs_diag_free(&d);
}

/* kube-state-metrics: the same pods as the snapshots, from Prometheus */
/* What a recorded wait measures: creation to PodScheduled (the binding,
 * when the pod took its GPUs) where the pod has the condition, else to
 * status.startTime; the start-up after it is in the run.  w1: created
 * 09:00:00, scheduled 09:00:20 (startTime 09:00:21, image pulled until
 * 09:01:21), finished 10:00:21: wait 20 s, run 3,601 s.  w2: no
 * condition, startTime 09:00:40, finished 09:30:40: wait 30 s, run
 * 1,800 s.  w3: scheduled on creation, 09:05:00, an init container, main
 * from 09:05:31 to 09:35:31: wait 0, run 1,831 s.  Start-up to the first
 * container: 61, 10 and 31 s, mean 34.0 s. */
static void test_k8s_waits(void)
{
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    tt_log_start();
    long n = tt_read("k8s-pods", IMP "waits/pods.json", NULL, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(j[0].work, 3601000.0);
    CU_ASSERT_EQUAL(j[1].arrival, 10000);
    CU_ASSERT_EQUAL(j[1].work, 1800000.0);
    CU_ASSERT_EQUAL(j[2].arrival, 300000);
    CU_ASSERT_EQUAL(j[2].work, 1831000.0);
    const struct gs_cimp_history *hi = gs_cimp_history();
    CU_ASSERT_EQUAL_FATAL(hi->n, 3);
    CU_ASSERT_EQUAL(hi->wait[0], 20000);
    CU_ASSERT_EQUAL(hi->wait[1], 30000);
    CU_ASSERT_EQUAL(hi->wait[2], 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(hi->basis, "PodScheduled condition (2 of "
                                  "3 pods)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(hi->basis, "mean 34.0 s to the first "
                                  "container's start over 3 pods"));
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "recorded waits: pod "
                                  "creation to the PodScheduled"));
    free(j);
    tt_bad("k8s-pods", IMP "waits/pods-bad.json", NULL,
           IMP "waits/pods-bad.json: items[0] (Pod ml/bad): "
           "status.conditions[1].lastTransitionTime", "'yesterday' is not an "
           "RFC 3339 time");
    /* kube-state-metrics: kube_pod_status_scheduled_time 20 s after
     * creation, start a second later, completion 3,600 s after that */
    n = tt_read("k8s-ksm", IMP "waits/ksm", NULL, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(j[0].work, 3601000.0);
    hi = gs_cimp_history();
    CU_ASSERT_EQUAL_FATAL(hi->n, 1);
    CU_ASSERT_EQUAL(hi->wait[0], 20000);
    free(j);
    /* Slurm: Submit to Start, said so */
    n = tt_read("slurm-sacct", IMP "sacct.txt", NULL, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(gs_cimp_history()->basis, "Submit to "
                                  "Start"));
    free(j);
    gs_diag_free(&d);
}

/* Gangs: by PodGroup annotation always, by owner Job with gang_from
 * "job".  job-1's two pods (4 GPUs each) start 09:00:10 and 09:00:20 and
 * end 10:00:00 and 10:00:05: one gang of 8 GPUs from the later start to
 * the later end, 3,585 s; the annotated pair (2 + 2 GPUs) from 09:10:40
 * to 09:40:00, 1,760 s; job-2's lone pod alone. */
static void test_k8s_gangs(void)
{
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    tt_log_start();
    long n = tt_read("k8s-pods", IMP "gangs/pods.json", NULL, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 4);        /* job-1's pods apart */
    CU_ASSERT_EQUAL(j[0].gpus, 4);
    CU_ASSERT_EQUAL(j[1].gpus, 4);
    CU_ASSERT_EQUAL(j[2].gpus, 4);
    CU_ASSERT_EQUAL(j[2].work, 1760000.0);
    free(j);
    const char *const o[] = { "gang_from=job", NULL };
    n = tt_read("k8s-pods", IMP "gangs/pods.json", o, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(j[0].gpus, 8);
    CU_ASSERT_EQUAL(j[0].arrival, 0);
    CU_ASSERT_EQUAL(j[0].work, 3585000.0);
    CU_ASSERT_EQUAL(j[1].gpus, 4);
    CU_ASSERT_EQUAL(j[2].gpus, 1);
    CU_ASSERT_EQUAL(j[2].work, 600000.0);
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "3 jobs from 5 pods"));
    free(j);
    /* time-slicing: "-SHARED" without a replicas label (8 replicas on 2
     * GPUs: 4 each), and a replicas label without "-SHARED" */
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_pool_spec *p = NULL;
    int np = 0;
    CU_ASSERT_EQUAL_FATAL(gs_node_list_read("k8s-nodes", IMP "gangs/ts-nodes."
                                            "json", &cat, &p, &np, &d), 0);
    CU_ASSERT_EQUAL_FATAL(np, 2);
    CU_ASSERT_EQUAL(p[0].share.mode, GS_SHARE_TS);
    CU_ASSERT_EQUAL(p[0].share.replicas, 4);
    CU_ASSERT_EQUAL(p[0].gpn, 2);
    CU_ASSERT_EQUAL(p[0].model, gs_catalog_find(&cat, "A10G"));
    CU_ASSERT_EQUAL(p[1].share.mode, GS_SHARE_TS);
    CU_ASSERT_EQUAL(p[1].share.replicas, 2);
    CU_ASSERT_EQUAL(p[1].gpn, 8);
    CU_ASSERT_EQUAL(p[1].model, gs_catalog_find(&cat, "A100-40GB"));
    free(p);
    gs_diag_free(&d);
}

static void test_k8s_ksm(void)
{
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    const char *const o[] = { "tenant_label=team", NULL };
    tt_log_start();
    long n = tt_read("k8s-ksm", IMP "ksm", o, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    /* u1: created 09:00 (both files), started 09:00:30 (first file),
     * completed 09:45:30 (second file); main + sidecar requests summed */
    CU_ASSERT_EQUAL(j[0].arrival, 0);
    CU_ASSERT_EQUAL(j[0].work, 2700000.0);
    CU_ASSERT_EQUAL(j[0].gpus, 4);
    CU_ASSERT_EQUAL(j[0].cpu_milli, 4500);
    CU_ASSERT_EQUAL(j[0].mem_mib, 33280);
    CU_ASSERT_EQUAL(j[0].tier, GS_TIER_TRAINING);
    /* u3: no completion, so it ends at the latest sample, 11:00:00; its
     * request's last sample is NaN and the one before counts */
    CU_ASSERT_EQUAL(j[1].arrival, 600000);
    CU_ASSERT_EQUAL(j[1].work, 6595000.0);
    CU_ASSERT_EQUAL(j[1].gpus, 1);
    CU_ASSERT_EQUAL(j[1].tier, GS_TIER_INFERENCE);
    /* u7: nvidia_com_mig_1g_10gb, tenant from kube_pod_labels */
    CU_ASSERT_STRING_EQUAL(j[2].mig_profile, "1g.10gb");
    CU_ASSERT_DOUBLE_EQUAL(j[2].work, 600000.0 / 7, 1e-6);
    CU_ASSERT_STRING_EQUAL(j[2].tenant, "research");
    const char *log = tt_log_text();
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "3 jobs from 3 pods; time 0 is "
                                  "2024-05-01T09:00:00Z"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 Pending when last seen (never "
                                  "started) (first: Pod team-b/pend)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 owned by a DaemonSet"));
    const struct gs_cimp_history *hi = gs_cimp_history();
    CU_ASSERT_EQUAL_FATAL(hi->n, 3);
    CU_ASSERT_EQUAL(hi->wait[0], 30000);
    CU_ASSERT_EQUAL(hi->wait[2], 10000);
    free(j);
    tt_bad("k8s-ksm", IMP "dcgm-bad-type.json", NULL,
           IMP "dcgm-bad-type.json: $.data.resultType", "range query");
    gs_diag_free(&d);
}

static void test_kueue(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_kube_kueue_tenants(IMP "kueue.json", fp, &d), 0);
    fclose(fp);
    /* team-a: 8 + 4 GPUs over its two flavors, weight "2"; team-b 16 */
    CU_ASSERT_STRING_EQUAL(text, "{\n  \"tenants\": [\n"
                           "    {\"name\": \"team-a\", \"quota_gpus\": 12, "
                           "\"weight\": 2},\n"
                           "    {\"name\": \"team-b\", \"quota_gpus\": 16, "
                           "\"weight\": 1}\n  ]\n}\n");
    free(text);
    gs_diag_free(&d);
}

/* Kueue ClusterQueues as a scenario's tenants ($.tenants[].from_queues)
 * feeding the fair policy: 16 H100s; team-a runs two 8-GPU jobs for 10 h
 * from time 0; team-b's 8-GPU job comes at 1 h.  With quotas 8 and 8
 * (even.json) team-a's second job is borrowing team-b's share and is
 * reclaimed: team-b starts on arrival.  With 16 and 0 (skewed.json) team-b
 * has no guarantee and waits until a team-a job ends, at 10 h: 9 h. */
static void kueue_run(const char *file, int64_t want_start, int want_preempt)
{
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = NULL;
    struct gs_diag d = { 0 };
    int rc = gs_scenario_load(file, &sc, &d);
    if (rc)
        printf("\n    %s: %s", d.where, d.what);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL_FATAL(sc->ntenants, 2);
    CU_ASSERT_STRING_EQUAL(sc->tenants[0].name, "team-a");
    CU_ASSERT_STRING_EQUAL(sc->tenants[1].name, "team-b");
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, NULL, &sim, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
    long n;
    const struct gs_jobrec *r = gs_sim_records(sim, &n);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(r[2].id, 3);
    CU_ASSERT_EQUAL(r[2].start, want_start);
    CU_ASSERT_EQUAL(gs_sim_record_preemptions(sim, 0) +
                    gs_sim_record_preemptions(sim, 1), want_preempt);
    gs_sim_free(sim);
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

/* A node list's and a queue list's path of any length (each was read into
 * 512 bytes and refused past 511): "./" 400 times before the file name
 * reads the same files as the short name; an empty path is refused,
 * named. */
static void test_list_paths(void)
{
    struct gs_diag d = { 0 };
    struct gs_scenario *sc = NULL;
    char *text = NULL, dots[801];
    for (int i = 0; i < 400; i++)
        memcpy(dots + 2 * i, "./", 2);
    dots[800] = '\0';
    CU_ASSERT_FATAL(asprintf(&text, "{\"seed\": 1, \"policy\": \"fifo\","
                             " \"fleet\": [{\"from_node_list\": {\"format\":"
                             " \"k8s-nodes\", \"path\": \"%snodes.json\"}}],"
                             " \"workload\": {\"trace\": {\"format\":"
                             " \"k8s-pods\", \"path\": \"pods.json\"}}}",
                             dots) > 0);
    int rc = gs_scenario_parse(text, "t.json", IMP "taints", &sc, &d);
    if (rc)
        printf("\n    %s: %s", d.where, d.what);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(sc->npools, 2);
    gs_scenario_free(sc);
    free(text);
    sc = NULL;
    CU_ASSERT_FATAL(asprintf(&text, "{\"fleet\": [{\"name\": \"h\", "
                             "\"gpu\": \"H100-80GB\", \"nodes\": 2, "
                             "\"gpus_per_node\": 8}], \"tenants\": "
                             "[{\"from_queues\": {\"format\": \"kueue\", "
                             "\"path\": \"%seven.json\"}}], \"workload\": "
                             "{\"trace\": {\"format\": \"native\", \"path\": "
                             "\"jobs.csv\"}}}", dots) > 0);
    rc = gs_scenario_parse(text, "t.json", IMP "kueue-fair", &sc, &d);
    if (rc)
        printf("\n    %s: %s", d.where, d.what);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(sc->ntenants, 2);
    CU_ASSERT_EQUAL(sc->tenants[0].quota_gpus, 8);
    gs_scenario_free(sc);
    free(text);
    sc = NULL;
    const char *empty = "{\"seed\": 1, \"fleet\": [{\"from_node_list\": "
                        "{\"format\": \"k8s-nodes\", \"path\": \"\"}}], "
                        "\"workload\": {\"trace\": {\"format\": "
                        "\"k8s-pods\", \"path\": \"pods.json\"}}}";
    CU_ASSERT(gs_scenario_parse(empty, "t.json", IMP "taints", &sc, &d) < 0);
    CU_ASSERT_PTR_NULL(sc);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.where, "$.fleet[0].from_node_list.path"));
    CU_ASSERT_STRING_EQUAL(d.what, "an empty path");
    gs_diag_free(&d);
}

static void test_kueue_scenario(void)
{
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_scenario_load(IMP "kueue-fair/even-scenario.json",
                                           &sc, &d), 0);
    CU_ASSERT_EQUAL(sc->tenants[0].quota_gpus, 8);
    CU_ASSERT_EQUAL(sc->tenants[0].weight, 1);
    CU_ASSERT_EQUAL(sc->tenants[1].quota_gpus, 8);
    CU_ASSERT_EQUAL(sc->tenants[1].weight, 2);
    gs_scenario_free(sc);
    kueue_run(IMP "kueue-fair/even-scenario.json", 3600000, 1);
    kueue_run(IMP "kueue-fair/skewed-scenario.json", 36000000, 0);
    /* an unknown format, a tenant named twice, named by JSON path */
    const char *bad[][2] = {
        { "[{\"from_queues\": {\"format\": \"volcano\", \"path\": "
          "\"even.json\"}}]", "$.tenants[0].from_queues.format" },
        { "[{\"name\": \"team-b\"}, {\"from_queues\": {\"format\": "
          "\"kueue\", \"path\": \"even.json\"}}]", "$.tenants[1]" },
        { "[{\"from_queues\": {\"format\": \"kueue\", \"path\": "
          "\"jobs.csv\"}}]", "jobs.csv" },
    };
    for (int i = 0; i < 3; i++) {
        char text[1024];
        snprintf(text, sizeof text, "{\"fleet\": [{\"name\": \"h\", "
                 "\"gpu\": \"H100-80GB\", \"nodes\": 1, "
                 "\"gpus_per_node\": 8}], \"tenants\": %s, \"workload\": "
                 "{\"trace\": {\"format\": \"native\", \"path\": "
                 "\"jobs.csv\"}}}", bad[i][0]);
        gs_diag_free(&d);
        sc = NULL;
        CU_ASSERT(gs_scenario_parse(text, "t.json", IMP "kueue-fair", &sc,
                                    &d) < 0);
        if (!strstr(d.where, bad[i][1]))
            printf("\n    got where='%s' what='%s'", d.where, d.what);
        CU_ASSERT_PTR_NOT_NULL(strstr(d.where, bad[i][1]));
        CU_ASSERT_PTR_NULL(sc);
    }
    gs_diag_free(&d);
}

/* --- Slurm ------------------------------------------------------------------- */

static void test_slurm_parsers(void)
{
    int64_t ms;
    static const struct { const char *s; int64_t secs; } lim[] = {
        { "30", 1800 }, { "30:15", 1815 }, { "2:00:00", 7200 },
        { "1-00:00:00", 86400 }, { "1-12", 129600 }, { "1-12:30", 131400 },
        { "UNLIMITED", 0 }, { "Partition_Limit", 0 },
    };
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        CU_ASSERT_EQUAL(gs_slurm_timelimit(lim[i].s, &ms), 0);
        CU_ASSERT_EQUAL(ms, lim[i].secs * 1000);
    }
    CU_ASSERT_EQUAL(gs_slurm_timelimit("4 hours", &ms), -1);
    CU_ASSERT_EQUAL(gs_slurm_timelimit("1:2:3:4", &ms), -1);
    long g, c, m;
    char type[32];
    /* the total and the typed count name the same 4 GPUs: 4, not 8 */
    CU_ASSERT_EQUAL(gs_slurm_tres("billing=8,cpu=8,gres/gpu:a100=4,"
                                  "gres/gpu=4,mem=64G,node=1", &g, type,
                                  sizeof type, &c, &m), 0);
    CU_ASSERT_EQUAL(g, 4);
    CU_ASSERT_STRING_EQUAL(type, "a100");
    CU_ASSERT_EQUAL(c, 8);
    CU_ASSERT_EQUAL(m, 65536);
    /* typed only (no untyped total tracked): summed */
    CU_ASSERT_EQUAL(gs_slurm_tres("cpu=2,gres/gpu:a100=2,gres/gpu:v100=1,"
                                  "mem=1.5T", &g, type, sizeof type, &c, &m),
                    0);
    CU_ASSERT_EQUAL(g, 3);
    CU_ASSERT_EQUAL(m, 1572864);
    CU_ASSERT_EQUAL(gs_slurm_tres("cpu=x", &g, type, sizeof type, &c, &m), -1);
    CU_ASSERT_EQUAL(gs_slurm_tres("", &g, type, sizeof type, &c, &m), 0);
    CU_ASSERT_EQUAL(g, 0);
}

static void check_sacct(const char *path, const char *tz, int64_t w100,
                        int64_t a101, int64_t a104)
{
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    char opt[64];
    snprintf(opt, sizeof opt, "tz=%s", tz);
    const char *const o[] = { opt, NULL };
    tt_log_start();
    long n = tt_read("slurm-sacct", path, o, &j, &d);
    if (n < 0)
        printf("\n    %s: %s", d.where, d.what);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    /* 100: 4 GPUs (gres/gpu=4 and gres/gpu:a100=4 are the same GPUs) */
    CU_ASSERT_EQUAL(j[0].arrival, 0);
    CU_ASSERT_EQUAL(j[0].gpus, 4);
    CU_ASSERT_EQUAL(j[0].work, (double)w100);
    CU_ASSERT_EQUAL(j[0].cpu_milli, 8000);
    CU_ASSERT_EQUAL(j[0].mem_mib, 65536);
    CU_ASSERT_EQUAL(j[0].estimate, 4 * 3600 * 1000);
    CU_ASSERT_STRING_EQUAL(j[0].tenant, "ml-team");
    CU_ASSERT_STRING_EQUAL(j[0].gpu_family, "A100");
    CU_ASSERT_EQUAL(j[0].tier, GS_TIER_TRAINING);
    /* 101_3: an array task, QOS high-inference, 30 minutes */
    CU_ASSERT_EQUAL(j[1].arrival, a101);
    CU_ASSERT_EQUAL(j[1].gpus, 2);
    CU_ASSERT_EQUAL(j[1].work, 1800000.0);
    CU_ASSERT_EQUAL(j[1].tier, GS_TIER_INFERENCE);
    CU_ASSERT_STRING_EQUAL(j[1].gpu_family, "H100");
    CU_ASSERT_EQUAL(j[1].estimate, 86400 * 1000);
    CU_ASSERT_EQUAL(j[1].mem_mib, 16000);
    /* 104: RUNNING, ends at the latest time in the file (04:30), 18 min */
    CU_ASSERT_EQUAL(j[2].arrival, a104);
    CU_ASSERT_EQUAL(j[2].gpus, 16);
    CU_ASSERT_EQUAL(j[2].work, 1080000.0);
    CU_ASSERT_EQUAL(j[2].estimate, 2 * 86400 * 1000);
    CU_ASSERT_STRING_EQUAL(j[2].tenant, "nlp");
    const char *log = tt_log_text();
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 PENDING (never started)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 never started (CANCELLED by 1001 "
                                  "before it ran)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 asks for no GPU"));
    const struct gs_cimp_history *hi = gs_cimp_history();
    CU_ASSERT_EQUAL_FATAL(hi->n, 3);
    CU_ASSERT_EQUAL(hi->wait[0], 300000);
    CU_ASSERT_EQUAL(hi->wait[1], 1800000);
    CU_ASSERT_EQUAL(hi->wait[2], 120000);
    free(j);
    gs_diag_free(&d);
}

static void test_sacct(void)
{
    /* UTC: 100 runs 01:05 -> 03:05, two hours; 101_3 arrives 2 h 30 min
     * after 100, 104 3 h 10 min after */
    check_sacct(IMP "sacct.txt", "UTC", 7200000, 9000000, 11400000);
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "1 a step whose job row is "
                                  "absent (first: 106.0)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "(6 step rows folded"));
    /* -X: no steps, the same jobs */
    check_sacct(IMP "sacct-X.txt", "UTC", 7200000, 9000000, 11400000);
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "(0 step rows folded"));
    if (access("/usr/share/zoneinfo/Europe/Berlin", R_OK) != 0) {
        printf("\n    [skipped the Europe/Berlin case: no tz database]");
        return;
    }
    /* Europe/Berlin: clocks went 02:00 -> 03:00 on 2024-03-31, so 100
     * ran one hour, and the later local times are an hour closer */
    check_sacct(IMP "sacct.txt", "Europe/Berlin", 3600000, 5400000, 7800000);
}

static void test_sacct_bad(void)
{
    tt_log_start();
    tt_bad("slurm-sacct", IMP "sacct-bad-limit.txt", NULL,
           IMP "sacct-bad-limit.txt:2: field 'Timelimit'",
           "'4 hours' is not a time limit");
    tt_bad("slurm-sacct", IMP "sacct-bad-time.txt", NULL,
           IMP "sacct-bad-time.txt:10: field 'Submit'",
           "'2024-03-31 4:10' is not a time");
    tt_bad("slurm-sacct", IMP "sacct-bad-tres.txt", NULL,
           IMP "sacct-bad-tres.txt:10: field 'AllocTRES'",
           "is not a TRES list");
    tt_bad("slurm-sacct", IMP "k8s-nodes.json", NULL,
           IMP "k8s-nodes.json:1", "no column 'JobID'");
    const char *const o[] = { "tz=Mars/Olympus", NULL };
    tt_bad("slurm-sacct", IMP "sacct.txt", o, "t: $.workload.trace.tz",
           "is not a zone");
}

/* A gzip'd sacct export of one job and `steps` step rows of 1 MiB each
 * into path (it compresses about 1000:1); the bytes of its header and job
 * row in *head, of each step row in *step (line endings counted). */
static void sacct_gz(const char *path, long steps, long *head, long *step)
{
    static const char h[] = "JobID|Submit|Start|End|Partition|Account|QOS|"
        "State|AllocTRES|ReqTRES|Timelimit|NNodes\n1|2024-03-31T01:00:00|"
        "2024-03-31T01:05:00|2024-03-31T03:05:00|gpu|a|normal|COMPLETED|"
        "gres/gpu=1|gres/gpu=1|04:00:00|1\n";
    static const char a[] = "1.0|2024-03-31T01:05:00|2024-03-31T01:05:00|"
        "2024-03-31T03:05:00|", b[] = "|a||COMPLETED|gres/gpu=1|||1\n";
    char *pad = malloc(1 << 20);
    gzFile z = gzopen(path, "wb1");
    CU_ASSERT_FATAL(pad != NULL && z != NULL);
    memset(pad, 'x', 1 << 20);
    gzputs(z, h);
    for (long i = 0; i < steps; i++) {
        gzputs(z, a);
        gzwrite(z, pad, 1 << 20);
        gzputs(z, b);
    }
    CU_ASSERT_EQUAL(gzclose(z), Z_OK);
    free(pad);
    *head = (long)strlen(h);
    *step = (long)(strlen(a) + strlen(b)) + (1 << 20);
}

/* sacct is streamed, but no more than GS_CIMP_MAX_BYTES (1 GiB) of its
 * text, after gzip, is read, as a k8s export is capped: 64 MiB of step
 * rows read (and folded into their job); 1,030 MiB (`make test-long`:
 * 1 GiB of text through zlib takes seconds) refused at the line that
 * passes 1 GiB. */
static void test_sacct_cap(void)
{
    char path[] = "/tmp/gs-sacct-cap-XXXXXX.txt.gz";
    int fd = mkstemps(path, 7);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    const char *const o[] = { "tz=UTC", NULL };
    long head, step;
    sacct_gz(path, 64, &head, &step);
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(tt_read("slurm-sacct", path, o, &j, &d), 1);
    free(j);
    if (gs_test_long()) {
        sacct_gz(path, 1030, &head, &step);
        /* lines 1-2 the header and the job, then step rows: the first
         * line whose end passes 1 GiB */
        long line = 2 + (GS_CIMP_MAX_BYTES - head) / step + 1;
        char where[128];
        snprintf(where, sizeof where, "%s:%ld", path, line);
        tt_bad("slurm-sacct", path, o, where, "more than 1024 MiB of text "
               "(after gzip), the most an export is read for");
    }
    unlink(path);
    gs_diag_free(&d);
}

static void test_slurm_nodes(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_pool_spec *p = NULL;
    int n = 0;
    struct gs_diag d = { 0 };
    tt_log_start();
    CU_ASSERT_EQUAL_FATAL(gs_node_list_read("slurm-nodes",
                                            IMP "scontrol-nodes.txt", &cat,
                                            &p, &n, &d), 0);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    /* gpu01 and gpu02: a100_80gb x 8, partitions gpu,all */
    CU_ASSERT_STRING_EQUAL(p[0].name, "gpu+all");
    CU_ASSERT_EQUAL(p[0].model, gs_catalog_find(&cat, "A100-80GB"));
    CU_ASSERT_EQUAL(p[0].nodes, 2);
    CU_ASSERT_EQUAL(p[0].gpn, 8);
    CU_ASSERT_EQUAL(p[0].cpu_milli, 64000);
    CU_ASSERT_EQUAL(p[0].mem_mib, 1030000);
    /* gpu03: 4 h100 + 2 a100 -> 6 GPUs taken as H100-80GB, warned */
    CU_ASSERT_EQUAL(p[1].model, gs_catalog_find(&cat, "H100-80GB"));
    CU_ASSERT_EQUAL(p[1].gpn, 6);
    CU_ASSERT_STRING_EQUAL(p[1].name, "gpu+all-H100-80GB-x6-1");
    /* gpu06: untyped gpu:8, the model from its features */
    CU_ASSERT_STRING_EQUAL(p[2].name, "gpu");
    CU_ASSERT_EQUAL(p[2].model, gs_catalog_find(&cat, "H100-80GB"));
    CU_ASSERT_EQUAL(p[2].cpu_milli, 192000);
    const char *log = tt_log_text();
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "node gpu03 has 2 GPU types"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "left out 3 nodes"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "2 DOWN, DRAIN, FAIL, FUTURE or "
                                  "NOT_RESPONDING (first: line 4, node "
                                  "gpu04)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "1 no GPUs"));
    free(p);
    bad_nodes("slurm-nodes", IMP "scontrol-nodes-bad-model.txt",
              IMP "scontrol-nodes-bad-model.txt:7: field 'Gres'",
              "no GPU model");
    bad_nodes("slurm-nodes", IMP "scontrol-nodes-bad-cpu.txt",
              IMP "scontrol-nodes-bad-cpu.txt:3: field 'CPUTot'",
              "'ninety' is not a CPU count");
    gs_diag_free(&d);
}

/* A node's Gres is read whole: 501 characters of shard entries before
 * "gpu:h100:16" (cut to 511 bytes it read "gpu:h100:1": one GPU, said
 * nowhere). */
static void test_slurm_long_gres(void)
{
    char path[] = "/tmp/gs_gresXXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    char pad[600];
    snprintf(pad, sizeof pad, "shard:%0492d:1,", 0);
    CU_ASSERT_EQUAL_FATAL(strlen(pad), 501);
    fprintf(fp, "NodeName=g1 CPUTot=64 Gres=%sgpu:h100:16(S:0) "
            "RealMemory=1031000 State=IDLE Partitions=p\n", pad);
    fclose(fp);
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_pool_spec *p = NULL;
    int n = 0;
    struct gs_diag d = { 0 };
    tt_log_start();
    int rc = gs_node_list_read("slurm-nodes", path, &cat, &p, &n, &d);
    if (rc < 0)
        printf("\n    %s: %s", gs_diag_where(&d), gs_diag_what(&d));
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(p[0].model, gs_catalog_find(&cat, "H100-80GB"));
    CU_ASSERT_EQUAL(p[0].gpn, 16);
    free(p);
    gs_diag_free(&d);
    unlink(path);
}

/* sacct with option nodes: a job's partition gives its allowed models */
/* Slurm's MIG gres types ("gpu:1g.10gb:N", "gpu:a100_3g.40gb:N"). */
static void test_slurm_mig(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_pool_spec *p = NULL;
    int n = 0;
    struct gs_diag d = { 0 };
    tt_log_start();
    int rc = gs_node_list_read("slurm-nodes", IMP "slurm-mig/nodes.txt", &cat,
                               &p, &n, &d);
    if (rc)
        printf("\n    %s: %s", d.where, d.what);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    char spec[128];
    /* mig01: 14 x 1g.10gb, an H100 by its feature: 2 GPUs of 7 */
    const struct gs_pool_spec *a = pool_named(p, n, "mig-mig");
    CU_ASSERT_FATAL(a != NULL);
    CU_ASSERT_EQUAL(a->model, gs_catalog_find(&cat, "H100-80GB"));
    CU_ASSERT_EQUAL(a->gpn, 2);
    CU_ASSERT_EQUAL(a->share.mode, GS_SHARE_MIG);
    CU_ASSERT_EQUAL(a->share.layout.n, 7);
    CU_ASSERT_EQUAL(a->cpu_milli, 64000);
    /* mig02: 2 x (3g.40gb, 2g.20gb, 1g.10gb), "a100" with a 3g.40gb
     * profile: A100-80GB; 2 GPUs (1 would need 12 compute slices) */
    const struct gs_pool_spec *b = &p[1];
    CU_ASSERT_EQUAL(b->model, gs_catalog_find(&cat, "A100-80GB"));
    CU_ASSERT_EQUAL(b->gpn, 2);
    CU_ASSERT_EQUAL(b->share.mode, GS_SHARE_MIG);
    gs_mig_layout_format(&b->share.layout, spec, sizeof spec);
    CU_ASSERT_PTR_NOT_NULL(strstr(spec, "3g.40gb"));
    CU_ASSERT_PTR_NOT_NULL(strstr(spec, "2g.20gb"));
    CU_ASSERT_PTR_NOT_NULL(strstr(spec, "1g.10gb"));
    CU_ASSERT_EQUAL(b->share.layout.n, 3);
    /* mix01: 4 whole H100s and 14 x 1g.10gb on 2 more: two nodes, 96
     * CPUs and 1,200,000 MiB split 4:2 */
    const struct gs_pool_spec *w = pool_named(p, n, "gpu");
    const struct gs_pool_spec *m = pool_named(p, n, "gpu-mig");
    CU_ASSERT_FATAL(w != NULL && m != NULL);
    CU_ASSERT_EQUAL(w->gpn, 4);
    CU_ASSERT_EQUAL(w->share.mode, GS_SHARE_NONE);
    CU_ASSERT_EQUAL(w->cpu_milli, 64000);
    CU_ASSERT_EQUAL(w->mem_mib, 800000);
    CU_ASSERT_EQUAL(m->gpn, 2);
    CU_ASSERT_EQUAL(m->cpu_milli, 32000);
    CU_ASSERT_EQUAL(m->mem_mib, 400000);
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "node mix01 has 4 whole "
                                  "GPUs and 2 cut into MIG instances"));
    free(p);
    bad_nodes("slurm-nodes", IMP "slurm-mig/nodes-bad.txt",
              IMP "slurm-mig/nodes-bad.txt:1: field 'Gres'", "no GPU model");
    /* sacct: 200 one 1g.10gb for 1 h: 1/7 of a GPU's compute, 3600/7 s of
     * full-speed work; 201 one A100 3g.40gb for 70 min: 4200 x 3/7 =
     * 1800 s; 202 (two instances) and 203 (an instance and a GPU) left
     * out; 204 two H100s for 30 min */
    struct gs_jobspec *j;
    tt_log_start();
    long nj = tt_read("slurm-sacct", IMP "slurm-mig/sacct.txt", NULL, &j, &d);
    if (nj < 0)
        printf("\n    %s: %s", d.where, d.what);
    CU_ASSERT_EQUAL_FATAL(nj, 3);
    CU_ASSERT_STRING_EQUAL(j[0].mig_profile, "1g.10gb");
    CU_ASSERT_EQUAL(j[0].gpus, 1);
    CU_ASSERT_DOUBLE_EQUAL(j[0].work, 3600000.0 / 7, 1e-6);
    CU_ASSERT_STRING_EQUAL(j[1].mig_profile, "3g.40gb");
    CU_ASSERT_STRING_EQUAL(j[1].gpu_family, "A100");
    CU_ASSERT_EQUAL(j[1].arrival, 300000);
    CU_ASSERT_DOUBLE_EQUAL(j[1].work, 1800000.0, 1e-6);
    CU_ASSERT_STRING_EQUAL(j[2].mig_profile, "");
    CU_ASSERT_EQUAL(j[2].gpus, 2);
    CU_ASSERT_EQUAL(j[2].work, 1800000.0);
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "1 asks for more than one "
                                  "MIG instance"));
    CU_ASSERT_PTR_NOT_NULL(strstr(tt_log_text(), "1 asks for a MIG instance "
                                  "and whole GPUs"));
    free(j);
    /* replayed on that fleet: every job runs, the 3g.40gb one on the
     * A100's instance, taking its 1800 s x 7/3 = 4200 s there */
    struct gs_scenario *sc = NULL;
    const char *text =
        "{\"seed\": 1, \"policy\": \"fifo\","
        " \"fleet\": [{\"from_node_list\": {\"format\": \"slurm-nodes\","
        " \"path\": \"nodes.txt\"}}],"
        " \"workload\": {\"trace\": {\"format\": \"slurm-sacct\","
        " \"path\": \"sacct.txt\"}}}";
    CU_ASSERT_EQUAL_FATAL(gs_scenario_parse(text, "mig.json", IMP "slurm-mig",
                                            &sc, &d), 0);
    struct gs_sim *sim = NULL;
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, NULL, &sim, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
    long nr;
    const struct gs_jobrec *r = gs_sim_records(sim, &nr);
    CU_ASSERT_EQUAL_FATAL(nr, 3);
    for (int i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(r[i].state, GS_JOB_DONE);
    CU_ASSERT_EQUAL(r[1].model, gs_catalog_find(&sc->cat, "A100-80GB"));
    CU_ASSERT_EQUAL(r[1].end - r[1].start, 4200000);
    gs_sim_free(sim);
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

static void test_sacct_partitions(void)
{
    struct gs_jobspec *j;
    struct gs_diag d = { 0 };
    const char *const o[] = { "nodes=" IMP "scontrol-nodes.txt",
                              "tenant_from=partition", NULL };
    tt_log_start();
    long n = tt_read("slurm-sacct", IMP "sacct.txt", o, &j, &d);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    /* partition gpu: gpu01-02 (A100-80GB), gpu03 and gpu06 (H100) */
    CU_ASSERT_EQUAL(j[0].allowed,
                    (1ULL << gs_catalog_find(&cat, "A100-80GB")) |
                    (1ULL << gs_catalog_find(&cat, "H100-80GB")));
    CU_ASSERT_STRING_EQUAL(j[0].tenant, "gpu");
    free(j);
    gs_diag_free(&d);
}

/* --- DCGM ------------------------------------------------------------------- */

static void test_dcgm(void)
{
    const char *const f[] = { IMP "dcgm/util-0900.json",
                              IMP "dcgm/util-0903.json" };
    struct gs_dcgm_opts o = { .idle = 0.05 };
    struct gs_dcgm *m = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_dcgm_load(f, 2, &o, &m, &d), 0);
    struct gs_dcgm_totals t;
    gs_dcgm_totals(m, &t);
    CU_ASSERT_EQUAL(t.files, 2);
    CU_ASSERT_EQUAL(t.series, 7);       /* SM_CLOCK ignored */
    CU_ASSERT_EQUAL(t.devices, 3);
    CU_ASSERT_EQUAL(t.mig_devices, 1);
    CU_ASSERT_EQUAL(t.nodes, 2);
    CU_ASSERT_EQUAL(t.step_ms, 60000);
    CU_ASSERT_EQUAL(t.first_ms, 1714554000LL * 1000);
    CU_ASSERT_EQUAL(t.last_ms, (1714554000LL + 240) * 1000);
    /* GPU 0: 80, 100, 60 (09:02 in both files, kept once), 40: 240 s
     * observed, 168 s busy, allocated (team-a).  GPU 1: 0, 0, 2 without a
     * pod, then 3 (idle) and 50 with one (team-b; NaN skipped): 300 s,
     * 33 s busy, 120 s allocated, 60 s idle.  The 3g.40gb instance: 3/7 of
     * a GPU for 120 s at 0.5. */
    double mig = 3.0 / 7.0 * 120;
    CU_ASSERT_DOUBLE_EQUAL(t.observed_h, (240 + 300 + mig) / 3600, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t.busy_h, (168 + 33 + mig / 2) / 3600, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t.alloc_h, (240 + 120 + mig) / 3600, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t.idle_alloc_h, 60.0 / 3600, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t.unalloc_h, 180.0 / 3600, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t.observed_h, t.alloc_h + t.unalloc_h, 1e-12);
    /* 300 W for 4 minutes; 20 GiB held for the idle minute */
    CU_ASSERT_DOUBLE_EQUAL(t.energy_kwh, 300.0 * 240 / 3.6e6, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t.fb_idle_gib_h, 20.0 / 60, 1e-9);
    struct gs_dcgm_hours h;
    gs_dcgm_hours(m, &h);
    CU_ASSERT_EQUAL(h.n, 1);
    CU_ASSERT_EQUAL(h.t0_ms, 1714554000LL * 1000);
    CU_ASSERT_DOUBLE_EQUAL(h.alloc[0], t.alloc_h, 1e-12);
    /* by node, model and namespace: gpu-a1 holds GPUs 0 and 1 (540 s
     * observed, 201 s busy), gpu-m2 the MIG instance; team-b had GPU 1 for
     * 120 s at 3 % then 50 %: 31.8 s busy, 60 s idle */
    struct gs_dcgm_group g;
    CU_ASSERT_EQUAL_FATAL(gs_dcgm_ngroups(m, GS_DCGM_BY_NODE), 2);
    gs_dcgm_group(m, GS_DCGM_BY_NODE, 0, &g);
    CU_ASSERT_STRING_EQUAL(g.name, "gpu-a1");
    CU_ASSERT_DOUBLE_EQUAL(g.observed_h, 540.0 / 3600, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(g.busy_h, 201.0 / 3600, 1e-9);
    gs_dcgm_group(m, GS_DCGM_BY_NODE, 1, &g);
    CU_ASSERT_STRING_EQUAL(g.name, "gpu-m2");
    CU_ASSERT_DOUBLE_EQUAL(g.observed_h, mig / 3600, 1e-9);
    CU_ASSERT_EQUAL_FATAL(gs_dcgm_ngroups(m, GS_DCGM_BY_MODEL), 2);
    gs_dcgm_group(m, GS_DCGM_BY_MODEL, 1, &g);
    CU_ASSERT_STRING_EQUAL(g.name, "NVIDIA H100 80GB HBM3");
    CU_ASSERT_DOUBLE_EQUAL(g.busy_h, mig / 2 / 3600, 1e-9);
    CU_ASSERT_EQUAL_FATAL(gs_dcgm_ngroups(m, GS_DCGM_BY_NS), 3);
    for (int i = 0; i < 3; i++) {
        gs_dcgm_group(m, GS_DCGM_BY_NS, i, &g);
        if (strcmp(g.name, "team-b") != 0)
            continue;
        CU_ASSERT_DOUBLE_EQUAL(g.alloc_h, 120.0 / 3600, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(g.busy_h, 31.8 / 3600, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(g.idle_h, 60.0 / 3600, 1e-9);
    }
    gs_dcgm_free(m);
    /* a threshold of 60 %: GPU 0's 40 % minute is idle too */
    o.idle = 0.6;
    CU_ASSERT_EQUAL_FATAL(gs_dcgm_load(f, 2, &o, &m, &d), 0);
    gs_dcgm_totals(m, &t);
    CU_ASSERT_DOUBLE_EQUAL(t.idle_alloc_h, (60 + 60 + 60 + mig) / 3600,
                           1e-9);
    gs_dcgm_free(m);
    gs_diag_free(&d);
}

static void bad_dcgm(const char *file, const char *where, const char *what)
{
    const char *const f[] = { file };
    struct gs_dcgm_opts o = { .idle = 0.05 };
    struct gs_dcgm *m = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT(gs_dcgm_load(f, 1, &o, &m, &d) < 0);
    if (strcmp(d.where, where) != 0 || !strstr(d.what, what))
        printf("\n    %s: got where='%s' what='%s'", file, d.where, d.what);
    CU_ASSERT_STRING_EQUAL(d.where, where);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, what));
    CU_ASSERT_PTR_NULL(m);
    gs_diag_free(&d);
}

static void test_dcgm_bad(void)
{
    bad_dcgm(IMP "dcgm-bad-value.json", IMP "dcgm-bad-value.json: "
             "$.data.result[1].values[2]", "not a number");
    bad_dcgm(IMP "dcgm-bad-type.json", IMP "dcgm-bad-type.json: "
             "$.data.resultType", "range query");
    bad_dcgm(IMP "dcgm-bad-name.json", IMP "dcgm-bad-name.json: "
             "$.data.result[0].metric.__name__", "missing");
    bad_dcgm(IMP "kueue.json", IMP "kueue.json: $.status", "not \"success\"");
}

/* --- replay check -------------------------------------------------------------- */

static void test_ks(void)
{
    /* Q_KS at the classical 5 % point: 2 (e^-2(1.36)^2 - e^-8(1.36)^2 ...) */
    CU_ASSERT_DOUBLE_EQUAL(gs_ks_q(1.36), 2 * (exp(-2 * 1.36 * 1.36) -
                                               exp(-8 * 1.36 * 1.36) +
                                               exp(-18 * 1.36 * 1.36)),
                           1e-12);
    CU_ASSERT_DOUBLE_EQUAL(gs_ks_q(1.36), 0.04948, 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(gs_ks_q(0), 1.0, 0);
    CU_ASSERT(gs_ks_q(0.5) > gs_ks_q(1.0));
    struct gs_ks k;
    const double a[] = { 1, 2, 3, 4 }, b[] = { 3, 4, 5, 6 };
    const double c[] = { 4, 3, 2, 1 }, e[] = { 10, 20 };
    CU_ASSERT_EQUAL(gs_ks_two_sample(a, 4, b, 4, &k), 0);
    CU_ASSERT_DOUBLE_EQUAL(k.d, 0.5, 1e-15);
    CU_ASSERT_EQUAL(gs_ks_two_sample(a, 4, c, 4, &k), 0);
    CU_ASSERT_DOUBLE_EQUAL(k.d, 0.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(k.p, 1.0, 0);
    /* disjoint: D = 1; ne = 4 x 2 / 6 */
    CU_ASSERT_EQUAL(gs_ks_two_sample(a, 4, e, 2, &k), 0);
    CU_ASSERT_DOUBLE_EQUAL(k.d, 1.0, 0);
    double s = sqrt(8.0 / 6.0);
    CU_ASSERT_DOUBLE_EQUAL(k.p, gs_ks_q(s + 0.12 + 0.11 / s), 1e-15);
    CU_ASSERT_EQUAL(gs_ks_two_sample(a, 0, e, 2, &k), GS_EINVAL);
}

static void test_replay_compare(void)
{
    struct gs_jobrec rec[4];
    memset(rec, 0, sizeof rec);
    /* replayed waits 0, 10, 50 s and one never started; id 9 unknown */
    int64_t rid[] = { 3, 1, 2, 4 }, arr[] = { 0, 1000, 2000, 3000 };
    int64_t st[] = { 0, 11000, 52000, -1 };
    for (int i = 0; i < 4; i++) {
        rec[i].id = rid[i];
        rec[i].arrival = arr[i];
        rec[i].start = st[i];
    }
    const int64_t id[] = { 1, 2, 3, 4, 9 };
    const int64_t wait[] = { 10000, 20000, 30000, 5000, 1000 };
    struct gs_replay r;
    CU_ASSERT_EQUAL_FATAL(gs_replay_compare(id, wait, 5, rec, 4, &r), 0);
    CU_ASSERT_EQUAL(r.recorded, 5);
    CU_ASSERT_EQUAL(r.matched, 4);
    CU_ASSERT_EQUAL(r.unstarted, 1);
    CU_ASSERT_EQUAL_FATAL(r.n, 3);
    /* id 1: recorded 10, replayed 10; id 2: 20 vs 50; id 3: 30 vs 0 */
    CU_ASSERT_DOUBLE_EQUAL(r.diff_mean, (0 + 30 - 30) / 3.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.diff_median, 0.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.absdiff_mean, 20.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.within_1m, 1.0, 0);
    /* recorded {10, 20, 30}, replayed {0, 10, 50}: D = 1/3 */
    CU_ASSERT_DOUBLE_EQUAL(r.ks.d, 1.0 / 3, 1e-12);
    gs_replay_free(&r);
    CU_ASSERT_EQUAL(gs_replay_compare(id + 4, wait, 1, rec, 4, &r),
                    GS_EINVAL);
}

/* The k8s example replayed under fifo on its own fleet: room for every
 * job at once, so every replayed wait is 0 and the recorded ones (30, 5,
 * 180, 10 s) are all above: D = 1. */
static void test_replay_check(void)
{
    int out = dup(1), null = open("/dev/null", O_WRONLY);
    CU_ASSERT_FATAL(out >= 0 && null >= 0);
    char *a1[] = { "replay-check", "scenarios/import/k8s-replay.json",
                   "--max-ks", "0.99", NULL };
    char csv[64];
    snprintf(csv, sizeof csv, "/tmp/gs-import-jobs-%d.csv", (int)getpid());
    char *a2[] = { "replay-check", "scenarios/import/k8s-replay.json",
                   "--max-ks", "1", "--jobs", csv, NULL };
    /* a generated workload records no starts: an error */
    char *a3[] = { "replay-check", "scenarios/small-tenants.json", NULL };
    fflush(stdout);
    dup2(null, 1);
    tt_log_start();
    int rc1 = gs_replay_main(4, a1), rc2 = gs_replay_main(6, a2);
    int rc3 = gs_replay_main(2, a3);
    fflush(stdout);
    dup2(out, 1);
    close(out);
    close(null);
    CU_ASSERT_EQUAL(rc1, 1);
    CU_ASSERT_EQUAL(rc2, 0);
    CU_ASSERT_EQUAL(rc3, 2);
    FILE *fp = fopen(csv, "r");
    CU_ASSERT_FATAL(fp != NULL);
    char line[256];
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, fp));
    CU_ASSERT_STRING_EQUAL(line, "id,arrival_s,recorded_wait_s,"
                           "replayed_wait_s,difference_s\n");
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, fp));
    CU_ASSERT_STRING_EQUAL(line, "1,0.000,30.000,0.000,-30.000\n");
    fclose(fp);
    unlink(csv);
}

/* DCGM's utilization against the replay's, on a known answer: 8 A100s
 * watched 09:00-11:00 at 60 s; GPUs 0-3 held by team-a's job (4 GPUs,
 * 09:00-11:00) at GPU_UTIL 40 % the first hour and 60 % the second, GPUs
 * 4-7 unallocated at 0.  Measured: 16 GPU-h observed, 8 allocated, busy
 * 4 x (0.4 + 0.6) = 4: 25 %; hours 1.6 and 2.4 busy GPUs.  Replayed: the
 * job holds 4 GPUs for 2 h on the 8-GPU fleet: 8 of 16 GPU-h, 50 %. */
static void test_replay_dcgm_util(void)
{
    char out[64];
    snprintf(out, sizeof out, "/tmp/gs-import-util-%d.txt", (int)getpid());
    int keep = dup(1), fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CU_ASSERT_FATAL(keep >= 0 && fd >= 0);
    char *argv[] = { "replay-check", IMP "dcgm-replay/scenario.json",
                     "--dcgm", IMP "dcgm-replay/util.json", NULL };
    fflush(stdout);
    dup2(fd, 1);
    tt_log_start();
    int rc = gs_replay_main(4, argv);
    fflush(stdout);
    dup2(keep, 1);
    close(keep);
    close(fd);
    CU_ASSERT_EQUAL(rc, 0);
    char *text = NULL;
    size_t len = 0;
    FILE *fp = fopen(out, "r");
    CU_ASSERT_FATAL(fp != NULL);
    CU_ASSERT(getdelim(&text, &len, '\0', fp) > 0);
    fclose(fp);
    unlink(out);
    static const char *const want[] = {
        "total       measured util 25.0% (4.00 busy of 16.00 observed GPU-h; "
        "8.00 allocated); replayed util 50.0% (8.00 of 16.00 GPU-h)",
        "  A100-80GB                 25.0%        4.00            50.0%        "
        "8.00\n",
        "  team-a                           4.00       8.00                  "
        "8.00\n",
        "  2024-05-01T09:00:00Z                      8.00       4.00   1.60    "
        "                 4.00\n",
        "  2024-05-01T10:00:00Z                      8.00       4.00   2.40    "
        "                 4.00\n",
        "measured    DCGM: busy = GPU_UTIL (the share of time a kernel ran",
        "replayed    gpusim: busy = GPU-hours the jobs held",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (text == NULL || !strstr(text, want[i]))
            printf("\n    missing: '%s'", want[i]);
        CU_ASSERT_PTR_NOT_NULL(text ? strstr(text, want[i]) : NULL);
    }
    free(text);
}

static CU_TestInfo tests[] = {
    { "Kubernetes quantities", test_quantities },
    { "RFC 3339 and local times, zones and DST", test_times },
    { "GPU product names onto the catalog", test_gpu_names },
    { "k8s-nodes: pools, sharing, markets, taints", test_k8s_nodes },
    { "k8s-nodes: malformed input named", test_k8s_nodes_bad },
    { "taints and tolerations: the matching rules", test_tolerations_rules },
    { "taints and tolerations: pods on tainted pools", test_tolerations_replay },
    { "k8s-pods: snapshots merged, requests, gangs, MIG", test_k8s_pods },
    { "k8s-pods: options", test_k8s_pods_options },
    { "k8s-pods: malformed input named", test_k8s_pods_bad },
    { "k8s-ksm: kube-state-metrics through Prometheus", test_k8s_ksm },
    { "k8s: gangs by Job and annotation; time-slicing labels", test_k8s_gangs },
    { "recorded waits: PodScheduled, startTime, Submit", test_k8s_waits },
    { "Kueue ClusterQueues as tenants", test_kueue },
    { "Kueue quotas into a scenario, fed to fair", test_kueue_scenario },
    { "node and queue lists' paths of any length", test_list_paths },
    { "Slurm time limits and TRES", test_slurm_parsers },
    { "slurm-sacct: steps, arrays, Unknown, zones", test_sacct },
    { "slurm-sacct: malformed input named", test_sacct_bad },
    { "slurm-sacct: at most 1 GiB of text", test_sacct_cap },
    { "slurm-nodes: a long Gres read whole", test_slurm_long_gres },
    { "slurm-nodes: Gres, features, states", test_slurm_nodes },
    { "slurm-sacct: partitions through the node list", test_sacct_partitions },
    { "Slurm MIG gres types: nodes, jobs, replay", test_slurm_mig },
    { "DCGM: utilization, allocation, idle, energy", test_dcgm },
    { "DCGM: malformed input named", test_dcgm_bad },
    { "Kolmogorov-Smirnov: statistic and Q_KS", test_ks },
    { "replay: recorded against replayed waits", test_replay_compare },
    { "replay-check on the k8s example", test_replay_check },
    { "replay-check: DCGM against replayed utilization", test_replay_dcgm_util },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("import", tests)
