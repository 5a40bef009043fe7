/* test_reqfit.c -- `gpusim trace fit` on request traces: a trace drawn
 * here from known laws (Poisson arrivals with a daily cycle, lognormal
 * prompts, exponential replies) gives back their parameters within
 * bounds its sample size allows; the fitted block pastes into a scenario
 * as a service's request source and runs; the real Azure code trace is
 * fitted (skipped without ../shared/traces). */
#include "cutest.h"
#include "simutil.h"
#include "../sim/inference/service.h"
#include "../traces/llmreq.h"
#include "../traces/tfit.h"
#include "../sim/io/jsonio.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#define AZURE "../shared/traces/azure-llm-2023/AzureLLMInferenceTrace_code.csv"

/* Rate 0.25/s x (1 + 0.5 cos(2 pi (h - 14) / 24)) for 3 days by thinning;
 * input lognormal (median 800, sigma 0.9), output exponential (mean 200),
 * as gpusim's request CSV. */
static long write_known(const char *path)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 12345);
    FILE *fp = fopen(path, "w");
    if (fp == NULL || r == NULL)
        abort();
    fprintf(fp, "id,arrival,input_tokens,output_tokens,prefix_blocks\n");
    const double base = 0.25, amp = 0.5, peak = 14, T = 3 * 86400.0;
    double t = 0;
    long n = 0;
    for (;;) {
        t += gsl_ran_exponential(r, 1.0 / (base * (1 + amp)));
        if (t >= T)
            break;
        double h = fmod(t / 3600.0, 24.0);
        double rate = base * (1 + amp * cos(2 * M_PI * (h - peak) / 24.0));
        if (gsl_rng_uniform(r) * base * (1 + amp) >= rate)
            continue;
        long in = lround(gsl_ran_lognormal(r, log(800.0), 0.9));
        long out = lround(gsl_ran_exponential(r, 200.0));
        fprintf(fp, "%ld,%.3f,%ld,%ld,\n", n, t, in < 1 ? 1 : in,
                out < 1 ? 1 : out);
        n++;
    }
    fclose(fp);
    gsl_rng_free(r);
    return n;
}

static void test_known_laws(void)
{
    char path[64];
    write_temp("", path);
    long n = write_known(path);
    struct gs_reqtable *t = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_reqtable_load("requests", path, 0, &t, &d), 0);
    CU_ASSERT_EQUAL(t->n, n);
    struct gs_fitopts o;
    gs_fitopts_default(&o);
    struct gs_reqfit *f = malloc(sizeof *f);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL_FATAL(gs_reqfit_run(t, &o, f, &d), 0);
    /* About 64,800 requests: the rate's standard error is 0.4%, the
     * amplitude's and peak's a few hundredths. */
    CU_ASSERT(n > 60000 && n < 70000);
    CU_ASSERT(f->arr.fit_daily);
    CU_ASSERT(!f->arr.fit_weekly);
    CU_ASSERT_DOUBLE_EQUAL(f->arr.rate / 3600.0, 0.25, 0.25 * 0.02);
    CU_ASSERT_DOUBLE_EQUAL(f->arr.amp, 0.5, 0.03);
    CU_ASSERT_DOUBLE_EQUAL(f->arr.peak, 14.0, 0.25);
    CU_ASSERT(f->arr.arr_ks < 0.01);
    /* Input: lognormal chosen, its median to 2% and sigma to 2%. */
    CU_ASSERT_EQUAL(f->in.chosen, GS_DIST_LOGNORMAL);
    CU_ASSERT_DOUBLE_EQUAL(exp(f->in.logn.a), 800.0, 16.0);
    CU_ASSERT_DOUBLE_EQUAL(f->in.logn.b, 0.9, 0.018);
    CU_ASSERT(f->in.logn.ks < 0.01);
    /* Output: exponential chosen, its mean to 2% (rounding to whole tokens
     * leaves the mean unbiased). */
    CU_ASSERT_EQUAL(f->out.chosen, GS_DIST_EXPONENTIAL);
    CU_ASSERT_DOUBLE_EQUAL(f->out.exp.a, 200.0, 4.0);
    CU_ASSERT(f->out.exp.ks < f->out.logn.ks);
    CU_ASSERT(f->out.exp.ks < f->out.par.ks);

    /* The block pastes into a service and runs: its stream's rate and
     * lengths are the fitted ones. */
    char blk[64];
    write_temp("", blk);
    FILE *fp = fopen(blk, "w");
    CU_ASSERT_FATAL(fp != NULL);
    gs_reqfit_write_source(fp, f, path);
    fclose(fp);
    char *text = NULL;
    {
        FILE *b = fopen(blk, "r");
        static char buf[4096];
        size_t m = fread(buf, 1, sizeof buf - 1, b);
        buf[m] = '\0';
        fclose(b);
        text = buf;
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"diurnal_amplitude\""));
    char json[8192];
    snprintf(json, sizeof json,
             "{\"name\": \"t\", \"fleet\": [{\"gpu\": \"H100-80GB\","
             " \"nodes\": 1, \"gpus_per_node\": 8}], \"policy\": \"fifo\","
             " \"services\": [{\"name\": \"s\", \"model\": \"llama3-8b\","
             " \"gpu\": \"H100-80GB\", \"replicas\": 2, \"requests\": %s}]}",
             text);
    /* A shorter stream for the run: the first 6 hours. */
    char *u = strstr(json, "\"until\": ");
    CU_ASSERT_FATAL(u != NULL);
    char *e = strchr(u, ',');
    memmove(u + strlen("\"until\": \"6h\""), e, strlen(e) + 1);
    memcpy(u, "\"until\": \"6h\"", strlen("\"until\": \"6h\""));
    struct run r;
    run_text(&r, json, NULL);
    if (r.rc)
        fprintf(stderr, "%s: %s\n", r.d.where, r.d.what);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    const struct gs_svccfg *sv = &r.sc->svcs[0];
    CU_ASSERT_EQUAL(sv->gen.input.kind, GS_DIST_LOGNORMAL);
    CU_ASSERT_DOUBLE_EQUAL(sv->gen.rate.diurnal, f->arr.amp, 1e-5);
    const struct gs_svcsum *v = gs_sim_service(r.sim, 0);
    /* 6 hours from midnight at the fitted cycle: the expected count is the
     * integral of the rate. */
    double a = f->arr.amp, ph = f->arr.peak, w = 2 * M_PI / 24;
    double expect = f->arr.rate * (6 + a / w * (sin(w * (6 - ph)) -
                                                sin(w * (0 - ph))));
    CU_ASSERT(fabs((double)v->arrived - expect) < 5 * sqrt(expect));
    CU_ASSERT_EQUAL(v->finished, v->arrived);
    run_free(&r);
    unlink(blk);
    free(f);
    gs_reqtable_free(t);
    unlink(path);
    gs_diag_free(&d);
}

/* The Azure code trace: one hour (no daily cycle), its rate n / span, the
 * chosen laws the best by KS, input within 0.05 of the data. */
static void test_azure(void)
{
    if (access(AZURE, R_OK) != 0) {
        printf("(skipped: %s absent) ", AZURE);
        return;
    }
    struct gs_reqtable *t = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_reqtable_load("azure-llm", AZURE, 0, &t, &d), 0);
    struct gs_fitopts o;
    gs_fitopts_default(&o);
    struct gs_reqfit *f = malloc(sizeof *f);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL_FATAL(gs_reqfit_run(t, &o, f, &d), 0);
    CU_ASSERT_EQUAL(f->n, 8819);
    CU_ASSERT(!f->arr.fit_daily);
    double span_h = (double)(t->r[t->n - 1].arrival - t->r[0].arrival) /
                    3600000.0;
    CU_ASSERT_DOUBLE_EQUAL(f->arr.rate, (double)t->n / span_h,
                           1e-6 * f->arr.rate);
    double si = 0, so = 0;
    for (long i = 0; i < t->n; i++) {
        si += t->r[i].input_tokens;
        so += t->r[i].output_tokens;
    }
    CU_ASSERT_DOUBLE_EQUAL(f->in_mean, si / (double)t->n, 1e-6 * si);
    CU_ASSERT_DOUBLE_EQUAL(f->out_mean, so / (double)t->n, 1e-6 * so);
    const struct gs_fitclass *c[2] = { &f->in, &f->out };
    for (int k = 0; k < 2; k++) {
        double best = fmin(c[k]->exp.ks, fmin(c[k]->logn.ks, c[k]->par.ks));
        double chosen = c[k]->chosen == GS_DIST_EXPONENTIAL ? c[k]->exp.ks
                      : c[k]->chosen == GS_DIST_LOGNORMAL ? c[k]->logn.ks
                      : c[k]->chosen == GS_DIST_PARETO ? c[k]->par.ks
                      : c[k]->emp.ks;
        CU_ASSERT(chosen <= 0.05 || c[k]->chosen == GS_DIST_EMPIRICAL);
        if (c[k]->chosen == GS_DIST_EMPIRICAL) {
            CU_ASSERT(best > 0.05 && c[k]->emp.ks < best);
        } else {
            CU_ASSERT(chosen == best);
        }
    }
    free(f);
    gs_reqtable_free(t);
    gs_diag_free(&d);
}

/* A figure a degenerate fit leaves not finite is written as null (JSON has
 * no NaN or infinity: "nan" made the whole file unreadable, refused at a
 * line and column instead of at its key), the others as they were; the
 * source's name whole (a 700-byte buffer cut it). */
static void test_nonfinite_json(void)
{
    struct gs_wlfit *f = calloc(1, sizeof *f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    f->n = 10;
    f->rate = 12.5;
    f->amp = NAN;
    f->peak = INFINITY;
    f->ref_model = -1;
    f->nclasses = 1;
    snprintf(f->cls[0].name, sizeof f->cls[0].name, "c");
    f->cls[0].weight = 1;
    f->cls[0].chosen = GS_DIST_PARETO;
    f->cls[0].par.a = 2000;
    f->cls[0].par.b = NAN;
    f->cls[0].max_ms = 4000;
    f->cls[0].nvalues = 1;
    f->cls[0].gpus[0] = 1;
    f->cls[0].gpu_w[0] = -INFINITY;
    f->cls[0].cb = 0.5;
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    char src[2001];
    memset(src, 's', 2000);
    src[2000] = '\0';
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    gs_fit_write_spec(fp, f, &cat, src);
    CU_ASSERT_EQUAL_FATAL(fclose(fp), 0);
    struct gs_json *doc = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_json_parse(buf, "spec", &doc, &d), 0);
    if (d.code)
        printf("\n    %s: %s", gs_diag_where(&d), gs_diag_what(&d));
    gs_diag_free(&d);
    static const char *const nulls[] = {
        "\"diurnal_amplitude\": null,", "\"peak_hour\": null,",
        "\"alpha\": null,", "\"weights\": [null]",
    };
    for (int i = 0; i < 4; i++)
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, nulls[i]));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"rate_per_hour\": 12.5,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"min\": 2.000, \"alpha\": null, "
                                       "\"max\": 16.000}"));
    char *desc = NULL;
    CU_ASSERT_FATAL(asprintf(&desc, "\"description\": \"fitted by gpusim "
                             "trace fit to %s (10 jobs)\",", src) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, desc));
    free(desc);
    gs_json_free(doc);
    free(buf);

    /* a request source: the rate, the horizon and a constant law */
    struct gs_reqfit *r = calloc(1, sizeof *r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    r->arr.rate = NAN;
    r->span_s = INFINITY;
    r->in.max_ms = NAN;             /* logn.b 0: every request alike */
    r->out.max_ms = 7;
    buf = NULL;
    fp = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    gs_reqfit_write_source(fp, r, "x");
    CU_ASSERT_EQUAL_FATAL(fclose(fp), 0);
    doc = NULL;
    CU_ASSERT_EQUAL(gs_json_parse(buf, "source", &doc, &d), 0);
    gs_diag_free(&d);
    CU_ASSERT_STRING_EQUAL(buf, "{\"generate\": {\n"
                           "  \"rate_per_second\": null,\n"
                           "  \"until\": null,\n"
                           "  \"input_tokens\": {\"dist\": \"constant\", "
                           "\"value\": null},\n"
                           "  \"output_tokens\": {\"dist\": \"constant\", "
                           "\"value\": 7}\n}}\n");
    gs_json_free(doc);
    free(buf);
    free(r);
    free(f);
}

static CU_TestInfo tests[] = {
    { "known laws", test_known_laws },
    { "azure code trace", test_azure },
    { "fitted specs: non-finite figures written as null, JSON still",
      test_nonfinite_json },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("reqfit", tests)
