/* test_source.c -- request sources of inference services: the empirical
 * total-token CDF (exact quantiles, the drawn totals meeting the CDF at its
 * points, the input/output split), length routing across pools (every
 * request of the shared stream lands in exactly the pool its total
 * belongs to, none lost or doubled), and the checks of bad input. */
#include "cutest.h"
#include "simutil.h"
#include "../sim/base/rng.h"
#include "../sim/inference/service.h"
#include "../sim/setup/source.h"
#include "../sim/inference/svcgen.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

/* inference-fleet-sim's data/azure_cdf.json: total tokens of the Azure LLM
 * inference trace (2023), as (tokens, cumulative share). */
static const double AZ[][2] = {
    { 64, 0.00837324818165691 }, { 128, 0.02817101295015079 },
    { 256, 0.06758914316125599 }, { 512, 0.2886287032109278 },
    { 768, 0.36427177576725206 }, { 1024, 0.40447046301224054 },
    { 1536, 0.6568742238779492 }, { 2048, 0.779847436579741 },
    { 3072, 0.8686535391165514 }, { 4096, 0.8982082668085861 },
    { 6144, 0.9758027319496186 }, { 8192, 0.9999645201348235 },
    { 12288, 0.9999645201348235 }, { 16384, 1.0 }, { 24576, 1.0 },
    { 32768, 1.0 }, { 49152, 1.0 }, { 65536, 1.0 },
};
#define NAZ ((int)(sizeof AZ / sizeof AZ[0]))

#define AZ_POINTS                                                          \
    "[[64, 0.00837324818165691], [128, 0.02817101295015079], "             \
    "[256, 0.06758914316125599], [512, 0.2886287032109278], "              \
    "[768, 0.36427177576725206], [1024, 0.40447046301224054], "            \
    "[1536, 0.6568742238779492], [2048, 0.779847436579741], "              \
    "[3072, 0.8686535391165514], [4096, 0.8982082668085861], "             \
    "[6144, 0.9758027319496186], [8192, 0.9999645201348235], "             \
    "[12288, 0.9999645201348235], [16384, 1.0], [24576, 1.0], "            \
    "[32768, 1.0], [49152, 1.0], [65536, 1.0]]"

static struct gs_tokcdf azure(void)
{
    struct gs_tokcdf c = { .n = NAZ, .in_share = 0.8 };
    for (int i = 0; i < NAZ; i++) {
        c.x[i] = AZ[i][0];
        c.p[i] = AZ[i][1];
    }
    return c;
}

/* Quantiles by hand: linear between the neighbouring points, from (0, 0). */
static void test_cdf_quantiles(void)
{
    struct gs_tokcdf c = azure();
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_tokcdf_check(&c, "x", &d), 0);
    /* u = 0.5 lies between (1024, 0.40447...) and (1536, 0.65687...). */
    double q = 1024 + (0.5 - AZ[5][1]) / (AZ[6][1] - AZ[5][1]) * 512;
    CU_ASSERT_DOUBLE_EQUAL(gs_tokcdf_quantile(&c, 0.5), q, 1e-9);
    CU_ASSERT_EQUAL(gs_tokcdf_total(&c, 0.5), (long)ceil(q));
    CU_ASSERT_EQUAL(gs_tokcdf_total(&c, 0.5), 1218);
    /* The first segment starts at (0, 0): u = p0/2 is 32 tokens. */
    CU_ASSERT_DOUBLE_EQUAL(gs_tokcdf_quantile(&c, AZ[0][1] / 2), 32, 1e-9);
    /* At every point, the quantile is the point's tokens. */
    for (int i = 0; i < NAZ; i++)
        if (i == 0 || AZ[i][1] > AZ[i - 1][1])
            CU_ASSERT_EQUAL(gs_tokcdf_total(&c, AZ[i][1]), (long)AZ[i][0]);
    /* P99 sits on the 6144..8192 segment. */
    q = 6144 + (0.99 - AZ[10][1]) / (AZ[11][1] - AZ[10][1]) * 2048;
    CU_ASSERT_DOUBLE_EQUAL(gs_tokcdf_quantile(&c, 0.99), q, 1e-9);
    CU_ASSERT_EQUAL(gs_tokcdf_total(&c, 0), 1);
    CU_ASSERT_EQUAL(gs_tokcdf_total(&c, 1), 16384);
    /* The mean: each segment's probability at its midpoint. */
    double m = 0, x0 = 0, p0 = 0;
    for (int i = 0; i < NAZ; i++) {
        m += (AZ[i][1] - p0) * (x0 + AZ[i][0]) / 2;
        x0 = AZ[i][0];
        p0 = AZ[i][1];
    }
    CU_ASSERT_DOUBLE_EQUAL(gs_tokcdf_mean(&c), m, 1e-9);
    CU_ASSERT(m > 1600 && m < 1650);
    /* 80/20, each at least 1. */
    int in, out;
    gs_tokcdf_split(&c, 1218, &in, &out);
    CU_ASSERT_EQUAL(in, 974);
    CU_ASSERT_EQUAL(out, 244);
    gs_tokcdf_split(&c, 1, &in, &out);
    CU_ASSERT(in == 1 && out == 1);
    gs_tokcdf_split(&c, 6144, &in, &out);
    CU_ASSERT(in == 4915 && out == 1229);
    gs_diag_free(&d);
}

/* Token counts round to the nearest integer, halves up (lround's rule),
 * at least 1 and at most 10^7: constant laws give the draws exactly. */
static void test_token_rounding(void)
{
    static const double v[][2] = {
        { 2.5, 3 }, { 2.4999999999999996, 2 }, { 3.5, 4 }, { 1, 1 },
        { 0.2, 1 }, { 1.49999999999999978, 1 }, { 4095.5, 4096 },
        { 9999999.5, 10000000 }, { 1e9, 10000000 }, { 7.0000000000000009, 7 },
    };
    gsl_rng *r = gs_rng_stream(7, "test.tokens");
    CU_ASSERT_FATAL(r != NULL);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        struct gs_svcgen g = { 0 };
        g.input.kind = g.output.kind = GS_DIST_CONSTANT;
        g.input.a = v[i][0];
        g.output.a = v[i][0] + 1;
        int in, out;
        gs_svcgen_tokens(&g, r, &in, &out);
        CU_ASSERT_EQUAL(in, (int)v[i][1]);
        CU_ASSERT_EQUAL(out, v[i][0] + 1 > 1e7 ? 10000000
                                               : (int)lround(v[i][0] + 1));
    }
    gsl_rng_free(r);
}

/* Drawn totals meet the CDF at its points: for 200,000 draws the share
 * at or below each point is p within 5 standard errors. */
static void test_cdf_draws(void)
{
    struct gs_svcgen g = { 0 };
    g.total = azure();
    gsl_rng *r = gs_rng_stream(7, "test.tokens");
    CU_ASSERT_FATAL(r != NULL);
    const long n = 200000;
    long below[NAZ] = { 0 };
    for (long k = 0; k < n; k++) {
        int in, out;
        gs_svcgen_tokens(&g, r, &in, &out);
        long tot = (long)in + out;
        CU_ASSERT(in >= 1 && out >= 1);
        CU_ASSERT_EQUAL(in, tot > 1 ? (int)floor(tot * 0.8) : 1);
        for (int i = 0; i < NAZ; i++)
            below[i] += tot <= (long)AZ[i][0];
    }
    gsl_rng_free(r);
    for (int i = 0; i < NAZ; i++) {
        double p = AZ[i][1], f = (double)below[i] / (double)n;
        double se = sqrt(p * (1 - p) / (double)n);
        CU_ASSERT(fabs(f - p) <= 5 * se + 1e-12);
    }
}

#define SVC(NAME, ROUTE)                                                   \
    "{\"name\": \"" NAME "\", \"model\": \"llama3-8b\","                   \
    " \"gpu\": \"H100-80GB\", \"replicas\": 2,"                             \
    " \"requests\": {\"stream\": \"azure\"" ROUTE ", \"generate\": "        \
    "{\"rate_per_second\": 20, \"requests\": 3000, \"input_share\": 0.8,"  \
    " \"total_tokens\": {\"dist\": \"cdf\", \"points\": " AZ_POINTS "}}}}"

#define HEAD                                                               \
    "{\"name\": \"t\", \"seed\": 3, \"fleet\": [{\"gpu\": \"H100-80GB\","  \
    " \"nodes\": 1, \"gpus_per_node\": 8}], \"policy\": \"fifo\","          \
    " \"services\": ["

struct rq {
    double arrival;
    int in, out;
};

static int cmp_rq(const void *a, const void *b)
{
    const struct rq *x = a, *y = b;
    return (x->arrival > y->arrival) - (x->arrival < y->arrival);
}

/* One stream served whole, and the same stream split at 1024 tokens over
 * two pools: the pools' requests are exactly the whole stream's, each in
 * the pool its total belongs to, and every one finishes. */
static void test_length_routing(void)
{
    struct run all, two;
    run_text(&all, HEAD SVC("all", "") "]}", NULL);
    CU_ASSERT_EQUAL_FATAL(all.rc, 0);
    run_text(&two, HEAD SVC("short", ", \"route\": {\"max_total_tokens\": 1024}")
             ", " SVC("long", ", \"route\": {\"min_total_tokens\": 1025}")
             "]}", NULL);
    if (two.rc)
        fprintf(stderr, "%s: %s\n", two.d.where, two.d.what);
    CU_ASSERT_EQUAL_FATAL(two.rc, 0);
    long na, ns, nl;
    const struct gs_reqrec *a = gs_sim_service_requests(all.sim, 0, &na);
    const struct gs_reqrec *s = gs_sim_service_requests(two.sim, 0, &ns);
    const struct gs_reqrec *l = gs_sim_service_requests(two.sim, 1, &nl);
    CU_ASSERT_EQUAL(na, 3000);
    CU_ASSERT_EQUAL(ns + nl, na);
    /* The azure CDF puts 40% at or below 1024 tokens. */
    CU_ASSERT(ns > 1000 && nl > 1000);
    const struct gs_svcsum *vs = gs_sim_service(two.sim, 0);
    const struct gs_svcsum *vl = gs_sim_service(two.sim, 1);
    CU_ASSERT_EQUAL(vs->arrived, ns);
    CU_ASSERT_EQUAL(vl->arrived, nl);
    CU_ASSERT_EQUAL(vs->finished, ns);
    CU_ASSERT_EQUAL(vl->finished, nl);
    struct rq *m = calloc((size_t)(ns + nl), sizeof *m);
    struct rq *w = calloc((size_t)na, sizeof *w);
    CU_ASSERT_FATAL(m && w);
    for (long i = 0; i < ns; i++) {
        CU_ASSERT(s[i].in + s[i].out <= 1024);
        CU_ASSERT_EQUAL(s[i].state, GS_REQ_DONE);
        m[i] = (struct rq){ s[i].arrival, s[i].in, s[i].out };
    }
    for (long i = 0; i < nl; i++) {
        CU_ASSERT(l[i].in + l[i].out >= 1025);
        CU_ASSERT_EQUAL(l[i].state, GS_REQ_DONE);
        m[ns + i] = (struct rq){ l[i].arrival, l[i].in, l[i].out };
    }
    for (long i = 0; i < na; i++)
        w[i] = (struct rq){ a[i].arrival, a[i].in, a[i].out };
    qsort(m, (size_t)(ns + nl), sizeof *m, cmp_rq);
    int same = ns + nl == na;
    for (long i = 0; same && i < na; i++)
        same = m[i].arrival == w[i].arrival && m[i].in == w[i].in &&
               m[i].out == w[i].out;
    CU_ASSERT(same);
    /* The same seed: the same records, byte for byte. */
    struct run again;
    run_text(&again, HEAD SVC("short", ", \"route\": {\"max_total_tokens\": 1024}")
             ", " SVC("long", ", \"route\": {\"min_total_tokens\": 1025}")
             "]}", NULL);
    CU_ASSERT_EQUAL_FATAL(again.rc, 0);
    for (int k = 0; k < 2; k++) {
        long n1, n2;
        const struct gs_reqrec *r1 = gs_sim_service_requests(two.sim, k, &n1);
        const struct gs_reqrec *r2 = gs_sim_service_requests(again.sim, k, &n2);
        CU_ASSERT_EQUAL(n1, n2);
        int same_rec = n1 == n2;
        for (long i = 0; same_rec && i < n1; i++)
            same_rec = r1[i].arrival == r2[i].arrival &&
                       r1[i].first == r2[i].first && r1[i].end == r2[i].end &&
                       r1[i].in == r2[i].in && r1[i].out == r2[i].out &&
                       r1[i].replica == r2[i].replica;
        CU_ASSERT(same_rec);
    }
    run_free(&again);
    free(m);
    free(w);
    run_free(&all);
    run_free(&two);
}

static void expect_err(const char *json, const char *where, const char *what)
{
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    int rc = gs_scenario_parse(json, "t.json", "/", &sc, &d);
    CU_ASSERT(rc < 0);
    if (rc < 0 && (strstr(d.where, where) == NULL ||
                   strstr(d.what, what) == NULL)) {
        fprintf(stderr, "expected %s / %s, got %s: %s\n", where, what,
                d.where, d.what);
        CU_FAIL("message");
    }
    gs_scenario_free(sc);
    gs_diag_free(&d);
}

static void test_bad_input(void)
{
    /* A gap between the routes. */
    expect_err(HEAD SVC("a", ", \"route\": {\"max_total_tokens\": 1024}") ", "
               SVC("b", ", \"route\": {\"min_total_tokens\": 2000}") "]}",
               "$.services[1].requests.route", "takes totals 1025 to 1999");
    /* An overlap. */
    expect_err(HEAD SVC("a", ", \"route\": {\"max_total_tokens\": 1024}") ", "
               SVC("b", ", \"route\": {\"min_total_tokens\": 1000}") "]}",
               "$.services[1].requests.route", "must not overlap");
    /* The top left to nobody. */
    expect_err(HEAD SVC("a", ", \"route\": {\"max_total_tokens\": 1024}") "]}",
               "$.services[0].requests.route", "above 1024");
    /* A second pool without a route. */
    expect_err(HEAD SVC("a", ", \"route\": {\"max_total_tokens\": 1024}") ", "
               SVC("b", "") "]}", "$.services", "needs a \"route\"");
    expect_err(HEAD SVC("a", ", \"route\": {}") "]}",
               "$.services[0].requests.route", "give \"min_total_tokens\"");
    expect_err(HEAD SVC("a", ", \"route\": {\"max_total_tokenz\": 3}") "]}",
               "$.services[0].requests.route", "did you mean");
    /* Different sources on one stream. */
    {
        char t[8192];
        snprintf(t, sizeof t, "%s%s, %s]}", HEAD,
                 SVC("a", ", \"route\": {\"max_total_tokens\": 1024}"),
                 SVC("b", ", \"route\": {\"min_total_tokens\": 1025}"));
        char *p = strstr(strstr(t, "\"b\""), "\"rate_per_second\": 20");
        CU_ASSERT_FATAL(p != NULL);
        memcpy(p, "\"rate_per_second\": 21", 21);
        expect_err(t, "$.services[1].requests", "not its source");
    }
    /* CDFs that are no CDF. */
#define ONE(TT)                                                             \
    HEAD "{\"name\": \"a\", \"model\": \"llama3-8b\", \"gpu\": "            \
    "\"H100-80GB\", \"requests\": {\"generate\": {\"rate_per_second\": 1,"  \
    " \"requests\": 10, " TT "}}}]}"
    expect_err(ONE("\"total_tokens\": {\"dist\": \"cdf\", \"points\": "
                   "[[10, 0.5], [20, 0.9]]}"),
               "total_tokens.points", "ends at 1");
    expect_err(ONE("\"total_tokens\": {\"dist\": \"cdf\", \"points\": "
                   "[[10, 0.5], [5, 1]]}"),
               "total_tokens.points", "do not increase");
    expect_err(ONE("\"total_tokens\": {\"dist\": \"cdf\", \"points\": "
                   "[[10, 0.5], [20]]}"),
               "total_tokens.points[1]", "expected [tokens");
    expect_err(ONE("\"total_tokens\": {\"dist\": \"lognormal\", \"points\": "
                   "[[10, 1]]}"),
               "total_tokens.dist", "takes dist \"cdf\"");
    expect_err(ONE("\"total_tokens\": {\"dist\": \"cdf\", \"points\": "
                   "[[10, 1]]}, \"input_tokens\": 5"),
               "generate", "give either");
    expect_err(ONE("\"input_share\": 0.5, \"input_tokens\": 5, "
                   "\"output_tokens\": 5"),
               "generate.input_share", "not given");
    expect_err(ONE("\"total_tokens\": {\"dist\": \"cdf\", \"points\": "
                   "[[10, 1]]}, \"input_share\": 1"),
               "generate.input_share", "outside");
    expect_err(ONE("\"total_tokens\": {\"dist\": \"cdf\", \"file\": "
                   "\"/nonexistent/cdf.json\"}"),
               "/nonexistent/cdf.json", "cannot open");
    expect_err(ONE("\"total_tokens\": {\"dist\": \"cdf\", \"file\": "
                   "\"/dev/zero\"}"),
               "/dev/zero", "not a CDF file");
}

/* The CDF from a file, in either of inference-fleet-sim's two forms, gives
 * the same law as inline points. */
static void test_cdf_file(void)
{
    char path[64], text[8192];
    write_temp("{\"cdf\": " AZ_POINTS "}", path);
    snprintf(text, sizeof text, ONE("\"total_tokens\": {\"dist\": \"cdf\", "
                                    "\"file\": \"%s\"}"), path);
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL_FATAL(gs_scenario_parse(text, "t.json", "/", &sc, &d), 0);
    const struct gs_tokcdf *c = &sc->svcs[0].gen.total;
    CU_ASSERT_EQUAL(c->n, NAZ);
    for (int i = 0; i < c->n && i < NAZ; i++)
        CU_ASSERT(c->x[i] == AZ[i][0] && c->p[i] == AZ[i][1]);
    CU_ASSERT_DOUBLE_EQUAL(c->in_share, 0.8, 0);
    /* The means stand in for the input and output laws. */
    CU_ASSERT_DOUBLE_EQUAL(sc->svcs[0].gen.input.a, 0.8 * gs_tokcdf_mean(c),
                           1e-9);
    gs_scenario_free(sc);
    unlink(path);
    write_temp("[[10, 0.25], [20, 1]]", path);
    snprintf(text, sizeof text, ONE("\"total_tokens\": {\"dist\": \"cdf\", "
                                    "\"file\": \"%s\"}, \"input_share\": 0.5"),
             path);
    CU_ASSERT_EQUAL_FATAL(gs_scenario_parse(text, "t.json", "/", &sc, &d), 0);
    c = &sc->svcs[0].gen.total;
    CU_ASSERT_EQUAL(c->n, 2);
    CU_ASSERT_EQUAL(gs_tokcdf_total(c, 0.625), 15);
    gs_scenario_free(sc);
    unlink(path);
    write_temp("[[10, 0.25], [20, 1]", path);
    snprintf(text, sizeof text, ONE("\"total_tokens\": {\"dist\": \"cdf\", "
                                    "\"file\": \"%s\"}"), path);
    expect_err(text, path, "not valid JSON");
    unlink(path);
    gs_diag_free(&d);
}

static CU_TestInfo tests[] = {
    { "cdf quantiles", test_cdf_quantiles },
    { "cdf draws", test_cdf_draws },
    { "token rounding", test_token_rounding },
    { "cdf file", test_cdf_file },
    { "length routing", test_length_routing },
    { "bad input", test_bad_input },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("source", tests)
