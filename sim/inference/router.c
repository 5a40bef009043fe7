/* router.c -- which replica of a service takes a request (router.h).
 *
 * Least-outstanding is the classic "join the shortest queue" rule, optimal
 * for identical servers with exponential work (Winston, J. Appl. Prob.
 * 1977) and what production LLM gateways default to (Envoy LEAST_REQUEST,
 * the Kubernetes Gateway API inference extension's queue-depth scorer).
 * Least-KV follows the same extension's KV-cache-utilization scorer.
 * Prefix affinity uses rendezvous (highest-random-weight) hashing (Thaler
 * and Ravishankar, IEEE/ACM ToN 1998): each (prefix, replica) pair gets a
 * pseudo-random weight and the heaviest replica wins, so adding or losing
 * a replica moves only the prefixes that replica held -- the property
 * SGLang's cache-aware router and Mooncake's scheduler rely on to keep
 * prefix-cache hits when the replica set changes.
 *
 * Length routing sends a request to a pool by its total tokens: the
 * vLLM semantic router's length-based routing and inference-fleet-sim's
 * two-pool fleets (short requests to a pool sized for short contexts,
 * long ones to a pool with room for them), so that long prompts do not
 * hold up the short majority.  Each pool is a service of one shared
 * request stream (svcgen.h) with an inclusive range of totals. */
#include "router.h"

#include <string.h>

static const char *const names[GS_NROUTERS + 1] = {
    "round-robin", "least-outstanding", "least-kv", "prefix-affinity", NULL
};

const char *const *gs_router_names(void)
{
    return names;
}

const char *gs_router_name(int r)
{
    return r >= 0 && r < GS_NROUTERS ? names[r] : "?";
}

int gs_router_parse(const char *name)
{
    for (int i = 0; i < GS_NROUTERS; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

/* SplitMix64's finalizer: a well-mixed 64-bit weight. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The first replica with the fewest outstanding requests.  The running
 * minimum is kept in registers and taken without a branch: which replica
 * wins is data the branch predictor cannot learn (a mispredicted compare
 * per replica, per request routed). */
static int least_outstanding(const struct gs_route_cand *c, int n)
{
    int best = 0;
    long low = c[0].outstanding;
    for (int i = 1; i < n; i++) {
        long o = c[i].outstanding;
        int lt = o < low;
        best = lt ? i : best;
        low = lt ? o : low;
    }
    return best;
}

int gs_router_pick(int router, const struct gs_route_cand *c, int n,
                   uint64_t key, int has_key, unsigned long *rr)
{
    if (n <= 1)
        return 0;
    switch (router) {
    case GS_ROUTE_RR:
        return (int)((*rr)++ % (unsigned long)n);
    case GS_ROUTE_KV: {
        int best = 0;
        for (int i = 1; i < n; i++)
            if (c[i].kv < c[best].kv ||
                (c[i].kv == c[best].kv &&
                 c[i].outstanding < c[best].outstanding))
                best = i;
        return best;
    }
    case GS_ROUTE_PREFIX:
        if (has_key) {
            int best = 0;
            uint64_t bw = mix(key ^ mix((uint64_t)c[0].id));
            for (int i = 1; i < n; i++) {
                uint64_t w = mix(key ^ mix((uint64_t)c[i].id));
                if (w > bw) {
                    bw = w;
                    best = i;
                }
            }
            return best;
        }
        return least_outstanding(c, n);
    default:
        return least_outstanding(c, n);
    }
}

int gs_router_length_takes(const struct gs_lenroute *r, long total)
{
    return !r->on || (total >= r->lo && total <= r->hi);
}
