/* test_svcscale.c -- the replica autoscaler (sim/inference/svcscale.c) and the
 * Holt-Winters forecast (sim/base/forecast.c), on their own.
 *
 * Each test scripts a load, plays the caller (start and drain replicas as
 * told, optionally with a cold start before a replica is ready) and checks
 * the replica timeline at sync instants against values worked out by hand
 * from the HPA and KEDA rules in svcscale.h.  The worked arithmetic is in
 * the comments next to each expectation. */
#include "cutest.h"
#include "../sim/base/forecast.h"
#include "../sim/io/jsonio.h"
#include "../sim/inference/svcscale.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define S 1000              /* ms per second */

/* --- helpers ----------------------------------------------------------- */

static int parse_cfg(const char *text, struct gs_svcscale_cfg *cfg,
                     struct gs_diag *d)
{
    struct gs_json *doc = NULL;
    memset(d, 0, sizeof *d);
    int rc = gs_json_parse(text, "t.json", &doc, d);
    if (rc == 0)
        rc = gs_svcscale_cfg_parse(doc, "t.json", "$.autoscaler", cfg, d);
    gs_json_free(doc);
    return rc;
}

static struct gs_svcscale *make(const char *text, int replicas)
{
    struct gs_svcscale_cfg cfg;
    struct gs_diag d = { 0 };
    struct gs_svcscale *sc = NULL;
    int rc = parse_cfg(text, &cfg, &d);
    if (rc == 0)
        rc = gs_svcscale_new(&cfg, 0, replicas, &sc, &d);
    if (rc != 0) {
        char m[1100];
        gs_test_diag_text(&d, m, sizeof m);
        printf("\n    setup failed: %s\n", m);
    }
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    gs_diag_free(&d);
    return sc;
}

/* The caller's side: replicas become ready `boot` after they are asked for;
 * a scale-down drains starting replicas first (the newest), then ready
 * ones.  The load functions see the time in seconds. */
#define MAXT 30000
struct drive {
    struct gs_svcscale *sc;
    gs_time boot;
    int ready, nstart;
    gs_time start_at[256];          /* ready times of starting replicas */
    void (*load)(double t, struct gs_svcscale_sample *s);
    int n;                          /* ticks recorded */
    gs_time t[MAXT];
    int want[MAXT];
};

static void drive_until(struct drive *dv, gs_time end)
{
    for (gs_time now = gs_svcscale_next(dv->sc); now <= end;) {
        int k = 0;                  /* replicas whose boot is over */
        for (int i = 0; i < dv->nstart; i++)
            if (dv->start_at[i] <= now)
                k++;
        if (k) {
            dv->ready += k;
            int j = 0;
            for (int i = 0; i < dv->nstart; i++)
                if (dv->start_at[i] > now)
                    dv->start_at[j++] = dv->start_at[i];
            dv->nstart = j;
        }
        struct gs_svcscale_sample s = { .ready = dv->ready,
                                        .starting = dv->nstart };
        dv->load((double)now / S, &s);
        gs_time next;
        int want = gs_svcscale_observe(dv->sc, now, &s, &next);
        while (dv->ready + dv->nstart < want) {
            if (dv->boot == 0)
                dv->ready++;
            else
                dv->start_at[dv->nstart++] = now + dv->boot;
        }
        while (dv->ready + dv->nstart > want) {
            if (dv->nstart)
                dv->nstart--;
            else
                dv->ready--;
        }
        CU_ASSERT_FATAL(dv->n < MAXT);
        dv->t[dv->n] = now;
        dv->want[dv->n++] = want;
        CU_ASSERT_FATAL(next > now);
        now = next;
    }
}

/* A fresh drive with `replicas` ready replicas. */
static void drive_init(struct drive *dv, const char *cfg, int replicas,
                       void (*load)(double, struct gs_svcscale_sample *))
{
    memset(dv, 0, sizeof *dv);
    dv->sc = make(cfg, replicas);
    dv->ready = replicas;
    dv->load = load;
}

/* The count decided at tick t (seconds), or -1 when t was not a tick. */
static int at(const struct drive *dv, double t)
{
    gs_time ms = (gs_time)llround(t * S);
    for (int i = 0; i < dv->n; i++)
        if (dv->t[i] == ms)
            return dv->want[i];
    return -1;
}

/* Every tick in [a, b] (seconds) decided v. */
static int all_between(const struct drive *dv, double a, double b, int v)
{
    int seen = 0;
    for (int i = 0; i < dv->n; i++) {
        if (dv->t[i] < (gs_time)(a * S) || dv->t[i] > (gs_time)(b * S))
            continue;
        seen++;
        if (dv->want[i] != v) {
            printf("\n    at %.0f s: %d, expected %d", (double)dv->t[i] / S,
                   dv->want[i], v);
            return 0;
        }
    }
    return seen > 0;
}

/* --- HPA: a load step --------------------------------------------------- */

static void step_waiting(double t, struct gs_svcscale_sample *s)
{
    s->waiting = t < 60 ? 5 : t < 600 ? 100 : 5;
}

/* waiting_requests with an average target of 10 per replica, defaults
 * otherwise: sync 15 s, tolerance 0.1, scale-up max(100%, 4 pods) per 15 s,
 * scale-down window 300 s. */
static void test_step_default_behavior(void)
{
    static struct drive dv;
    drive_init(&dv, "{\"metrics\": [{\"metric\": \"waiting_requests\", "
                 "\"average_value\": 10}]}", 1, step_waiting);

    drive_until(&dv, 1200 * S);
    /* 0..45: 5 waiting on 1 replica: r = 0.5, proposal ceil(5/10) = 1 */
    CU_ASSERT_TRUE(all_between(&dv, 0, 45, 1));
    /* 60: 100 waiting -> proposal 10; the step is capped at
     * max(ceil(1 * 2), 1 + 4) = 5 */
    CU_ASSERT_EQUAL(at(&dv, 60), 5);
    /* 75: the event at 60 is not inside (60, 75]: base 5 -> max(10, 9) */
    CU_ASSERT_EQUAL(at(&dv, 75), 10);
    /* 90..585: r = 100 / (10 * 10) = 1, inside the tolerance band */
    CU_ASSERT_TRUE(all_between(&dv, 90, 870, 10));
    /* the load drops at 600; the last proposal of 10 was made at 585, so the
     * 300 s window lets go at 585 + 300 = 885, and percent 100 allows the
     * whole step to min_replicas 1 */
    CU_ASSERT_EQUAL(at(&dv, 870), 10);
    CU_ASSERT_EQUAL(at(&dv, 885), 1);
    CU_ASSERT_TRUE(all_between(&dv, 885, 1200, 1));
    /* ticks exactly every 15 s */
    CU_ASSERT_EQUAL(dv.n, 1200 / 15 + 1);
    struct gs_svcscale_status st;
    gs_svcscale_status(dv.sc, &st);
    CU_ASSERT_EQUAL(st.desired, 1);
    gs_svcscale_free(dv.sc);
}

static void flood(double t, struct gs_svcscale_sample *s)
{
    s->waiting = t < 600 ? 200 : 0;
}

/* Pods and percent policies over 60 s periods, windows 0. */
static void test_policies_cap_steps(void)
{
    static struct drive dv;
    drive_init(&dv, "{\"max_replicas\": 20, \"metrics\": [{\"metric\": "
                 "\"waiting_requests\", \"average_value\": 10}], "
                 "\"behavior\": {\"scale_up\": {\"policies\": [{\"type\": "
                 "\"pods\", \"value\": 2, \"period\": \"1m\"}]}, "
                 "\"scale_down\": {\"stabilization_window\": 0, "
                 "\"policies\": [{\"type\": \"percent\", \"value\": 50, "
                 "\"period\": 60}]}}}", 1, flood);

    drive_until(&dv, 900 * S);
    /* proposal ceil(200 / 10) = 20; +2 per 60 s from 1: 3, 5, ..., 19;
     * at 19, 200 / (10 * 19) = 1.053 is inside the tolerance band, so 19
     * stays (max_replicas 20 is never reached) */
    for (int k = 0; k < 9; k++)
        CU_ASSERT_TRUE(all_between(&dv, 60.0 * k, 60.0 * k + 45, 3 + 2 * k));
    CU_ASSERT_TRUE(all_between(&dv, 540, 585, 19));
    /* from 600 the proposal is 0: at most half of the replicas at the start
     * of each 60 s period go, truncated: 19 -> 9 -> 4 -> 2 -> 1, and
     * min_replicas 1 holds the last */
    CU_ASSERT_TRUE(all_between(&dv, 600, 645, 9));
    CU_ASSERT_TRUE(all_between(&dv, 660, 705, 4));
    CU_ASSERT_TRUE(all_between(&dv, 720, 765, 2));
    CU_ASSERT_TRUE(all_between(&dv, 780, 900, 1));
    gs_svcscale_free(dv.sc);
}

static void burst(double t, struct gs_svcscale_sample *s)
{
    (void)t;
    s->waiting = 1000;
}

static void test_select_policy(void)
{
    static struct drive dv;
    /* the default policies, the smaller step: min(1 + 4, 1 * 2) = 2, then
     * min(6, 4) = 4, min(8, 8) = 8, min(12, 16) = 12, min(16, 24) = 16 */
    drive_init(&dv, "{\"metrics\": [{\"metric\": \"waiting_requests\", "
                 "\"average_value\": 10}], \"behavior\": {\"scale_up\": "
                 "{\"select_policy\": \"min\"}}}", 1, burst);

    drive_until(&dv, 60 * S);
    CU_ASSERT_EQUAL(at(&dv, 0), 2);
    CU_ASSERT_EQUAL(at(&dv, 15), 4);
    CU_ASSERT_EQUAL(at(&dv, 30), 8);
    CU_ASSERT_EQUAL(at(&dv, 45), 12);
    CU_ASSERT_EQUAL(at(&dv, 60), 16);
    gs_svcscale_free(dv.sc);
    /* disabled: the count never rises */
    drive_init(&dv, "{\"metrics\": [{\"metric\": \"waiting_requests\", "
                 "\"average_value\": 10}], \"behavior\": {\"scale_up\": "
                 "{\"select_policy\": \"disabled\"}}}", 3, burst);

    drive_until(&dv, 120 * S);
    CU_ASSERT_TRUE(all_between(&dv, 0, 120, 3));
    gs_svcscale_free(dv.sc);
}

/* Scale-up stabilization: the minimum of the proposals of the window. */
static double ramp_v;
static void ramp(double t, struct gs_svcscale_sample *s)
{
    (void)t;
    s->waiting = ramp_v;
}

static void test_scale_up_window(void)
{
    static struct drive dv;
    drive_init(&dv, "{\"max_replicas\": 50, \"metrics\": [{\"metric\": "
                 "\"waiting_requests\", \"average_value\": 10}], "
                 "\"behavior\": {\"scale_up\": {\"stabilization_window\": "
                 "\"30s\", \"policies\": [{\"type\": \"pods\", \"value\": "
                 "100, \"period\": 15}]}}}", 2, ramp);

    ramp_v = 20;                    /* proposal 2 */
    drive_until(&dv, 15 * S);
    ramp_v = 80;                    /* proposal 8 */
    drive_until(&dv, 30 * S);
    ramp_v = 50;                    /* proposal 5 */
    drive_until(&dv, 60 * S);
    /* recorded: 0 -> 2 (and the creation record 2), 15 -> 2, 30 -> 8,
     * 45 -> 5, 60 -> 5.  The up-recommendation at t is the min over
     * (t - 30, t]: 30: min(2@15, 8) = 2; 45: min(8@30, 5) = 5; 60:
     * min(5@45, 5) = 5 */
    CU_ASSERT_EQUAL(at(&dv, 30), 2);
    CU_ASSERT_EQUAL(at(&dv, 45), 5);
    CU_ASSERT_EQUAL(at(&dv, 60), 5);
    gs_svcscale_free(dv.sc);
}

static void light(double t, struct gs_svcscale_sample *s)
{
    (void)t;
    s->waiting = 10;
}

/* The history starts with the count at creation: no scale-down within the
 * first window (300 s), even though every proposal says 1. */
static void test_first_window(void)
{
    static struct drive dv;
    drive_init(&dv, "{\"metrics\": [{\"metric\": \"waiting_requests\", "
               "\"average_value\": 10}]}", 4, light);
    drive_until(&dv, 400 * S);
    CU_ASSERT_TRUE(all_between(&dv, 0, 285, 4));
    CU_ASSERT_TRUE(all_between(&dv, 300, 400, 1));
    gs_svcscale_free(dv.sc);
}

/* --- HPA: proposals per metric kind --------------------------------------- */

static struct gs_svcscale_sample smp(int ready, int starting)
{
    struct gs_svcscale_sample s = { .ready = ready, .starting = starting,
                                    .gpu_util = NAN, .kv_cache = NAN,
                                    .ttft_p95 = NAN };
    return s;
}

/* One evaluation at t = 0 from `replicas`. */
static int once(const char *cfg, int replicas, struct gs_svcscale_sample s,
                struct gs_svcscale_status *st)
{
    struct gs_svcscale *sc = make(cfg, replicas);
    int n = gs_svcscale_observe(sc, 0, &s, NULL);
    if (st)
        gs_svcscale_status(sc, st);
    gs_svcscale_free(sc);
    return n;
}

#define UTIL70 "{\"max_replicas\": 50, \"behavior\": {\"scale_down\": " \
    "{\"stabilization_window\": 0}}, \"metrics\": [{\"metric\": " \
    "\"gpu_util\", \"average_value\": 70}]}"

static void test_tolerance_and_unready(void)
{
    struct gs_svcscale_sample s = smp(4, 0);
    struct gs_svcscale_status st;
    s.gpu_util = 76;            /* 76/70 = 1.086: inside 10% */
    CU_ASSERT_EQUAL(once(UTIL70, 4, s, &st), 4);
    CU_ASSERT_EQUAL(st.reason, GS_SCR_TOLERANCE);
    s.gpu_util = 78;            /* 1.114: ceil(4.457) = 5 */
    CU_ASSERT_EQUAL(once(UTIL70, 4, s, NULL), 5);
    s.gpu_util = 64;            /* 0.914: inside */
    CU_ASSERT_EQUAL(once(UTIL70, 4, s, NULL), 4);
    s.gpu_util = 50;            /* 0.714: ceil(2.857) = 3 */
    CU_ASSERT_EQUAL(once(UTIL70, 4, s, &st), 3);
    CU_ASSERT_EQUAL(st.reason, GS_SCR_SCALE);
    s.gpu_util = 90;            /* ceil(1.286 * 4) = 6 */
    CU_ASSERT_EQUAL(once(UTIL70, 4, s, NULL), 6);
    /* two of four still starting: at 0% they make 90*2/(70*4) = 0.64, the
     * direction flips, no change */
    s = smp(2, 2);
    s.gpu_util = 90;
    CU_ASSERT_EQUAL(once(UTIL70, 4, s, NULL), 4);
    /* 3 ready at 100% + 1 starting: 300/280 = 1.071, inside: no change */
    s = smp(3, 1);
    s.gpu_util = 100;
    CU_ASSERT_EQUAL(once(UTIL70, 4, s, NULL), 4);
    /* 98%: r = 1.4 alone, but 294/280 = 1.05 with the starting one at 0 */
    s.gpu_util = 98;
    CU_ASSERT_EQUAL(once(UTIL70, 4, s, NULL), 4);
    /* 140%: 420/280 = 1.5 -> ceil(1.5 * 4) = 6 */
    s.gpu_util = 140;
    CU_ASSERT_EQUAL(once(UTIL70, 4, s, NULL), 6);
}

/* A wider global band, and one band per direction (Kubernetes 1.33's
 * HPAScalingRules.tolerance). */
static void test_tolerance_per_direction(void)
{
    struct gs_svcscale_sample s = smp(4, 0);
    s.gpu_util = 83;            /* 1.186: inside 0.2, outside 0.1 */
    CU_ASSERT_EQUAL(once("{\"tolerance\": 0.2, \"metrics\": [{\"metric\": "
                         "\"gpu_util\", \"average_value\": 70}]}", 4, s,
                         NULL), 4);
    CU_ASSERT_EQUAL(once(UTIL70, 4, s, NULL), 5);   /* ceil(4.74) */
    const char *dir = "{\"metrics\": [{\"metric\": \"gpu_util\", "
        "\"average_value\": 70}], \"behavior\": {\"scale_up\": "
        "{\"tolerance\": 0.05}, \"scale_down\": {\"tolerance\": 0.3, "
        "\"stabilization_window\": 0}}}";
    s.gpu_util = 76;            /* 1.086 > 1.05: ceil(4.34) = 5 */
    CU_ASSERT_EQUAL(once(dir, 4, s, NULL), 5);
    s.gpu_util = 50;            /* 0.714 >= 0.7: inside */
    CU_ASSERT_EQUAL(once(dir, 4, s, NULL), 4);
    s.gpu_util = 45;            /* 0.643: ceil(2.57) = 3 */
    CU_ASSERT_EQUAL(once(dir, 4, s, NULL), 3);
}

static void test_multi_metric_and_invalid(void)
{
    const char *cfg = "{\"max_replicas\": 50, \"behavior\": {\"scale_down\":"
        " {\"stabilization_window\": 0}}, \"metrics\": ["
        "{\"metric\": \"gpu_util\", \"average_value\": 70},"
        "{\"metric\": \"waiting_requests\", \"average_value\": 10},"
        "{\"metric\": \"ttft_p95\", \"value\": \"500ms\"}]}";
    struct gs_svcscale_status st;
    struct gs_svcscale_sample s = smp(4, 0);
    s.gpu_util = 35;            /* ceil(0.5 * 4) = 2 */
    s.waiting = 60;             /* 60/40 = 1.5: ceil(60/10) = 6 */
    s.ttft_p95 = 0.25;          /* 0.5: ceil(0.5 * 4) = 2 */
    CU_ASSERT_EQUAL(once(cfg, 4, s, &st), 6);
    CU_ASSERT_EQUAL(st.metric_proposal[0], 2);
    CU_ASSERT_EQUAL(st.metric_proposal[1], 6);
    CU_ASSERT_EQUAL(st.metric_proposal[2], 2);
    /* ttft 1.5 s: ceil(3 * 4) = 12, capped at max(4 * 2, 4 + 4) = 8 */
    s.ttft_p95 = 1.5;
    CU_ASSERT_EQUAL(once(cfg, 4, s, &st), 8);
    CU_ASSERT_EQUAL(st.proposal, 12);
    CU_ASSERT_EQUAL(st.reason, GS_SCR_LIMITED);
    /* TTFT unknown and the others say shrink: HPA will not shrink on
     * partial information */
    s.ttft_p95 = NAN;
    s.waiting = 10;
    CU_ASSERT_EQUAL(once(cfg, 4, s, &st), 4);
    CU_ASSERT_EQUAL(st.reason, GS_SCR_INVALID);
    CU_ASSERT_EQUAL(st.metric_proposal[2], -1);
    /* ... but grows on it */
    s.waiting = 80;
    CU_ASSERT_EQUAL(once(cfg, 4, s, NULL), 8);
    /* value target on an external metric: ceil(r * ready), not current */
    const char *v = "{\"max_replicas\": 50, \"metrics\": [{\"metric\": "
        "\"waiting_requests\", \"value\": 20}]}";
    s = smp(3, 2);
    s.waiting = 50;             /* 2.5 * 3 ready = 7.5 -> 8 */
    CU_ASSERT_EQUAL(once(v, 5, s, NULL), 8);
    /* average value counts starting replicas: 50 / (10 * 5) = 1: steady */
    const char *av = "{\"metrics\": [{\"metric\": \"waiting_requests\", "
        "\"average_value\": 10}]}";
    CU_ASSERT_EQUAL(once(av, 5, s, NULL), 5);
}

static double rate_rps;
static void linear_arrivals(double t, struct gs_svcscale_sample *s)
{
    s->arrivals = rate_rps * t;
}

static void test_request_rate_window(void)
{
    static struct drive dv;
    drive_init(&dv, "{\"max_replicas\": 50, \"metrics\": [{\"metric\": "
                 "\"request_rate\", \"average_value\": 5, \"window\": "
                 "\"1m\"}]}", 1, linear_arrivals);

    rate_rps = 28;
    drive_until(&dv, 60 * S);
    /* 0: no past count, no rate: no decision.  15: 28 req/s over 15 s ->
     * 28 / (5 * 1) = 5.6 -> ceil(28 / 5) = 6, capped at 1 + 4 = 5; 30:
     * 28 / 25 = 1.12 -> 6 */
    CU_ASSERT_EQUAL(at(&dv, 0), 1);
    CU_ASSERT_EQUAL(at(&dv, 15), 5);
    CU_ASSERT_EQUAL(at(&dv, 30), 6);
    struct gs_svcscale_status st;
    gs_svcscale_status(dv.sc, &st);
    CU_ASSERT_DOUBLE_EQUAL(st.rate, 28.0, 1e-9);
    /* a counter that runs backwards or is missing gives no rate: the only
     * metric is invalid, nothing changes */
    struct gs_svcscale_sample s = smp(6, 0);
    s.arrivals = 10;
    CU_ASSERT_EQUAL(gs_svcscale_observe(dv.sc, 75 * S, &s, NULL), 6);
    gs_svcscale_status(dv.sc, &st);
    CU_ASSERT_TRUE(isnan(st.rate));
    CU_ASSERT_EQUAL(st.reason, GS_SCR_INVALID);
    s.arrivals = NAN;
    CU_ASSERT_EQUAL(gs_svcscale_observe(dv.sc, 90 * S, &s, NULL), 6);
    /* sane again: 28 req/s since the count at 60 -> 6 */
    s.arrivals = 28.0 * 105;
    CU_ASSERT_EQUAL(gs_svcscale_observe(dv.sc, 105 * S, &s, NULL), 6);
    gs_svcscale_status(dv.sc, &st);
    CU_ASSERT_DOUBLE_EQUAL(st.rate, 28.0, 1e-9);
    CU_ASSERT_EQUAL(st.reason, GS_SCR_TOLERANCE);
    gs_svcscale_free(dv.sc);
}

/* max and min replicas are enforced even without a proposal */
static void test_bounds(void)
{
    const char *cfg = "{\"min_replicas\": 2, \"max_replicas\": 6, "
        "\"metrics\": [{\"metric\": \"waiting_requests\", "
        "\"average_value\": 10}]}";
    struct gs_svcscale_status st;
    struct gs_svcscale_sample s = smp(9, 0);
    s.waiting = 500;
    CU_ASSERT_EQUAL(once(cfg, 9, s, &st), 6);
    CU_ASSERT_EQUAL(st.reason, GS_SCR_LIMITED);
    s = smp(1, 0);
    s.waiting = NAN;
    CU_ASSERT_EQUAL(once(cfg, 1, s, NULL), 2);
    /* a proposal above max: capped (the scale-up limit is 5 + 4 = 9) */
    s = smp(5, 0);
    s.waiting = 300;
    CU_ASSERT_EQUAL(once(cfg, 5, s, &st), 6);
    CU_ASSERT_EQUAL(st.reason, GS_SCR_LIMITED);
}

/* --- KEDA --------------------------------------------------------------- */

static void keda_load(double t, struct gs_svcscale_sample *s)
{
    s->waiting = t < 100 ? 10 : t < 1000 ? 0 : t < 1200 ? 2 : 30;
}

/* min_replicas 0: waiting_requests (5 per replica, activation 2), polling
 * 30 s, cooldown 300 s, a cold start of 120 s. */
static void test_scale_to_zero_and_back(void)
{
    static struct drive dv;
    drive_init(&dv, "{\"min_replicas\": 0, \"metrics\": [{\"metric\": "
                 "\"waiting_requests\", \"average_value\": 5, "
                 "\"activation\": 2}]}", 1, keda_load);
    dv.boot = 120 * S;

    drive_until(&dv, 1500 * S);
    /* 0: 10 / 5 = 2 -> 2; the second replica is booting until 120, but an
     * average-value metric counts it: 10 / (5 * 2) = 1 */
    CU_ASSERT_EQUAL(at(&dv, 0), 2);
    CU_ASSERT_TRUE(all_between(&dv, 15, 375, 2));
    /* waiting falls to 0 after 100 (last active poll: 90).  The HPA's
     * last proposal of 2 was at 90: down to its floor 1 at 90 + 300 */
    CU_ASSERT_EQUAL(at(&dv, 390), 1);
    /* KEDA: 90 + 300 < t first holds at the poll at 420 (not at 390) */
    CU_ASSERT_EQUAL(at(&dv, 405), 1);
    CU_ASSERT_EQUAL(at(&dv, 420), 0);
    /* 2 waiting is not above the activation threshold 2 */
    CU_ASSERT_TRUE(all_between(&dv, 420, 1185, 0));
    /* 30 waiting at the poll at 1200: 0 -> 1 (the caller's cold start);
     * the HPA's sync at the same instant does not act on the sample taken
     * before that step.  1215: the booting replica counts, 30 / 5 = 6,
     * capped at max(2, 1 + 4) = 5; 1230: 30 / 25 = 1.2 -> 6; then 1 */
    CU_ASSERT_EQUAL(at(&dv, 1200), 1);
    CU_ASSERT_EQUAL(at(&dv, 1215), 5);
    CU_ASSERT_TRUE(all_between(&dv, 1230, 1500, 6));
    /* polls every 30 s and syncs every 15 s share the grid: one call per
     * 15 s */
    CU_ASSERT_EQUAL(dv.n, 1500 / 15 + 1);
    struct gs_svcscale_status st;
    gs_svcscale_status(dv.sc, &st);
    CU_ASSERT_EQUAL(st.last_active, 1500 * S);
    gs_svcscale_free(dv.sc);
}

static void test_keda_polling_grid(void)
{
    /* polling 20 s, sync 15 s: next() walks the union of the two grids */
    struct gs_svcscale *sc = make("{\"min_replicas\": 0, \"polling_interval\":"
                                  " 20, \"metrics\": [{\"metric\": "
                                  "\"waiting_requests\", \"average_value\": "
                                  "5}]}", 0);
    struct gs_svcscale_sample s = smp(0, 0);
    gs_time expect[] = { 0, 15, 20, 30, 40, 45, 60, 75, 80 };
    /* 40 is a poll: 40 waiting is active -> 1.  The HPA does not act on the
     * same instant's sample (it predates KEDA's step); at 45 it sees 1
     * ready: 40 / 5 = 8, capped at max(2, 1 + 4) = 5; at 60: 40 / 25 = 1.6
     * -> 8 (the cap is now 10); then 40 / 40 = 1 */
    int want[] = { 0, 0, 0, 0, 1, 5, 8, 8, 8 };
    gs_time now = gs_svcscale_next(sc);
    for (int i = 0; i < 9; i++) {
        CU_ASSERT_EQUAL(now, expect[i] * S);
        s.waiting = now >= 40 * S ? 40 : 0;
        int n = gs_svcscale_observe(sc, now, &s, &now);
        CU_ASSERT_EQUAL(n, want[i]);
        s.ready = n;
    }
    /* a call between ticks changes nothing and keeps the grid */
    s.waiting = 1000;
    CU_ASSERT_EQUAL(gs_svcscale_observe(sc, 81 * S, &s, &now), 8);
    CU_ASSERT_EQUAL(now, 90 * S);
    gs_svcscale_free(sc);
}

/* --- Holt-Winters --------------------------------------------------------- */

static double periodic(long i)
{
    return 10.0 + 5.0 * sin(2 * M_PI * (double)(i % 24) / 24.0) +
           (double)(i % 3);
}

static void check_periodic(int kind, double alpha, double beta, double gamma)
{
    struct gs_hw_cfg c = { kind, 24, alpha, beta, gamma };
    struct gs_hw *hw = gs_hw_new(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(hw);
    for (long i = 0; i < 23; i++)
        gs_hw_feed(hw, periodic(i));
    CU_ASSERT_FALSE(gs_hw_ready(hw));
    CU_ASSERT_TRUE(isnan(gs_hw_forecast(hw, 1)));
    double worst = 0;
    for (long i = 23; i < 24 * 5; i++) {
        gs_hw_feed(hw, periodic(i));
        for (long h = 1; h <= 48; h++) {
            double e = fabs(gs_hw_forecast(hw, h) - periodic(i + h));
            if (e > worst)
                worst = e;
        }
    }
    /* every update reproduces the state: only rounding remains */
    CU_ASSERT_TRUE(worst < 1e-9);
    CU_ASSERT_EQUAL(gs_hw_count(hw), 120);
    gs_hw_free(hw);
}

static void test_hw_periodic_exact(void)
{
    check_periodic(GS_HW_ADDITIVE, 0.2, 0.0, 0.3);
    check_periodic(GS_HW_ADDITIVE, 0.9, 0.5, 1.0);
    check_periodic(GS_HW_MULTIPLICATIVE, 0.2, 0.0, 0.3);
    check_periodic(GS_HW_MULTIPLICATIVE, 0.5, 0.1, 0.05);
}

/* Additive, a level shift d after the first season: with beta 0 and gamma 0
 * the level error shrinks by (1 - alpha) per value, exactly: after k values
 * the one-step forecast misses by d (1 - alpha)^k. */
static void test_hw_level_shift(void)
{
    struct gs_hw_cfg c = { GS_HW_ADDITIVE, 24, 0.25, 0.0, 0.0 };
    struct gs_hw *hw = gs_hw_new(&c);
    for (long i = 0; i < 24; i++)
        gs_hw_feed(hw, periodic(i));
    double d = 6.0;
    for (long k = 1; k <= 40; k++) {
        gs_hw_feed(hw, periodic(23 + k) + d);
        double miss = periodic(24 + k) + d - gs_hw_forecast(hw, 1);
        CU_ASSERT_DOUBLE_EQUAL(miss, d * pow(0.75, (double)k), 1e-9);
    }
    gs_hw_free(hw);
    struct gs_hw_cfg bad = { GS_HW_ADDITIVE, 1, 0.2, 0, 0.3 };
    CU_ASSERT_PTR_NULL(gs_hw_new(&bad));
    bad.season = 24;
    bad.alpha = 0;
    CU_ASSERT_PTR_NULL(gs_hw_new(&bad));
    gs_hw_free(NULL);
}

/* Least-squares smoothing factors follow the local-level model's theory
 * (Muth 1960; Harvey 1989, 4.1): for a random walk plus noise with
 * signal-to-noise ratio q, the optimal alpha is (-q + sqrt(q^2 + 4q)) / 2,
 * here q = (2 / 0.2)^2 = 100 -> 0.99; for pure noise around a fixed level,
 * q = 0 -> alpha 0.  With four seasons of 24 the grid's answers must sit
 * at the matching ends. */
static void test_hw_fit(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (int kind = 0; kind < 2; kind++) {
        for (unsigned long seed = 1; seed <= 5; seed++) {
            gsl_rng_set(r, seed);
            enum { M = 24, N = 4 * M };
            double walk[N], noise[N], level = 50;
            for (int t = 0; t < N; t++) {
                double seas = 10 * sin(2 * M_PI * (t % M) / M);
                level += gsl_ran_gaussian(r, 2.0);
                walk[t] = level + seas + gsl_ran_gaussian(r, 0.2);
                noise[t] = 50 + seas + gsl_ran_gaussian(r, 2.0);
            }
            struct gs_hw_cfg a = { kind, M, 0.2, 0, 0.3 }, b = a;
            double ea, eb;
            CU_ASSERT_EQUAL(gs_hw_fit(walk, N, &a, &ea), 0);
            CU_ASSERT_EQUAL(gs_hw_fit(noise, N, &b, &eb), 0);
            CU_ASSERT_TRUE(a.alpha >= 0.5);
            CU_ASSERT_TRUE(b.alpha <= 0.1);
            CU_ASSERT_EQUAL(a.kind, kind);
            CU_ASSERT_EQUAL(a.season, M);
            /* the fitted sum is the least on the grid: the defaults do no
             * better */
            struct gs_hw_cfg d = { kind, M, 0.2, 0, 0.3 };
            struct gs_hw *hw = gs_hw_new(&d);
            double e = 0;
            for (int t = 0; t < N; t++) {
                if (t >= M)
                    e += pow(noise[t] - gs_hw_forecast(hw, 1), 2);
                gs_hw_feed(hw, noise[t]);
            }
            CU_ASSERT_TRUE(eb <= e);
            gs_hw_free(hw);
        }
    }
    gsl_rng_free(r);
    struct gs_hw_cfg c = { GS_HW_ADDITIVE, 24, 0.2, 0, 0.3 };
    double y[40] = { 0 };
    CU_ASSERT_EQUAL(gs_hw_fit(y, 40, &c, NULL), -1);  /* < 2 seasons */
}

/* --- predictive scaling ------------------------------------------------------ */

/* 10 req/s, 100 req/s from 12:00 to 14:00, every day.  Arrivals since 0. */
static double daily_lo = 10;
static double daily_arrivals(double t)
{
    double day = 86400, lo = daily_lo, hi = 100, a = 12 * 3600.0;
    double b = 14 * 3600.0;
    double n = floor(t / day), r = t - n * day;
    double per_day = lo * day + (hi - lo) * (b - a);
    double in = lo * r + (hi - lo) * (r <= a ? 0 : (r < b ? r - a : b - a));
    return n * per_day + in;
}

static void daily(double t, struct gs_svcscale_sample *s)
{
    s->arrivals = daily_arrivals(t);
}

/* The day-2 timeline (a full season seen) repeats on day `day`. */
static void check_peak_day(const struct drive *dv, double day)
{
    double d = day * 86400;
    /* ceil(10 / 10) = 1 until the window [now, now + 10 min] reaches the
     * 12:00 bucket, at 11:50 exactly: 100 / 10 = 10, stepped 1 -> 5 -> 10
     * by the default scale-up policies */
    CU_ASSERT_TRUE(all_between(dv, d, d + 11 * 3600 + 49 * 60 + 45, 1));
    CU_ASSERT_EQUAL(at(dv, d + 11 * 3600 + 50 * 60), 5);
    CU_ASSERT_EQUAL(at(dv, d + 11 * 3600 + 50 * 60 + 15), 10);
    /* held through the peak; the window leaves the peak at 14:00, the last
     * proposal of 10 was at 13:59:45, so scale-down at 14:04:45 */
    CU_ASSERT_TRUE(all_between(dv, d + 11 * 3600 + 50 * 60 + 15,
                               d + 14 * 3600 + 4 * 60 + 30, 10));
    CU_ASSERT_EQUAL(at(dv, d + 14 * 3600 + 4 * 60 + 45), 1);
    CU_ASSERT_TRUE(all_between(dv, d + 14 * 3600 + 4 * 60 + 45,
                               d + 86400 - 15, 1));
}

static void check_predictive(const char *model, const char *extra)
{
    static struct drive dv;
    char cfg[512];
    snprintf(cfg, sizeof cfg, "{\"max_replicas\": 20, \"predictive\": "
             "{\"capacity\": 10, \"lead\": \"10m\", \"model\": \"%s\"%s}}",
             model, extra);
    drive_init(&dv, cfg, 1, daily);
    drive_until(&dv, 3 * 86400 * S);
    /* day 1: no full season yet, no vote, 1 replica */
    CU_ASSERT_TRUE(all_between(&dv, 0, 86400 - 15, 1));
    check_peak_day(&dv, 1);
    /* the factors are refitted at the end of day 2 and the model rebuilt
     * from the two days: day 3 is the same */
    check_peak_day(&dv, 2);
    struct gs_svcscale_status st;
    gs_svcscale_status(dv.sc, &st);
    CU_ASSERT_DOUBLE_EQUAL(st.forecast, 10.0, 1e-6);
    CU_ASSERT_EQUAL(st.predicted, 1);
    if (extra[0])           /* configured: kept */
        CU_ASSERT_DOUBLE_EQUAL(st.alpha, 0.6, 0);
    gs_svcscale_free(dv.sc);
}

static void test_predictive_ahead_of_peak(void)
{
    daily_lo = 10;
    check_predictive("additive", "");
    check_predictive("multiplicative", "");
    check_predictive("additive", ", \"alpha\": 0.6");
}

/* No traffic but 12:00-14:00, min_replicas 0: the forecast is a KEDA
 * trigger (activation 1 req/s), so the service wakes from zero a lead time
 * before the peak and sleeps again after the cooldown. */
static void test_predictive_from_zero(void)
{
    static struct drive dv;
    daily_lo = 0;
    drive_init(&dv, "{\"min_replicas\": 0, \"max_replicas\": 20, "
               "\"predictive\": {\"capacity\": 10, \"activation\": 1}}",
               0, daily);
    drive_until(&dv, 2 * 86400 * S);
    double d2 = 86400, noon = d2 + 12 * 3600;
    CU_ASSERT_TRUE(all_between(&dv, 0, noon - 615, 0));
    /* the poll at 11:50:00 sees 100 req/s in the look-ahead: 0 -> 1; the
     * HPA then steps 1 -> 5 -> 10 */
    CU_ASSERT_EQUAL(at(&dv, noon - 600), 1);
    CU_ASSERT_EQUAL(at(&dv, noon - 585), 5);
    CU_ASSERT_TRUE(all_between(&dv, noon - 570, noon + 7200 + 270, 10));
    /* last proposal of 10 at 13:59:45 -> the HPA's floor 1 at 14:04:45;
     * last active poll 13:59:30 -> KEDA's 0 at the first poll after
     * 14:04:30, 14:05:00 */
    CU_ASSERT_EQUAL(at(&dv, noon + 7200 + 285), 1);
    CU_ASSERT_TRUE(all_between(&dv, noon + 7200 + 300, 2 * d2, 0));
    struct gs_svcscale_status st;
    gs_svcscale_status(dv.sc, &st);
    CU_ASSERT_EQUAL(st.last_active, (gs_time)(noon + 7200 - 30) * S);
    gs_svcscale_free(dv.sc);
    daily_lo = 10;
}

/* --- configuration --------------------------------------------------------- */

static void bad(const char *text, const char *where, const char *what)
{
    struct gs_svcscale_cfg cfg;
    struct gs_diag d = { 0 };
    int rc = parse_cfg(text, &cfg, &d);
    char msg[1100];
    gs_test_diag_text(&d, msg, sizeof msg);
    if (rc != GS_EINVAL || !strstr(msg, where) || !strstr(msg, what))
        printf("\n    got rc=%d: %s", rc, msg);
    CU_ASSERT_EQUAL(rc, GS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, where));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, what));
    gs_diag_free(&d);
}

#define WR "{\"metric\": \"waiting_requests\", \"average_value\": 4}"

static void test_config_errors(void)
{
    bad("{\"metrics\": [" WR "], \"sync\": 5}", "t.json: $.autoscaler:",
        "unknown key 'sync'");
    bad("{\"metrics\": [{\"metric\": \"cpu\", \"average_value\": 1}]}",
        "$.autoscaler.metrics[0].metric", "unknown value 'cpu'");
    bad("{\"metrics\": [{\"metric\": \"gpu_util\", \"value\": 70}]}",
        "$.autoscaler.metrics[0].value", "average_value");
    bad("{\"metrics\": [{\"metric\": \"ttft_p95\", \"average_value\": 1}]}",
        "$.autoscaler.metrics[0].average_value", "'value'");
    bad("{\"metrics\": [{\"metric\": \"kv_cache\"}]}",
        "$.autoscaler.metrics[0]", "exactly one of");
    bad("{\"metrics\": [{\"metric\": \"kv_cache\", \"average_value\": 80}]}",
        "$.autoscaler.metrics[0].average_value", "outside the allowed range");
    bad("{\"metrics\": [{\"metric\": \"waiting_requests\", \"value\": 3, "
        "\"window\": 60}]}", "$.autoscaler.metrics[0].window", "only");
    bad("{\"metrics\": [" WR "], \"behavior\": {\"scale_up\": {\"policies\":"
        " [{\"type\": \"pods\", \"value\": 4, \"period\": 15}, {\"type\": "
        "\"percent\", \"value\": 100, \"periodSeconds\": 15}]}}}",
        "$.autoscaler.behavior.scale_up.policies[1]",
        "unknown key 'periodSeconds'");
    bad("{\"metrics\": [" WR "], \"behavior\": {\"scale_down\": "
        "{\"select_policy\": \"avg\"}}}",
        "$.autoscaler.behavior.scale_down.select_policy", "unknown value");
    bad("{\"metrics\": [" WR "], \"behavior\": {\"scale_down\": "
        "{\"stabilization_window\": \"2h\"}}}",
        "$.autoscaler.behavior.scale_down.stabilization_window", "3600");
    bad("{\"metrics\": [" WR "], \"behavior\": {\"scale_down\": "
        "{\"policies\": []}}}", "$.autoscaler.behavior.scale_down.policies",
        "non-empty");
    bad("{\"metrics\": [" WR "], \"min_replicas\": 5, \"max_replicas\": 3}",
        "$.autoscaler.max_replicas", ">= min_replicas");
    bad("{\"min_replicas\": 1}", "$.autoscaler.metrics", "at least one");
    bad("{\"metrics\": [" WR "], \"sync_period\": \"500ms\"}",
        "$.autoscaler.sync_period", "between 1 s and 1 h");
    bad("{\"predictive\": {\"capacity\": 5, \"step\": \"20s\"}}",
        "$.autoscaler.predictive.step", "multiple of sync_period");
    bad("{\"predictive\": {\"capacity\": 5, \"step\": \"7m\"}}",
        "$.autoscaler.predictive.season", "whole number");
    bad("{\"predictive\": {\"capacity\": 0}}",
        "$.autoscaler.predictive.capacity", "must be > 0");
    bad("{\"predictive\": {\"capacity\": 5, \"model\": \"arima\"}}",
        "$.autoscaler.predictive.model", "unknown value 'arima'");
    bad("{\"predictive\": {\"capacity\": 5, \"alpha\": 1.5}}",
        "$.autoscaler.predictive.alpha", "outside");
    bad("{\"metrics\": [" WR "], \"tolerance\": 1}",
        "$.autoscaler.tolerance", "outside");
    bad("{\"metrics\": {}}", "$.autoscaler.metrics", "expected an array");
    bad("[1]", "$.autoscaler", "expected an object");

    /* malformed text: line and column */
    struct gs_svcscale_cfg pc;
    struct gs_diag pd = { 0 };
    CU_ASSERT_EQUAL(parse_cfg("{\n  \"metrics\": [}", &pc, &pd), GS_EPARSE);
    char msg[1100];
    gs_test_diag_text(&pd, msg, sizeof msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "t.json:2:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "malformed JSON"));

    /* predictive with the capacity left to the caller: new() says so */
    struct gs_svcscale_cfg cfg;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(parse_cfg("{\"predictive\": {}}", &cfg, &d), 0);
    struct gs_svcscale *sc = NULL;
    CU_ASSERT_EQUAL(gs_svcscale_new(&cfg, 0, 1, &sc, &d), GS_EINVAL);
    CU_ASSERT_PTR_NULL(sc);
    cfg.predict.capacity = 12.5;
    gs_diag_free(&d);
    CU_ASSERT_EQUAL(gs_svcscale_new(&cfg, 0, 1, &sc, &d), 0);
    gs_svcscale_free(sc);
    gs_svcscale_free(NULL);
    gs_diag_free(&d);
    gs_diag_free(&pd);
}

static void test_config_defaults(void)
{
    struct gs_svcscale_cfg c;
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(parse_cfg("{\"metrics\": [{\"metric\": \"ttft_p95\", "
                              "\"value\": \"800ms\", \"window\": \"2m\"}, "
                              "{\"metric\": \"kv_cache\", "
                              "\"average_value\": 0.8}]}", &c, &d), 0);
    CU_ASSERT_EQUAL(c.min_replicas, 1);
    CU_ASSERT_EQUAL(c.max_replicas, 100);
    CU_ASSERT_EQUAL(c.sync_period, 15 * S);
    CU_ASSERT_DOUBLE_EQUAL(c.tolerance, 0.1, 0);
    CU_ASSERT_EQUAL(c.polling_interval, 30 * S);
    CU_ASSERT_EQUAL(c.cooldown_period, 300 * S);
    CU_ASSERT_EQUAL(c.up.stabilization_window, 0);
    CU_ASSERT_EQUAL(c.up.npolicies, 2);
    CU_ASSERT_EQUAL(c.down.stabilization_window, 300 * S);
    CU_ASSERT_EQUAL(c.down.npolicies, 1);
    CU_ASSERT_EQUAL(c.down.policy[0].type, GS_SCP_PERCENT);
    CU_ASSERT_EQUAL(c.down.policy[0].value, 100);
    CU_ASSERT_EQUAL(c.nmetrics, 2);
    CU_ASSERT_EQUAL(c.metric[0].kind, GS_SCM_TTFT_P95);
    CU_ASSERT_DOUBLE_EQUAL(c.metric[0].target, 0.8, 1e-12);
    CU_ASSERT_EQUAL(gs_svcscale_ttft_window(&c), 120 * S);
    CU_ASSERT_FALSE(c.predict.on);
    CU_ASSERT_STRING_EQUAL(gs_svcscale_metric_name(GS_SCM_KV_CACHE),
                           "kv_cache");
    CU_ASSERT_PTR_NULL(gs_svcscale_metric_name(GS_SCM_NKINDS));
    CU_ASSERT_EQUAL(parse_cfg("{\"predictive\": {\"capacity\": 3}}", &c, &d),
                    0);
    CU_ASSERT_EQUAL(c.predict.hw.season, 288);  /* 1 d of 5 min buckets */
    CU_ASSERT_EQUAL(c.predict.lead, 600 * S);
    gs_diag_free(&d);
}

static CU_TestInfo tests[] = {
    { "hpa: a load step gives the exact timeline", test_step_default_behavior },
    { "hpa: pods and percent policies cap the steps", test_policies_cap_steps },
    { "hpa: select_policy min and disabled", test_select_policy },
    { "hpa: scale-up stabilization takes the window's min", test_scale_up_window },
    { "hpa: no scale-down within the first window", test_first_window },
    { "hpa: tolerance band and unready replicas", test_tolerance_and_unready },
    { "hpa: tolerance per direction", test_tolerance_per_direction },
    { "hpa: several metrics, missing ones", test_multi_metric_and_invalid },
    { "hpa: request rate over its window", test_request_rate_window },
    { "hpa: min and max replicas", test_bounds },
    { "keda: scale to zero after the cooldown, back on activation",
      test_scale_to_zero_and_back },
    { "keda: polling and sync grids", test_keda_polling_grid },
    { "holt-winters: a periodic series is forecast exactly",
      test_hw_periodic_exact },
    { "holt-winters: a level shift decays as (1 - alpha)^k",
      test_hw_level_shift },
    { "holt-winters: fitted factors follow the local-level theory",
      test_hw_fit },
    { "predictive: scales up a lead time before the daily peak",
      test_predictive_ahead_of_peak },
    { "predictive: wakes from zero ahead of the peak",
      test_predictive_from_zero },
    { "config: errors name the JSON path", test_config_errors },
    { "config: upstream defaults", test_config_defaults },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("svcscale", tests)
