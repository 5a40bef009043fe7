/* share.h -- what sharing a GPU does to the jobs on it, while they run.
 *
 * The fleet (fleet.h, migslots.h) decides what fits where; this model
 * decides how fast each job then runs and who is thrown off:
 *   MIG           a job on an instance runs at the instance's compute share
 *                 (compute slices / 7) of its whole-GPU speed; a GPU whose
 *                 layout has just changed is unusable for reconf_time, and
 *                 the jobs placed on it wait (rate 0) until it is ready;
 *   time-slicing  the jobs on a GPU run at full speed less a context-switch
 *                 overhead while their duty cycles sum to at most 1, and
 *                 share the GPU in proportion above that; their memory is
 *                 not isolated, so when it exceeds the GPU's a victim is
 *                 killed (GS_KILL_OOM) by the pool's rule;
 *   fractional    guaranteed fractions, with idle capacity lent to jobs that
 *                 may burst and reclaimed -- borrowers killed
 *                 (GS_KILL_RECLAIM) or evicted (GS_STOP_RECLAIMED) -- when
 *                 an owner needs it back.
 * share.c gives the formulas, the rules and their sources.
 *
 * The simulation reaches it through its entry in the models table
 * (model.h, gs_share_model): gs_share_started() after a job took its
 * allocation (its rate is then its unshared speed), gs_share_stopping()
 * before a job gives its allocation back (finish, preemption, kill), and
 * gs_share_finish() when the run ends.  Kills and evictions the model
 * decides happen in its own event at the same simulated instant, never
 * inside the policy's call that started the job.  A simulation without
 * sharing pools has no gs_share at all. */
#ifndef GS_SHARE_H
#define GS_SHARE_H

#include "../base/err.h"
#include "../cluster/fleet.h"
#include "job.h"
#include "model.h"
#include "metrics.h"

struct gs_sim;
struct gs_share;

/* Sharing as one model of the simulation (model.h); built only when some
 * pool shares GPUs, and then also read by the metrics (levels, stats). */
extern const struct gs_model_ops gs_share_model;

/* The model for sim's fleet f, or *out = NULL when no pool shares GPUs.
 * 0 or GS_ENOMEM. */
int gs_share_new(struct gs_fleet *f, struct gs_share **out);
void gs_share_free(struct gs_share *sh);

void gs_share_started(struct gs_share *sh, struct gs_sim *s,
                      struct gs_job *j);
void gs_share_stopping(struct gs_share *sh, struct gs_sim *s,
                       struct gs_job *j);
/* The run ends at now: bring the per-job books up to date. */
void gs_share_finish(struct gs_share *sh, gs_time now);

void gs_share_levels(const struct gs_share *sh, struct gs_share_levels *o);
void gs_share_stats(const struct gs_share *sh, struct gs_share_stats *o);

/* The context-switch overhead (throughput lost) and the p99 latency added
 * with n jobs on a GPU of a time-slicing pool configured by cfg. */
double gs_share_ts_overhead(const struct gs_share_cfg *cfg, int n);
double gs_share_ts_latency_ms(const struct gs_share_cfg *cfg, int n);

#endif
