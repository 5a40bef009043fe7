/* frag.h -- GPU fragmentation as the FGD paper measures it, and the node
 * classes that make fragmentation-aware placement cheap.
 *
 * Source: Q. Weng, L. Yang, Y. Yu, W. Wang, X. Tang, G. Yang, L. Zhang,
 * "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with
 * Fragmentation Gradient Descent", USENIX ATC'23 (sections 3-4), and its
 * simulator (github.com/hkust-adsl/kubernetes-scheduler-simulator,
 * pkg/utils/frag.go).  The measure: a workload is a distribution of task
 * shapes M (GPUs, milli per GPU, allowed models) with popularity p_m.  The
 * fragmentation of node n for one task m, F_n(m), is the node's free GPU
 * capacity m could never use: all of it when m cannot run on n at all (a
 * model m may not use, or fewer than m's GPUs with room), else the free
 * milli of the GPUs with less room than m asks per GPU.  The node's
 * fragmentation is its expectation over the workload,
 *     F_n = sum_m p_m F_n(m),
 * and the cluster's is the sum over nodes.  Shapes carry the CPU a task asks
 * and CPU-only tasks are shapes too (the artifact's typical pods include
 * them): a node's free GPUs count as fragmented in full for a task its
 * free CPU cannot host (the paper's Q-I and Q-IV cases) and for every
 * CPU-only task.  The computation is the placement experiment's
 * (gs_kp_mix_frag, kplace.h).  GPU and host memory are not part of the
 * measure, as in the paper.
 *
 * The workload distribution is the scenario's own: for a generated
 * workload, exactly the classes' GPU values and weights; for a trace, every
 * job of the trace, read once before the run (gs_workload_shapes,
 * setup/workshape.h: reading the workload is the setup's).
 *
 * Node classes.  F_n, and every placer score that depends only on a node's
 * state, is a function of the node's pool, its multiset of per-GPU (free
 * milli, free MiB) pairs -- free milli not counting what a fractional pool
 * lends to bursting jobs (fleet.h) --, its free CPU and host memory and,
 * for the clustering placer, the affinity groups it hosts.  Nodes with
 * equal state form a class; the class holds F once, its member nodes in a
 * min-heap by rank (node index, or an order a placer draws from its seeded
 * stream: gs_frag_set_order -- the first member is how ties are broken) or,
 * for a placer that only asks for first members, a bitset over ranks
 * (gs_frag_track_first) and, per pool, the live classes (with members) in
 * a list.  A fleet watcher moves a node between classes whenever it
 * changes.  Classing a node from scratch builds its sorted key and looks it
 * up, O(gpn log gpn); but a change is mostly one the class's key and the
 * change itself decide -- some of the node's GPUs went from one (milli,
 * MiB) pair to another, its free CPU and memory are now such -- so a cache
 * of these transitions, keyed by (class, change), answers it in O(gpn)
 * reads of the node's GPUs against their remembered pairs, with no sort
 * or key compare.  A placer then scores classes, not nodes: its per-decision
 * cost is the number of live classes of the eligible pools, which depends
 * on how many distinct node states the workload creates -- not on the
 * number of nodes (members are kept only once a placer asks:
 * gs_frag_track_classes).  Class ids are never reused, so a placer may cache a
 * score per (class, task shape) for good.  Only pools without MIG or
 * time-slicing are classed and measured (MIG has its own geometry, and a
 * time-sliced GPU has no capacity to fragment).
 *
 * Affinity (for the clustering placer): optionally, per node, how many jobs
 * of each affinity group (gs_kp_group: a share of one GPU, or k whole
 * GPUs) it hosts; the groups present are its tags, part of its class. */
#ifndef GS_FRAG_H
#define GS_FRAG_H

#include "../base/err.h"
#include "fleet.h"

#include <stdint.h>

struct gs_scenario;

struct gs_shape {
    int gpus;                   /* GPUs; 0 = a CPU-only task */
    int milli;                  /* per GPU: 1000 whole, else a fraction */
    uint64_t allowed;           /* model mask, 0 = any */
    double p;                   /* popularity, sum 1 */
    int32_t cpu, mem;           /* host CPU (milli-cores), memory (MiB) */
};

struct gs_frag;

/* A shape's hash and equality, by (gpus, milli, allowed, cpu, mem): how
 * shapes are tallied and found (here and in setup/workshape.c). */
uint32_t gs_shape_hash(int gpus, int milli, uint64_t allowed, int32_t cpu,
                       int32_t mem);
int gs_shape_eq(const struct gs_shape *s, int gpus, int milli,
                uint64_t allowed, int32_t cpu, int32_t mem);

/* The measure over fleet f (borrowed; the measure watches it) for the
 * distribution shapes[0..n) (copied).  0 or GS_ENOMEM/GS_ERANGE. */
int gs_frag_new(struct gs_fleet *f, const struct gs_shape *shapes, int n,
                struct gs_frag **out);
void gs_frag_free(struct gs_frag *fr);

/* The fleet's fragmentation and the capacity it is measured against
 * (milli: 1000 x GPUs up in classed pools).  NULL-safe (zeros). */
void gs_frag_levels(const struct gs_frag *fr, double *frag, double *cap);

/* --- the distribution ----------------------------------------------------- */
int gs_frag_nshapes(const struct gs_frag *fr);
const struct gs_shape *gs_frag_shape(const struct gs_frag *fr, int i);
/* The index of need's shape (its GPUs, milli, allowed models, CPU and
 * memory), or -1 when the distribution lacks it. */
int gs_frag_shape_of(const struct gs_frag *fr, const struct gs_need *need);
/* F of one node of pool with free CPU cpu and per-GPU free milli (any
 * order), for the distribution; gs_frag_value: with CPU to spare. */
double gs_frag_value_cpu(const struct gs_frag *fr, int pool, int32_t cpu,
                         const int *milli, int gpn);
double gs_frag_value(const struct gs_frag *fr, int pool, const int *milli,
                     int gpn);

/* --- node classes ------------------------------------------------------------ */
struct gs_fclass {
    int pool;
    int gpn;
    const int32_t *milli;       /* per GPU, descending */
    const int32_t *mib;         /* paired with milli */
    int count;                  /* member nodes */
    double F;                   /* fragmentation of one member */
    int32_t gpu_mib;            /* memory of one of the pool's GPUs */
    int32_t cpu, mem;           /* free CPU (milli-cores), host MiB */
    uint64_t tags;              /* affinity groups hosted (tracking on) */
};

/* Keep every class's member nodes (the heaps and live lists below); a
 * placer that scores classes calls it in its init.  Without it the measure
 * still classes each node (for F) but keeps no members, which saves most
 * of the per-change work.  0 or GS_ENOMEM. */
int gs_frag_track_classes(struct gs_frag *fr);

/* Keep members only as a placer that wants the first member by rank
 * needs them: a bitset per class over ranks (O(1) to add or remove a
 * member, the first one a find-first-set), instead of a heap whose layout
 * gs_frag_member exposes (the random placer draws by it).  The members'
 * internal order becomes the rank order.  Call before
 * gs_frag_track_classes; a fleet of more than 16,384 nodes keeps heaps
 * (a bitset is nodes / 8 bytes).  0 or GS_ENOMEM. */
int gs_frag_track_first(struct gs_frag *fr);

/* 1 if pool is classed (no MIG, no time-slicing). */
int gs_frag_pool_classed(const struct gs_frag *fr, int pool);
/* The ids of pool's live classes; *ids is valid until the fleet changes. */
int gs_frag_live(const struct gs_frag *fr, int pool, const int **ids);
/* Classes ever made (ids are 0 .. this - 1). */
int gs_frag_nclasses(const struct gs_frag *fr);
void gs_frag_class(const struct gs_frag *fr, int id, struct gs_fclass *out);
/* The first member (by rank) of class id within nodes [lo, hi) (global
 * indexes), or -1.  O(1) when the range holds the whole pool. */
int gs_frag_member_in(const struct gs_frag *fr, int id, int lo, int hi);
/* The same within the union of the n ranges [lo[k], hi[k]) of one pool:
 * the member of least rank in any of them, or -1.  Kept by rank, one
 * walk over the class's members in rank order when the ranges hold as
 * many nodes as the class has members (a pool less a reservation's few
 * nodes: the first member or two); else the least of gs_frag_member_in
 * over the ranges. */
int gs_frag_member_in_any(const struct gs_frag *fr, int id, const int *lo,
                          const int *hi, int n);
/* The i-th member (0 <= i < count) in the class's internal order. */
int gs_frag_member(const struct gs_frag *fr, int id, int i);
/* The class of node (global index), -1 when it has none (down, or in a pool
 * that is not classed). */
int gs_frag_node_class(const struct gs_frag *fr, int node);

/* The order of members: rank[node] for every node (copied; a permutation),
 * by default the node index.  A placer that breaks ties from its seeded
 * stream sets it in its init.  0. */
int gs_frag_set_order(struct gs_frag *fr, const int *rank);
int gs_frag_rank(const struct gs_frag *fr, int node);

/* --- checking (tests) ------------------------------------------------------------ */
/* Check the classes against the fleet from scratch: every open node of a
 * classed pool in the class of its state (its key built anew), its heap
 * slot and its GPUs' remembered pairs consistent, every other node in
 * none, every heap ordered by rank and the live lists exactly the classes
 * with members.  O(nodes x gpn^2).  0, or the node (+1) or -1 where the
 * first broken invariant was found. */
int gs_frag_check(const struct gs_frag *fr);
/* The transition cache (frag.c): how many node changes it resolved and how
 * many it did not; gs_frag_set_transitions(fr, 0) turns it off (every
 * change then classes the node from scratch, as a test's reference). */
void gs_frag_transitions(const struct gs_frag *fr, uint64_t *hits,
                         uint64_t *misses);
void gs_frag_set_transitions(struct gs_frag *fr, int on);

/* --- affinity (clustering) ------------------------------------------------------ */
/* Start keeping affinity groups (tags); call before any job is placed.
 * 0 or GS_ENOMEM. */
int gs_frag_track_affinity(struct gs_frag *fr);

#endif
