/* planadvice.c -- right-sizing advice of `gpusim plan`: from one run of
 * the chosen plan, per tier the peak and mean GPUs its jobs held and the
 * smallest GPU model or MIG profile their memory fits; per service its
 * replicas, GPU utilization and the peak memory per replica GPU.
 *
 * The memory a fit needs is the peak asked (or used) plus a 20% buffer;
 * a MIG profile also needs the share of compute slices that the peak
 * utilization asks (a GPU busy u of the time needs about u of its SMs). */
#include "planint.h"
#include "../cluster/mig.h"
#include "../io/scenario.h"
#include "../inference/service.h"
#include "../core/sim.h"
#include "../io/source.h"

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

/* The smallest catalog GPU with at least need_gb of memory, or -1. */
static int smallest_gpu(const struct gs_scenario *sc, double need_gb)
{
    int bm = -1;
    for (int m = 0; m < sc->cat.n; m++)
        if (sc->cat.m[m].mem_gb >= need_gb &&
            (bm < 0 || sc->cat.m[m].mem_gb < sc->cat.m[bm].mem_gb))
            bm = m;
    return bm;
}

/* The smallest MIG profile over the known MIG GPUs with need_gb of memory
 * and frac of the compute slices; *on names its GPU. */
static const struct gs_mig_profile *smallest_mig(double need_gb, double frac,
                                                 const struct gs_mig_gpu **on)
{
    const struct gs_mig_profile *bp = NULL;
    for (int g = 0; gs_mig_gpu_at(g); g++) {
        const struct gs_mig_gpu *mg = gs_mig_gpu_at(g);
        const struct gs_mig_profile *p = gs_mig_smallest_fit(mg, need_gb, frac);
        if (p && (bp == NULL || p->mem_gb < bp->mem_gb ||
                  (p->mem_gb == bp->mem_gb &&
                   p->compute_slices < bp->compute_slices))) {
            bp = p;
            *on = mg;
        }
    }
    return bp;
}

/* Right-sizing per service, from the same run's /services samples: the
 * replicas it used, its GPUs' utilization (DCGM_FI_DEV_GPU_UTIL), and the
 * peak memory per replica GPU (weights + KV blocks in use,
 * DCGM_FI_DEV_FB_USED; the peak of the mean over serving replicas).  The
 * fit is the smallest GPU with that memory + 20% at the service's TP; for a
 * one-GPU replica also the smallest MIG profile with that memory and at
 * least the peak utilization's share of the compute slices (a slice that
 * was busy u of the time on a whole GPU needs about u of its SMs). */
static void rightsize_services(FILE *fp, const struct gs_scenario *sc,
                               const struct gs_sim *sim)
{
    int nsv = gs_sim_nservices(sim);
    if (nsv == 0)
        return;
    fprintf(fp, "\nright-sizing per service (same run; memory per replica "
            "GPU = weights + KV in use, peak; fit = smallest GPU, or MIG "
            "profile for a one-GPU replica, with the peak memory + 20%%):\n");
    fprintf(fp, "  %-12s %4s %13s %9s %9s %12s  %s\n", "service", "TP",
            "replicas mean", "util mean", "util peak", "peak mem/GPU",
            "fits");
    for (int i = 0; i < nsv && i < sc->nsvcs; i++) {
        const struct gs_svcsum *v = gs_sim_service(sim, i);
        const struct gs_svcpool *pl = &sc->svcs[i].pool[0];
        long ns = 0;
        const double *t = NULL;
        const double *row = gs_sim_service_series(sim, i, &ns, &t);
        double fb = 0, usum = 0, upk = 0;
        long nup = 0;
        for (long r = 0; row && r < ns; r++) {
            const double *x = row + r * GS_NSVCOLS;
            if (x[GS_SVC_REPLICAS] <= 0)
                continue;
            nup++;
            usum += x[GS_SVC_GPU_UTIL];
            if (x[GS_SVC_GPU_UTIL] > upk)
                upk = x[GS_SVC_GPU_UTIL];
            if (x[GS_SVC_FB_USED] > fb)
                fb = x[GS_SVC_FB_USED];
        }
        char rep[40], um[16] = "-", up[16] = "-", mem[32] = "-",
             fit[160] = "(no samples: set sample_step)";
        snprintf(rep, sizeof rep, "%.2f (max %.0f)", v->replicas_mean,
                 v->replicas_max);
        if (nup > 0) {
            double need = fb * 1.2 * 1048576.0 / 1e9;   /* MiB -> GB */
            int bm = smallest_gpu(sc, need);
            snprintf(um, sizeof um, "%.1f%%", usum / (double)nup);
            snprintf(up, sizeof up, "%.1f%%", upk);
            snprintf(mem, sizeof mem, "%.1f GB", fb * 1048576.0 / 1e9);
            snprintf(fit, sizeof fit, "%s", bm >= 0 ? sc->cat.m[bm].name
                                                    : "no single GPU");
            const struct gs_mig_gpu *on = NULL;
            const struct gs_mig_profile *p =
                pl->tp == 1 ? smallest_mig(need, upk / 100.0, &on) : NULL;
            if (p)
                snprintf(fit + strlen(fit), sizeof fit - strlen(fit),
                         "; MIG %s on %s", p->name, on->name);
        }
        fprintf(fp, "  %-12s %4d %13s %9s %9s %12s  %s\n", sc->svcs[i].name,
                pl->tp, rep, um, up, mem, fit);
    }
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
            int bm = smallest_gpu(sc, need);
            snprintf(fit, sizeof fit, "%s", bm >= 0 ? sc->cat.m[bm].name
                                                    : "no single GPU");
            const struct gs_mig_gpu *bg = NULL;
            const struct gs_mig_profile *bp =
                max_gpus[t] <= 1 ? smallest_mig(need, max_frac[t], &bg) : NULL;
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
    rightsize_services(fp, sc, sim);
    gs_sim_free(sim);
    return 0;
}

