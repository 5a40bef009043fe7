/* svcgen.c -- the token counts of generated inference requests, and the
 * check that services sharing a stream split it.
 *
 * Requests.  A service's generated stream (svccfg.h) draws each request's
 * input and output tokens from their own laws, or its total from an
 * empirical CDF split by a fixed input share.  The CDF form is the one
 * inference-fleet-sim (vllm-project/semantic-router, src/fleet-sim) sizes
 * fleets with: points (tokens, cumulative share) read from a trace, the
 * total drawn uniformly within the segment a uniform variate falls in, 80%
 * of it input and 20% output.  Here the law is the piecewise-linear CDF
 * through (0, 0) and the points -- the same interpolation that tool's
 * analytical side uses -- and the total is the ceiling of the quantile, so
 * the drawn totals meet the CDF exactly at its points (P(total <= x_i) =
 * p_i), which the tests check.  One uniform per request from the service's
 * token stream: the arrival stream is untouched.
 *
 * Length routing.  Services that name one `stream` draw the same request
 * sequence (their random streams are named after it) and each keeps the
 * requests whose total lies in its route's range: the semantic router's
 * length-based pools (short requests to one pool, long ones to another),
 * each pool a service with its own GPU model, TP and replica bounds.
 * gs_svc_streams_check makes the ranges a partition, so every request of
 * the stream is served by exactly one of them. */
#include "svcgen.h"
#include "../io/gen.h"

#include <gsl/gsl_randist.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int gs_tokcdf_check(const struct gs_tokcdf *c, const char *path,
                    struct gs_diag *d)
{
    if (c->n < 1 || c->n > GS_TOKCDF_MAX)
        return gs_diag_set(d, GS_EINVAL, path, "expected 1 to %d points "
                           "[tokens, cumulative probability]", GS_TOKCDF_MAX);
    for (int i = 0; i < c->n; i++) {
        if (!(c->x[i] >= 1) || c->x[i] > 1e9 || c->x[i] != floor(c->x[i]))
            return gs_diag_set(d, GS_EINVAL, path, "point %d: tokens %g is "
                               "not a whole number in [1, 1e9]", i, c->x[i]);
        if (!(c->p[i] >= 0 && c->p[i] <= 1))
            return gs_diag_set(d, GS_EINVAL, path, "point %d: probability "
                               "%g is outside [0, 1]", i, c->p[i]);
        if (i > 0 && c->x[i] <= c->x[i - 1])
            return gs_diag_set(d, GS_EINVAL, path, "point %d: tokens %g do "
                               "not increase (after %g)", i, c->x[i],
                               c->x[i - 1]);
        if (i > 0 && c->p[i] < c->p[i - 1])
            return gs_diag_set(d, GS_EINVAL, path, "point %d: probability "
                               "%g decreases (after %g)", i, c->p[i],
                               c->p[i - 1]);
    }
    if (fabs(c->p[c->n - 1] - 1.0) > 1e-9)
        return gs_diag_set(d, GS_EINVAL, path, "the last probability is %g; "
                           "a CDF ends at 1", c->p[c->n - 1]);
    if (!(c->in_share > 0 && c->in_share < 1))
        return gs_diag_set(d, GS_EINVAL, path, "input_share %g is outside "
                           "(0, 1)", c->in_share);
    return 0;
}

double gs_tokcdf_quantile(const struct gs_tokcdf *c, double u)
{
    double x0 = 0, p0 = 0;
    for (int i = 0; i < c->n; i++) {
        if (u <= c->p[i]) {
            if (c->p[i] <= p0)
                return c->x[i];
            return x0 + (u - p0) / (c->p[i] - p0) * (c->x[i] - x0);
        }
        x0 = c->x[i];
        p0 = c->p[i];
    }
    return c->x[c->n - 1];
}

long gs_tokcdf_total(const struct gs_tokcdf *c, double u)
{
    double q = ceil(gs_tokcdf_quantile(c, u) - 1e-9);
    return q < 1 ? 1 : (long)q;
}

double gs_tokcdf_mean(const struct gs_tokcdf *c)
{
    double x0 = 0, p0 = 0, m = 0;
    for (int i = 0; i < c->n; i++) {
        m += (c->p[i] - p0) * 0.5 * (x0 + c->x[i]);
        x0 = c->x[i];
        p0 = c->p[i];
    }
    return m;
}

void gs_tokcdf_split(const struct gs_tokcdf *c, long total, int *in, int *out)
{
    long i = (long)floor((double)total * c->in_share);
    if (i < 1)
        i = 1;
    long o = total - i;
    if (o < 1)
        o = 1;
    *in = i > INT_MAX ? INT_MAX : (int)i;
    *out = o > INT_MAX ? INT_MAX : (int)o;
}

static int draw_tokens(gsl_rng *r, const struct gs_distspec *d)
{
    double v = gs_dist_draw(r, d);
    if (!(v >= 1))
        return 1;
    if (v > 1e7)
        return 10000000;
    /* lround's value (halves away from zero) without a call per draw:
     * for 1 <= v <= 1e7 the fraction v - trunc(v) is exact */
    int k = (int)v;
    return k + (v - k >= 0.5);
}

void gs_svcgen_tokens(const struct gs_svcgen *g, gsl_rng *r, int *in,
                      int *out)
{
    if (g->total.n > 0) {
        gs_tokcdf_split(&g->total, gs_tokcdf_total(&g->total,
                                                   gsl_rng_uniform(r)),
                        in, out);
        return;
    }
    *in = draw_tokens(r, &g->input);
    *out = draw_tokens(r, &g->output);
}

static const char *stream_of(const struct gs_svccfg *v)
{
    return v->stream[0] ? v->stream : v->name;
}

static int same_source(const struct gs_svccfg *a, const struct gs_svccfg *b)
{
    if (a->src != b->src)
        return 0;
    if (a->src == GS_SVCSRC_TRACE)
        return strcmp(a->format, b->format) == 0 &&
               strcmp(a->path, b->path) == 0;
    return memcmp(&a->gen, &b->gen, sizeof a->gen) == 0 &&
           a->start == b->start;
}

int gs_svc_streams_check(const struct gs_svccfg *s, int n, const char *file,
                         struct gs_diag *d)
{
    char *where;
    for (int i = 0; i < n; i++) {
        const char *st = stream_of(&s[i]);
        int first = -1, members = 0;
        for (int k = 0; k < n; k++)
            if (strcmp(stream_of(&s[k]), st) == 0) {
                if (first < 0)
                    first = k;
                members++;
            }
        if (first != i)
            continue;           /* each stream once, at its first member */
        int idx[GS_SVC_MAX], m = 0;
        for (int k = 0; k < n; k++)
            if (strcmp(stream_of(&s[k]), st) == 0) {
                if (!same_source(&s[i], &s[k])) {
                    where = gs_strf("%s: $.services[%d].requests", file, k);
                    return gs_diag_set_at(d, GS_EINVAL, where, "services '%s' "
                                          "and '%s' share stream '%s' but not "
                                          "its source: give both the same "
                                          "trace or generator (and start)",
                                          s[i].name, s[k].name, st);
                }
                idx[m++] = k;
            }
        if (members == 1 && !s[i].route.on)
            continue;
        /* Sort the members by their range's low end and walk it. */
        for (int a = 1; a < m; a++)
            for (int b = a; b > 0 && s[idx[b]].route.lo <
                                     s[idx[b - 1]].route.lo; b--) {
                int t = idx[b];
                idx[b] = idx[b - 1];
                idx[b - 1] = t;
            }
        long next = 0;
        for (int a = 0; a < m; a++) {
            const struct gs_svccfg *v = &s[idx[a]];
            /* taken by a failure, else freed below */
            where = gs_strf("%s: $.services[%d].requests%s", file, idx[a],
                            v->route.on ? ".route" : "");
            if (!v->route.on)
                return gs_diag_set_at(d, GS_EINVAL, where, "service '%s' "
                                      "shares stream '%s' with %d other(s) "
                                      "and needs a \"route\" "
                                      "(min_total_tokens, max_total_tokens) "
                                      "to split it", v->name, st, m - 1);
            if (v->route.lo > next)
                return gs_diag_set_at(d, GS_EINVAL, where, "no service of "
                                      "stream '%s' takes totals %ld to %ld: "
                                      "the routes must leave no gap", st, next,
                                      v->route.lo - 1);
            if (v->route.lo < next)
                return gs_diag_set_at(d, GS_EINVAL, where, "service '%s' "
                                      "takes totals from %ld, which another "
                                      "service of stream '%s' takes: the "
                                      "routes must not overlap", v->name,
                                      v->route.lo, st);
            if (v->route.hi == LONG_MAX) {
                if (a != m - 1)
                    return gs_diag_set_at(d, GS_EINVAL, where, "service '%s' "
                                          "takes every total from %ld, which "
                                          "another service of stream '%s' "
                                          "takes too", v->name, v->route.lo,
                                          st);
                next = LONG_MAX;
                free(where);
                break;
            }
            next = v->route.hi + 1;
            free(where);
        }
        if (next != LONG_MAX) {
            where = gs_strf("%s: $.services[%d].requests.route", file,
                            idx[m - 1]);
            return gs_diag_set_at(d, GS_EINVAL, where, "no service of stream "
                                  "'%s' takes totals above %ld: the last "
                                  "route must have no max_total_tokens", st,
                                  next - 1);
        }
    }
    return 0;
}
