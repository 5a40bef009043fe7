/* victims.h -- nodes indexed by the GPUs a preempting job could free there.
 *
 * A job of priority P that needs g whole GPUs on one node and finds no room
 * may evict preemptible jobs of lower priority (priority.c, the way the
 * Kubernetes scheduler preempts).  On node n it can count on the node's
 * fully free GPUs, nfull(n), plus R_P(n), the GPUs held there by possible
 * victims of priority below P.  The node it takes is the one needing the
 * fewest GPUs reclaimed:
 *     among nodes of a pool it may use, with g <= the pool's GPUs a node,
 *     nfull(n) < g <= nfull(n) + R_P(n),
 *     the least g - nfull(n), then the lowest node index.
 * Scanning the nodes that hold a victim costs O(nodes) per search (some
 * hundreds of nodes on a busy fleet of 1,250); this index answers in
 * O(pools x gpn^2) word operations (gpn^2 / 2 ORs at most; a summary
 * word more per 4,096 nodes).
 *
 * Levels.  The distinct priorities of victims ever listed, p_0 < p_1 < ...
 * < p_{L-1}, each make a level; the searches of a job of priority P all use
 * the same prefix of levels, those below P.  For every prefix k (levels
 * 0..k) the index keeps R_k(n) per node, and per pool, per value f of
 * nfull below the pool's GPUs a node and per value x >= 1 of R_k, the set
 * of the pool's nodes with nfull = f and R_k = x: a bitset under a summary
 * of its nonzero words.  The search walks f from g - 1 down: the first f
 * where the union of the sets x = g - f .. gpn has a node is the least
 * deficit, and the union's lowest node (two count-trailing-zeros over the
 * OR of a few words: one summary word up to 4,096 nodes) the lowest such
 * node.  Pools are few; the best over them wins.  (Until the ninth
 * session a max segment tree per prefix and nfull, whose upkeep walked up
 * to log nodes entries for every change of a node.)
 *
 * Updates.  A victim coming or going changes R_k on its node for the
 * prefixes that hold its level; nfull changes with every commit and
 * release, failure and repair, by anyone, and the index watches the fleet
 * (gs_fleet_watch), nothing for a node without victims.  Either only
 * marks the node; the next search moves each marked node between the
 * sets of the values it was indexed by and its current ones, a bit
 * cleared and one set per prefix, O(L) -- once however many changes the
 * node saw since (victims.c).  A new level (a priority not seen before) makes
 * the sets again from R, O(nodes x L) -- once per distinct priority in a
 * run.  Memory: L x gpn x (gpn + 1) x (nodes / 64 + 1) words a pool, plus
 * L bytes a node.
 *
 * Down, cordoned and failed-in-place states are not looked at: the search
 * sees nfull and the victims, exactly what a scan over the running jobs
 * would.  A node holds at most its GPUs' count of victim GPUs (victims
 * hold whole GPUs on it). */
#ifndef GS_VICTIMS_H
#define GS_VICTIMS_H

#include "../sim/cluster/fleet.h"

struct gs_victims;

/* A new, empty index over fleet f, which it watches until freed (f is
 * borrowed and must outlive it).  0, GS_ENOMEM, or GS_ERANGE when f has no
 * watcher slot left. */
int gs_victims_new(struct gs_fleet *f, struct gs_victims **out);
/* NULL-safe; stops watching the fleet. */
void gs_victims_free(struct gs_victims *v);

/* A possible victim of priority prio holding gpus (> 0) whole GPUs on node
 * came (sign +1) or went (-1).  Aborts when out of memory or when a victim
 * goes that never came. */
void gs_victims_move(struct gs_victims *v, int node, int prio, int gpus,
                     int sign);

/* The node a job of priority prio needing need (> 0) whole GPUs on one node
 * should reclaim on (see the top), over the pools p with pool_ok[p]; -1
 * when no node qualifies. */
int gs_victims_best(struct gs_victims *v, int prio, int need,
                    const char *pool_ok);

/* 1 when gs_victims_best() would find a node, without looking for the
 * lowest: the sets' masks only. */
int gs_victims_any(struct gs_victims *v, int prio, int need,
                   const char *pool_ok);

/* R: the GPUs victims of priority below prio hold on node. */
int gs_victims_reclaimable(const struct gs_victims *v, int node, int prio);

#endif
