/* report.c -- print a run's summary (see report.h). */
#include "report.h"
#include "../core/model.h"
#include "jsoncheck.h"
#include "question.h"
#include "../base/version.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* s as a JSON string.  Scenario files are UTF-8 (jsoncheck.h); a name
 * from elsewhere (a trace's tenant) that is not has each stray byte
 * printed as U+FFFD, so the output is always valid JSON. */
void gs_report_json_str(FILE *fp, const char *s)
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

void gs_report_json_num(FILE *fp, const char *fmt, double v)
{
    if (isfinite(v))
        fprintf(fp, fmt, v);
    else
        fputs("null", fp);
}

/* Output hook h of every model, in output order (model.h), with st NULL
 * for a model not in the run. */
#define MODELS_OUT(h, s, fp)                                            \
    do {                                                                \
        for (int mo_ = 0; gs_model_out(mo_); mo_++)                     \
            if (gs_model_out(mo_)->h)                                   \
                gs_model_out(mo_)->h((s), gs_sim_model((s),             \
                                     gs_model_out(mo_)), (fp));         \
    } while (0)

static const char *scope_name(int t)
{
    return t < 0 ? "all" : gs_tier_name(t);
}

static const struct gs_tstats *scope(const struct gs_summary *su, int t)
{
    return t < 0 ? &su->all : &su->tier[t];
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
    MODELS_OUT(report, s, fp);
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
    MODELS_OUT(report_tables, s, fp);
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
    gs_report_json_str(fp, sc->name);
    fprintf(fp, ",\n  \"policy\": ");
    gs_report_json_str(fp, gs_sim_policy_name(s));
    fprintf(fp, ",\n  \"placement\": ");
    gs_report_json_str(fp, gs_sim_placer_name(s));
    fprintf(fp, ",\n  \"seed\": %llu", (unsigned long long)gs_sim_seed(s));
    double v[GS_SUMMARY_NMAX];
    gs_summary_values(su, v);
    for (int i = 0; i < gs_summary_nfields(); i++) {
        fprintf(fp, ",\n  \"%s\": ", gs_summary_field_name(i));
        gs_report_json_num(fp, gs_summary_field_fmt(i), v[i]);
    }
    fprintf(fp, ",\n  \"policy_work\": %llu",
            (unsigned long long)su->policy_work);
    fprintf(fp, ",\n  \"tiers\": {");
    for (int t = -1; t < GS_NTIERS; t++) {
        const struct gs_tstats *x = scope(su, t);
        fprintf(fp, "%s\n    \"%s\": {", t < 0 ? "" : ",", scope_name(t));
        const char *sep = "";
#define T(f, label, unit) \
        fprintf(fp, "%s\"" label "\": ", sep); \
        gs_report_json_num(fp, "%.10g", (double)x->f); sep = ", ";
        GS_TSTATS_FIELDS(T)
#undef T
        fputc('}', fp);
    }
    fprintf(fp, "\n  },\n  \"models\": {");
    for (int k = 0; k < su->nmodels; k++) {
        const struct gs_mstats *m = &su->model[k];
        fprintf(fp, "%s\n    ", k ? "," : "");
        gs_report_json_str(fp, sc->cat.m[m->model].name);
        fprintf(fp, ": {\"gpus\": ");
        gs_report_json_num(fp, "%.0f", m->gpus);
        fprintf(fp, ", \"utilization\": ");
        gs_report_json_num(fp, "%.6f", m->util);
        fprintf(fp, ", \"gpu_hours\": ");
        gs_report_json_num(fp, "%.4f", m->gpu_hours);
        fputc('}', fp);
    }
    fprintf(fp, "\n  }");
    MODELS_OUT(json, s, fp);
    MODELS_OUT(json_end, s, fp);
    if (q)
        gs_question_json(fp, q);
    fprintf(fp, "\n}\n");
}

void gs_report_csv(FILE *fp, const struct gs_sim *s)
{
    const struct gs_summary *su = gs_sim_summary(s);
    const struct gs_scenario *sc = gs_sim_scenario(s);
    fprintf(fp, "scope,metric,value\n");
    double v[GS_SUMMARY_NMAX];
    gs_summary_values(su, v);
    for (int i = 0; i < gs_summary_nfields(); i++) {
        fprintf(fp, "run,%s,", gs_summary_field_name(i));
        fprintf(fp, gs_summary_field_fmt(i), v[i]);
        fputc('\n', fp);
    }
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
    MODELS_OUT(csv, s, fp);
    MODELS_OUT(csv_end, s, fp);
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
    for (int i = 0; i < gs_summary_nfields(); i++) {
        const char *u, *d;
        gs_summary_field_meta(i, &u, &d);
        if (u && d && strcmp(gs_summary_field_name(i), name) == 0) {
            *units = u;
            *desc = d;
            return 0;
        }
    }
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
