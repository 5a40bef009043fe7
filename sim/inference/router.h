/* router.h -- which replica of a service takes a request.
 *
 * The four routers of issue 12 (router.c gives their sources):
 *   round-robin        replicas in turn;
 *   least-outstanding  fewest requests assigned and not finished (Envoy's
 *                      LEAST_REQUEST with all candidates, the "join the
 *                      shortest queue" rule);
 *   least-kv           lowest KV-cache usage, then fewest outstanding;
 *   prefix-affinity    the replica that rendezvous hashing assigns the
 *                      request's first prefix block, so requests sharing a
 *                      prefix meet the same prefix cache; without prefix
 *                      blocks, least-outstanding.
 * Ties go to the lowest index, so routing is deterministic. */
#ifndef GS_ROUTER_H
#define GS_ROUTER_H

#include "svccfg.h"

#include <stdint.h>

struct gs_route_cand {
    int id;                     /* stable replica number (hash input) */
    long outstanding;
    double kv;                  /* KV-cache usage, 0..1 */
};

/* Index into c[0..n-1] (n >= 1) of the replica that takes the request.
 * key: the request's first prefix block id, or 0 when it has none; *rr:
 * the round-robin cursor the caller keeps. */
int gs_router_pick(int router, const struct gs_route_cand *c, int n,
                   uint64_t key, int has_key, unsigned long *rr);

/* Length routing across pools (the semantic router's length-based route):
 * 1 when a request of total tokens (input + output) belongs to the pool
 * whose range is r, else 0.  A pool without a range takes every request. */
int gs_router_length_takes(const struct gs_lenroute *r, long total);

#endif
