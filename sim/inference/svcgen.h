/* svcgen.h -- a generated request stream's token laws (svcgen.c), and the
 * check that services naming one stream split it by length.
 *
 * The service model draws a generated request's tokens here; the services'
 * section parser checks the laws and the streams with the same code. */
#ifndef GS_SVCGEN_H
#define GS_SVCGEN_H

#include "../base/err.h"
#include "svccfg.h"

#include <gsl/gsl_rng.h>

/* --- request sources of inference services ($.services[].requests) -----
 *
 * A generated request's token counts come from two laws (input_tokens,
 * output_tokens), or from one empirical law of the total split by a fixed
 * share (total_tokens with dist "cdf", inference-fleet-sim's form).  The
 * CDF is piecewise linear through (0, 0) and its points: the quantile of u
 * is x[i-1] + (u - p[i-1]) / (p[i] - p[i-1]) (x[i] - x[i-1]) on the first
 * segment with p[i] >= u, and a request's total is the ceiling of it (at
 * least 1), so P(total <= x[i]) = p[i] exactly at every point.  The input
 * is max(1, floor(total x share)), the output max(1, total - input). */

/* Check a CDF read from JSON: 1..GS_TOKCDF_MAX points, tokens positive
 * and increasing, probabilities in [0, 1] nondecreasing, the last 1, and
 * 0 < in_share < 1.  0, or GS_EINVAL with d filled (where: path). */
int gs_tokcdf_check(const struct gs_tokcdf *c, const char *path,
                    struct gs_diag *d);
/* The quantile of u in [0, 1] (a real number of tokens). */
double gs_tokcdf_quantile(const struct gs_tokcdf *c, double u);
/* The total drawn for u: max(1, ceil(quantile)). */
long gs_tokcdf_total(const struct gs_tokcdf *c, double u);
/* The mean of the piecewise-linear law (tokens). */
double gs_tokcdf_mean(const struct gs_tokcdf *c);
/* Split a total into input and output tokens by the share. */
void gs_tokcdf_split(const struct gs_tokcdf *c, long total, int *in,
                     int *out);
/* Draw one request's token counts under g with r: input then output from
 * their laws (rounded, at least 1), or one uniform for the total CDF. */
void gs_svcgen_tokens(const struct gs_svcgen *g, gsl_rng *r, int *in,
                      int *out);

/* Services that name the same stream must have the same request source,
 * and their length routes must split total tokens with neither gap nor
 * overlap ([0 or absent .. a], [a+1 .. b], ..., [z+1 .. absent]), so every
 * request of the stream is taken by exactly one service.  A service with
 * a route must share its stream with the others it splits with.  0, or
 * GS_EINVAL with d filled ("FILE: $.services[i].requests.route: ..."). */
int gs_svc_streams_check(const struct gs_svccfg *s, int n, const char *file,
                         struct gs_diag *d);

#endif
