/* replayutil.c -- measured (DCGM) against replayed utilization, for
 * `gpusim replay-check --dcgm` (replay.h).
 *
 * The two sides measure different things, and the report says so:
 *   measured  what the GPUs did, from DCGM (traces/dcgm.c): busy GPU-hours
 *             are DCGM_FI_DEV_GPU_UTIL (the share of time a kernel ran on
 *             the GPU, not how many SMs it used) or, on MIG instances,
 *             DCGM_FI_PROF_GR_ENGINE_ACTIVE, times time; utilization is
 *             busy / GPU-hours observed; allocated GPU-hours are samples
 *             that carry a pod's namespace;
 *   replayed  what the replay's jobs held: GPU-hours from each job's
 *             record (its GPU-hours times the share of its run inside the
 *             window), busy = held x the job's busy share -- an imported
 *             job states no idle phases, so its busy share is 1 and the
 *             replay's busy GPU-hours are its held ones; utilization is
 *             busy / the fleet's GPU-hours (its pools' GPUs x the window).
 * So a measured utilization below the replayed one is GPU time that pods
 * held without running kernels, which a replay of the history cannot see;
 * above it, work the replay did not hold GPUs for (a different fleet or
 * policy, or jobs the import left out).
 *
 * Both sides are taken over the DCGM window: its first sample to its last
 * plus one step.  Models are matched by name: DCGM's modelName
 * ("NVIDIA A100-SXM4-80GB") mapped onto the catalog as the importers map
 * GPU product names; namespaces are matched with the replay's tenants (a
 * k8s-pods import's tenant is its namespace unless tenant_label says
 * otherwise).  By node there is only the measured side: a replay's fleet
 * groups nodes into pools and keeps no hostnames. */
#include "replay.h"
#include "../core/sim.h"
#include "../setup/scenario.h"
#include "../../traces/cimport.h"
#include "../../traces/dcgm.h"

#include <stdlib.h>
#include <string.h>

/* The replay's held GPU-hours inside [lo, hi) (ms of simulated time) by
 * catalog model (per_model[GS_MAX_MODELS]) and by tenant (per_tenant, one
 * per record's tenant index up to nt; NULL: not wanted); the total
 * returned. */
static double replay_held(const struct gs_sim *sim, double lo, double hi,
                          double *per_model, double *per_tenant, int nt)
{
    long n;
    const struct gs_jobrec *rec = gs_sim_records(sim, &n);
    double total = 0;
    for (long i = 0; i < n; i++) {
        const struct gs_jobrec *r = &rec[i];
        if (r->start < 0 || r->end <= r->start)
            continue;
        double a = (double)r->start > lo ? (double)r->start : lo;
        double b = (double)r->end < hi ? (double)r->end : hi;
        if (b <= a)
            continue;
        double h = r->gpu_hours * (b - a) / (double)(r->end - r->start);
        total += h;
        if (r->model >= 0 && r->model < GS_MAX_MODELS)
            per_model[r->model] += h;
        if (per_tenant && (int)r->tenant < nt)
            per_tenant[r->tenant] += h;
    }
    return total;
}

static double pct(double a, double b)
{
    return b > 0 ? 100.0 * a / b : 0.0;
}

/* By model: measured utilization against the replay's, for every model
 * either side has. */
static void by_model(FILE *fp, const struct gs_dcgm *m,
                     const struct gs_sim *sim, const double *held,
                     double hours)
{
    const struct gs_scenario *sc = gs_sim_scenario(sim);
    struct gs_catalog cat = sc->cat;
    double fleet[GS_MAX_MODELS] = { 0 };
    const struct gs_fleet *f = gs_sim_fleet(sim);
    for (int p = 0; p < f->npools; p++)
        if (f->pools[p].s.model >= 0 && f->pools[p].s.model < GS_MAX_MODELS)
            fleet[f->pools[p].s.model] += (double)f->pools[p].s.nodes *
                                          f->pools[p].s.gpn * hours;
    double mobs[GS_MAX_MODELS] = { 0 }, mbusy[GS_MAX_MODELS] = { 0 };
    int ng = gs_dcgm_ngroups(m, GS_DCGM_BY_MODEL);
    double other_obs = 0, other_busy = 0;
    for (int i = 0; i < ng; i++) {
        struct gs_dcgm_group g;
        gs_dcgm_group(m, GS_DCGM_BY_MODEL, i, &g);
        int w = 0, k = gs_cimp_gpu_model(&cat, g.name, 0, &w);
        if (k >= 0 && k < sc->cat.n && !w) {
            mobs[k] += g.observed_h;
            mbusy[k] += g.busy_h;
        } else {
            other_obs += g.observed_h;
            other_busy += g.busy_h;
        }
    }
    fprintf(fp, "\n  by model         measured: util  busy GPU-h   "
            "replayed: util  busy GPU-h\n");
    for (int k = 0; k < sc->cat.n; k++)
        if (mobs[k] > 0 || fleet[k] > 0)
            fprintf(fp, "  %-16s %13.1f%% %11.2f %15.1f%% %11.2f\n",
                    sc->cat.m[k].name, pct(mbusy[k], mobs[k]), mbusy[k],
                    pct(held[k], fleet[k]), held[k]);
    if (other_obs > 0)
        fprintf(fp, "  %-16s %13.1f%% %11.2f %16s %11s\n", "(not in catalog)",
                pct(other_busy, other_obs), other_busy, "-", "-");
}

/* By namespace: measured busy and allocated GPU-hours against the replay's
 * held ones of the tenant of that name. */
static void by_namespace(FILE *fp, const struct gs_dcgm *m,
                         const struct gs_sim *sim, const double *held, int nt)
{
    fprintf(fp, "\n  by namespace     measured: busy GPU-h  allocated   "
            "replayed: busy GPU-h\n");
    char *seen = calloc((size_t)nt + 1, 1);
    int ng = gs_dcgm_ngroups(m, GS_DCGM_BY_NS);
    for (int i = 0; i < ng; i++) {
        struct gs_dcgm_group g;
        gs_dcgm_group(m, GS_DCGM_BY_NS, i, &g);
        int t = 0;
        while (t < nt && strcmp(gs_sim_tenant_name(sim, t), g.name) != 0)
            t++;
        if (t < nt && seen)
            seen[t] = 1;
        fprintf(fp, "  %-16s %20.2f %10.2f ", g.name, g.busy_h, g.alloc_h);
        if (t < nt)
            fprintf(fp, "%21.2f\n", held[t]);
        else
            fprintf(fp, "%21s\n", "-");
    }
    for (int t = 0; t < nt; t++)
        if (held[t] > 0 && (seen == NULL || !seen[t]))
            fprintf(fp, "  %-16s %20s %10s %21.2f\n", gs_sim_tenant_name(sim, t),
                    "-", "-", held[t]);
    free(seen);
}

/* By hour: DCGM's GPU-hours seen, allocated and busy in each hour (the
 * mean GPUs over the hour) against the replay's held (= busy) GPU-hours
 * in the same hour, both within the window [lo, hi) (ms of simulated
 * time). */
static void by_hour(FILE *fp, const struct gs_dcgm *m,
                    const struct gs_sim *sim, int64_t origin_ms, double lo,
                    double hi)
{
    struct gs_dcgm_hours h;
    gs_dcgm_hours(m, &h);
    double pm[GS_MAX_MODELS];
    fprintf(fp, "\n  hour (UTC)           GPU-hours  measured: seen  allocated  "
            "busy   replayed: held = busy\n");
    for (int i = 0; i < h.n; i++) {
        double a = (double)(h.t0_ms + i * 3600000LL - origin_ms);
        double b = a + 3600000.0;
        memset(pm, 0, sizeof pm);
        double held = replay_held(sim, a > lo ? a : lo, b < hi ? b : hi, pm,
                                  NULL, 0);
        char when[32];
        gs_cimp_fmt_utc(h.t0_ms + i * 3600000LL, when, sizeof when);
        fprintf(fp, "  %-20s %25.2f %10.2f %6.2f %24.2f\n", when, h.seen[i],
                h.alloc[i], h.busy[i], held);
    }
}

int gs_replay_util_print(FILE *fp, const char *const *files, int nfiles,
                         const struct gs_sim *sim, int64_t origin_ms,
                         struct gs_diag *d)
{
    struct gs_dcgm_opts o = { .idle = 0.05 };
    struct gs_dcgm *m = NULL;
    int rc = gs_dcgm_load(files, nfiles, &o, &m, d);
    if (rc < 0)
        return rc;
    struct gs_dcgm_totals t;
    gs_dcgm_totals(m, &t);
    double lo = (double)(t.first_ms - origin_ms);
    double hi = (double)(t.last_ms + t.step_ms - origin_ms);
    double hours = (hi - lo) / 3600000.0;
    int nt = gs_sim_ntenants(sim);
    double held_m[GS_MAX_MODELS] = { 0 };
    double *held_t = calloc((size_t)nt + 1, sizeof *held_t);
    if (held_t == NULL) {
        gs_dcgm_free(m);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    double held = replay_held(sim, lo, hi, held_m, held_t, nt);
    const struct gs_fleet *f = gs_sim_fleet(sim);
    double fleet_h = (double)f->ngpus * hours;
    char a[32], b[32];
    gs_cimp_fmt_utc(t.first_ms, a, sizeof a);
    gs_cimp_fmt_utc(t.last_ms + t.step_ms, b, sizeof b);
    fprintf(fp, "\n  utilization over the DCGM window %s .. %s (%.2f h)\n",
            a, b, hours);
    fprintf(fp, "  measured    DCGM: busy = GPU_UTIL (the share of time a "
            "kernel ran; GR_ENGINE_ACTIVE on MIG instances) x time; util = "
            "busy / GPU-hours observed\n");
    fprintf(fp, "  replayed    gpusim: busy = GPU-hours the jobs held x their "
            "busy share (1 for an imported job: busy = held); util = busy / "
            "the fleet's GPU-hours\n");
    fprintf(fp, "  total       measured util %.1f%% (%.2f busy of %.2f "
            "observed GPU-h; %.2f allocated); replayed util %.1f%% (%.2f of "
            "%.2f GPU-h)\n", pct(t.busy_h, t.observed_h), t.busy_h,
            t.observed_h, t.alloc_h, pct(held, fleet_h), held, fleet_h);
    by_model(fp, m, sim, held_m, hours);
    by_namespace(fp, m, sim, held_t, nt);
    by_hour(fp, m, sim, origin_ms, lo, hi);
    fprintf(fp, "\n  by node: measured only (gpusim trace dcgm); a replay's "
            "pools keep no hostnames\n");
    free(held_t);
    gs_dcgm_free(m);
    return 0;
}
