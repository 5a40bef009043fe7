/* h5desc.c -- what each dataset and column of a result file holds and
 * its unit: the writer's tables (h5desc.h).
 *
 * h5out.c puts these on every dataset it writes as the "units",
 * "description", "column_units" and "column_descriptions" attributes; the
 * names not listed here take report.c's metas (a summary scalar, a /jobs
 * column, a time series), and a model's own tables and series carry their
 * descriptions with them (gs_h5col's units and desc, gs_h5w_describe).
 * docs/hdf5.md is generated from the files so described (tests/hdf5doc.sh).
 * Units follow UDUNITS ("s", "h", "USD", "1" for a count or a ratio, ""
 * for text); a value whose unit varies by row or by metric names where its
 * own unit is written ("per row (units column)", "per metric (...)"). */
#include "h5desc.h"
#include "report.h"

#include <string.h>

/* What a dataset holds, by its name (the leaf of its path). */
static const struct { const char *name, *desc; } dset_desc[] = {
    { "scenario", "the scenario JSON exactly as given" },
    { "jobs", "one row per job; the integer codes index the label tables "
      "named by the *_labels attributes" },
    { "tenants", "tenant names, indexed by /jobs tenant" },
    { "tiers", "workload tiers, indexed by /jobs tier" },
    { "states", "job states, indexed by /jobs state" },
    { "kill_reasons", "why a job was killed, indexed by /jobs kill" },
    { "log_kinds", "event kinds, indexed by /cloud/log kind" },
    { "pools", "the bill per pool" },
    { "log", "every spot notice and reclaim, failure, repair, launch and "
      "removal" },
    { "values", "every run's metrics: [policy, seed, metric]" },
    { "table", "per policy and metric: n, mean, std, Student t quantile, "
      "half-width of the 95% interval, its bounds" },
    { "policies", "policy names, index P" },
    { "metrics", "metric names, the last index of values" },
    { "seeds", "the seeds, index K of seedK" },
    { "placers", "placer names, index P" },
};

/* What a dataset holds, by its path (leading "/" and a comparison's
 * "runs/POLICY/seedK/" left out): checked before dset_desc's leaf names,
 * for a leaf that means different things in different groups. */
static const struct { const char *path, *units, *desc; } path_desc[] = {
    { "models", NULL, "GPU model names, indexed by /jobs model" },
    { "summary/fields", NULL, "every summary metric as a row: name, value, units "
      "and description (the same figures as run --json)" },
    { "summary/tiers", NULL, "the per-tier statistics: one row per workload tier "
      "with jobs, and a last row 'all' over every job (scope names it)" },
    { "summary/models", NULL, "per GPU model in the fleet: GPUs, their time-mean "
      "utilization and the GPU-hours allocated on them" },
    { "cloud/cost_by_market", NULL, "the bill by market (on-demand, reserved, "
      "spot, capacity-block); the rows add up to /summary cost_usd" },
    { "cloud/cost_by_tier", NULL, "the jobs' part of the bill by workload tier" },
    { "cloud/cost_by_tenant", NULL, "the jobs' part of the bill by tenant" },
    { "cloud/cost_by_model", NULL, "the bill by GPU model of the pools" },
    { "services/names", NULL, "service names, indexed by /requests service and "
      "by the rows of /services/summary" },
    { "services/request_states", NULL, "request states, indexed by /requests "
      "state" },
    { "cloud/log_value_units", NULL, "the unit of /cloud/log's value for each "
      "event kind, indexed by /cloud/log kind" },
    { "cloud/log_value_meanings", NULL, "what /cloud/log's value holds for each "
      "event kind, indexed by /cloud/log kind" },
    { "compare/metric_units", NULL, "the unit of each metric of /compare/metrics "
      "(the last index of /compare/values)" },
    { "question/kind", NULL, "the question the run answers: steady (a "
      "steady state, its warm-up deleted) or finite (the whole run is the "
      "answer; intervals over replications)" },
    { "question/why", NULL, "the rule that decided the question (the "
      "scenario's \"question\" key, or the workload)" },
    { "question/estimates", NULL, "steady state: each estimate from the part "
      "of the run kept after MSER-5's warm-up, with its 95% interval from "
      "batch means (a mean) or sectioning (a pooled quantile); no rows for "
      "a finite-horizon run" },
    { "compare/question", NULL, "the scenario's question: steady (each "
      "run's steady-state analysis is in its runs/POLICY/seedK/question) or "
      "finite" },
    { "compare/question_why", NULL, "the rule that decided the question" },
    { "compare/interval_method", NULL, "how /compare/table's intervals are "
      "made" },
    { "plan/candidates/mean", NULL, "[candidate, metric]: each metric's mean over "
      "the candidate's seeds; in a steady-state question a percentile "
      "target's is the quantile of every seed's retained values pooled "
      "(units: each metric's, as in run --json; names in /plan/metrics)" },
    { "plan/candidates/seeds_run", NULL, "seeds each candidate was run with "
      "(fewer when stopped early)" },
    { "plan/candidates/status", NULL, "each candidate's verdict: feasible, "
      "infeasible, undecided, stopped early or ruled out without a run" },
    { "plan/targets/limit", NULL, "each target's limit, in its metric's unit "
      "(/plan/targets/units)" },
    { "plan/targets/metric", NULL, "each target's metric (as in run --json)" },
    { "plan/candidates/warmup_at_limit", "1", "[candidate, target]: its "
      "seeds whose MSER-5 minimum sat at the half-way bound where that "
      "decides the verdict (the transient not over); NaN as "
      "warmup_deleted" },
    { "plan/candidates/drain_share", "1", "[candidate, target]: the largest "
      "of its seeds' drain shares at its last length -- of the kept "
      "requests' time in the system, the part after the service's last "
      "arrival (over plan.precision: the runs shorter than the requests' "
      "sojourns need); NaN for a target of no service, or not run" },
    { "compare/values", "per metric (/compare/metric_units)", "every run's "
      "metrics: [policy, seed, metric]" },
    { "place_exp/seeds", "1", "the seeds, index S" },
    { "place_exp/arrived_load", "1", "[K] GPUs the pods offered so far ask "
      "for / the fleet's GPU capacity, at each point K of the curve" },
    { "place_exp/alloc_ratio", "1", "[P, S, K] GPUs allocated / capacity, "
      "by placer, seed and load point (NaN: no decision near it)" },
    { "place_exp/stranded_ratio", "1", "[P, S, K] GPUs free on nodes out of "
      "CPU or memory / capacity" },
    { "place_exp/cpu_alloc_ratio", "1", "[P, S, K] host CPU allocated / the "
      "fleet's CPU" },
    { "place_exp/failed_ratio", "1", "[P, S, K] GPUs of the pods that found "
      "no place / capacity" },
    { "place_exp/mean_alloc_ratio", "1", "[P, K] alloc_ratio's mean over "
      "the seeds" },
    { "place_exp/tasks", "1", "[P, S] pods offered" },
};

/* The unit of a column whose rows each have their own: the row's "units"
 * column says it. */
#define PER_ROW "per row (units column)"

/* A compound's column, by "PATH.COLUMN" (PATH as in path_desc), where its
 * meaning or unit is the table's own: checked before report.h's metas. */
static const struct { const char *col, *units, *desc; } col_desc[] = {
    { "question/estimates.what", "", "the estimate: SERVICE ttft_p99_s, "
      "SERVICE ttft_mean_s (each service's time to first token), or "
      "wait_p99_s, wait_mean_s (the jobs' waits)" },
    { "question/estimates.estimate", "s", "the estimate over the requests "
      "(jobs) kept after the warm-up" },
    { "question/estimates.half_width", "s", "half-width of its interval at "
      "level" },
    { "question/estimates.level", "1", "the interval's confidence level" },
    { "question/estimates.method", "", "the interval's method: batch means "
      "(a mean), or pooled quantile with a sectioning interval" },
    { "question/estimates.batches", "1", "batches (sections) of the "
      "interval" },
    { "question/estimates.warmup_deleted", "1", "requests (jobs), in "
      "arrival order, deleted from the front as warm-up by MSER-5" },
    { "question/estimates.observations", "1", "finished requests (started "
      "jobs) in the series, the warm-up included" },
    { "question/estimates.warmup_at_limit", "1", "1: MSER-5's minimum sat "
      "at its half-way bound, the warm-up may be longer (run longer)" },
    { "question/estimates.batches_independent", "1", "1: the lag-1 "
      "autocorrelation of twice as many batch means passed the "
      "independence check; 0: the interval is too narrow (run longer)" },
    { "question/estimates.lag1", "1", "lag-1 autocorrelation of 2 x "
      "batches batch means of the kept part" },
    { "question/estimates.tail", "1", "quantiles: values beyond the "
      "quantile in each section (the interval wants 100 or more); NaN for "
      "a mean" },
    { "jobs.cpu_milli", "millicores", "host CPU the job asks for on its "
      "node, in thousandths of a core (0: none asked)" },
    { "jobs.mem_mib", "MiB", "host memory the job asks for on its node "
      "(0: none asked)" },
    { "jobs.preemptions", "1", "times the job was preempted" },
    { "jobs.cost_usd", "USD", "what the job was charged: its share of the "
      "bill for the GPUs it held" },
    { "cloud/cost_by_market.cost_usd", "USD", "the bill in that market" },
    { "cloud/cost_by_tier.cost_usd", "USD", "what the tier's jobs were "
      "charged ('idle': the rest of the bill)" },
    { "cloud/cost_by_tenant.cost_usd", "USD", "what the tenant's jobs were "
      "charged ('idle': the rest of the bill)" },
    { "cloud/cost_by_model.cost_usd", "USD", "the bill for the pools of "
      "that GPU model" },
    { "requests.service", "1", "index into /services/names" },
    { "requests.index", "1", "arrival order of the request within its "
      "service, from 0" },
    { "requests.arrival_s", "s", "arrival, from the simulation's start" },
    { "requests.ttft_s", "s", "time to first token: arrival to the first "
      "output token, NaN if not reached" },
    { "requests.itl_s", "s", "mean inter-token latency over its output "
      "tokens after the first, NaN if fewer than two" },
    { "requests.e2e_s", "s", "end-to-end time: arrival to the last token, "
      "NaN if not finished" },
    { "requests.queue_s", "s", "queueing: TTFT less the prefill time the "
      "prompt takes on an idle replica" },
    { "requests.input_tokens", "tokens", "prompt length" },
    { "requests.output_tokens", "tokens", "output length" },
    { "requests.cached_tokens", "tokens", "prompt tokens served from the "
      "prefix cache" },
    { "requests.replica", "1", "the replica that served it last (index "
      "within its service), -1 if none" },
    { "requests.state", "1", "index into /services/request_states" },
    { "requests.restarts", "1", "times it restarted after losing its "
      "replica" },
    { "requests.energy_kwh", "kWh", "facility energy: its token shares of "
      "the iterations of the replicas it was on (dynamic and static power, "
      "hosts, x PUE); with the service's energy_idle_kwh, the service's "
      "energy_kwh (docs/energy.md)" },
    { "summary/tiers.scope", "", "the workload tier, or 'all'" },
    { "summary/models.model", "", "the GPU model's name" },
    { "summary/models.gpus", "1", "GPUs of that model in the fleet: its "
      "pools' nodes times GPUs per node" },
    { "summary/models.utilization", "1", "GPU-hours allocated / available "
      "on that model" },
    { "summary/models.gpu_hours", "h", "GPU-hours allocated on that model" },
    { "summary/fields.name", "", "the metric's name (as in run --json)" },
    { "summary/fields.units", "", "its unit" },
    { "summary/fields.description", "", "what it measures" },
    { "cloud/cost_by_market.name", "", "the market" },
    { "cloud/cost_by_tier.name", "", "the workload tier" },
    { "cloud/cost_by_tenant.name", "", "the tenant" },
    { "cloud/cost_by_model.name", "", "the GPU model" },
    { "cloud/pools.pool", "", "the pool's name" },
    { "cloud/pools.market", "", "its market (on-demand, reserved, spot, "
      "capacity-block)" },
    { "cloud/pools.paid_usd", "USD", "what the pool's nodes cost while "
      "billed" },
    { "cloud/pools.jobs_usd", "USD", "the part of paid_usd jobs used" },
    { "cloud/pools.idle_usd", "USD", "the part of paid_usd no job used" },
    { "cloud/pools.on_demand_equiv_usd", "USD", "what the same node-hours "
      "would cost on demand" },
    { "cloud/pools.node_hours", "h", "node-hours billed" },
    { "cloud/pools.idle_node_hours", "h", "node-hours billed with no job" },
    { "cloud/log.time_s", "s", "when, from the simulation's start" },
    { "cloud/log.kind", "1", "index into /cloud/log_kinds" },
    { "cloud/log.pool", "1", "index into /cloud/pools (the pool's row, "
      "scenario order), -1 if none" },
    { "cloud/log.node", "1", "global index of the node, -1 if none" },
    { "cloud/log.gpu", "1", "GPU index within the node, -1 for the whole "
      "node" },
    { "cloud/log.jobs", "1", "jobs it interrupted or killed" },
    { "cloud/log.value", "per kind (/cloud/log_value_units)", "the event's "
      "figure, as /cloud/log_value_meanings says for its kind (a launch's "
      "boot delay in s, a failure's age in s, ...)" },
    { "compare/table.policy", "", "the policy" },
    { "compare/table.metric", "", "the metric (as in run --json)" },
    { "compare/table.units", "", "the metric's unit: the unit of mean, std, "
      "half, ci_low and ci_high on this row" },
    { "compare/table.n", "1", "runs (seeds) the statistics are over" },
    { "compare/table.mean", PER_ROW, "mean over the seeds" },
    { "compare/table.std", PER_ROW, "sample standard deviation over the "
      "seeds" },
    { "compare/table.t", "1", "Student t quantile for the 95% interval "
      "(n - 1 degrees of freedom)" },
    { "compare/table.half", PER_ROW, "half-width of the 95% interval of the "
      "mean" },
    { "compare/table.ci_low", PER_ROW, "lower bound of the 95% interval" },
    { "compare/table.ci_high", PER_ROW, "upper bound of the 95% interval" },
    { "summary/fields.value", PER_ROW, "its value (a count is a whole "
      "number)" },
};

const char *gs_h5desc_dataset(const char *path, const char *leaf,
                              const char **units)
{
    const char *desc = NULL;
    *units = NULL;
    for (size_t i = 0; i < sizeof dset_desc / sizeof dset_desc[0]; i++)
        if (strcmp(dset_desc[i].name, leaf) == 0)
            desc = dset_desc[i].desc;
    for (size_t i = 0; i < sizeof path_desc / sizeof path_desc[0]; i++)
        if (strcmp(path_desc[i].path, path) == 0) {
            desc = path_desc[i].desc;
            *units = path_desc[i].units;
        }
    return desc;
}

/* A column's units and description: col_desc by "PATH.COLUMN", else by
 * the name alone (report.h). */
void gs_h5desc_column(const char *path, const char *col, const char **u,
                      const char **d)
{
    size_t pl = strlen(path);
    for (size_t i = 0; i < sizeof col_desc / sizeof col_desc[0]; i++) {
        const char *c = col_desc[i].col;
        if (strncmp(c, path, pl) == 0 && c[pl] == '.' &&
            strcmp(c + pl + 1, col) == 0) {
            *u = col_desc[i].units;
            *d = col_desc[i].desc;
            return;
        }
    }
    gs_report_meta(col, u, d);
}
