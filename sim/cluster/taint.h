/* taint.h -- node taints and job tolerations: which pools a job may use.
 *
 * Kubernetes keeps a pod off a node that carries a NoSchedule or NoExecute
 * taint the pod does not tolerate ("Taints and Tolerations" in the
 * Kubernetes documentation).  gpusim models that per pool: the scenario's
 * catalog holds the distinct taints of its fleet (struct gs_taints, at most
 * GS_MAX_TAINTS), a pool carries the mask of the taints its nodes have
 * (gs_pool_spec.taints), and a job the mask of those it tolerates
 * (gs_jobspec.tolerates, gs_need.tolerates).  A job may use a pool only
 * when it tolerates every taint of the pool: (pool & ~job) == 0 -- checked
 * where the fleet decides whether a need fits a pool at all
 * (gs_fleet_demand, gs_fleet_pool_eligible), so every policy and placer
 * obeys it.  A pool without taints (mask 0) takes every job, which is
 * every scenario that names none.
 *
 * A taint is named "key=value:Effect" (or "key:Effect" when its value is
 * empty), Effect NoSchedule or NoExecute (PreferNoSchedule is a
 * preference, not a rule, and is not a taint here).  A toleration matches
 * a taint, as the Kubernetes API has it, when
 *   - its effect is empty or the taint's, and
 *   - operator Exists: its key is empty (it tolerates every taint) or the
 *     taint's; operator Equal (the default): its key and value are the
 *     taint's. */
#ifndef GS_TAINT_H
#define GS_TAINT_H

#include <stdint.h>

#define GS_MAX_TAINTS 64        /* the masks are 64-bit */
#define GS_TAINT_NAME 96        /* "key=value:Effect" and its NUL */

struct gs_taints {
    int n;
    char name[GS_MAX_TAINTS][GS_TAINT_NAME];
};

/* The index of taint (key, value, effect) in t, adding it when new.  The
 * index, or GS_ERANGE (t full), or GS_EINVAL (an empty key, an effect
 * other than NoSchedule and NoExecute, or a name longer than
 * GS_TAINT_NAME - 1). */
int gs_taints_add(struct gs_taints *t, const char *key, const char *value,
                  const char *effect);

/* A toleration as a pod states it (strings borrowed; NULL = absent). */
struct gs_toleration {
    const char *key, *value, *effect;
    int exists;                 /* operator Exists (else Equal) */
};

/* 1 if tol tolerates the taint named name ("key=value:Effect"), else 0. */
int gs_toleration_matches(const struct gs_toleration *tol, const char *name);

/* The mask of the taints of t that one of tol[0..n) tolerates. */
uint64_t gs_taints_tolerated(const struct gs_taints *t,
                             const struct gs_toleration *tol, int n);

/* The taints of mask, names joined by ", ", into buf (n bytes). */
void gs_taints_format(const struct gs_taints *t, uint64_t mask, char *buf,
                      int n);

#endif
