/* planadvice.c -- right-sizing advice of `gpusim plan`: from one run of
 * the chosen plan, per tier the peak and mean GPUs its jobs held and the
 * smallest GPU model or MIG profile their memory fits; then each model's
 * own advice (model.h plan_report: per service its replicas, GPU
 * utilization and the peak memory per replica GPU, inference/svcout.c).
 *
 * The memory a fit needs is the peak asked (or used) plus a 20% buffer;
 * a MIG profile also needs the share of compute slices that the peak
 * utilization asks (a GPU busy u of the time needs about u of its SMs). */
#include "planint.h"
#include "../cluster/mig.h"
#include "../setup/scenario.h"
#include "../core/model.h"
#include "../setup/setup.h"
#include "../setup/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ev { gs_time t; double g; int tier; };

static int ev_cmp(const void *a, const void *b)
{
    const struct ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->g > y->g) - (x->g < y->g);
}

/* Right-sizing: per tier, from one run of sc (the first seed) and its
 * workload. */
int gs_plan_rightsize(FILE *fp, const struct gs_scenario *sc,
                     struct gs_diag *d)
{
    double peak_mem[GS_NTIERS] = { 0 }, max_frac[GS_NTIERS] = { 0 };
    int max_gpus[GS_NTIERS] = { 0 };
    struct gs_source src;
    int rc = gs_source_open(sc, sc->seed, &src, d);
    if (rc < 0)
        return rc;
    struct gs_jobspec sp;
    while ((rc = gs_source_next(&src, &sp, d)) == 1) {
        int t = sp.tier;
        if (t < 0 || t >= GS_NTIERS)
            continue;
        if (sp.mem_gb > peak_mem[t])
            peak_mem[t] = sp.mem_gb;
        if (sp.gpus > max_gpus[t])
            max_gpus[t] = sp.gpus;
        double f = sp.gpus > 0 ? 1.0 : sp.milli / 1000.0;
        if (f > max_frac[t])
            max_frac[t] = f;
    }
    gs_source_close(&src);
    if (rc < 0)
        return rc;
    struct gs_sim_opts o = { .seed = sc->seed, .set_seed = 1 };
    struct gs_sim *sim = NULL;
    if ((rc = gs_sim_new(sc, &o, &sim, d)) < 0 ||
        (rc = gs_sim_run(sim, d)) < 0) {
        gs_sim_free(sim);
        return rc;
    }
    long n;
    const struct gs_jobrec *r = gs_sim_records(sim, &n);
    const struct gs_summary *su = gs_sim_summary(sim);
    /* peak concurrent GPUs per tier: +gpus at start, -gpus at end */
    struct ev *ev = malloc((size_t)(2 * n + 1) * sizeof *ev);
    if (ev == NULL) {
        gs_sim_free(sim);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    long ne = 0;
    double used[GS_NTIERS] = { 0 };
    for (long i = 0; i < n; i++) {
        if (r[i].tier >= GS_NTIERS)
            continue;
        used[r[i].tier] += r[i].gpu_hours;
        if (r[i].start < 0)
            continue;
        ev[ne++] = (struct ev){ r[i].start, r[i].gpus, r[i].tier };
        gs_time end = r[i].end >= 0 ? r[i].end
                                    : (gs_time)(su->end_s * 1000.0);
        ev[ne++] = (struct ev){ end, -(double)r[i].gpus, r[i].tier };
    }
    /* by time, ends before starts at equal times (the peak does not
     * depend on the order of equal keys) */
    qsort(ev, (size_t)ne, sizeof *ev, ev_cmp);
    double cur[GS_NTIERS] = { 0 }, peak[GS_NTIERS] = { 0 };
    for (long i = 0; i < ne; i++) {
        cur[ev[i].tier] += ev[i].g;
        if (cur[ev[i].tier] > peak[ev[i].tier])
            peak[ev[i].tier] = cur[ev[i].tier];
    }
    free(ev);
    fprintf(fp, "\nright-sizing per tier (one run of the plan, seed %llu; "
            "fit = smallest GPU model or MIG profile with the peak memory "
            "+ 20%%):\n", (unsigned long long)sc->seed);
    fprintf(fp, "  %-12s %8s %9s %9s %9s %12s  %s\n", "tier", "jobs",
            "peak GPUs", "mean GPUs", "mean/peak", "peak mem/GPU", "fits");
    for (int t = 0; t < GS_NTIERS; t++) {
        if (su->tier[t].jobs == 0)
            continue;
        double mean = su->span_h > 0 ? used[t] / su->span_h : 0;
        char fit[160] = "";
        if (peak_mem[t] > 0) {
            double need = peak_mem[t] * 1.2;
            int bm = gs_catalog_smallest(&sc->cat, need);
            snprintf(fit, sizeof fit, "%s", bm >= 0 ? sc->cat.m[bm].name
                                                    : "no single GPU");
            const struct gs_mig_gpu *bg = NULL;
            const struct gs_mig_profile *bp =
                max_gpus[t] <= 1 ? gs_mig_smallest_any(need, max_frac[t], &bg)
                                 : NULL;
            if (bp)
                snprintf(fit + strlen(fit), sizeof fit - strlen(fit),
                         "; MIG %s on %s", bp->name, bg->name);
        } else {
            snprintf(fit, sizeof fit, "(memory not stated by the workload)");
        }
        char mem[32];
        snprintf(mem, sizeof mem, peak_mem[t] > 0 ? "%.1f GB" : "-",
                 peak_mem[t]);
        fprintf(fp, "  %-12s %8ld %9.1f %9.2f %9.3f %12s  %s\n",
                gs_tier_name(t), su->tier[t].jobs, peak[t], mean,
                peak[t] > 0 ? mean / peak[t] : 0, mem, fit);
    }
    for (int i = 0; gs_model_out(i); i++)
        if (gs_model_out(i)->plan_report)
            gs_model_out(i)->plan_report(sim, gs_sim_model(sim,
                                         gs_model_out(i)), fp);
    gs_sim_free(sim);
    return 0;
}

