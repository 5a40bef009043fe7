/* cloudout.c -- the cloud's part of every output: its summary scalars,
 * the bill's lines in the text report, the bill's breakdown in --json and
 * CSV, and the HDF5 file's /cloud group (model.h's output hooks; h5out.h's
 * writer calls).  Nothing outside the cloud names these: the writers call
 * the hooks. */
#include "cloud.h"
#include "cloudint.h"
#include "../io/h5out.h"
#include "../io/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The scalars, in the order they print (docs/cloud.md). */
const struct gs_field gs_cloud_fields[] = {
    { "cost_on_demand_usd", "%.2f", "USD",
      "paid for on-demand nodes" },
    { "cost_reserved_usd", "%.2f", "USD",
      "paid for reserved nodes" },
    { "cost_spot_usd", "%.2f", "USD",
      "paid for spot nodes" },
    { "cost_capacity_block_usd", "%.2f", "USD",
      "paid for capacity blocks" },
    { "cost_jobs_usd", "%.2f", "USD",
      "the part of the bill charged to jobs" },
    { "cost_idle_usd", "%.2f", "USD",
      "the part of the bill for idle capacity" },
    { "cost_on_demand_equiv_usd", "%.2f", "USD",
      "the same node-time at on-demand prices" },
    { "spot_savings_usd", "%.2f", "USD",
      "on-demand equivalent - paid, for spot nodes" },
    { "spot_interruptions", "%.0f", "1",
      "spot reclaims that hit running jobs" },
    { "spot_restarts", "%.0f", "1",
      "jobs restarted after a spot reclaim" },
    { "spot_lost_gpu_hours", "%.4f", "h",
      "GPU-hours of work lost to spot reclaims" },
    { "spot_node_hours", "%.4f", "h",
      "node-hours on spot capacity" },
    { "gpu_failures", "%.0f", "1",
      "GPU failures" },
    { "node_failures", "%.0f", "1",
      "node failures" },
    { "gpu_degradations", "%.0f", "1",
      "GPUs that ran degraded" },
    { "failure_restarts", "%.0f", "1",
      "jobs restarted after a failure" },
    { "failure_lost_gpu_hours", "%.4f", "h",
      "GPU-hours of work lost to failures" },
    { "job_denials", "%.0f", "1",
      "jobs denied for lack of capacity" },
    { "spare_swaps", "%.0f", "1",
      "failed nodes replaced from spares" },
    { "availability", "%.6f", "1",
      "GPU-hours up / GPU-hours provisioned" },
    { "node_hours", "%.4f", "h",
      "node-hours billed" },
    { "idle_node_hours", "%.4f", "h",
      "node-hours billed with no job" },
    { "nodes_launched", "%.0f", "1",
      "nodes the autoscaler launched" },
    { "nodes_removed", "%.0f", "1",
      "nodes the autoscaler removed" },
    { "drain_restarts", "%.0f", "1",
      "jobs restarted when a node was drained" },
    { "pending_to_capacity_mean_s", "%.3f", "s",
      "mean time from a job's wait for capacity to a node ready" },
    { "pending_to_capacity_max_s", "%.3f", "s",
      "longest such time" },
    { "jobs_reaped", "%.0f", "1",
      "idle jobs reaped" },
};
_Static_assert(sizeof gs_cloud_fields / sizeof gs_cloud_fields[0] ==
               GS_CLOUD_NFIELDS, "GS_CLOUD_NFIELDS");

void gs_cloud_values(const void *st, double *v)
{
    const struct gs_cloudsum *c = &((const struct gs_cloud *)st)->out;
    int i = 0;
    v[i++] = (double)c->cost_market[0];
    v[i++] = (double)c->cost_market[1];
    v[i++] = (double)c->cost_market[2];
    v[i++] = (double)c->cost_market[3];
    v[i++] = (double)c->cost_jobs;
    v[i++] = (double)c->cost_idle;
    v[i++] = (double)c->cost_ondemand_equiv;
    v[i++] = (double)c->spot_savings;
    v[i++] = (double)c->spot_reclaims;
    v[i++] = (double)c->spot_restarts;
    v[i++] = (double)c->spot_lost_gpu_h;
    v[i++] = (double)c->spot_exposure_node_h;
    v[i++] = (double)c->gpu_failures;
    v[i++] = (double)c->node_failures;
    v[i++] = (double)c->degradations;
    v[i++] = (double)c->fail_restarts;
    v[i++] = (double)c->fail_lost_gpu_h;
    v[i++] = (double)c->denials;
    v[i++] = (double)c->spare_swaps;
    v[i++] = (double)c->availability;
    v[i++] = (double)c->node_hours;
    v[i++] = (double)c->idle_node_hours;
    v[i++] = (double)c->launched;
    v[i++] = (double)c->removed;
    v[i++] = (double)c->drain_restarts;
    v[i++] = (double)c->pend_to_cap_mean_s;
    v[i++] = (double)c->pend_to_cap_max_s;
    v[i++] = (double)c->reaped;
    GS_ASSERT(i == GS_CLOUD_NFIELDS);
}

static int has_market(const struct gs_scenario *sc, int market)
{
    for (int i = 0; i < sc->npools; i++)
        if (sc->pools[i].market == market)
            return 1;
    return 0;
}

/* The bill's part each tenant's jobs ran up, the dearest first (ties in
 * tenant order); past TENANT_LINE tenants the rest are summed. */
#define TENANT_LINE 6
static void tenant_line(FILE *fp, const struct gs_sim *s,
                        const struct gs_cloud *c)
{
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

/* The lines of the text table: only what the scenario has. */
void gs_cloud_report(const struct gs_sim *s, const void *st, FILE *fp)
{
    if (st == NULL)
        return;
    const struct gs_summary *su = gs_sim_summary(s);
    const struct gs_scenario *sc = gs_sim_scenario(s);
    const struct gs_cloudsum *c = &((const struct gs_cloud *)st)->out;
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
    tenant_line(fp, s, st);
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

/* What the pools of GPU model `model` were paid. */
static double model_paid(const struct gs_cloud *c,
                         const struct gs_scenario *sc, int model)
{
    double cost = 0;
    for (int p = 0; p < sc->npools; p++)
        if (sc->pools[p].model == model) {
            struct gs_cloud_poolbill b;
            gs_cloud_pool_bill(c, p, &b);
            cost += b.paid;
        }
    return cost;
}

/* --json's "cost_by": the bill by market, tier, tenant, model and pool. */
void gs_cloud_json(const struct gs_sim *s, const void *st, FILE *fp)
{
    if (st == NULL)
        return;
    const struct gs_cloud *c = st;
    const struct gs_summary *su = gs_sim_summary(s);
    const struct gs_scenario *sc = gs_sim_scenario(s);
    fprintf(fp, ",\n  \"cost_by\": {");
    fprintf(fp, "\n    \"market\": {");
    for (int m = 0; m < GS_NMARKETS; m++) {
        fprintf(fp, "%s\"%s\": ", m ? ", " : "", gs_market_name(m));
        gs_report_json_num(fp, "%.6f", c->out.cost_market[m]);
    }
    fprintf(fp, "},\n    \"tier\": {");
    for (int t = 0; t < GS_NTIERS; t++) {
        fprintf(fp, "%s\"%s\": ", t ? ", " : "", gs_tier_name(t));
        gs_report_json_num(fp, "%.6f", gs_cloud_cost_tier(c, t));
    }
    fprintf(fp, "},\n    \"tenant\": {");
    for (int t = 0; t < gs_sim_ntenants(s); t++) {
        fprintf(fp, "%s", t ? ", " : "");
        gs_report_json_str(fp, gs_sim_tenant_name(s, t));
        fprintf(fp, ": ");
        gs_report_json_num(fp, "%.6f", gs_cloud_cost_tenant(c, t));
    }
    fprintf(fp, "},\n    \"model\": {");
    for (int k = 0; k < su->nmodels; k++) {
        fprintf(fp, "%s", k ? ", " : "");
        gs_report_json_str(fp, sc->cat.m[su->model[k].model].name);
        fprintf(fp, ": ");
        gs_report_json_num(fp, "%.6f",
                           model_paid(c, sc, su->model[k].model));
    }
    fprintf(fp, "},\n    \"pool\": {");
    for (int p = 0; p < sc->npools; p++) {
        struct gs_cloud_poolbill b;
        gs_cloud_pool_bill(c, p, &b);
        fprintf(fp, "%s", p ? ", " : "");
        gs_report_json_str(fp, sc->pools[p].name);
        const char *name[] = { "paid", "jobs", "idle", "node_hours",
                               "idle_node_hours" };
        double v[] = { b.paid, b.jobs, b.paid - b.jobs, b.node_h,
                       b.idle_node_h };
        for (int i = 0; i < 5; i++) {
            fprintf(fp, "%s\"%s\": ", i ? ", " : ": {", name[i]);
            gs_report_json_num(fp, "%.6f", v[i]);
        }
        fputc('}', fp);
    }
    fprintf(fp, "},\n    \"idle\": ");
    gs_report_json_num(fp, "%.6f", c->out.cost_idle);
    fprintf(fp, "\n  }");
}

/* The CSV's "cost:" rows. */
void gs_cloud_csv(const struct gs_sim *s, const void *st, FILE *fp)
{
    if (st == NULL)
        return;
    const struct gs_cloud *c = st;
    const struct gs_scenario *sc = gs_sim_scenario(s);
    for (int m = 0; m < GS_NMARKETS; m++)
        fprintf(fp, "cost:market:%s,usd,%.6f\n", gs_market_name(m),
                c->out.cost_market[m]);
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
    fprintf(fp, "cost:idle,usd,%.6f\n", c->out.cost_idle);
}

/* --- the HDF5 file's /cloud (layout in h5out.h) ------------------------- */

struct cost_row {
    const char *name;
    double cost_usd;
};

static const struct gs_h5col cost_cols[] = {
    { "name", GS_H5_STR, offsetof(struct cost_row, name), NULL, NULL },
    { "cost_usd", GS_H5_F64, offsetof(struct cost_row, cost_usd), NULL,
      NULL },
};

static void cost_table(struct gs_h5w *w, gs_h5loc g, const char *name,
                       const struct cost_row *rows, size_t n)
{
    gs_h5w_table(w, g, name, cost_cols, 2, sizeof(struct cost_row), rows, n);
}

struct pool_row {
    const char *pool, *market;
    double paid_usd, jobs_usd, idle_usd, on_demand_equiv_usd, node_hours,
        idle_node_hours;
};

#define PC(f) { #f, GS_H5_F64, offsetof(struct pool_row, f), NULL, NULL }
static const struct gs_h5col pool_cols[] = {
    { "pool", GS_H5_STR, offsetof(struct pool_row, pool), NULL, NULL },
    { "market", GS_H5_STR, offsetof(struct pool_row, market), NULL, NULL },
    PC(paid_usd), PC(jobs_usd), PC(idle_usd), PC(on_demand_equiv_usd),
    PC(node_hours), PC(idle_node_hours),
};
#undef PC

/* What /cloud/log's value column holds for each event kind (enum gs_cev
 * order), and its unit: /cloud/log_value_units and log_value_meanings. */
static const struct { const char *units, *meaning; } cev_value[GS_NCEV] = {
    { "s", "time left until the reclaim" },
    { "h", "GPU-hours of work lost by the jobs interrupted" },
    { "s", "the node's age at the failure (time since it came up)" },
    { "s", "the node's age at the GPU's failure" },
    { "s", "the node's age when the GPU degraded" },
    { "1", "1 when the node returned as a spare, else 0" },
    { "1", "0 (none)" },
    { "s", "boot delay until the node is ready" },
    { "s", "time the pool waited for capacity" },
    { "1", "0 (none)" },
    { "1", "0 (none)" },
    { "1", "slots the capacity block holds" },
    { "1", "slots the capacity block held" },
    { "1", "the id of the job reaped" },
};

struct log_row {
    double time_s;
    int32_t kind, pool, node, gpu, jobs;
    double value;
};

#define LC(f) { #f, GS_H5_I32, offsetof(struct log_row, f), NULL, NULL }
static const struct gs_h5col log_cols[] = {
    { "time_s", GS_H5_F64, offsetof(struct log_row, time_s), NULL, NULL },
    LC(kind), LC(pool), LC(node), LC(gpu), LC(jobs),
    { "value", GS_H5_F64, offsetof(struct log_row, value), NULL, NULL },
};
#undef LC

static void cost_tables(struct gs_h5w *w, gs_h5loc g, const struct gs_sim *s,
                        const struct gs_cloud *c, struct cost_row *rows)
{
    const struct gs_summary *su = gs_sim_summary(s);
    const struct gs_scenario *sc = gs_sim_scenario(s);
    size_t n = 0;
    for (int m = 0; m < GS_NMARKETS; m++) {
        rows[n].name = gs_market_name(m);
        rows[n++].cost_usd = c->out.cost_market[m];
    }
    cost_table(w, g, "cost_by_market", rows, n);
    n = 0;
    for (int t = 0; t < GS_NTIERS; t++) {
        rows[n].name = gs_tier_name(t);
        rows[n++].cost_usd = gs_cloud_cost_tier(c, t);
    }
    rows[n].name = "idle";
    rows[n++].cost_usd = c->out.cost_idle;
    cost_table(w, g, "cost_by_tier", rows, n);
    n = 0;
    for (int t = 0; t < gs_sim_ntenants(s); t++) {
        rows[n].name = gs_sim_tenant_name(s, t);
        rows[n++].cost_usd = gs_cloud_cost_tenant(c, t);
    }
    rows[n].name = "idle";
    rows[n++].cost_usd = c->out.cost_idle;
    cost_table(w, g, "cost_by_tenant", rows, n);
    n = 0;
    for (int k = 0; k < su->nmodels; k++) {
        int model = su->model[k].model;
        rows[n].name = sc->cat.m[model].name;
        rows[n++].cost_usd = model_paid(c, sc, model);
    }
    cost_table(w, g, "cost_by_model", rows, n);
}

static void pools_table(struct gs_h5w *w, gs_h5loc g,
                        const struct gs_scenario *sc, const struct gs_cloud *c,
                        struct pool_row *prow)
{
    int np = sc->npools;
    for (int p = 0; p < np; p++) {
        struct gs_cloud_poolbill b;
        gs_cloud_pool_bill(c, p, &b);
        prow[p].pool = sc->pools[p].name;
        prow[p].market = gs_market_name(sc->pools[p].market);
        prow[p].paid_usd = b.paid;
        prow[p].jobs_usd = b.jobs;
        prow[p].idle_usd = b.paid - b.jobs;
        prow[p].on_demand_equiv_usd = b.od_equiv;
        prow[p].node_hours = b.node_h;
        prow[p].idle_node_hours = b.idle_node_h;
    }
    gs_h5w_table(w, g, "pools", pool_cols,
                 (int)(sizeof pool_cols / sizeof pool_cols[0]),
                 sizeof(struct pool_row), prow, (size_t)np);
}

static void log_table(struct gs_h5w *w, gs_h5loc g, const struct gs_cloud *c)
{
    long nl;
    const struct gs_cevent *log = gs_cloud_log(c, &nl);
    struct log_row *lr = calloc((size_t)(nl ? nl : 1), sizeof *lr);
    if (lr == NULL) {
        gs_h5w_fail(w, "/cloud/log");
        return;
    }
    for (long i = 0; i < nl; i++)
        lr[i] = (struct log_row){
            log[i].t < 0 ? NAN : (double)log[i].t / 1000.0, log[i].kind,
            log[i].pool, log[i].node, log[i].gpu, log[i].jobs, log[i].value };
    gs_h5w_table(w, g, "log", log_cols,
                 (int)(sizeof log_cols / sizeof log_cols[0]),
                 sizeof(struct log_row), lr, (size_t)nl);
    free(lr);
    const char *kinds[GS_NCEV], *units[GS_NCEV], *meaning[GS_NCEV];
    for (int k = 0; k < GS_NCEV; k++) {
        kinds[k] = gs_cev_name(k);
        units[k] = cev_value[k].units;
        meaning[k] = cev_value[k].meaning;
    }
    gs_h5w_strings(w, g, "log_kinds", kinds, GS_NCEV);
    gs_h5w_strings(w, g, "log_value_units", units, GS_NCEV);
    gs_h5w_strings(w, g, "log_value_meanings", meaning, GS_NCEV);
}

void gs_cloud_h5(const struct gs_sim *s, const void *st, struct gs_h5w *w)
{
    if (st == NULL)
        return;
    const struct gs_cloud *c = st;
    const struct gs_scenario *sc = gs_sim_scenario(s);
    gs_h5loc g = gs_h5w_group(w, gs_h5w_root(w), "cloud");
    if (g < 0)
        return;
    int nt = gs_sim_ntenants(s), np = sc->npools;
    size_t cap = (size_t)(nt + np + GS_MAX_MODELS + GS_NTIERS + 8);
    struct cost_row *rows = calloc(cap, sizeof *rows);
    struct pool_row *prow = calloc((size_t)np + 1, sizeof *prow);
    if (rows == NULL || prow == NULL) {
        gs_h5w_fail(w, "/cloud");
    } else {
        cost_tables(w, g, s, c, rows);
        pools_table(w, g, sc, c, prow);
        log_table(w, g, c);
    }
    free(rows);
    free(prow);
    gs_h5w_close(g);
}
