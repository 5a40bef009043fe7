/* test_service.c -- inference services through the whole simulator: one
 * request against the engine's own figures, M/D/1 against
 * Pollaczek-Khinchine, every request accounted for, replicas in the
 * conservation identity, preempted replicas, determinism, bad keys. */
#include "cutest.h"
#include "simutil.h"
#include "../sim/cluster/power.h"
#include "../sim/cloud/cloud.h"
#include "../sim/io/h5in.h"
#include "../sim/io/h5out.h"
#include "../sim/inference/llm.h"
#include "../sim/inference/service.h"
#include "../traces/llmreq.h"
#include "../traces/tread.h"

#include <math.h>
#include <sys/wait.h>

#define AZURE "../shared/traces/azure-llm-2023/AzureLLMInferenceTrace_code.csv"

static const char one_replica[] =
    "{\"name\": \"t\", \"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1,"
    " \"gpus_per_node\": 8}], \"policy\": \"fifo\","
    " \"services\": [{\"name\": \"s\", \"model\": \"llama2-7b\","
    "  \"gpu\": \"H100-80GB\", \"replicas\": 1,"
    "  \"requests\": {\"trace\": {\"format\": \"requests\", \"path\": \"%s\"}}}]}";

struct seen {
    double first, end;
};

static void cb_first(void *ctx, uint64_t id, double t)
{
    struct seen *s = ctx;
    (void)id;
    if (s->first < 0)
        s->first = t;
}

static void cb_fin(void *ctx, uint64_t id, double t, int cached, int pre)
{
    struct seen *s = ctx;
    (void)id;
    (void)cached;
    (void)pre;
    s->end = t;
}

/* A request of in/out tokens alone on an idle llama2-7b H100 engine,
 * arriving at t0: its first token and end as the engine models them. */
static struct seen alone(const struct gs_catalog *cat, int in, int out,
                         double t0, int max_seqs)
{
    struct gs_llm_engine_cfg c;
    gs_llm_engine_cfg_default(&c);
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_llm_arch_find("llama2-7b", &c.arch, "", &d), 0);
    c.tp = 1;
    if (max_seqs > 0)
        c.max_seqs = max_seqs;
    gs_llm_hw_from_catalog(cat, gs_catalog_find(cat, "H100-80GB"), &c.hw);
    struct gs_llm_engine *e = NULL;
    struct seen s = { -1, -1 };
    CU_ASSERT_EQUAL_FATAL(gs_llm_engine_new(&c, &e, &d), 0);
    struct gs_llm_req r = { .id = 0, .arrival = t0, .prompt = in,
                            .output = out };
    CU_ASSERT_EQUAL(gs_llm_engine_add(e, &r), 0);
    const struct gs_llm_cb cb = { cb_first, cb_fin, NULL };
    double t = t0;
    for (int i = 0; i < 1000000 && s.end < 0; i++) {
        double dt = gs_llm_engine_step(e, t);
        CU_ASSERT_FATAL(dt > 0);
        t += dt;
        gs_llm_engine_finish_iteration(e, &cb, &s);
    }
    gs_llm_engine_free(e);
    gs_diag_free(&d);
    return s;
}

/* One request, the replica long up: TTFT and ITL are the engine's,
 * queueing is 0. */
static void test_single_request(void)
{
    struct run r;
    run_text(&r, one_replica, "id,arrival,input_tokens,output_tokens,"
             "prefix_blocks\n1,100,1000,50,\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_nservices(r.sim), 1);
    long n;
    const struct gs_reqrec *q = gs_sim_service_requests(r.sim, 0, &n);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(q[0].state, GS_REQ_DONE);
    struct seen want = alone(&r.sc->cat, 1000, 50, 100.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(q[0].first, want.first, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(q[0].end, want.end, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(q[0].queue, 0, 1e-6);
    const struct gs_svcsum *v = gs_sim_service(r.sim, 0);
    CU_ASSERT_DOUBLE_EQUAL(v->ttft[0], want.first - 100.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(v->itl_mean, (want.end - want.first) / 49, 1e-9);
    CU_ASSERT_EQUAL(v->arrived, 1);
    CU_ASSERT_EQUAL(v->finished, 1);
    /* The replica ran from 0 to the end as one inference job. */
    const struct gs_jobrec *rep = rec_of(&r, -1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
    CU_ASSERT_EQUAL(rep->tier, GS_TIER_INFERENCE);
    CU_ASSERT_EQUAL(rep->state, GS_JOB_DONE);
    CU_ASSERT_EQUAL(rep->start, 0);
    CU_ASSERT_EQUAL(rep->end, (gs_time)ceil(want.end * 1000 - 1e-6));
    CU_ASSERT_DOUBLE_EQUAL(v->gpu_hours, rep->end / 3.6e6, 1e-6);
    run_free(&r);
}

/* Disaggregated: a lone request is prefilled on the prefill pool (TTFT the
 * unloaded prefill, queueing 0), its KV cache travels to the decode pool,
 * and its decode there takes at least the transfer. */
static void test_disaggregated(void)
{
    const char json[] =
        "{\"name\": \"dis\", \"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1,"
        " \"gpus_per_node\": 8}], \"policy\": \"fifo\","
        " \"services\": [{\"name\": \"s\", \"model\": \"llama2-13b\","
        "  \"gpu\": \"H100-80GB\", \"disaggregated\": {\"prefill\": {\"replicas\": 2},"
        "   \"decode\": {\"replicas\": 1, \"tp\": 2}, \"kv_link_gbs\": 25,"
        "   \"kv_link_latency\": \"2ms\"},"
        "  \"requests\": {\"trace\": {\"format\": \"requests\", \"path\": \"%s\"}}}]}";
    struct run r;
    run_text(&r, json, "id,arrival,input_tokens,output_tokens,prefix_blocks\n"
             "1,100,2000,40,\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    long n;
    const struct gs_reqrec *q = gs_sim_service_requests(r.sim, 0, &n);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(q[0].state, GS_REQ_DONE);
    CU_ASSERT_DOUBLE_EQUAL(q[0].queue, 0, 1e-6);
    struct gs_llm_arch a;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_llm_arch_find("llama2-13b", &a, "", &d), 0);
    double x = gs_llm_kv_transfer_time(&a, 2000, 25, 0.002);
    CU_ASSERT(x > 0.002);
    CU_ASSERT(q[0].end - q[0].first > x);
    const struct gs_svcsum *v = gs_sim_service(r.sim, 0);
    CU_ASSERT_EQUAL(v->replica_starts, 3);
    /* 2 prefill GPUs and 2 decode GPUs for the whole run */
    CU_ASSERT_DOUBLE_EQUAL(v->gpu_hours, 4 * ceil(q[0].end * 1000 - 1e-6) /
                           3.6e6, 1e-6);
    run_free(&r);
    gs_diag_free(&d);
}

/* The KV transfer of disaggregated serving, by hand: Llama-2-13B keeps
 * 2 (K and V) x 40 layers x 40 KV heads x 128 dims x 2 bytes = 819,200
 * bytes a token, so a 2,000-token prompt's cache is 1.6384 GB: 65.536 ms
 * over a 25 GB/s link and 131.072 ms over 12.5 GB/s, plus 2 ms of
 * latency.  The request's first token comes from the prefill pool (TTFT
 * the prefill alone, the same over both links); its last comes after the
 * transfer and the decode, which is the same work on the same idle decode
 * replica: so the two runs' ends differ by exactly the transfers'
 * difference, 65.536 ms, and each end is at least its transfer after the
 * first token.  A transfer taken as 0, or counted twice, breaks both. */
static void test_kv_transfer_by_hand(void)
{
    const char fmt[] =
        "{\"name\": \"dis\", \"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1,"
        " \"gpus_per_node\": 8}], \"policy\": \"fifo\","
        " \"services\": [{\"name\": \"s\", \"model\": \"llama2-13b\","
        "  \"gpu\": \"H100-80GB\", \"disaggregated\": {\"prefill\": {\"replicas\": 1},"
        "   \"decode\": {\"replicas\": 1, \"tp\": 2}, \"kv_link_gbs\": %s,"
        "   \"kv_link_latency\": \"2ms\"},"
        "  \"requests\": {\"trace\": {\"format\": \"requests\", \"path\": \"%%s\"}}}]}";
    const double bytes = 2.0 * 40 * 40 * 128 * 2 * 2000;
    CU_ASSERT_DOUBLE_EQUAL(bytes, 1.6384e9, 1);
    const double x25 = bytes / 25e9 + 0.002, x12 = bytes / 12.5e9 + 0.002;
    double first[2], end[2], arrival[2];
    const char *gbs[2] = { "25", "12.5" };
    for (int k = 0; k < 2; k++) {
        char json[2048];
        snprintf(json, sizeof json, fmt, gbs[k]);
        struct run r;
        run_text(&r, json, "id,arrival,input_tokens,output_tokens,"
                 "prefix_blocks\n1,100,2000,40,\n");
        CU_ASSERT_EQUAL_FATAL(r.rc, 0);
        long n;
        const struct gs_reqrec *q = gs_sim_service_requests(r.sim, 0, &n);
        CU_ASSERT_EQUAL_FATAL(n, 1);
        CU_ASSERT_EQUAL(q[0].state, GS_REQ_DONE);
        first[k] = q[0].first;
        end[k] = q[0].end;
        arrival[k] = q[0].arrival;
        run_free(&r);
    }
    CU_ASSERT_DOUBLE_EQUAL(first[0] - arrival[0], first[1] - arrival[1],
                           1e-9);
    CU_ASSERT(end[0] - first[0] > x25);
    CU_ASSERT(end[1] - first[1] > x12);
    CU_ASSERT_DOUBLE_EQUAL(end[1] - end[0], x12 - x25, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(x12 - x25, 0.065536, 1e-9);
}

/* Batch size 1, fixed lengths, Poisson arrivals: an M/D/1 queue whose
 * mean wait is rho S / (2 (1 - rho)) (Pollaczek-Khinchine). */
static void test_md1(void)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct seen s1 = alone(&cat, 256, 32, 0, 1);
    double S = s1.end;
    CU_ASSERT_FATAL(S > 0.05 && S < 5);
    double rho = 0.6, lambda = rho / S;
    char json[4096];
    snprintf(json, sizeof json,
             "{\"name\": \"md1\", \"fleet\": [{\"gpu\": \"H100-80GB\","
             " \"nodes\": 1, \"gpus_per_node\": 8}], \"policy\": \"fifo\","
             " \"services\": [{\"name\": \"s\", \"model\": \"llama2-7b\","
             "  \"gpu\": \"H100-80GB\", \"replicas\": 1,"
             "  \"load_bandwidth_gbs\": 1e6, \"engine\": {\"max_seqs\": 1},"
             "  \"requests\": {\"generate\": {\"rate_per_second\": %.17g,"
             "   \"requests\": 40000,"
             "   \"input_tokens\": {\"dist\": \"constant\", \"value\": 256},"
             "   \"output_tokens\": {\"dist\": \"constant\", \"value\": 32}}}}]}",
             lambda);
    struct run r;
    run_text(&r, json, NULL);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    const struct gs_svcsum *v = gs_sim_service(r.sim, 0);
    CU_ASSERT_EQUAL(v->finished, 40000);
    double w = rho * S / (2 * (1 - rho));
    /* Waiting time = TTFT less the unloaded prefill: the queueing measure. */
    CU_ASSERT(fabs(v->queue_mean - w) < 0.08 * w);
    if (fabs(v->queue_mean - w) >= 0.08 * w)
        printf("\n    M/D/1: mean wait %.5f s, theory %.5f s (S %.5f s)\n",
               v->queue_mean, w, S);
    /* The end-to-end time is the wait plus the deterministic service. */
    CU_ASSERT(fabs(v->e2e_mean - (w + S)) < 0.08 * w);
    run_free(&r);
}

/* Accounting with a horizon that cuts the stream: arrived = finished +
 * dropped + in flight; replica GPU-hours in the run's total; the bill's
 * parts add up. */
static void test_accounting(void)
{
    const char json[] =
        "{\"name\": \"acc\", \"horizon\": \"20m\", \"seed\": 9,"
        " \"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 2, \"gpus_per_node\": 8}],"
        " \"policy\": \"priority\","
        " \"workload\": {\"generate\": {\"jobs\": 200, \"rate_per_hour\": 600,"
        "   \"classes\": [{\"tier\": \"training\", \"gpus\": {\"values\": [1, 2, 4],"
        "       \"weights\": [1, 1, 1]},"
        "     \"duration\": {\"dist\": \"exponential\", \"mean\": \"10m\"}}]}},"
        " \"services\": [{\"name\": \"chat\", \"model\": \"llama3-8b\","
        "   \"gpu\": \"H100-80GB\", \"replicas\": 3, \"router\": \"least-kv\","
        "   \"requests\": {\"generate\": {\"rate_per_second\": 20,"
        "     \"until\": \"1h\","
        "     \"input_tokens\": {\"dist\": \"lognormal\", \"median\": 400,"
        "        \"sigma\": 1, \"max\": 100000},"
        "     \"output_tokens\": {\"dist\": \"exponential\", \"mean\": 150}}},"
        "   \"sla\": {\"ttft\": \"1s\", \"itl\": \"50ms\"}}]}";
    struct run r;
    run_text(&r, json, NULL);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    const struct gs_svcsum *v = gs_sim_service(r.sim, 0);
    CU_ASSERT(v->arrived > 20000);
    CU_ASSERT_EQUAL(v->arrived, v->finished + v->dropped + v->inflight);
    CU_ASSERT(v->inflight > 0);
    long n, st[GS_NREQSTATES] = { 0 };
    const struct gs_reqrec *q = gs_sim_service_requests(r.sim, 0, &n);
    CU_ASSERT_EQUAL(n, v->arrived);
    for (long i = 0; i < n; i++) {
        st[q[i].state]++;
        CU_ASSERT_FATAL(i == 0 || q[i].arrival >= q[i - 1].arrival);
        if (q[i].state == GS_REQ_DONE)
            CU_ASSERT_FATAL(q[i].arrival <= q[i].first &&
                            q[i].first <= q[i].end);
    }
    CU_ASSERT_EQUAL(st[GS_REQ_DONE], v->finished);
    CU_ASSERT_EQUAL(st[GS_REQ_DROPPED], v->dropped);
    CU_ASSERT(v->attainment > 0 && v->attainment <= 1);
    CU_ASSERT(v->ttft[0] <= v->ttft[1] && v->ttft[1] <= v->ttft[2]);
    CU_ASSERT(v->itl[0] <= v->itl[1] && v->itl[1] <= v->itl[2]);
    /* GPU-hours: the records (replicas included) add up to the integral,
     * and the replicas' are the service's. */
    const struct gs_summary *su = gs_sim_summary(r.sim);
    const struct gs_cloudsum *cs = gs_cloud_summary(gs_sim_cloud(r.sim));
    long nr;
    const struct gs_jobrec *rec = gs_sim_records(r.sim, &nr);
    double gh = 0, rep = 0, cost = 0;
    for (long i = 0; i < nr; i++) {
        gh += rec[i].gpu_hours;
        cost += rec[i].cost;
        if (rec[i].id < 0)
            rep += rec[i].gpu_hours;
        CU_ASSERT(rec[i].cost >= 0);
    }
    CU_ASSERT_DOUBLE_EQUAL(gh, su->gpu_hours_used, su->gpu_hours_used * 1e-4);
    CU_ASSERT_DOUBLE_EQUAL(rep, v->gpu_hours, 1e-6);
    CU_ASSERT(rep >= 3 * 20.0 / 60 * 0.99);        /* 3 replicas, 20 min */
    CU_ASSERT_DOUBLE_EQUAL(su->gpu_hours_used + (su->gpu_hours_avail -
                           su->gpu_hours_used), su->gpu_hours_avail, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cs->cost_jobs + cs->cost_idle,
                           su->cost, 1e-6 * su->cost);
    CU_ASSERT_DOUBLE_EQUAL(cost, cs->cost_jobs, 1e-6 * su->cost);
    CU_ASSERT(cs->cost_idle >= -1e-9);
    run_free(&r);
}

/* A burst far above what one replica serves: thousands of requests wait
 * at the router and in the engine at once while the first ones finish,
 * so the ring of live requests' links (service.c) doubles several times
 * with its oldest live request far behind the newest; the stream ends,
 * so every request must come out, each once, in order of its states. */
static void test_backlog_links(void)
{
    const char json[] =
        "{\"name\": \"backlog\", \"seed\": 3,"
        " \"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1, \"gpus_per_node\": 8}],"
        " \"services\": [{\"name\": \"chat\", \"model\": \"llama3-8b\","
        "   \"gpu\": \"H100-80GB\", \"replicas\": 2,"
        "   \"requests\": {\"generate\": {\"rate_per_second\": 400,"
        "     \"requests\": 9000,"
        "     \"input_tokens\": {\"dist\": \"lognormal\", \"median\": 300,"
        "        \"sigma\": 0.8, \"max\": 4000},"
        "     \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 100,"
        "        \"sigma\": 0.8, \"max\": 1000}}}}]}";
    struct run r;
    run_text(&r, json, NULL);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    const struct gs_svcsum *v = gs_sim_service(r.sim, 0);
    CU_ASSERT_EQUAL(v->arrived, 9000);
    CU_ASSERT_EQUAL(v->finished, 9000);
    CU_ASSERT_EQUAL(v->inflight, 0);
    long n, bad = 0;
    const struct gs_reqrec *q = gs_sim_service_requests(r.sim, 0, &n);
    CU_ASSERT_EQUAL_FATAL(n, 9000);
    for (long i = 0; i < n; i++)
        bad += q[i].state != GS_REQ_DONE || !(q[i].arrival <= q[i].first &&
                                              q[i].first <= q[i].end);
    CU_ASSERT_EQUAL(bad, 0);
    /* the backlog was real: the last arrivals waited seconds for their
     * first token */
    CU_ASSERT(q[n - 1].first - q[n - 1].arrival > 5);
    run_free(&r);
}

/* Replicas of a preemptible tier lose their GPUs to a training gang;
 * their requests go back to the router and all finish later. */
static void test_preempted_replicas(void)
{
    const char json[] =
        "{\"name\": \"pre\", \"seed\": 4,"
        " \"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1, \"gpus_per_node\": 8}],"
        " \"policy\": {\"name\": \"priority\", \"preempt\": true},"
        " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}},"
        " \"services\": [{\"name\": \"dev\", \"model\": \"llama2-7b\","
        "   \"gpu\": \"H100-80GB\", \"replicas\": 2, \"tier\": \"interactive\","
        "   \"requests\": {\"generate\": {\"rate_per_second\": 4,"
        "     \"until\": \"5m\","
        "     \"input_tokens\": {\"dist\": \"constant\", \"value\": 300},"
        "     \"output_tokens\": {\"dist\": \"constant\", \"value\": 400}}}}]}";
    struct run r;
    run_text(&r, json, "id,arrival,gpus,duration,tier\n1,60,8,100,training\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    const struct gs_svcsum *v = gs_sim_service(r.sim, 0);
    CU_ASSERT(v->arrived > 1000);
    CU_ASSERT_EQUAL(v->finished, v->arrived);
    CU_ASSERT(v->restarted > 0);
    CU_ASSERT_EQUAL(v->replica_losses, 2);
    CU_ASSERT_EQUAL(v->replica_starts, 4);
    const struct gs_jobrec *tj = rec_of(&r, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tj);
    CU_ASSERT_EQUAL(tj->start, 60000);
    CU_ASSERT_EQUAL(tj->end, 160000);
    /* Nobody got a first token while the gang held every GPU, and after
     * it the weights had to be loaded again. */
    long n;
    const struct gs_reqrec *q = gs_sim_service_requests(r.sim, 0, &n);
    for (long i = 0; i < n; i++)
        CU_ASSERT_FATAL(q[i].first < 60.0 || q[i].first > 160.0 + 6.0);
    run_free(&r);
}

static char *report(const char *json, int csvless)
{
    struct run r;
    char *buf = NULL;
    size_t len = 0;
    run_text(&r, json, NULL);
    if (r.rc == 0) {
        FILE *fp = open_memstream(&buf, &len);
        gs_report_json(fp, r.sim);
        if (!csvless)
            gs_report_csv(fp, r.sim);
        long n;
        const struct gs_reqrec *q = gs_sim_service_requests(r.sim, 0, &n);
        for (long i = 0; i < n; i++)
            fprintf(fp, "%a %a %a %d\n", q[i].arrival, q[i].first, q[i].end,
                    q[i].replica);
        fclose(fp);
    }
    run_free(&r);
    return buf;
}

static const char gen_json[] =
    "{\"name\": \"det\", \"seed\": %d,"
    " \"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1, \"gpus_per_node\": 8}],"
    " \"services\": [{\"name\": \"s\", \"model\": \"llama2-13b\", \"tp\": 2,"
    "   \"gpu\": \"A100-80GB\", \"router\": \"round-robin\","
    "   \"autoscaler\": {\"min_replicas\": 1, \"max_replicas\": 4,"
    "     \"metrics\": [{\"metric\": \"waiting_requests\","
    "                    \"average_value\": 4}]},"
    "   \"requests\": {\"generate\": {\"rate_per_second\": 6,"
    "     \"until\": \"30m\", \"diurnal_amplitude\": 0.5,"
    "     \"input_tokens\": {\"dist\": \"lognormal\", \"median\": 600,"
    "        \"sigma\": 0.8, \"max\": 8000},"
    "     \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 120,"
    "        \"sigma\": 0.7, \"max\": 2000}}}}]}";

/* The result file of json, read back whole (caller frees); *n its size. */
static char *h5_bytes(const char *json, const char *path, long *n)
{
    struct run r;
    char *buf = NULL;
    *n = 0;
    run_text(&r, json, NULL);
    if (r.rc == 0 && gs_h5_write_sampled(path, r.sim, 0.5, NULL, &r.d) == 0) {
        FILE *fp = fopen(path, "rb");
        if (fp) {
            fseek(fp, 0, SEEK_END);
            *n = ftell(fp);
            rewind(fp);
            buf = malloc((size_t)*n + 1);
            if (buf && fread(buf, 1, (size_t)*n, fp) != (size_t)*n) {
                free(buf);
                buf = NULL;
            }
            fclose(fp);
        }
        unlink(path);
    }
    run_free(&r);
    return buf;
}

/* A generated stream with an autoscaler: the same seed gives the same
 * report, request records and result file, byte for byte; another seed
 * does not. */
static void test_determinism(void)
{
    char j1[4096], j2[4096];
    snprintf(j1, sizeof j1, gen_json, 7);
    snprintf(j2, sizeof j2, gen_json, 8);
    char *a = report(j1, 0), *b = report(j1, 0), *c = report(j2, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT_STRING_NOT_EQUAL(a, c);
    CU_ASSERT_PTR_NOT_NULL(strstr(a, "\"replicas_max\": "));
    free(a);
    free(b);
    free(c);
    char p1[64], p2[64];
    snprintf(p1, sizeof p1, "/tmp/gs-svc-det-a-%ld.h5", (long)getpid());
    snprintf(p2, sizeof p2, "/tmp/gs-svc-det-b-%ld.h5", (long)getpid());
    long n1, n2;
    char *h1 = h5_bytes(j1, p1, &n1), *h2 = h5_bytes(j1, p2, &n2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h2);
    CU_ASSERT(n1 > 10000);
    CU_ASSERT_EQUAL(n1, n2);
    CU_ASSERT(n1 == n2 && memcmp(h1, h2, (size_t)n1) == 0);
    free(h1);
    free(h2);
}

/* A chat service beside preemptible training on one fleet (priority with
 * preemption, node failures that take replicas and training down, an
 * autoscaler, a horizon, 5-minute samples): what the core's loop
 * interleaves with the service's iterations. */
static const char mixed_json[] =
    "{\"name\": \"mix\", \"seed\": 3, \"horizon\": \"3h\","
    " \"sample_step\": \"5m\", \"failures\": {\"node\": {\"mtbf\": \"10h\"}},"
    " \"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 3,"
    "   \"gpus_per_node\": 8, \"price_per_gpu_hour\": 6.88}],"
    " \"policy\": {\"name\": \"priority\", \"preempt\": true},"
    " \"workload\": {\"generate\": {\"until\": \"3h\","
    "   \"rate_per_hour\": 40, \"reference_gpu\": \"H100-80GB\","
    "   \"classes\": [{\"name\": \"train\", \"tier\": \"training\","
    "     \"gpus\": {\"values\": [2, 4, 8], \"weights\": [0.4, 0.4, 0.2]},"
    "     \"duration\": {\"dist\": \"lognormal\", \"median\": \"40m\","
    "        \"sigma\": 0.8, \"max\": \"2h\"}}]}},"
    " \"services\": [{\"name\": \"chat\", \"tier\": \"inference\","
    "   \"model\": \"llama2-7b\", \"gpu\": \"H100-80GB\","
    "   \"autoscaler\": {\"min_replicas\": 1, \"max_replicas\": 6,"
    "     \"metrics\": [{\"metric\": \"request_rate\","
    "                    \"average_value\": 4, \"window\": \"2m\"}]},"
    "   \"requests\": {\"generate\": {\"rate_per_second\": 12,"
    "     \"until\": \"3h\", \"diurnal_amplitude\": 0.6,"
    "     \"input_tokens\": {\"dist\": \"lognormal\", \"median\": 400,"
    "        \"sigma\": 0.8, \"max\": 4000},"
    "     \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 120,"
    "        \"sigma\": 0.8, \"max\": 1000}}}}]}";

/* json run with the service moving the clock itself (on) or every
 * wake-up through the event queue: its report, request records and
 * result file (path), as one buffer; *events the events fired. */
static char *run_moving(const char *json, int on, const char *path,
                        uint64_t *events)
{
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = NULL;
    struct gs_diag d = { 0 };
    char *buf = NULL;
    size_t len = 0;
    if (gs_scenario_parse(json, "mix.json", "/", &sc, &d) < 0 ||
        gs_sim_new(sc, NULL, &sim, &d) < 0)
        goto out;
    gs_sim_set_move_clock(sim, on);
    if (gs_sim_run(sim, &d) < 0 ||
        gs_h5_write_sampled(path, sim, 0.5, NULL, &d) < 0)
        goto out;
    *events = gs_sim_events(sim);
    FILE *fp = open_memstream(&buf, &len);
    gs_report_json(fp, sim);
    gs_report_csv(fp, sim);
    long n;
    const struct gs_reqrec *q = gs_sim_service_requests(sim, 0, &n);
    for (long i = 0; i < n; i++)
        fprintf(fp, "%a %a %a %d %a\n", q[i].arrival, q[i].first, q[i].end,
                q[i].replica, q[i].energy_j);
    FILE *h = fopen(path, "rb");
    int c;
    while (h && (c = getc(h)) != EOF)
        fputc(c, fp);
    if (h)
        fclose(h);
    fclose(fp);
    unlink(path);
out:
    gs_sim_free(sim);
    gs_scenario_free(sc);
    gs_diag_free(&d);
    return buf;
}

/* gs_sim_move_clock: the service's runs of iterations between the
 * cluster's events (training arrivals, starts, preemptions, the
 * autoscaler's replicas, samples) give the same report, records and
 * result file, byte for byte, as every wake-up through the queue, and
 * count the same events. */
static void test_move_clock(void)
{
    char p1[64], p2[64];
    snprintf(p1, sizeof p1, "/tmp/gs-svc-move-a-%ld.h5", (long)getpid());
    snprintf(p2, sizeof p2, "/tmp/gs-svc-move-b-%ld.h5", (long)getpid());
    uint64_t e1 = 0, e2 = 0;
    char *a = run_moving(mixed_json, 1, p1, &e1);
    char *b = run_moving(mixed_json, 0, p2, &e2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT(strlen(a) > 100000);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT_EQUAL(e1, e2);
    CU_ASSERT(e1 > 100000);
    /* the run has what the test is about: jobs requeued, replicas lost
     * with their requests restarted elsewhere */
    CU_ASSERT_PTR_NOT_NULL(strstr(a, "\"preemptions\": "));
    CU_ASSERT_PTR_NULL(strstr(a, "\"preemptions\": 0,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(a, "\"requests_restarted\": "));
    CU_ASSERT_PTR_NULL(strstr(a, "\"requests_restarted\": 0"));
    free(a);
    free(b);
}

/* Bad service keys: the message names the JSON path. */
static void expect_err(const char *svc, const char *where, const char *what)
{
    char json[4096];
    snprintf(json, sizeof json,
             "{\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1}],"
             " \"services\": [%s]}", svc);
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    int rc = gs_scenario_parse(json, "bad.json", "/", &sc, &d);
    if (rc == 0) {
        struct gs_sim *s = NULL;
        rc = gs_sim_new(sc, NULL, &s, &d);
        gs_sim_free(s);
    }
    gs_scenario_free(sc);
    CU_ASSERT(rc < 0);
    if (!strstr(d.where, where) || !strstr(d.what, what))
        printf("\n    got '%s': '%s'\n", d.where, d.what);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.where, where));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, what));
    gs_diag_free(&d);
}

#define GEN "\"requests\": {\"generate\": {\"rate_per_second\": 1," \
            " \"requests\": 5, \"input_tokens\": {\"dist\": \"constant\"," \
            " \"value\": 10}, \"output_tokens\": {\"dist\": \"constant\"," \
            " \"value\": 10}}}"

static void test_bad_keys(void)
{
    expect_err("{\"name\": \"a\", \"model\": \"llama2-7b\", \"gpu\": "
               "\"H100-80GB\", \"colour\": 1, " GEN "}",
               "$.services[0]", "unknown key 'colour'");
    expect_err("{\"name\": \"a\", \"model\": \"llama2-7b\", \"gpu\": "
               "\"H100-80GB\", \"engine\": {\"max_seq\": 4}, " GEN "}",
               "$.services[0].engine", "unknown key 'max_seq'");
    expect_err("{\"name\": \"a\", \"model\": \"llama9\", \"gpu\": "
               "\"H100-80GB\", " GEN "}", "$.services[0].model", "llama9");
    expect_err("{\"name\": \"a\", \"model\": \"llama2-7b\", \"gpu\": "
               "\"H100-80GB\", \"router\": \"random\", " GEN "}",
               "$.services[0].router", "unknown router 'random'");
    expect_err("{\"name\": \"a\", \"model\": \"llama2-7b\", \"gpu\": "
               "\"H100-80GB\", \"autoscaler\": {\"max_replica\": 3}, " GEN "}",
               "$.services[0].autoscaler", "max_replica");
    expect_err("{\"name\": \"a\", \"model\": \"llama2-70b\", \"gpu\": "
               "\"H100-80GB\", \"tp\": 16, " GEN "}",
               "$.services[0]", "no pool");
    expect_err("{\"name\": \"a\", \"model\": \"llama2-70b\", \"gpu\": "
               "\"H100-80GB\", " GEN "}", "$.services[0]", "");
    expect_err("{\"name\": \"a\", \"model\": \"llama2-7b\", \"gpu\": "
               "\"H100-80GB\", \"requests\": {\"trace\": {\"format\": "
               "\"azure\", \"path\": \"x\"}}}",
               "$.services[0].requests.trace.format", "unknown request trace");
    /* A name the result file's /services already uses for a table, or
     * that cannot name an HDF5 group; names beside them are fine. */
    static const char *const reserved[] = { GS_SVC_RESERVED_NAMES, "a/b",
                                            "." };
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        char svc[512];
        snprintf(svc, sizeof svc, "{\"name\": \"%s\", \"model\": "
                 "\"llama2-7b\", \"gpu\": \"H100-80GB\", " GEN "}",
                 reserved[i]);
        expect_err(svc, "$.services[0].name", reserved[i]);
    }
    for (int i = 0; i < 3; i++) {
        static const char *const fine[] = { "summary2", "Names", "a.b" };
        char json[1024];
        snprintf(json, sizeof json, "{\"fleet\": [{\"gpu\": \"H100-80GB\","
                 " \"nodes\": 1}], \"services\": [{\"name\": \"%s\", "
                 "\"model\": \"llama2-7b\", \"gpu\": \"H100-80GB\", " GEN
                 "}]}", fine[i]);
        struct gs_scenario *sc = NULL;
        struct gs_diag d = { 0 };
        CU_ASSERT_EQUAL(gs_scenario_parse(json, "ok.json", "/", &sc, &d), 0);
        gs_scenario_free(sc);
        gs_diag_free(&d);
    }
    /* The binary: exit status 2 and the path on stderr. */
    char scen[64], cmd[512];
    write_temp("{\"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1}],"
               " \"services\": [{\"name\": \"a\", \"model\": \"llama2-7b\","
               " \"gpu\": \"H100-80GB\", \"engine\": {\"blocks\": 1}, " GEN
               "}]}", scen);
    const char *bin = gs_test_gpusim();
    snprintf(cmd, sizeof cmd, "%s run %s --no-out 2>&1 | grep -q "
             "'services\\[0\\].engine' && %s run %s --no-out >/dev/null "
             "2>&1; exit $?", bin, scen, bin, scen);
    int st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    unlink(scen);
}

/* The Azure code trace (one hour, 8,819 requests) replayed on 8 replicas:
 * every request ends, the engines' figures are sane. */
static void test_azure_replay(void)
{
    FILE *fp = fopen(AZURE, "r");
    if (fp == NULL) {
        printf("[skipped: %s missing] ", AZURE);
        return;
    }
    fclose(fp);
    char path[1024], json[4096];
    if (realpath(AZURE, path) == NULL)
        return;
    snprintf(json, sizeof json,
             "{\"name\": \"az\", \"fleet\": [{\"gpu\": \"H100-80GB\","
             " \"nodes\": 1, \"gpus_per_node\": 8}],"
             " \"services\": [{\"name\": \"code\", \"model\": \"llama2-7b\","
             "  \"gpu\": \"H100-80GB\", \"replicas\": 8,"
             "  \"requests\": {\"trace\": {\"format\": \"azure-llm\","
             "   \"path\": \"%s\"}}, \"sla\": {\"ttft\": \"10s\"}}]}", path);
    struct run r;
    run_text(&r, json, NULL);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    const struct gs_svcsum *v = gs_sim_service(r.sim, 0);
    CU_ASSERT_EQUAL(v->arrived, 8819);
    CU_ASSERT_EQUAL(v->finished + v->dropped, 8819);
    CU_ASSERT_EQUAL(v->inflight, 0);
    /* Decode steps of a 7B model on an H100 take milliseconds. */
    CU_ASSERT(v->itl[0] > 0.004 && v->itl[0] < 0.05);
    CU_ASSERT(v->span_s > 3000 && v->span_s < 3700);
    CU_ASSERT_DOUBLE_EQUAL(v->gpu_hours, 8 * v->span_s / 3600, 0.01);
    run_free(&r);
}

/* DCGM power from the power model: an UP replica with nothing to run
 * draws its idle power exactly, never more than the board limit, and more
 * than idle over a sample that ran iterations. */
static void test_power_series(void)
{
    struct run r;
    run_text(&r, one_replica, "id,arrival,input_tokens,output_tokens,"
             "prefix_blocks\n1,100,4000,400,\n2,1000,4000,3000,\n");
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    long n;
    const double *t;
    const double *row = gs_sim_service_series(r.sim, 0, &n, &t);
    if (n <= 10)
        printf("\n    %ld samples", n);
    CU_ASSERT_FATAL(n > 10);
    double limit = 700, idle = limit * gs_power_default.idle;
    int idle_rows = 0, busy_rows = 0;
    for (long i = 0; i < n; i++) {
        const double *x = row + i * GS_NSVCOLS;
        double w = x[GS_SVC_POWER], u = x[GS_SVC_GPU_UTIL];
        CU_ASSERT(w <= limit + 1e-9);
        if (x[GS_SVC_REPLICAS] < 1)
            continue;
        if (u == 0) {
            CU_ASSERT_DOUBLE_EQUAL(w, idle, 1e-9);
            idle_rows++;
        } else if (u > 10) {
            CU_ASSERT(w > idle);
            busy_rows++;
        }
    }
    if (!(idle_rows > 0 && busy_rows > 0))
        for (long i = 0; i < n; i += n / 20 + 1)
            printf("\n    t %g rep %g util %g W %g", t[i],
                   row[i * GS_NSVCOLS + GS_SVC_REPLICAS],
                   row[i * GS_NSVCOLS + GS_SVC_GPU_UTIL],
                   row[i * GS_NSVCOLS + GS_SVC_POWER]);
    CU_ASSERT(idle_rows > 0 && busy_rows > 0);
    run_free(&r);
}


/* A /requests of more than one chunk (70,000 rows: a full chunk of
 * 65,536 and a partial one), written chunk by chunk (h5chunk.c), reads
 * back through HDF5 as the records are: every column of every row, NaN
 * where the records say not reached. */
static void test_requests_table(void)
{
    static const char json[] =
        "{\"name\": \"big\", \"seed\": 3,"
        " \"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1,"
        " \"gpus_per_node\": 8}],"
        " \"services\": [{\"name\": \"s\", \"model\": \"llama3-8b\","
        "   \"gpu\": \"H100-80GB\", \"replicas\": 8,"
        "   \"requests\": {\"generate\": {\"rate_per_second\": 140,"
        "     \"requests\": 70000, \"input_tokens\": {\"dist\": \"lognormal\","
        "       \"median\": 300, \"sigma\": 0.8, \"max\": 4000},"
        "     \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 100,"
        "       \"sigma\": 0.8, \"max\": 1000}}}}]}";
    struct run r;
    char path[64];
    snprintf(path, sizeof path, "/tmp/gs-svc-big-%ld.h5", (long)getpid());
    run_text(&r, json, NULL);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    CU_ASSERT_EQUAL_FATAL(gs_h5_write(path, r.sim, &r.d), 0);
    long n;
    const struct gs_reqrec *q = gs_sim_service_requests(r.sim, 0, &n);
    CU_ASSERT_EQUAL_FATAL(n, 70000);
    static const char *const cols[] = { "index", "arrival_s", "ttft_s",
                                        "itl_s", "e2e_s", "queue_s",
                                        "input_tokens", "output_tokens",
                                        "replica", "state", "energy_kwh" };
    double *v[11];
    long bad = 0, notdone = 0;
    for (int c = 0; c < 11; c++) {
        long m = 0;
        v[c] = NULL;
        CU_ASSERT_EQUAL(gs_h5_read_column(path, "/requests", cols[c], &v[c],
                                          &m, &r.d), 0);
        CU_ASSERT_EQUAL(m, n);
        if (v[c] == NULL || m != n)
            bad++;
    }
    for (long j = 0; bad == 0 && j < n; j++) {
        int done = q[j].state == GS_REQ_DONE;
        double want[11] = {
            (double)j, q[j].arrival,
            q[j].first >= 0 ? q[j].first - q[j].arrival : NAN,
            done && q[j].out > 1 ? (q[j].end - q[j].first) / (q[j].out - 1)
                                 : NAN,
            done ? q[j].end - q[j].arrival : NAN,
            q[j].first >= 0 ? q[j].queue : NAN,
            q[j].in, q[j].out, q[j].replica, q[j].state,
            q[j].energy_j / 3.6e6 };
        notdone += !done;
        for (int c = 0; c < 11; c++)
            if (!(want[c] == v[c][j] || (isnan(want[c]) && isnan(v[c][j]))))
                bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(notdone, 0);            /* the run ends when all are */
    for (int c = 0; c < 11; c++)
        free(v[c]);
    unlink(path);
    run_free(&r);
}

/* The text summary's verdict names each part of the SLA that missed,
 * with the percentile's value and its target, and only those: one
 * stream, 2 replicas of Llama-3-8B on H100, judged on (TTFT, ITL)
 * targets set on either side of what it achieves. */
static void test_sla_verdict(void)
{
    static const char fmt[] =
        "{\"name\": \"v\", \"seed\": 3,"
        " \"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 1, \"gpus_per_node\": 8}],"
        " \"policy\": \"fifo\","
        " \"services\": [{\"name\": \"chat\", \"model\": \"llama3-8b\","
        "   \"gpu\": \"H100-80GB\", \"replicas\": 2,"
        "   \"requests\": {\"generate\": {\"rate_per_second\": 5,"
        "     \"requests\": 3000,"
        "     \"input_tokens\": {\"dist\": \"lognormal\", \"median\": 800,"
        "        \"sigma\": 1, \"max\": 8000},"
        "     \"output_tokens\": {\"dist\": \"exponential\", \"mean\": 150}}},"
        "   \"sla\": {\"ttft\": \"%s\", \"itl\": \"%s\", \"percentile\": 95}}]}";
    /* targets: (loose, loose), (tight TTFT), (tight ITL), (both tight) */
    static const char *const tt[4][2] = {
        { "60s", "10s" }, { "1ms", "10s" }, { "60s", "1ms" }, { "1ms", "1ms" },
    };
    for (int k = 0; k < 4; k++) {
        char json[2048];
        snprintf(json, sizeof json, fmt, tt[k][0], tt[k][1]);
        struct run r;
        run_text(&r, json, NULL);
        CU_ASSERT_EQUAL_FATAL(r.rc, 0);
        const struct gs_svcsum *v = gs_sim_service(r.sim, 0);
        char *buf = NULL, want[128];
        size_t len = 0;
        FILE *fp = open_memstream(&buf, &len);
        gs_report_table(fp, r.sim);
        fclose(fp);
        const char *at = strstr(buf, "; SLA m");
        printf("\n    [%s / %s: %.*s]", tt[k][0], tt[k][1],
               at ? (int)strcspn(at, "\n") : 6, at ? at : "(none)");
        CU_ASSERT_PTR_NOT_NULL_FATAL(at);
        CU_ASSERT_EQUAL(v->sla_met, k == 0);
        snprintf(want, sizeof want, "TTFT p95 %.3fs > 0.001s", v->ttft_at);
        CU_ASSERT_EQUAL(strstr(at, want) != NULL, k == 1 || k == 3);
        snprintf(want, sizeof want, "ITL p95 %.1fms > 1.0ms",
                 1e3 * v->itl_at);
        CU_ASSERT_EQUAL(strstr(at, want) != NULL, k >= 2);
        CU_ASSERT_EQUAL(strncmp(at, "; SLA met\n", 10) == 0, k == 0);
        CU_ASSERT(v->ttft_at > 0.001 && v->itl_at > 0.001);
        free(buf);
        run_free(&r);
    }
}

/* Two services whose names share their first 47 bytes are two tenants:
 * the default tenant (the name) was cut to 47 bytes, and both became one
 * tenant, said nowhere. */
static void test_long_names_two_tenants(void)
{
    char json[4096], n1[64], n2[64];
    snprintf(n1, sizeof n1, "%s-a", "service-with-a-long-name-that-runs-past-the-47-bytes");
    snprintf(n2, sizeof n2, "%s-b", "service-with-a-long-name-that-runs-past-the-47-bytes");
    static const char svc[] =
        "{\"name\": \"%s\", \"model\": \"llama3-8b\", \"tp\": 1, \"gpu\":"
        " \"H100-80GB\", \"replicas\": 1, \"requests\": {\"generate\":"
        " {\"rate_per_second\": 0.02, \"until\": \"1h\", \"input_tokens\":"
        " {\"dist\": \"lognormal\", \"median\": 600, \"sigma\": 0.5,"
        " \"max\": 4000}, \"output_tokens\": {\"dist\": \"lognormal\","
        " \"median\": 200, \"sigma\": 0.5, \"max\": 1000}}}}";
    char s1[1024], s2[1024];
    snprintf(s1, sizeof s1, svc, n1);
    snprintf(s2, sizeof s2, svc, n2);
    snprintf(json, sizeof json, "{\"name\": \"t\", \"fleet\": [{\"gpu\":"
             " \"H100-80GB\", \"nodes\": 1, \"gpus_per_node\": 2}],"
             " \"services\": [%s, %s]}", s1, s2);
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    FILE *keep = gs_trace_log();
    gs_trace_set_log(NULL);
    int rc = gs_scenario_parse(json, "t.json", "/", &sc, &d);
    gs_trace_set_log(keep);
    if (rc)
        printf("\n    %s: %s", gs_diag_where(&d), gs_diag_what(&d));
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL_FATAL(sc->nsvcs, 2);
    CU_ASSERT_STRING_NOT_EQUAL(sc->svcs[0].tenant, sc->svcs[1].tenant);
    CU_ASSERT_EQUAL(strncmp(sc->svcs[0].tenant, n1, 38), 0);
    CU_ASSERT_EQUAL(strlen(sc->svcs[0].tenant), 47);
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

static CU_TestInfo tests[] = {
    { "two services with long names are two tenants",
      test_long_names_two_tenants },
    { "one request: the engine's TTFT and ITL, queueing 0", test_single_request },
    { "DCGM power: idle exactly, busy above, never over the limit",
      test_power_series },
    { "batch 1, fixed lengths: M/D/1 mean wait", test_md1 },
    { "disaggregated: prefill, KV transfer, decode", test_disaggregated },
    { "disaggregated: the KV transfer's time by hand", test_kv_transfer_by_hand },
    { "every request and GPU-hour accounted for", test_accounting },
    { "preempted replicas give their requests back", test_preempted_replicas },
    { "a backlog of thousands: every request out, once",
      test_backlog_links },
    { "same seed, identical results", test_determinism },
    { "a /requests of two chunks reads back as the records",
      test_requests_table },
    { "bad service keys name the JSON path, exit 2", test_bad_keys },
    { "Azure code trace replayed on 8 replicas", test_azure_replay },
    { "the SLA verdict names what missed", test_sla_verdict },
    { "the service moving the clock: the same results, byte for byte",
      test_move_clock },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("service", tests)
