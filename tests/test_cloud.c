/* test_cloud.c -- markets, spot, failures, autoscaling and reaping, checked
 * against counts, timelines and bills worked out by hand.
 *
 * Traces are in seconds; records and the cloud log hold milliseconds.  Where
 * a model draws a time (a reclaim from a hazard that is zero but for one
 * second, a Weibull failure with shape 50), the test reads the time drawn
 * from the cloud log and checks everything that follows from it exactly. */
#include "cutest.h"
#include "simutil.h"
#include "../sim/cloud/cloud.h"
#include "../sim/io/h5in.h"
#include "../sim/io/h5out.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <sys/stat.h>

#define S 1000      /* ms per second */

/* Run json (a printf format whose %s arguments are the paths of the files
 * made from the texts a, b, c in order; NULL = none) under opts. */
struct crun {
    struct run r;
    char files[3][64];
};

static int expect_failure;      /* do not print the message of a failed run */

static void crun(struct crun *cr, const struct gs_sim_opts *o, const char *json,
                 const char *a, const char *b, const char *c)
{
    memset(cr, 0, sizeof *cr);
    const char *txt[3] = { a, b, c };
    for (int i = 0; i < 3; i++)
        if (txt[i])
            write_temp(txt[i], cr->files[i]);
    static char text[16384];
    snprintf(text, sizeof text, json, cr->files[0], cr->files[1],
             cr->files[2]);
    struct run *r = &cr->r;
    r->rc = gs_scenario_parse(text, "test.json", "/", &r->sc, &r->d);
    if (r->rc == 0)
        r->rc = gs_sim_new(r->sc, o, &r->sim, &r->d);
    if (r->rc == 0)
        r->rc = gs_sim_run(r->sim, &r->d);
    if (r->rc != 0 && !expect_failure) {
        char msg[1200];
        gs_test_diag_text(&r->d, msg, sizeof msg);
        printf("\n    run failed: %s\n", msg);
    }
}

static void crun_free(struct crun *cr)
{
    run_free(&cr->r);
    for (int i = 0; i < 3; i++)
        if (cr->files[i][0])
            unlink(cr->files[i]);
}

/* The n-th (0-based) log event of kind, or NULL. */
static const struct gs_cevent *nth_event(const struct crun *cr, int kind,
                                         int nth)
{
    long n;
    const struct gs_cevent *log = gs_cloud_log(gs_sim_cloud(cr->r.sim), &n);
    for (long i = 0; i < n; i++)
        if (log[i].kind == kind && nth-- == 0)
            return &log[i];
    return NULL;
}

static long count_events(const struct crun *cr, int kind)
{
    long n, k = 0;
    const struct gs_cevent *log = gs_cloud_log(gs_sim_cloud(cr->r.sim), &n);
    for (long i = 0; i < n; i++)
        k += log[i].kind == kind;
    return k;
}

static const struct gs_cloudsum *csum(const struct crun *cr)
{
    return gs_cloud_summary(gs_sim_cloud(cr->r.sim));
}

/* --- spot ------------------------------------------------------------------ */

/* Ten spot nodes reclaimed at 0.5 per node-hour and replaced at once, for
 * 2000 hours: the count is Poisson with mean 0.5 x 20000 = 10000, and the
 * exposure is exactly 20000 node-hours. */
static void test_spot_poisson(void)
{
    struct crun cr;
    crun(&cr, NULL,
         "{\"horizon\": \"2000h\", \"fleet\": [{\"gpu\": \"A100-80GB\","
         " \"nodes\": 10, \"gpus_per_node\": 8, \"market\": \"spot\","
         " \"spot\": {\"interruptions_per_hour\": 0.5, \"replace_after\": 0}}],"
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         "id,arrival,gpus,duration\n1,0,1,60\n", NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    const struct gs_cloudsum *c = csum(&cr);
    double mean = 0.5 * c->spot_exposure_node_h;
    CU_ASSERT_DOUBLE_EQUAL(c->spot_exposure_node_h, 20000.0, 1e-6);
    CU_ASSERT(fabs((double)c->spot_reclaims - mean) < 4 * sqrt(mean));
    CU_ASSERT_EQUAL(c->spot_notices, c->spot_reclaims);
    CU_ASSERT_EQUAL(count_events(&cr, GS_CEV_RECLAIM), c->spot_reclaims);
    CU_ASSERT_EQUAL(c->launched, c->spot_reclaims);     /* replacements */
    printf("\n    %ld reclaims, expected %.0f +- %.0f ", c->spot_reclaims, mean,
           4 * sqrt(mean));
    crun_free(&cr);
}

/* A hazard of 0 for the first 1000 hours and 1 per node-hour after: no
 * reclaim in the first half, Poisson(10 x 1000) in the second. */
static void test_spot_hazard(void)
{
    struct crun cr;
    crun(&cr, NULL,
         "{\"horizon\": \"2000h\", \"fleet\": [{\"gpu\": \"A100-80GB\","
         " \"nodes\": 10, \"gpus_per_node\": 8, \"market\": \"spot\","
         " \"spot\": {\"hazard_file\": \"%s\", \"replace_after\": 0}}],"
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         "time_s,rate_per_hour\n0,0\n3600000,1\n",
         "id,arrival,gpus,duration\n1,0,1,60\n", NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    const struct gs_cloudsum *c = csum(&cr);
    const struct gs_cevent *first = nth_event(&cr, GS_CEV_RECLAIM, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(first);
    CU_ASSERT(first->t >= 1000 * GS_HOUR);
    double mean = 10 * 1000.0;
    CU_ASSERT(fabs((double)c->spot_reclaims - mean) < 4 * sqrt(mean));
    crun_free(&cr);
}

/* One spot node (4 GPUs) beside one on-demand node.  The hazard is 0 but
 * for the second [1000 s, 1001 s), where it is 10^6 per hour: the node is
 * reclaimed at R in that second (notice at R - 120 s) and replaced 300 s
 * later.  Training job 1 (2 GPUs, 3000 s, periodic checkpoint 600 s,
 * restart 60 s) checkpoints at the notice: it loses exactly 120 s of work
 * on 2 GPUs and ends at R + 300 + (3000 - (R - 120) + 60) = 3480 s.  Data
 * job 2 (1 GPU, 3000 s, no checkpoint) loses all R seconds and ends at
 * R + 300 + 3000.  Inference job 3 may not run on spot: it waits for the
 * on-demand node, busy with job 4 until 500 s. */
static const char lost_json[] =
    "{\"fleet\": [{\"name\": \"spot\", \"gpu\": \"A100-80GB\", \"nodes\": 1,"
    " \"gpus_per_node\": 4, \"market\": \"spot\", \"spot\": {\"hazard_file\":"
    " \"%s\", \"replace_after\": 300}},"
    " {\"name\": \"od\", \"gpu\": \"H100-80GB\", \"nodes\": 1,"
    " \"gpus_per_node\": 4}],"
    " \"tiers\": {\"training\": {\"restart_overhead\": 60}},"
    " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}";
static const char lost_hazard[] =
    "time_s,rate\n0,0\n1000,1000000\n1001,0\n";
static const char lost_csv[] =
    "id,arrival,gpus,duration,tier,checkpoint,allowed_gpus\n"
    "4,0,4,500,training,,H100-80GB\n"
    "1,0,2,3000,training,600,A100-80GB\n"
    "2,0,1,3000,data,,A100-80GB\n"
    "3,0,4,100,inference,,\n";

static void test_spot_lost_work(void)
{
    struct crun cr;
    crun(&cr, NULL, lost_json, lost_hazard, lost_csv, NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    const struct gs_cevent *rc = nth_event(&cr, GS_CEV_RECLAIM, 0);
    const struct gs_cevent *nt = nth_event(&cr, GS_CEV_NOTICE, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(nt);
    gs_time R = rc->t;
    CU_ASSERT(R >= 1000 * S && R < 1001 * S);
    CU_ASSERT_EQUAL(nt->t, R - 120 * S);
    CU_ASSERT_EQUAL(rc->jobs, 2);
    const struct gs_jobrec *j1 = rec_of(&cr.r, 1), *j2 = rec_of(&cr.r, 2);
    CU_ASSERT_EQUAL(j1->end, 3480 * S);
    CU_ASSERT_DOUBLE_EQUAL(lost_of(&cr.r, 1), 2 * 120.0 / 3600, 1e-6);
    CU_ASSERT_EQUAL(preempts_of(&cr.r, 1), 1);
    CU_ASSERT_EQUAL(j2->end, R + 3300 * S);
    CU_ASSERT_DOUBLE_EQUAL(lost_of(&cr.r, 2), (double)R / 3.6e6, 1e-6);
    /* inference never on spot: it waited for the on-demand node */
    CU_ASSERT_EQUAL(rec_of(&cr.r, 3)->start, 500 * S);
    CU_ASSERT_EQUAL(rec_of(&cr.r, 3)->model,
                    gs_catalog_find(&cr.r.sc->cat, "H100-80GB"));
    const struct gs_cloudsum *c = csum(&cr);
    CU_ASSERT_EQUAL(c->spot_reclaims, 1);
    CU_ASSERT_EQUAL(c->spot_restarts, 2);
    CU_ASSERT_DOUBLE_EQUAL(c->spot_lost_gpu_h,
                           240.0 / 3600 + (double)R / 3.6e6, 1e-5);
    crun_free(&cr);
}

/* A policy that migrates at the notice: checkpoint, then requeue at once.
 * Job 1 moves to the on-demand node at R - 120 and loses nothing. */
static int migrated;
static void migrate_notice(void *st, struct gs_sim *sim, int node, gs_time at)
{
    (void)st;
    (void)at;
    long n;
    struct gs_job *const *run = gs_sim_running(sim, &n);
    struct gs_job *mine[16];
    int k = 0;
    for (long i = 0; i < n && k < 16; i++)
        if (gs_alloc_part_on(&run[i]->alloc, node))
            mine[k++] = run[i];
    for (int i = 0; i < k; i++)
        if (gs_sim_checkpoint(sim, mine[i]) == 0 &&
            gs_sim_preempt(sim, mine[i]) == 0)
            migrated++;
}

static void test_spot_notice_hook(void)
{
    struct gs_policy_ops ops = *gs_policy_find("fifo");
    ops.name = "fifo-migrate";
    ops.spot_notice = migrate_notice;
    struct gs_sim_opts o = { .policy_ops = &ops };
    struct crun cr;
    migrated = 0;
    crun(&cr, &o, lost_json, lost_hazard,
         "id,arrival,gpus,duration,tier,checkpoint,allowed_gpus\n"
         "1,0,2,3000,training,600,A100-80GB\n"
         "2,0,2,3000,training,600,\n", NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    gs_time R = nth_event(&cr, GS_CEV_RECLAIM, 0)->t;
    CU_ASSERT_EQUAL(migrated, 2);
    /* job 1 may only use A100s: it waits for the replacement at R + 300
     * and has lost nothing: 3000 - (R - 120) + 60 to go */
    const struct gs_jobrec *j1 = rec_of(&cr.r, 1), *j2 = rec_of(&cr.r, 2);
    CU_ASSERT_EQUAL(j1->end, 3480 * S);
    CU_ASSERT_DOUBLE_EQUAL(lost_of(&cr.r, 1), 0, 1e-9);
    /* job 2 restarts on the H100 node at once (the notice instant) */
    CU_ASSERT_EQUAL(nth_event(&cr, GS_CEV_RECLAIM, 0)->jobs, 0);
    CU_ASSERT(j2->end < R + 3000 * S);
    CU_ASSERT_DOUBLE_EQUAL(lost_of(&cr.r, 2), 0, 1e-9);
    crun_free(&cr);
}

/* --- failures ------------------------------------------------------------ */

/* The Weibull profile-likelihood equation in the shape k (Cohen 1965):
 * 1/k + mean(ln t) - sum(t^k ln t) / sum(t^k) = 0. */
struct wdata {
    const double *t;
    size_t n;
};

static double weibull_score(double k, void *arg)
{
    const struct wdata *w = arg;
    double s0 = 0, s1 = 0, ml = 0;
    for (size_t i = 0; i < w->n; i++) {
        double l = log(w->t[i]), p = pow(w->t[i], k);
        s0 += p;
        s1 += p * l;
        ml += l;
    }
    return 1 / k + ml / (double)w->n - s1 / s0;
}

/* 2000 GPUs whose failures are Weibull(shape 0.7, scale 500 h) for life,
 * failing in place (each at most once).  The maximum-likelihood shape
 * (the root of the score, found by GSL's Brent solver) must come within
 * 0.05 of 0.7 -- its standard error is about 0.013 -- and the scale within
 * 10 %; a least-squares line through the Weibull plot (ln(-ln(1 - F))
 * against ln t, median ranks F = (i - 0.3) / (n + 0.4), gsl_fit_linear),
 * a rougher estimator, within 0.08. */
static void test_weibull_shape(void)
{
    struct crun cr;
    crun(&cr, NULL,
         "{\"horizon\": \"20000h\", \"fleet\": [{\"gpu\": \"A100-80GB\","
         " \"nodes\": 250, \"gpus_per_node\": 8}],"
         " \"failures\": {\"gpu\": {\"shape\": 0.7, \"scale\": \"500h\"},"
         " \"fail_in_place\": true},"
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         "id,arrival,gpus,duration\n1,0,1,60\n", NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    long n;
    const struct gs_cevent *ev = gs_cloud_log(gs_sim_cloud(cr.r.sim), &n);
    double *t = malloc((size_t)n * sizeof *t);
    size_t k = 0;
    for (long i = 0; i < n; i++)
        if (ev[i].kind == GS_CEV_GPU_FAIL)
            t[k++] = ev[i].value / 3600.0;      /* age, hours */
    CU_ASSERT(k >= 1995 && k <= 2000);
    CU_ASSERT_EQUAL(csum(&cr)->gpu_failures, (long)k);

    struct wdata w = { t, k };
    gsl_function fn = { weibull_score, &w };
    gsl_root_fsolver *sv = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    gsl_root_fsolver_set(sv, &fn, 0.05, 10.0);
    double shape = 0;
    for (int it = 0; it < 100; it++) {
        gsl_root_fsolver_iterate(sv);
        shape = gsl_root_fsolver_root(sv);
        if (gsl_root_test_interval(gsl_root_fsolver_x_lower(sv),
                                   gsl_root_fsolver_x_upper(sv), 0,
                                   1e-9) == GSL_SUCCESS)
            break;
    }
    gsl_root_fsolver_free(sv);
    double sp = 0;
    for (size_t i = 0; i < k; i++)
        sp += pow(t[i], shape);
    double scale = pow(sp / (double)k, 1 / shape);

    gsl_sort(t, 1, k);
    double *x = malloc(k * sizeof *x), *y = malloc(k * sizeof *y);
    for (size_t i = 0; i < k; i++) {
        double F = ((double)i + 1 - 0.3) / ((double)k + 0.4);
        x[i] = log(t[i]);
        y[i] = log(-log(1 - F));
    }
    double c0, c1, cov00, cov01, cov11, sumsq;
    gsl_fit_linear(x, 1, y, 1, k, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    printf("\n    MLE shape %.4f, scale %.1f h; plot slope %.4f (0.7, 500 h) ",
           shape, scale, c1);
    CU_ASSERT(fabs(shape - 0.7) < 0.05);
    CU_ASSERT(fabs(scale - 500) < 50);
    CU_ASSERT(fabs(c1 - 0.7) < 0.08);
    free(t);
    free(x);
    free(y);
    crun_free(&cr);
}

/* Burn-in: Weibull(0.5, 200 h) for the first 100 h, then exponential with
 * a 10^6 h mean.  The share failing before 100 h is F(100) = 1 -
 * exp(-(100/200)^0.5) = 0.507; afterwards almost none. */
static void test_burn_in(void)
{
    struct crun cr;
    crun(&cr, NULL,
         "{\"horizon\": \"300h\", \"fleet\": [{\"gpu\": \"A100-80GB\","
         " \"nodes\": 250, \"gpus_per_node\": 8}],"
         " \"failures\": {\"gpu\": {\"shape\": 0.5, \"scale\": \"200h\","
         " \"burn_in\": \"100h\", \"mtbf\": \"1000000h\"},"
         " \"fail_in_place\": true},"
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         "id,arrival,gpus,duration\n1,0,1,60\n", NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    long n, early = 0, late = 0;
    const struct gs_cevent *ev = gs_cloud_log(gs_sim_cloud(cr.r.sim), &n);
    for (long i = 0; i < n; i++)
        if (ev[i].kind == GS_CEV_GPU_FAIL) {
            if (ev[i].value < 100 * 3600.0)
                early++;
            else
                late++;
        }
    double p = 1 - exp(-sqrt(0.5)), mu = 2000 * p;
    double sd = sqrt(2000 * p * (1 - p));
    CU_ASSERT(fabs((double)early - mu) < 4 * sd);
    /* after the burn-in: ~986 GPUs x 200 h / 10^6 h = 0.2 expected */
    CU_ASSERT(late <= 3);
    crun_free(&cr);
}

/* Fail-in-place with max_restarts 0: four 1-GPU jobs on a 4-GPU node whose
 * GPUs fail near 1000 s (Weibull, shape 50): each job loses everything it
 * did and is denied; availability is (sum of the failure times) / (4 x the
 * horizon). */
static void test_fail_in_place(void)
{
    struct crun cr;
    crun(&cr, NULL,
         "{\"horizon\": 2000, \"fleet\": [{\"gpu\": \"A100-80GB\","
         " \"nodes\": 1, \"gpus_per_node\": 4}],"
         " \"failures\": {\"gpu\": {\"shape\": 50, \"scale\": 1000},"
         " \"fail_in_place\": true, \"max_restarts\": 0},"
         " \"policy\": \"fifo\","
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         "id,arrival,gpus,duration\n1,0,1,5000\n2,0,1,5000\n3,0,1,5000\n"
         "4,0,1,5000\n", NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    const struct gs_cloudsum *c = csum(&cr);
    CU_ASSERT_EQUAL(c->gpu_failures, 4);
    CU_ASSERT_EQUAL(c->denials, 4);
    CU_ASSERT_EQUAL(c->fail_restarts, 4);
    double sum = 0;
    for (int k = 0; k < 4; k++) {
        const struct gs_cevent *e = nth_event(&cr, GS_CEV_GPU_FAIL, k);
        CU_ASSERT_EQUAL(e->jobs, 1);
        /* fifo + first-fit: job k+1 holds GPU k */
        const struct gs_jobrec *r = rec_of(&cr.r, e->gpu + 1);
        CU_ASSERT_EQUAL(r->state, GS_JOB_KILLED);
        CU_ASSERT_EQUAL(r->kill, GS_KILL_DENIED);
        CU_ASSERT_EQUAL(r->end, e->t);
        CU_ASSERT_DOUBLE_EQUAL(lost_of(&cr.r, e->gpu + 1), (double)e->t / 3.6e6,
                               1e-6);
        sum += (double)e->t;
    }
    CU_ASSERT_DOUBLE_EQUAL(c->availability, sum / (4 * 2000.0 * S), 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(c->fail_lost_gpu_h, sum / 3.6e6, 1e-5);
    crun_free(&cr);
}

/* A node failure with a hot spare: the job (4 GPUs, 1500 s, checkpoint
 * 300 s, restart 60 s) restarts on the spare the instant the node fails at
 * F, keeping floor(F / 300) x 300 s; the failed node is repaired in 600 s
 * and becomes the pool's spare. */
static void test_spare(void)
{
    struct crun cr;
    crun(&cr, NULL,
         "{\"horizon\": 1900, \"fleet\": [{\"gpu\": \"A100-80GB\","
         " \"nodes\": 1, \"spares\": 1, \"gpus_per_node\": 4}],"
         " \"failures\": {\"node\": {\"shape\": 50, \"scale\": 1000},"
         " \"repair\": 600},"
         " \"tiers\": {\"training\": {\"restart_overhead\": 60}},"
         " \"policy\": \"fifo\","
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         "id,arrival,gpus,duration,checkpoint\n1,0,4,1500,300\n", NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    const struct gs_cevent *f = nth_event(&cr, GS_CEV_NODE_FAIL, 0);
    const struct gs_cevent *sp = nth_event(&cr, GS_CEV_SPARE_IN, 0);
    const struct gs_cevent *rp = nth_event(&cr, GS_CEV_REPAIRED, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rp);
    gs_time F = f->t, kept = F / (300 * S) * (300 * S);
    CU_ASSERT_EQUAL(sp->t, F);
    CU_ASSERT_EQUAL(rp->t, F + 600 * S);
    CU_ASSERT_EQUAL(rp->value, 1);          /* back as the spare */
    const struct gs_jobrec *j = rec_of(&cr.r, 1);
    CU_ASSERT_EQUAL(j->state, GS_JOB_DONE);
    CU_ASSERT_EQUAL(j->end, F + (1500 * S - kept) + 60 * S);
    CU_ASSERT_DOUBLE_EQUAL(lost_of(&cr.r, 1), 4.0 * (double)(F - kept) / 3.6e6,
                           1e-6);
    CU_ASSERT_EQUAL(csum(&cr)->spare_swaps, 1);
    CU_ASSERT_EQUAL(csum(&cr)->node_failures, 1);
    /* hardware availability: the repair counts, though a spare served:
     * 4 GPUs in service all along, 4 in repair for 600 s */
    CU_ASSERT_DOUBLE_EQUAL(csum(&cr)->availability,
                           1900.0 * 4 / (1900.0 * 4 + 600.0 * 4), 1e-9);
    crun_free(&cr);
}

/* A degraded GPU (speed 0.5) slows the gang using it from the moment it
 * degrades at D: the 3000 s job ends at D + 2 (3000 s - D). */
static void test_degraded(void)
{
    struct crun cr;
    crun(&cr, NULL,
         "{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1,"
         " \"gpus_per_node\": 2}],"
         " \"failures\": {\"gpu\": {\"shape\": 50, \"scale\": 1000},"
         " \"degraded\": {\"fraction\": 1, \"speed\": 0.5}},"
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         "id,arrival,gpus,duration\n1,0,2,3000\n", NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    const struct gs_cevent *d1 = nth_event(&cr, GS_CEV_DEGRADE, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d1);
    CU_ASSERT_EQUAL(count_events(&cr, GS_CEV_DEGRADE), 2);
    CU_ASSERT_EQUAL(rec_of(&cr.r, 1)->end, d1->t + 2 * (3000 * S - d1->t));
    CU_ASSERT_EQUAL(csum(&cr)->degradations, 2);
    CU_ASSERT_EQUAL(csum(&cr)->gpu_failures, 0);
    crun_free(&cr);
}

/* --- autoscaling ------------------------------------------------------- */

/* Pool of 4-GPU nodes, 0 to 2, provisioning 300 s, scans every 10 s,
 * removal after 600 s under half used and not within 600 s of a launch.
 *   0 s    job 1 (4 GPUs, 1000 s); 5 s job 2 (4 GPUs, 100 s)
 *   10 s   scan: both fit nowhere: launch nodes 0 and 1
 *   310 s  both ready; jobs start; job 2 ends at 410, job 1 at 1310
 *   1010   node 1 empty since 410: removed
 *   1910   node 0 empty since 1310: removed
 *   2000   job 3 (2 GPUs, 100 s): scan at once, launch node 0
 *   2300   ready; job 3 runs to 2400 (half the node: not under half)
 *   3000   node 0, empty since 2400, removed
 * Paid: 1900 + 1000 + 1000 = 3900 node-s at $36/h = $39.00. */
static void test_autoscale_timeline(void)
{
    struct crun cr;
    crun(&cr, NULL,
         "{\"horizon\": 3600, \"fleet\": [{\"name\": \"p\", \"gpu\":"
         " \"A100-80GB\", \"nodes\": 0, \"gpus_per_node\": 4,"
         " \"price_per_hour\": 36, \"autoscale\": {\"min_nodes\": 0,"
         " \"max_nodes\": 2, \"provision_time\": 300}}], \"policy\": \"fifo\","
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         "id,arrival,gpus,duration\n1,0,4,1000\n2,5,4,100\n3,2000,2,100\n",
         NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    static const struct { int kind, node; gs_time t; double value; } want[] = {
        { GS_CEV_LAUNCH, 0, 10 * S, 300 }, { GS_CEV_LAUNCH, 1, 10 * S, 300 },
        { GS_CEV_READY, 0, 310 * S, 310 }, { GS_CEV_READY, 1, 310 * S, 310 },
        { GS_CEV_REMOVE, 1, 1010 * S, 0 }, { GS_CEV_REMOVE, 0, 1910 * S, 0 },
        { GS_CEV_LAUNCH, 0, 2000 * S, 300 }, { GS_CEV_READY, 0, 2300 * S, 300 },
        { GS_CEV_REMOVE, 0, 3000 * S, 0 },
    };
    long n;
    const struct gs_cevent *log = gs_cloud_log(gs_sim_cloud(cr.r.sim), &n);
    CU_ASSERT_EQUAL_FATAL(n, (long)(sizeof want / sizeof want[0]));
    for (long i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(log[i].kind, want[i].kind);
        CU_ASSERT_EQUAL(log[i].node, want[i].node);
        CU_ASSERT_EQUAL(log[i].t, want[i].t);
        CU_ASSERT_DOUBLE_EQUAL(log[i].value, want[i].value, 1e-9);
    }
    CU_ASSERT_EQUAL(rec_of(&cr.r, 1)->start, 310 * S);
    CU_ASSERT_EQUAL(rec_of(&cr.r, 2)->start, 310 * S);
    CU_ASSERT_EQUAL(rec_of(&cr.r, 3)->start, 2300 * S);
    const struct gs_cloudsum *c = csum(&cr);
    CU_ASSERT_DOUBLE_EQUAL(gs_sim_summary(cr.r.sim)->cost, 39.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(c->node_hours, 3900.0 / 3600, 1e-12);
    /* empty: 300 + 600 (node 0), 300 + 600 (node 1), 300 + 600 */
    CU_ASSERT_DOUBLE_EQUAL(c->idle_node_hours, 2700.0 / 3600, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c->pend_to_cap_mean_s, (310 + 310 + 300) / 3.0,
                           1e-9);
    CU_ASSERT_DOUBLE_EQUAL(c->pend_to_cap_max_s, 310, 1e-9);
    CU_ASSERT_EQUAL(c->launched, 3);
    CU_ASSERT_EQUAL(c->removed, 3);
    /* what the pool booted: 2 nodes at most (10 s to 1010 s), 3900
     * node-s over the run on average (what gpusim plan prints) */
    struct gs_cloud_poolbill b;
    gs_cloud_pool_bill(gs_sim_cloud(cr.r.sim), 0, &b);
    CU_ASSERT_EQUAL(b.nodes_peak, 2);
    double span = gs_sim_summary(cr.r.sim)->span_h * 3600;
    CU_ASSERT(span >= 3000);
    CU_ASSERT_DOUBLE_EQUAL(b.nodes_mean, 3900 / span, 1e-12);
    crun_free(&cr);
}

/* A daily window 00:30-01:00 with at most 0 nodes: at 1800 s the empty
 * node goes, the busy one drains (its job runs on to 3000 s, then it
 * goes); at 3600 s the minimum of 2 comes back, ready 120 s later. */
static void test_autoscale_window(void)
{
    struct crun cr;
    crun(&cr, NULL,
         "{\"horizon\": 4000, \"fleet\": [{\"gpu\": \"A100-80GB\","
         " \"nodes\": 2, \"gpus_per_node\": 4, \"autoscale\": {\"min_nodes\":"
         " 2, \"max_nodes\": 2, \"provision_time\": \"2m\", \"schedule\":"
         " [{\"from\": \"00:30\", \"to\": \"01:00\", \"min_nodes\": 0,"
         " \"max_nodes\": 0}]}}], \"policy\": \"fifo\","
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         "id,arrival,gpus,duration\n1,0,4,3000\n", NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    static const struct { int kind, node; gs_time t; } want[] = {
        { GS_CEV_REMOVE, 1, 1800 * S }, { GS_CEV_DRAIN, 0, 1800 * S },
        { GS_CEV_REMOVE, 0, 3000 * S }, { GS_CEV_LAUNCH, 0, 3600 * S },
        { GS_CEV_LAUNCH, 1, 3600 * S }, { GS_CEV_READY, 0, 3720 * S },
        { GS_CEV_READY, 1, 3720 * S },
    };
    long n;
    const struct gs_cevent *log = gs_cloud_log(gs_sim_cloud(cr.r.sim), &n);
    CU_ASSERT_EQUAL_FATAL(n, (long)(sizeof want / sizeof want[0]));
    for (long i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(log[i].kind, want[i].kind);
        CU_ASSERT_EQUAL(log[i].node, want[i].node);
        CU_ASSERT_EQUAL(log[i].t, want[i].t);
    }
    CU_ASSERT_EQUAL(rec_of(&cr.r, 1)->end, 3000 * S);
    CU_ASSERT_EQUAL(preempts_of(&cr.r, 1), 0);
    crun_free(&cr);
}

/* Consolidation: job 1 (4 GPUs, 100 s) fills node 0, so job 2 (1 GPU,
 * preemptible) lands on node 1, a quarter used -- under half -- from the
 * start.  Job 3 (2 GPUs) arrives at 200 s on the emptied node 0.  At
 * 600 s job 2 fits on node 0 (2 GPUs free): it is evicted, restarts there
 * at once having lost 600 s on 1 GPU, and node 1 is removed.  Node 0,
 * half used then three quarters, stays. */
static void test_autoscale_consolidate(void)
{
    struct crun cr;
    crun(&cr, NULL,
         "{\"horizon\": 2000, \"fleet\": [{\"gpu\": \"A100-80GB\","
         " \"nodes\": 2, \"gpus_per_node\": 4, \"autoscale\": {\"min_nodes\":"
         " 0, \"max_nodes\": 2}}], \"policy\": \"fifo\", \"placement\":"
         " \"first-fit\","
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         "id,arrival,gpus,duration\n1,0,4,100\n2,0,1,5000\n3,200,2,5000\n",
         NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    long n;
    const struct gs_cevent *log = gs_cloud_log(gs_sim_cloud(cr.r.sim), &n);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(log[0].kind, GS_CEV_REMOVE);
    CU_ASSERT_EQUAL(log[0].node, 1);
    CU_ASSERT_EQUAL(log[0].t, 600 * S);
    CU_ASSERT_EQUAL(log[0].jobs, 1);
    const struct gs_jobrec *j2 = rec_of(&cr.r, 2);
    CU_ASSERT_EQUAL(preempts_of(&cr.r, 2), 1);
    CU_ASSERT_EQUAL(j2->state, GS_JOB_UNFINISHED);
    CU_ASSERT_DOUBLE_EQUAL(lost_of(&cr.r, 2), 600.0 / 3600, 1e-6);
    CU_ASSERT_EQUAL(rec_of(&cr.r, 3)->start, 200 * S);
    CU_ASSERT_EQUAL(csum(&cr)->drain_restarts, 1);
    /* node 1 paid 600 s, node 0 the whole 2000 s */
    CU_ASSERT_DOUBLE_EQUAL(csum(&cr)->node_hours, 2600.0 / 3600, 1e-12);
    crun_free(&cr);
}

/* --- the bill -------------------------------------------------------- */

/* Two hours.  Reserved: 2 A100 nodes at $10/h = $40 whatever happens.
 * On-demand: one H100 node at $20/h, billed by the hour, open the whole
 * run: $40 (a session still open at the end is not rounded).  Spot: one
 * A100 node at a price of $3.60/h for 1800 s then $7.20/h, reclaimed in
 * [1000 s, 1001 s) and not replaced, billed by the hour: one hour,
 * 1800 s x 3.6 + 1800 s x 7.2 = $5.40 (its on-demand price $12/h: saved
 * $6.60).  Total $85.40.  Job 1 (training, tenant a) holds 4 of a reserved
 * node's 8 GPUs for 3600 s: $5.00; job 2 (inference, tenant b) the whole
 * H100 node for 1800 s: $10.00.  The rest, $70.40, is idle. */
static void test_cost_exact(void)
{
    struct crun cr;
    crun(&cr, NULL,
         "{\"horizon\": \"2h\","
         " \"prices\": {\"x.spot\": {\"on-demand\": 12}},"
         " \"fleet\": ["
         " {\"name\": \"res\", \"gpu\": \"A100-80GB\", \"nodes\": 2,"
         "  \"market\": \"reserved\", \"price_per_hour\": 10},"
         " {\"name\": \"od\", \"gpu\": \"H100-80GB\", \"nodes\": 1,"
         "  \"price_per_hour\": 20, \"billing\": {\"granularity\": \"1h\","
         "  \"minimum\": \"1h\"}},"
         " {\"name\": \"sp\", \"gpu\": \"A100-80GB\", \"nodes\": 1,"
         "  \"instance_type\": \"x.spot\", \"market\": \"spot\","
         "  \"billing\": {\"granularity\": \"1h\"},"
         "  \"spot\": {\"hazard_file\": \"%s\", \"price_file\": \"%s\","
         "  \"replace_after\": false}}],"
         " \"policy\": \"fifo\", \"placement\": \"first-fit\","
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         lost_hazard, "time_s,price\n0,3.6\n1800,7.2\n",
         "id,arrival,gpus,duration,tier,tenant,allowed_gpus\n"
         "1,0,4,3600,training,a,A100-80GB\n"
         "2,0,8,1800,inference,b,H100-80GB\n");
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    const struct gs_summary *su = gs_sim_summary(cr.r.sim);
    const struct gs_cloudsum *c = gs_cloud_summary(gs_sim_cloud(cr.r.sim));
    CU_ASSERT_DOUBLE_EQUAL(c->cost_market[GS_MKT_RESERVED], 40.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(c->cost_market[GS_MKT_ONDEMAND], 40.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(c->cost_market[GS_MKT_SPOT], 5.40, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(su->cost, 85.40, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(c->spot_savings, 6.60, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(rec_of(&cr.r, 1)->cost, 5.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(rec_of(&cr.r, 2)->cost, 10.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(c->cost_jobs, 15.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(c->cost_idle, 70.40, 1e-9);
    const struct gs_cloud *cl = gs_sim_cloud(cr.r.sim);
    CU_ASSERT_DOUBLE_EQUAL(gs_cloud_cost_tier(cl, GS_TIER_TRAINING), 5.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(gs_cloud_cost_tier(cl, GS_TIER_INFERENCE), 10.0,
                           1e-9);
    double ta = -1, tb = -1;
    for (int t = 0; t < gs_sim_ntenants(cr.r.sim); t++) {
        if (strcmp(gs_sim_tenant_name(cr.r.sim, t), "a") == 0)
            ta = gs_cloud_cost_tenant(cl, t);
        if (strcmp(gs_sim_tenant_name(cr.r.sim, t), "b") == 0)
            tb = gs_cloud_cost_tenant(cl, t);
    }
    CU_ASSERT_DOUBLE_EQUAL(ta, 5.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(tb, 10.0, 1e-9);
    /* node-hours: 2 x 2 reserved + 2 on-demand + R spot */
    gs_time R = nth_event(&cr, GS_CEV_RECLAIM, 0)->t;
    CU_ASSERT_DOUBLE_EQUAL(c->node_hours, 6.0 + (double)R / 3.6e6, 1e-9);
    crun_free(&cr);
}

/* A pool its jobs keep full has nothing idle: 500 two-hour jobs queued
 * at 0 on one one-GPU H100 node fill it for 1,000 h.  The jobs' part of
 * the bill is summed job by job and the paid part over the node's hours,
 * so in floating point the jobs' sum came out above what was paid and the
 * bill printed "idle": -0.000000 (-1e-13).  Within rounding the jobs paid
 * what the node cost: idle is 0, never below, and the parts add up to the
 * bill exactly, by pool and in total. */
static void test_cost_full_pool(void)
{
    static char trace[500 * 16 + 64];
    size_t n = (size_t)snprintf(trace, sizeof trace, "id,arrival,gpus,duration\n");
    for (int i = 1; i <= 500; i++)
        n += (size_t)snprintf(trace + n, sizeof trace - n, "%d,0,1,7200\n", i);
    struct crun cr;
    crun(&cr, NULL,
         "{\"fleet\": [{\"name\": \"g\", \"gpu\": \"H100-80GB\","
         " \"nodes\": 1, \"gpus_per_node\": 1}], \"policy\": \"fifo\","
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         trace, NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    const struct gs_summary *su = gs_sim_summary(cr.r.sim);
    const struct gs_cloud *cl = gs_sim_cloud(cr.r.sim);
    const struct gs_cloudsum *c = gs_cloud_summary(cl);
    CU_ASSERT(su->cost > 0);
    CU_ASSERT(c->cost_idle >= 0);
    CU_ASSERT(!signbit(c->cost_idle));
    CU_ASSERT_DOUBLE_EQUAL(c->cost_idle, 0, 1e-9 * su->cost);
    CU_ASSERT_EQUAL(c->cost_jobs + c->cost_idle, su->cost);
    struct gs_cloud_poolbill b;
    gs_cloud_pool_bill(cl, 0, &b);
    CU_ASSERT(b.jobs <= b.paid);
    CU_ASSERT(!signbit(b.paid - b.jobs));
    CU_ASSERT_EQUAL(b.paid, su->cost);
    crun_free(&cr);
}

/* --- idle reaping -------------------------------------------------------- */

/* Interactive jobs busy 600 s then idle: job 1 (idle 7200 s) is reaped at
 * 600 + 3600 s; job 2 (idle 3000 s, under the hour) never is; job 3 ends
 * before its idle hour is up; training job 4 is not in a reaped tier. */
static void test_reaper(void)
{
    struct crun cr;
    crun(&cr, NULL,
         "{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1,"
         " \"gpus_per_node\": 4}], \"policy\": \"fifo\", \"reaper\": {},"
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         "id,arrival,gpus,duration,tier,idle_profile\n"
         "1,0,1,18000,interactive,600:7200\n"
         "2,0,1,18000,interactive,600:3000\n"
         "3,0,1,3000,interactive,600:7200\n"
         "4,0,1,18000,training,600:7200\n", NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    const struct gs_jobrec *j1 = rec_of(&cr.r, 1);
    CU_ASSERT_EQUAL(j1->state, GS_JOB_KILLED);
    CU_ASSERT_EQUAL(j1->kill, GS_KILL_REAPED);
    CU_ASSERT_EQUAL(j1->end, 4200 * S);
    CU_ASSERT_EQUAL(rec_of(&cr.r, 2)->state, GS_JOB_DONE);
    CU_ASSERT_EQUAL(rec_of(&cr.r, 3)->state, GS_JOB_DONE);
    CU_ASSERT_EQUAL(rec_of(&cr.r, 4)->state, GS_JOB_DONE);
    CU_ASSERT_EQUAL(csum(&cr)->reaped, 1);
    crun_free(&cr);
    /* a shorter threshold and the second idle phase: 600:1200 cycles,
     * idle_after 1000 s: idle from 600 s, reaped at 1600 s */
    crun(&cr, NULL,
         "{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1,"
         " \"gpus_per_node\": 4}], \"reaper\": {\"idle_after\": 1000,"
         " \"tiers\": [\"interactive\", \"training\"]},"
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         "id,arrival,gpus,duration,tier,idle_profile\n"
         "1,0,1,18000,training,600:1200\n"
         "2,0,1,18000,interactive,600:900:300:1500\n", NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(cr.r.rc, 0);
    CU_ASSERT_EQUAL(rec_of(&cr.r, 1)->end, 1600 * S);
    /* job 2: idle 900 s (short), busy, then idle 1500 s from 1800 s */
    CU_ASSERT_EQUAL(rec_of(&cr.r, 2)->end, 2800 * S);
    crun_free(&cr);
}

/* --- everything at once, under every policy ------------------------------ */

static void test_all_policies(void)
{
    for (int p = 0; gs_policies[p]; p++) {
        struct gs_scenario *sc = NULL;
        struct gs_sim *sim = NULL;
        struct gs_diag d = { 0 };
        struct gs_sim_opts o = { .policy = gs_policies[p]->name };
        int rc = gs_scenario_load("scenarios/cloud-mixed.json", &sc, &d);
        if (rc == 0)
            rc = gs_sim_new(sc, &o, &sim, &d);
        if (rc == 0)
            rc = gs_sim_run(sim, &d);
        if (rc != 0) {
            char msg[1200];
            gs_test_diag_text(&d, msg, sizeof msg);
            printf("\n    %s: %s", gs_policies[p]->name, msg);
        }
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        long n, done = 0, killed = 0, unfinished = 0;
        const struct gs_jobrec *rec = gs_sim_records(sim, &n);
        int a100 = gs_catalog_find(&sc->cat, "A100-80GB");
        double cost = 0;
        for (long i = 0; i < n; i++) {
            const struct gs_jobrec *r = &rec[i];
            if (r->state == GS_JOB_DONE) {
                done++;
            } else if (r->state == GS_JOB_KILLED) {
                killed++;
                CU_ASSERT(r->kill != GS_KILL_NONE);
            } else {
                CU_ASSERT_EQUAL(r->state, GS_JOB_UNFINISHED);
                unfinished++;
            }
            /* the only A100s are spot: never inference or interactive */
            if (r->tier == GS_TIER_INFERENCE || r->tier == GS_TIER_INTERACTIVE)
                CU_ASSERT(r->model != a100);
            cost += r->cost;
        }
        const struct gs_summary *su = gs_sim_summary(sim);
        const struct gs_cloudsum *cs = gs_cloud_summary(gs_sim_cloud(sim));
        CU_ASSERT(n > 500);
        CU_ASSERT_EQUAL(done + killed + unfinished, n);
        CU_ASSERT_EQUAL(su->all.done, done);
        CU_ASSERT_EQUAL(su->all.killed, killed);
        CU_ASSERT_EQUAL(su->all.unfinished, unfinished);
        CU_ASSERT_EQUAL(killed, cs->reaped + cs->denials);
        CU_ASSERT_DOUBLE_EQUAL(cost, cs->cost_jobs,
                               1e-6 * su->cost + 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(cs->cost_jobs + cs->cost_idle,
                               su->cost, 1e-9 * su->cost);
        CU_ASSERT(cs->launched > 0 && cs->removed > 0);
        CU_ASSERT(cs->availability > 0.9 && cs->availability <= 1);
        CU_ASSERT(su->util > 0 && su->util <= 1);
        printf("\n    %-14s %ld done, %ld killed, %ld unfinished; $%.0f; %ld "
               "reclaims, %ld GPU + %ld node failures, %ld launched",
               gs_policies[p]->name, done, killed, unfinished, su->cost,
               cs->spot_reclaims, cs->gpu_failures,
               cs->node_failures, cs->launched);
        gs_sim_free(sim);
        gs_scenario_free(sc);
        gs_diag_free(&d);
    }
}

/* The cloud results reach the HDF5 file: per-job cost, the bill, the
 * cloud time series; and a cloud run is reproducible to the byte. */
static void test_results(void)
{
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_scenario_load("scenarios/cloud-mixed.json", &sc,
                                           &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, NULL, &sim, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
    char path[64];
    snprintf(path, sizeof path, "/tmp/gs-cloud-%ld.h5", (long)getpid());
    CU_ASSERT_EQUAL_FATAL(gs_h5_write(path, sim, &d), 0);
    struct gs_h5_job *rows = NULL;
    long n, nrec;
    const struct gs_jobrec *rec = gs_sim_records(sim, &nrec);
    CU_ASSERT_EQUAL_FATAL(gs_h5_read_jobs(path, &rows, &n, &d), 0);
    CU_ASSERT_EQUAL_FATAL(n, nrec);
    double cost = 0;
    for (long i = 0; i < n; i++) {
        CU_ASSERT_DOUBLE_EQUAL(rows[i].cost_usd, rec[i].cost, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(rows[i].lost_gpu_hours,
                               gs_sim_record_lost(sim, i), 1e-6);
        cost += rows[i].cost_usd;
    }
    free(rows);
    const struct gs_summary *su = gs_sim_summary(sim);
    const struct gs_cloudsum *cs = gs_cloud_summary(gs_sim_cloud(sim));
    double v;
    CU_ASSERT_EQUAL(gs_h5_read_summary(path, "cost_idle_usd", &v, &d), 0);
    CU_ASSERT_DOUBLE_EQUAL(v, cs->cost_idle, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cost + v, su->cost, 1e-6 * su->cost);
    double *bill;
    long ns;
    CU_ASSERT_EQUAL_FATAL(gs_h5_read_series(path, "/timeseries/nodes_billed",
                                            &bill, &ns, &d), 0);
    CU_ASSERT_EQUAL(ns, gs_sim_metrics(sim)->ts.n);
    for (long i = 0; i < ns; i++)
        CU_ASSERT(bill[i] >= 4);        /* the reserved pool, spare included */
    free(bill);
    unlink(path);
    char *a = NULL, *b = NULL;
    size_t la, lb;
    FILE *fp = open_memstream(&a, &la);
    gs_report_json(fp, sim);
    gs_report_table(fp, sim);
    fclose(fp);
    gs_sim_free(sim);
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(sc, NULL, &sim, &d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_run(sim, &d), 0);
    fp = open_memstream(&b, &lb);
    gs_report_json(fp, sim);
    gs_report_table(fp, sim);
    fclose(fp);
    CU_ASSERT_STRING_EQUAL(a, b);
    su = gs_sim_summary(sim);
    cs = gs_cloud_summary(gs_sim_cloud(sim));   /* the first sim is freed */
    /* the JSON's bill by GPU model, by tier (+ idle) adds up */
    const char *m = strstr(a, "\"cost_by\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    const char *keys[] = { "\"model\": {", "\"tier\": {" };
    for (int k = 0; k < 2; k++) {
        const char *q = strstr(m, keys[k]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(q);
        double sum = k == 1 ? cs->cost_idle : 0, x;
        const char *end = strchr(q, '}');
        for (q = strchr(q, ':') + 1; (q = strchr(q, ':')) && q < end; q++)
            if (sscanf(q + 1, "%lf", &x) == 1)
                sum += x;
        CU_ASSERT_DOUBLE_EQUAL(sum, su->cost, 1e-4);
    }
    free(a);
    free(b);
    gs_sim_free(sim);
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

/* --- input errors -------------------------------------------------------- */

static void bad(const char *json, const char *where, const char *what)
{
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    int rc = gs_scenario_parse(json, "s.json", ".", &sc, &d);
    char msg[1200];
    gs_test_diag_text(&d, msg, sizeof msg);
    if (rc != GS_EINVAL || !strstr(msg, where) || !strstr(msg, what))
        printf("\n    got rc=%d: %s", rc, msg);
    CU_ASSERT_EQUAL(rc, GS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, where));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, what));
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

#define GEN "\"workload\": {\"generate\": {\"jobs\": 1, \"rate_per_hour\": 1," \
            " \"classes\": [{\"duration\": {\"dist\": \"constant\"," \
            " \"value\": 60}}]}}"

static void test_input_errors(void)
{
    bad("{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1, \"market\":"
        " \"spot\"}], " GEN "}", "$.fleet[0]", "a spot pool needs");
    bad("{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1, \"spot\":"
        " {\"interruptions_per_hour\": 1}}], " GEN "}", "$.fleet[0].spot",
        "only a pool in the spot market");
    bad("{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1, \"market\":"
        " \"spot\", \"spot\": {\"interruptions_per_hour\": 1, \"hazard\": 2}}],"
        " " GEN "}", "$.fleet[0].spot", "unknown key 'hazard'");
    bad("{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1, \"market\":"
        " \"reserved\"}], " GEN "}", "$.fleet[0]", "needs its price");
    bad("{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 5, \"autoscale\":"
        " {\"max_nodes\": 4}}], " GEN "}", "$.fleet[0].autoscale",
        "must lie within");
    bad("{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1, \"autoscale\":"
        " {\"max_nodes\": 4, \"schedule\": [{\"from\": \"25:00\", \"to\":"
        " \"06:00\"}]}}], " GEN "}", "$.fleet[0].autoscale.schedule[0].from",
        "HH:MM");
    bad("{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1}], " GEN ","
        " \"failures\": {\"gpu\": {\"shape\": 0.7}}}", "$.failures.gpu",
        "both \"shape\" and \"scale\"");
    bad("{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1}], " GEN ","
        " \"reaper\": {\"tiers\": [\"batch\"]}}", "$.reaper.tiers",
        "unknown tier 'batch'");
    bad("{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1, \"market\":"
        " \"capacity-block\", \"price_per_hour\": 1}], " GEN "}", "$.fleet[0]",
        "needs \"capacity_block\"");
    bad("{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1,"
        " \"billing\": {\"granularity\": 0}}], " GEN "}",
        "$.fleet[0].billing.granularity", "at least 1 ms");
    /* a bad row in a hazard file: file:line */
    struct crun cr;
    expect_failure = 1;
    crun(&cr, NULL,
         "{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1, \"market\":"
         " \"spot\", \"spot\": {\"hazard_file\": \"%s\"}}],"
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         "time_s,rate\n0,1\n10,x\n", "id,arrival,gpus,duration\n1,0,1,1\n",
         NULL);
    char msg[1200], want[128];
    gs_test_diag_text(&cr.r.d, msg, sizeof msg);
    snprintf(want, sizeof want, "%s:3", cr.files[0]);
    CU_ASSERT_EQUAL(cr.r.rc, GS_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
    crun_free(&cr);
    /* a line of any length: a 3,000-byte comment before the rows is read
     * whole (the reader refused lines past 511 bytes, "line too long"),
     * and a bad row after it is named by its own line */
    char *hz = malloc(4096);
    snprintf(hz, 4096, "# %03000d\ntime_s,rate\n0,1\n\n10,x\n", 0);
    crun(&cr, NULL,
         "{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1, \"market\":"
         " \"spot\", \"spot\": {\"hazard_file\": \"%s\"}}],"
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         hz, "id,arrival,gpus,duration\n1,0,1,1\n", NULL);
    gs_test_diag_text(&cr.r.d, msg, sizeof msg);
    snprintf(want, sizeof want, "%s:5: expected \"time_s,value\" (two "
             "numbers)", cr.files[0]);
    CU_ASSERT_EQUAL(cr.r.rc, GS_EPARSE);
    CU_ASSERT_STRING_EQUAL(msg, want);
    crun_free(&cr);
    hz[strlen(hz) - 2] = '5';   /* "10,5": the file reads */
    expect_failure = 0;
    crun(&cr, NULL,
         "{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1, \"market\":"
         " \"spot\", \"spot\": {\"hazard_file\": \"%s\"}}],"
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         hz, "id,arrival,gpus,duration\n1,0,1,1\n", NULL);
    CU_ASSERT_EQUAL(cr.r.rc, 0);
    crun_free(&cr);
    expect_failure = 1;
    free(hz);
    /* a FIFO as the hazard file: refused as such, at once (fopen waited
     * for a writer) */
    char fifo[64], fj[600], fwant[256];
    snprintf(fifo, sizeof fifo, "/tmp/gs-test-fifo-%d", (int)getpid());
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    snprintf(fj, sizeof fj, "{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": "
             "1, \"market\": \"spot\", \"spot\": {\"hazard_file\": \"%s\"}}],"
             " \"workload\": {\"trace\": {\"format\": \"native\", \"path\":"
             " \"%%s\"}}}", fifo);
    crun(&cr, NULL, fj, "id,arrival,gpus,duration\n1,0,1,1\n", NULL, NULL);
    gs_test_diag_text(&cr.r.d, msg, sizeof msg);
    snprintf(fwant, sizeof fwant, "%s: a price or hazard file must be a "
             "regular file, and this is a pipe (FIFO)", fifo);
    CU_ASSERT_STRING_EQUAL(msg, fwant);
    crun_free(&cr);
    unlink(fifo);
    /* an inference job on a fleet of spot pools only */
    crun(&cr, NULL,
         "{\"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1, \"market\":"
         " \"spot\", \"spot\": {\"interruptions_per_hour\": 1}}],"
         " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%s\"}}}",
         "id,arrival,gpus,duration,tier\n1,0,1,1,inference\n", NULL, NULL);
    gs_test_diag_text(&cr.r.d, msg, sizeof msg);
    CU_ASSERT_EQUAL(cr.r.rc, GS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "$.spot.tiers"));
    crun_free(&cr);
    expect_failure = 0;
}

static CU_TestInfo tests[] = {
    { "spot: reclaims are Poisson (4 sigma)", test_spot_poisson },
    { "spot: a hazard file shapes the reclaims", test_spot_hazard },
    { "spot: notice, reclaim, work lost exactly", test_spot_lost_work },
    { "spot: a policy's notice hook migrates", test_spot_notice_hook },
    { "failures: Weibull shape recovered by a fit", test_weibull_shape },
    { "failures: burn-in then exponential", test_burn_in },
    { "failures: fail-in-place, denials, availability", test_fail_in_place },
    { "failures: a hot spare takes over", test_spare },
    { "failures: a degraded GPU slows its gang", test_degraded },
    { "autoscale: exact timeline", test_autoscale_timeline },
    { "autoscale: a scheduled window", test_autoscale_window },
    { "autoscale: consolidation", test_autoscale_consolidate },
    { "cost: reserved + on-demand + spot, hourly billing", test_cost_exact },
    { "cost: a pool kept full has idle 0, never -0", test_cost_full_pool },
    { "reaper: idle jobs terminated", test_reaper },
    { "every policy: spot, failures, autoscaling; all jobs accounted",
      test_all_policies },
    { "results: HDF5 columns and tables, reproducible", test_results },
    { "input errors name their place", test_input_errors },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("cloud", tests)
