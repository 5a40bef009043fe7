/* report.c -- print a run's summary (see report.h). */
#include "report.h"
#include "jsoncheck.h"
#include "question.h"
#include "../cloud/cloud.h"
#include "../inference/service.h"
#include "../base/version.h"

#include <stdint.h>
#include <string.h>

/* s as a JSON string.  Scenario files are UTF-8 (jsoncheck.h); a name
 * from elsewhere (a trace's tenant) that is not has each stray byte
 * printed as U+FFFD, so the output is always valid JSON. */
static void json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    while (*s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c < 0x20)
            fprintf(fp, "\\u%04x", c);
        else if (c < 0x80)
            fputc(c, fp);
        else {
            size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
            if (strnlen(s, len) == len && gs_utf8_bad(s, len) == SIZE_MAX) {
                fwrite(s, 1, len, fp);
                s += len;
                continue;
            }
            fputs("\\ufffd", fp);
        }
        s++;
    }
    fputc('"', fp);
}

static const char *scope_name(int t)
{
    return t < 0 ? "all" : gs_tier_name(t);
}

static const struct gs_tstats *scope(const struct gs_summary *su, int t)
{
    return t < 0 ? &su->all : &su->tier[t];
}

static int has_market(const struct gs_scenario *sc, int market)
{
    for (int i = 0; i < sc->npools; i++)
        if (sc->pools[i].market == market)
            return 1;
    return 0;
}

/* The cloud lines of the table: only what the scenario has. */
/* The bill's part each tenant's jobs ran up, the dearest first (ties in
 * tenant order); past TENANT_LINE tenants the rest are summed. */
#define TENANT_LINE 6
static void tenant_line(FILE *fp, const struct gs_sim *s)
{
    const struct gs_cloud *c = gs_sim_cloud(s);
    int n = gs_sim_ntenants(s), top[TENANT_LINE], ntop = 0;
    double sum = 0;
    for (int t = 0; t < n; t++) {
        double v = gs_cloud_cost_tenant(c, t);
        sum += v;
        int k = ntop < TENANT_LINE ? ntop++ : TENANT_LINE;
        while (k > 0 && gs_cloud_cost_tenant(c, top[k - 1]) < v) {
            if (k < TENANT_LINE)
                top[k] = top[k - 1];
            k--;
        }
        if (k < TENANT_LINE)
            top[k] = t;
    }
    if (n == 0)
        return;
    fprintf(fp, "  by tenant     ");
    double shown = 0;
    for (int i = 0; i < ntop; i++) {
        double v = gs_cloud_cost_tenant(c, top[i]);
        fprintf(fp, "%s%s $%.2f", i ? ", " : "", gs_sim_tenant_name(s, top[i]),
                v);
        shown += v;
    }
    if (n > ntop)
        fprintf(fp, ", %d more $%.2f", n - ntop, sum - shown);
    fprintf(fp, " (jobs' share $%.2f)\n", sum);
}

static void cloud_lines(FILE *fp, const struct gs_sim *s)
{
    const struct gs_summary *su = gs_sim_summary(s);
    const struct gs_scenario *sc = gs_sim_scenario(s);
    const struct gs_cloudsum *c = &su->cloud;
    int as = 0, fail = 0;
    for (int i = 0; i < sc->npools; i++) {
        as |= sc->cloud.pool[i].autoscale;
        fail |= sc->cloud.pool[i].fail.on;
    }
    fprintf(fp, "  bill          ");
    const char *sep = "";
    for (int m = 0; m < GS_NMARKETS; m++)
        if (has_market(sc, m)) {
            fprintf(fp, "%s%s $%.2f", sep, gs_market_name(m),
                    c->cost_market[m]);
            sep = ", ";
        }
    fprintf(fp, "; idle $%.2f (%.1f %%)\n", c->cost_idle,
            su->cost > 0 ? 100 * c->cost_idle / su->cost : 0.0);
    tenant_line(fp, s);
    fprintf(fp, "  node-hours    %.1f paid, %.1f with no job\n", c->node_hours,
            c->idle_node_hours);
    if (has_market(sc, GS_MKT_SPOT))
        fprintf(fp, "  spot          %ld interruptions, %ld job restarts, "
                "%.1f GPU-hours lost; $%.2f saved against on-demand\n",
                c->spot_reclaims, c->spot_restarts, c->spot_lost_gpu_h,
                c->spot_savings);
    if (fail)
        fprintf(fp, "  failures      %ld GPU, %ld node, %ld degraded; %ld job "
                "restarts, %.1f GPU-hours lost, %ld denied; availability "
                "%.4f %%\n", c->gpu_failures, c->node_failures,
                c->degradations, c->fail_restarts, c->fail_lost_gpu_h,
                c->denials, 100 * c->availability);
    if (as)
        fprintf(fp, "  autoscaling   %ld nodes launched, %ld removed, %ld "
                "jobs evicted; pending to capacity %.1f s mean, %.1f s max\n",
                c->launched, c->removed, c->drain_restarts,
                c->pend_to_cap_mean_s, c->pend_to_cap_max_s);
    if (sc->cloud.reap_tiers)
        fprintf(fp, "  reaper        %ld idle jobs reaped\n", c->reaped);
}

void gs_report_table(FILE *fp, const struct gs_sim *s)
{
    struct gs_question q;
    gs_report_table_q(fp, s, gs_question_analyse(s, &q) == 0 ? &q : NULL);
}

void gs_report_table_q(FILE *fp, const struct gs_sim *s,
                       const struct gs_question *q)
{
    const struct gs_summary *su = gs_sim_summary(s);
    const struct gs_scenario *sc = gs_sim_scenario(s);
    fprintf(fp, "gpusim %s  scenario %s  policy %s  placement %s  seed %llu\n\n",
            GS_VERSION, sc->name, gs_sim_policy_name(s), gs_sim_placer_name(s),
            (unsigned long long)gs_sim_seed(s));
    fprintf(fp, "  span          %.2f h\n", su->span_h);
    fprintf(fp, "  jobs          %ld: %ld done, %ld killed, %ld unfinished; "
            "%ld preemptions\n", su->all.jobs, su->all.done, su->all.killed,
            su->all.unfinished, su->preemptions);
    fprintf(fp, "  utilization   %.2f %%  (%.1f of %.1f GPU-hours allocated)\n",
            100 * su->util, su->gpu_hours_used, su->gpu_hours_avail);
    if (su->cpu_util > 0 || su->mem_util > 0 || su->stranded_gpu_hours > 0)
        fprintf(fp, "  host          CPU %.2f %% (%.1f core-hours), memory "
                "%.2f %% requested; %.1f GPU-hours stranded (free on nodes "
                "out of CPU or memory)\n", 100 * su->cpu_util,
                su->cpu_core_hours, 100 * su->mem_util,
                su->stranded_gpu_hours);
    fprintf(fp, "  throughput    %.2f jobs/h\n", su->throughput_jph);
    fprintf(fp, "  fairness      %.1f min^2 wait variance; %ld jobs starved "
            "(waited > 30 min)\n", su->fairness_var, su->starved);
    fprintf(fp, "  cost          $%.2f  ($%.3f per allocated GPU-hour)\n",
            su->cost, su->cost_per_used_gpu_hour);
    fprintf(fp, "  fragmented    %.2f %% of GPU capacity (FGD's measure, time "
            "mean)\n", 100 * su->fragmentation);
    if (su->mig_slice_util > 0 || su->mig_reconfigs > 0 || su->oom_kills > 0 ||
        su->reclaim_kills + su->reclaim_evictions > 0 ||
        su->sharing_slowdown > 0)
        fprintf(fp, "  sharing       MIG slices %.2f %% busy, %ld "
                "reconfigurations; %ld OOM kills; %ld reclaims (%ld killed, "
                "%ld evicted); mean slowdown %.3f; p99 +%.1f ms\n",
                100 * su->mig_slice_util, su->mig_reconfigs, su->oom_kills,
                su->reclaim_kills + su->reclaim_evictions, su->reclaim_kills,
                su->reclaim_evictions, su->sharing_slowdown,
                su->ts_p99_added_ms);
    cloud_lines(fp, s);
    fputc('\n', fp);
    fprintf(fp, "  %-12s %7s %7s %9s %9s %9s %9s %9s %10s %9s %9s\n", "tier",
            "jobs", "done", "wait avg", "p50", "p95", "p99", "max",
            "jct avg", "sla wait", "deadline");
    for (int t = 0; t <= GS_NTIERS; t++) {
        int k = t == GS_NTIERS ? -1 : t;
        const struct gs_tstats *x = scope(su, k);
        if (x->jobs == 0 && k >= 0)
            continue;
        fprintf(fp, "  %-12s %7ld %7ld %8.1fs %8.1fs %8.1fs %8.1fs %8.1fs "
                "%9.1fs %9ld %9ld\n", scope_name(k), x->jobs, x->done,
                x->wait_mean, x->wait_p50, x->wait_p95, x->wait_p99,
                x->wait_max, x->jct_mean, x->sla_wait, x->sla_deadline);
    }
    int nsv = gs_sim_nservices(s);
    if (nsv > 0)
        fprintf(fp, "\n  %-12s %8s %8s %15s %15s %9s %7s %9s %8s %8s\n",
                "service", "requests", "done", "TTFT p50/p99", "ITL p50/p99",
                "e2e p99", "SLA", "goodput", "tok/s/GPU", "$/Mtok");
    for (int i = 0; i < nsv; i++) {
        const struct gs_svcsum *v = gs_sim_service(s, i);
        char ttft[32], itl[32], sla[16];
        snprintf(ttft, sizeof ttft, "%.3f/%.3fs", v->ttft[0], v->ttft[2]);
        snprintf(itl, sizeof itl, "%.1f/%.1fms", 1e3 * v->itl[0],
                 1e3 * v->itl[2]);
        if (v->sla_met < 0)
            snprintf(sla, sizeof sla, "-");
        else
            snprintf(sla, sizeof sla, "%.1f%%", 100 * v->attainment);
        fprintf(fp, "  %-12s %8ld %8ld %15s %15s %8.2fs %7s %7.2f/s %8.0f "
                "%8.3f\n", v->name, v->arrived, v->finished, ttft, itl,
                v->e2e[2], sla, v->goodput, v->tok_s_gpu, v->cost_per_mtok);
        fprintf(fp, "  %-12s queue p99 %.3fs; %ld dropped, %ld in flight, %ld "
                "restarted; replicas %.2f mean, %.0f max, %ld started, %ld "
                "lost; %.2f GPU-hours, $%.2f%s\n", "", v->queue[2],
                v->dropped, v->inflight, v->restarted, v->replicas_mean,
                v->replicas_max, v->replica_starts, v->replica_losses,
                v->gpu_hours, v->cost,
                v->sla_met < 0 ? "" : v->sla_met ? "; SLA met" : "; SLA missed");
    }
    fprintf(fp, "\n  %-12s %7s %9s %12s\n", "GPU model", "GPUs", "util",
            "GPU-hours");
    for (int k = 0; k < su->nmodels; k++) {
        const struct gs_mstats *m = &su->model[k];
        fprintf(fp, "  %-12s %7.0f %8.2f%% %12.1f\n",
                sc->cat.m[m->model].name, m->gpus, 100 * m->util,
                m->gpu_hours);
    }
    if (q)
        gs_question_table(fp, q);
}

void gs_report_json(FILE *fp, const struct gs_sim *s)
{
    struct gs_question q;
    gs_report_json_q(fp, s, gs_question_analyse(s, &q) == 0 ? &q : NULL);
}

void gs_report_json_q(FILE *fp, const struct gs_sim *s,
                      const struct gs_question *q)
{
    const struct gs_summary *su = gs_sim_summary(s);
    const struct gs_scenario *sc = gs_sim_scenario(s);
    fprintf(fp, "{\n  \"gpusim\": \"%s\",\n  \"scenario\": ", GS_VERSION);
    json_str(fp, sc->name);
    fprintf(fp, ",\n  \"policy\": ");
    json_str(fp, gs_sim_policy_name(s));
    fprintf(fp, ",\n  \"placement\": ");
    json_str(fp, gs_sim_placer_name(s));
    fprintf(fp, ",\n  \"seed\": %llu", (unsigned long long)gs_sim_seed(s));
#define J(expr, name, fmt) fprintf(fp, ",\n  \"" name "\": " fmt, (double)(expr));
    GS_SUMMARY_FIELDS(J)
#undef J
    fprintf(fp, ",\n  \"policy_work\": %llu",
            (unsigned long long)su->policy_work);
    fprintf(fp, ",\n  \"tiers\": {");
    for (int t = -1; t < GS_NTIERS; t++) {
        const struct gs_tstats *x = scope(su, t);
        fprintf(fp, "%s\n    \"%s\": {", t < 0 ? "" : ",", scope_name(t));
        const char *sep = "";
#define T(f, label, unit) \
        fprintf(fp, "%s\"" label "\": %.10g", sep, (double)x->f); sep = ", ";
        GS_TSTATS_FIELDS(T)
#undef T
        fputc('}', fp);
    }
    fprintf(fp, "\n  },\n  \"models\": {");
    for (int k = 0; k < su->nmodels; k++) {
        const struct gs_mstats *m = &su->model[k];
        fprintf(fp, "%s\n    ", k ? "," : "");
        json_str(fp, sc->cat.m[m->model].name);
        fprintf(fp, ": {\"gpus\": %.0f, \"utilization\": %.6f, "
                "\"gpu_hours\": %.4f}", m->gpus, m->util, m->gpu_hours);
    }
    fprintf(fp, "\n  },\n  \"services\": {");
    for (int i = 0; i < gs_sim_nservices(s); i++) {
        const struct gs_svcsum *v = gs_sim_service(s, i);
        fprintf(fp, "%s\n    ", i ? "," : "");
        json_str(fp, v->name);
        fprintf(fp, ": {");
        const char *sep = "";
#define V(E, N, F, U) \
        fprintf(fp, "%s\"" N "\": " F, sep, (double)(E)); sep = ", ";
        GS_SVCSUM_FIELDS(V)
#undef V
        fputc('}', fp);
    }
    fprintf(fp, "\n  },\n  \"cost_by\": {");
    const struct gs_cloud *c = gs_sim_cloud(s);
    fprintf(fp, "\n    \"market\": {");
    for (int m = 0; m < GS_NMARKETS; m++)
        fprintf(fp, "%s\"%s\": %.6f", m ? ", " : "", gs_market_name(m),
                su->cloud.cost_market[m]);
    fprintf(fp, "},\n    \"tier\": {");
    for (int t = 0; t < GS_NTIERS; t++)
        fprintf(fp, "%s\"%s\": %.6f", t ? ", " : "", gs_tier_name(t),
                gs_cloud_cost_tier(c, t));
    fprintf(fp, "},\n    \"tenant\": {");
    for (int t = 0; t < gs_sim_ntenants(s); t++) {
        fprintf(fp, "%s", t ? ", " : "");
        json_str(fp, gs_sim_tenant_name(s, t));
        fprintf(fp, ": %.6f", gs_cloud_cost_tenant(c, t));
    }
    fprintf(fp, "},\n    \"model\": {");
    for (int k = 0; k < su->nmodels; k++) {
        double cost = 0;
        for (int p = 0; p < sc->npools; p++)
            if (sc->pools[p].model == su->model[k].model) {
                struct gs_cloud_poolbill b;
                gs_cloud_pool_bill(c, p, &b);
                cost += b.paid;
            }
        fprintf(fp, "%s", k ? ", " : "");
        json_str(fp, sc->cat.m[su->model[k].model].name);
        fprintf(fp, ": %.6f", cost);
    }
    fprintf(fp, "},\n    \"pool\": {");
    for (int p = 0; p < sc->npools; p++) {
        struct gs_cloud_poolbill b;
        gs_cloud_pool_bill(c, p, &b);
        fprintf(fp, "%s", p ? ", " : "");
        json_str(fp, sc->pools[p].name);
        fprintf(fp, ": {\"paid\": %.6f, \"jobs\": %.6f, \"idle\": %.6f, "
                "\"node_hours\": %.6f, \"idle_node_hours\": %.6f}", b.paid,
                b.jobs, b.paid - b.jobs, b.node_h, b.idle_node_h);
    }
    fprintf(fp, "},\n    \"idle\": %.6f\n  }", su->cloud.cost_idle);
    if (q)
        gs_question_json(fp, q);
    fprintf(fp, "\n}\n");
}

void gs_report_csv(FILE *fp, const struct gs_sim *s)
{
    const struct gs_summary *su = gs_sim_summary(s);
    const struct gs_scenario *sc = gs_sim_scenario(s);
    fprintf(fp, "scope,metric,value\n");
#define C(expr, name, fmt) fprintf(fp, "run," name "," fmt "\n", (double)(expr));
    GS_SUMMARY_FIELDS(C)
#undef C
    for (int t = -1; t < GS_NTIERS; t++) {
        const struct gs_tstats *x = scope(su, t);
#define T(f, label, unit) \
        fprintf(fp, "tier:%s," label ",%.10g\n", scope_name(t), (double)x->f);
        GS_TSTATS_FIELDS(T)
#undef T
    }
    for (int k = 0; k < su->nmodels; k++) {
        const struct gs_mstats *m = &su->model[k];
        const char *n = sc->cat.m[m->model].name;
        fprintf(fp, "model:%s,gpus,%.0f\n", n, m->gpus);
        fprintf(fp, "model:%s,utilization,%.6f\n", n, m->util);
        fprintf(fp, "model:%s,gpu_hours,%.4f\n", n, m->gpu_hours);
    }
    for (int i = 0; i < gs_sim_nservices(s); i++) {
        const struct gs_svcsum *v = gs_sim_service(s, i);
#define V(E, N, F, U) \
        fprintf(fp, "service:%s," N "," F "\n", v->name, (double)(E));
        GS_SVCSUM_FIELDS(V)
#undef V
    }
    const struct gs_cloud *c = gs_sim_cloud(s);
    for (int m = 0; m < GS_NMARKETS; m++)
        fprintf(fp, "cost:market:%s,usd,%.6f\n", gs_market_name(m),
                su->cloud.cost_market[m]);
    for (int t = 0; t < GS_NTIERS; t++)
        fprintf(fp, "cost:tier:%s,usd,%.6f\n", gs_tier_name(t),
                gs_cloud_cost_tier(c, t));
    for (int t = 0; t < gs_sim_ntenants(s); t++)
        fprintf(fp, "cost:tenant:%s,usd,%.6f\n", gs_sim_tenant_name(s, t),
                gs_cloud_cost_tenant(c, t));
    for (int p = 0; p < sc->npools; p++) {
        struct gs_cloud_poolbill b;
        gs_cloud_pool_bill(c, p, &b);
        fprintf(fp, "cost:pool:%s,usd,%.6f\n", sc->pools[p].name, b.paid);
        fprintf(fp, "cost:pool:%s,idle_usd,%.6f\n", sc->pools[p].name,
                b.paid - b.jobs);
    }
    fprintf(fp, "cost:idle,usd,%.6f\n", su->cloud.cost_idle);
}

/* --- what each field means (the HDF5 file's units and descriptions) ---- */

static const struct meta {
    const char *name, *units, *desc;
} metas[] = {
    /* summary scalars */
    { "span_h", "h", "time from the first arrival to the last event" },
    { "utilization", "1", "GPU-hours used / GPU-hours available" },
    { "gpu_hours_used", "h", "GPU-hours allocated to jobs" },
    { "gpu_hours_available", "h", "GPU-hours of GPUs up (in service)" },
    { "throughput_jobs_per_hour", "1/h", "jobs finished per hour of span" },
    { "cost_usd", "USD", "cost: the whole bill in /summary, a job's or a "
      "row's charge in a table" },
    { "cost_per_used_gpu_hour", "USD/h", "the bill / GPU-hours used" },
    { "preemptions", "1", "jobs preempted (each time counts)" },
    { "fairness_variance_min2", "min2", "variance over tenants of their "
      "mean queueing delay in minutes" },
    { "starved_jobs", "1", "jobs that waited longer than the starvation "
      "limit" },
    { "fragmentation", "1", "time-mean FGD fragmentation / capacity" },
    { "cpu_utilization", "1", "host CPU requested by running jobs / the "
      "fleet's, time mean" },
    { "memory_utilization", "1", "host memory requested by running jobs / "
      "the fleet's, time mean" },
    { "cpu_core_hours", "h", "host CPU core-hours requested by running jobs, "
      "CPU-only jobs included" },
    { "stranded_gpu_hours", "h", "GPU-hours free on nodes whose free CPU is "
      "below 1 core or free memory below 1 GiB" },
    { "mig_slice_utilization", "1", "busy / available MIG compute slices" },
    { "mig_reconfigurations", "1", "MIG layout changes" },
    { "oom_kills", "1", "jobs killed for GPU memory on shared GPUs" },
    { "reclaim_kills", "1", "burstable jobs killed when capacity was "
      "reclaimed" },
    { "reclaim_evictions", "1", "burstable jobs evicted (requeued) when "
      "capacity was reclaimed" },
    { "sharing_slowdown_mean", "1", "mean slowdown of jobs on shared GPUs" },
    { "timeslice_p99_added_ms", "ms", "p99 latency added by time-slicing, "
      "busy-time weighted" },
    { "cost_on_demand_usd", "USD", "paid for on-demand nodes" },
    { "cost_reserved_usd", "USD", "paid for reserved nodes" },
    { "cost_spot_usd", "USD", "paid for spot nodes" },
    { "cost_capacity_block_usd", "USD", "paid for capacity blocks" },
    { "cost_jobs_usd", "USD", "the part of the bill charged to jobs" },
    { "cost_idle_usd", "USD", "the part of the bill for idle capacity" },
    { "cost_on_demand_equiv_usd", "USD", "the same node-time at on-demand "
      "prices" },
    { "spot_savings_usd", "USD", "on-demand equivalent - paid, for spot "
      "nodes" },
    { "spot_interruptions", "1", "spot reclaims that hit running jobs" },
    { "spot_restarts", "1", "jobs restarted after a spot reclaim" },
    { "spot_lost_gpu_hours", "h", "GPU-hours of work lost to spot "
      "reclaims" },
    { "spot_node_hours", "h", "node-hours on spot capacity" },
    { "gpu_failures", "1", "GPU failures" },
    { "node_failures", "1", "node failures" },
    { "gpu_degradations", "1", "GPUs that ran degraded" },
    { "failure_restarts", "1", "jobs restarted after a failure" },
    { "failure_lost_gpu_hours", "h", "GPU-hours of work lost to failures" },
    { "job_denials", "1", "jobs denied for lack of capacity" },
    { "spare_swaps", "1", "failed nodes replaced from spares" },
    { "availability", "1", "GPU-hours up / GPU-hours provisioned" },
    { "node_hours", "h", "node-hours billed" },
    { "idle_node_hours", "h", "node-hours billed with no job" },
    { "nodes_launched", "1", "nodes the autoscaler launched" },
    { "nodes_removed", "1", "nodes the autoscaler removed" },
    { "drain_restarts", "1", "jobs restarted when a node was drained" },
    { "pending_to_capacity_mean_s", "s", "mean time from a job's wait for "
      "capacity to a node ready" },
    { "pending_to_capacity_max_s", "s", "longest such time" },
    { "jobs_reaped", "1", "idle jobs reaped" },
    { "jobs_done", "1", "jobs finished" },
    { "jobs_killed", "1", "jobs killed" },
    { "jobs_unfinished", "1", "jobs still running or queued at the end" },
    /* per-tier statistics */
    { "jobs", "1", "jobs in the scope" },
    { "started", "1", "jobs that started" },
    { "done", "1", "jobs that finished" },
    { "killed", "1", "jobs killed" },
    { "unfinished", "1", "jobs not finished at the end" },
    { "wait_mean_s", "s", "mean queueing delay (arrival to first start)" },
    { "wait_p50_s", "s", "median queueing delay" },
    { "wait_p95_s", "s", "95th percentile of the queueing delay" },
    { "wait_p99_s", "s", "99th percentile of the queueing delay" },
    { "wait_max_s", "s", "longest queueing delay" },
    { "jct_mean_s", "s", "mean job completion time (arrival to end)" },
    { "jct_p50_s", "s", "median job completion time" },
    { "jct_p95_s", "s", "95th percentile of the job completion time" },
    { "jct_p99_s", "s", "99th percentile of the job completion time" },
    { "sla_wait_violations", "1", "jobs that waited past their limit" },
    { "deadline_misses", "1", "jobs that ended past their deadline" },
    { "sla_violations", "1", "wait-limit violations + deadline misses" },
    /* /jobs columns */
    { "id", "1", "the job's id in the trace" },
    { "tenant", "1", "index into /tenants" },
    { "tier", "1", "index into /tiers" },
    { "state", "1", "index into /states" },
    { "kill", "1", "index into /kill_reasons" },
    { "model", "1", "index into /models of the GPU model it last ran on, "
      "-1 if none" },
    { "arrival_s", "s", "arrival, from the simulation's start" },
    { "start_s", "s", "first start, NaN if never" },
    { "end_s", "s", "end (finished or killed), NaN if not ended" },
    { "wait_s", "s", "queueing delay: first start - arrival, NaN if never "
      "started" },
    { "gpus", "1", "GPUs asked for (a fraction for a shared GPU)" },
    { "work_s", "s", "work on the reference GPU at full speed" },
    { "gpu_hours", "h", "GPU-hours allocated to the job" },
    { "sla_wait", "1", "1 when it waited past its limit" },
    { "sla_deadline", "1", "1 when it ended past its deadline" },
    { "lost_gpu_hours", "h", "GPU-hours of work lost to preemption, spot "
      "and failures" },
    /* /timeseries */
    { "time_s", "s", "sample time, from the first arrival" },
    { "allocated_gpus", "1", "GPUs allocated to jobs" },
    { "queue_length", "1", "jobs waiting" },
    { "running_jobs", "1", "jobs running" },
    { "gpus_up", "1", "GPUs in service" },
    { "cost_rate_usd_per_h", "USD/h", "the bill's rate" },
    { "mig_slice_busy", "1", "busy / available MIG compute slices" },
    { "stranded_gpus", "1", "GPUs free but unusable: free GPU capacity on "
      "up nodes whose free host CPU is below 1 core or free host memory "
      "below 1 GiB" },
    { "allocated_cpu_cores", "cores", "host CPU requested by running jobs" },
    { "allocated_memory_gib", "GiB", "host memory requested by running "
      "jobs" },
    { "idle_cost_rate_usd_per_h", "USD/h", "the rate of the bill for idle "
      "capacity" },
    { "nodes_in_service", "1", "nodes in service" },
    { "nodes_billed", "1", "nodes billed" },
    { "nodes_provisioning", "1", "nodes booting" },
    { "nodes_in_repair", "1", "nodes in repair" },
    { "nodes_spare", "1", "spare nodes" },
    { "gpus_failed", "1", "GPUs failed" },
    { "gpus_degraded", "1", "GPUs running degraded" },
};

static const char *units_by_suffix(const char *name)
{
    static const struct { const char *suf, *u; } sfx[] = {
        { "_usd_per_h", "USD/h" }, { "_usd", "USD" }, { "_ms", "ms" },
        { "_s", "s" }, { "_h", "h" }, { "_hours", "h" },
    };
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
        size_t k = strlen(sfx[i].suf);
        if (n > k && strcmp(name + n - k, sfx[i].suf) == 0)
            return sfx[i].u;
    }
    return "1";
}

int gs_report_meta(const char *name, const char **units, const char **desc)
{
    for (size_t i = 0; i < sizeof metas / sizeof metas[0]; i++)
        if (strcmp(metas[i].name, name) == 0) {
            *units = metas[i].units;
            *desc = metas[i].desc;
            return 0;
        }
    *units = units_by_suffix(name);
    *desc = "see the README's Results section";
    return -1;
}
