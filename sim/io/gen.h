/* gen.h -- the synthetic workload generator built into scenarios.
 *
 * Arrivals are a Poisson process whose rate may follow a daily sinusoid
 * (diurnal), an hour-of-day profile and a weekly cycle (a weekend dip), and
 * may be modulated by a Markov chain of burst states (a Markov-modulated
 * Poisson process, MMPP).  They are generated exactly by thinning (Lewis
 * and Shedler, 1979): candidate arrivals at the peak rate are kept with
 * probability rate(t)/peak.  Each job then draws a class by weight; a class
 * gives its tier, tenants (uniform or weighted), GPU demand (a discrete
 * distribution whose values below 1 are fractions of a GPU) and a duration
 * distribution (GSL; lognormal, Pareto, exponential, Weibull, uniform,
 * constant, or empirical quantiles).  Every quantity has its own named
 * random stream (rng.h), so adding a class or a field does not change the
 * arrival times.  A class with an idle_profile gives each job one busy and
 * one idle phase length, drawn from their own stream, that repeat for the
 * job's life (the idle reaper reads them). */
#ifndef GS_GEN_H
#define GS_GEN_H

#include "../core/engine.h"
#include "../base/err.h"
#include "../core/job.h"
#include "../spec/genspec.h"

#include <gsl/gsl_rng.h>
#include <stdint.h>

struct gs_gen;

/* Free the classes' tenant names and weights that spec owns (genspec.h)
 * and set them NULL; NULL-safe. */
void gs_genspec_release(struct gs_genspec *spec);

/* A generator for spec under seed (spec's tenant arrays must outlive it).
 * NULL when out of memory. */
struct gs_gen *gs_gen_new(const struct gs_genspec *spec, uint64_t seed);
void gs_gen_free(struct gs_gen *g);
/* Next job: 1 and *out filled, or 0 when the spec's limit is reached. */
int gs_gen_next(struct gs_gen *g, struct gs_jobspec *out);
/* The arrival rate per hour at time t (ms) under spec, without bursts
 * (their long-run mean factor is 1). */
double gs_gen_rate(const struct gs_genspec *spec, gs_time t);
/* 1 when spec's rate is stationary: no cycle by day, week or hour (the
 * bursts of an MMPP are stationary in the long run; io/question.h). */
int gs_gen_stationary(const struct gs_genspec *spec);
/* The burst state the last generated job arrived in (0 without bursts). */
int gs_gen_burst_state(const struct gs_gen *g);
/* Mean of a duration distribution (ms), for offered-load checks. */
double gs_dist_mean(const struct gs_distspec *d);
/* One draw from d with r (the generator's law, truncation included). */
double gs_dist_draw(gsl_rng *r, const struct gs_distspec *d);

#endif
