/* kplace.h -- Kubernetes-faithful placement over whole node resources (CPU,
 * host memory, GPUs), as the FGD paper's simulator scores it.
 *
 * Source: Q. Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing
 * Workloads with Fragmentation Gradient Descent", USENIX ATC'23, and its
 * artifact github.com/hkust-adsl/kubernetes-scheduler-simulator (the score
 * plug-ins of pkg/simulator/plugin, the fragmentation of pkg/utils/frag.go,
 * the experiment settings of scripts/generate_config_and_run.py).  Facts
 * taken from them, not code:
 *
 *  - A node has CPU (milli-cores), host memory (MiB) and G GPUs of one
 *    model, each with a free share in thousandths.  A pod asks CPU, memory
 *    and either nothing more (a CPU-only pod), a share (< 1000) of one GPU,
 *    or k whole GPUs, optionally restricted to some models.  Filter = every
 *    resource fits (Kubernetes' NodeResourcesFit for CPU and memory, the
 *    Open-Gpu-Share filter for the GPUs and the model).
 *  - Every feasible node is scored (percentageOfNodesToScore 100) with an
 *    integer score 0..100 and the highest wins.  The integer truncation is
 *    part of each policy: it decides how often ties happen, and ties decide
 *    a lot.  The artifact breaks them in a fixed order, not at random: it
 *    renames every node with a prefix from rand.Perm (seeded per run) so
 *    that the name order is a uniform permutation, and its random policy
 *    draws its one node itself in a PreScore step -- both pointless under
 *    upstream kube-scheduler's uniform selectHost, both needed under the
 *    deterministic choice of its patched kube-scheduler (k8s.io/kubernetes
 *    replaced by a v1.20.5 fork in go.mod).  So by default
 *    (GS_KP_TIES_ORDERED) each cluster draws a uniform order of its nodes
 *    and a tie goes to the first node of that order; GS_KP_TIES_UNIFORM is
 *    upstream's uniform choice.  It matters most for pods a policy scores 0
 *    everywhere (CPU-only pods under clustering and packing): in order they
 *    fill one node after another, uniformly they spread over the cluster
 *    and use up the CPU GPU pods need (3 points of allocation on openb;
 *    docs/sharing.md has the measurements).
 *  - Scores (Cmax, Gmax: the largest node's CPU and GPUs x 1000 -- the
 *    artifact's MaxSpecCpu 128,000 and MaxSpecGpu 8,000 on openb):
 *      random       every node 0 (a uniform feasible node); a share goes to
 *                   a uniform GPU among those with room;
 *      best-fit     100 (1 - s), s = 1/2 (CPU left after)/Cmax + 1/2 (GPU
 *                   milli left after)/Gmax on node totals;
 *      dot-product  100 (1 - d/2), d = (CPU free/Cmax)(CPU asked/Cmax) +
 *                   (GPU milli free/Gmax)(GPU milli asked/Gmax): Tetris's
 *                   alignment on node totals normalized by the largest node;
 *      clustering   affinity groups (a shared-GPU task, or a k-GPU task):
 *                   75..100 on a node hosting only the pod's group, 50..75
 *                   hosting it among others, 25..50 on a node without GPU
 *                   pods, 0..25 otherwise, plus 25 (Gmax - GPU milli
 *                   free)/Gmax within the band; CPU-only pods score 0;
 *      packing      a partly used GPU (100 - its free %/10, >= 50), else
 *                   free GPUs of a used node (50 - GPUs taken, >= 33), else
 *                   an idle node (33 - its GPUs); CPU-only pods score 0;
 *      fgd          100 sigmoid((F_before - F_after)/1000) with F the
 *                   node's fragmentation for the typical pods (below); a
 *                   share goes to the GPU that scores best (first index).
 *    Other placers' shares take the tightest GPU with room ("best" GPU
 *    selection, the artifact's default); whole GPUs the lowest fully free.
 *  - Fragmentation (frag.go).  Typical pods: the population's distinct
 *    (CPU, GPUs, milli, models) requests, CPU-only ones included, most
 *    frequent first until 95 % of pods are covered, frequencies
 *    renormalized.  For node n and typical pod m (frequency p_m) the
 *    node's free GPU milli counts as fragmented in full when m asks no GPU,
 *    when m may not use n's model, when n's GPUs cannot hold m, or when n's
 *    free CPU cannot (the paper's Q-I, Q-II, Q-IV and x-axis cases); when
 *    all fits, the free milli of GPUs with less room than m asks per GPU.
 *    F_n = sum_m p_m (that).
 *
 * Speed.  Every score above depends only on a node's state: its pool (model,
 * GPU count, capacities), free CPU and memory, the multiset of its GPUs'
 * free milli and the set of affinity groups it hosts.  Nodes in equal
 * states form a class (a hash table finds it); the live classes are scored
 * instead of the nodes, each (class, pod request) score is cached for good
 * (a class never changes state; a node that changes moves to another
 * class), and a tie among classes goes to the first member in the name
 * order (each class keeps its members in a heap by rank), or is drawn
 * uniformly among all their member nodes.  A decision costs O(live classes), and the
 * fragmentation is computed from typical pods grouped by GPU request with
 * prefix sums over their CPU (O(groups log members) per state).  Pods only
 * arrive here (the experiment has no departures).
 *
 * Every random draw comes from the caller's GSL stream; nothing reads a
 * clock. */
#ifndef GS_KPLACE_H
#define GS_KPLACE_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

/* One node kind: count nodes of gpn GPUs of catalog model, each with cpu
 * milli-cores and mem MiB. */
struct gs_kp_pool {
    int nodes, gpn, model;
    int32_t cpu, mem;
};

/* A pod's request. */
struct gs_kp_pod {
    int32_t cpu, mem;           /* milli-cores, MiB */
    int16_t gpus;               /* 0 (CPU-only), 1 (a share or one GPU), k */
    int16_t milli;              /* per GPU: 1..1000; 0 when gpus == 0 */
    uint64_t allowed;           /* model mask, 0 = any */
    int32_t key;                /* request id: equal requests, equal keys
                                   (gs_kp_intern), < 2^24 */
};

enum gs_kp_policy { GS_KP_RANDOM, GS_KP_BEST_FIT, GS_KP_DOT_PRODUCT,
                    GS_KP_CLUSTERING, GS_KP_PACKING, GS_KP_FGD, GS_KP_N };

/* The policy named name ("random", "best-fit", "dot-product",
 * "clustering", "packing", "fgd"), or -1. */
int gs_kp_policy_find(const char *name);
const char *gs_kp_policy_name(int policy);

/* Give equal requests of pods[0..n) equal keys (0, 1, ...); returns the
 * number of distinct requests, or GS_ENOMEM / GS_ERANGE (2^24 or more). */
int gs_kp_intern(struct gs_kp_pod *pods, long n);

/* The typical pods of a population (above): *out (the caller frees it)
 * holds *n pods with their frequencies in *freq (same length, sum 1).
 * 0 or GS_ENOMEM. */
int gs_kp_typical(const struct gs_kp_pod *pods, long n, double threshold,
                  struct gs_kp_pod **out, double **freq, int *nout);

/* The typical-pod mix that F is measured against (shared with the
 * simulation's fragmentation measure, frag.h). */
struct gs_kp_mix;
/* typ[0..n) with frequencies freq (copied).  0 or GS_ENOMEM. */
int gs_kp_mix_new(const struct gs_kp_pod *typ, const double *freq, int n,
                  struct gs_kp_mix **out);
void gs_kp_mix_free(struct gs_kp_mix *x);
/* F of a node of catalog model with free CPU cpu (milli-cores) and per-GPU
 * free milli s[0..gpn), descending (above: every typical pod that cannot
 * run there counts the node's free GPU milli in full). */
double gs_kp_mix_frag(const struct gs_kp_mix *x, int model, int32_t cpu,
                      const int32_t *s, int gpn);

/* The policies' integer scores (0..100, higher wins), shared with the
 * simulation's placers (policies/place_heur.c, place.c).  cmax, gmax: the
 * largest node's CPU and GPU milli. */
/* best-fit: CPU and GPU milli the node has left after placing. */
int gs_kp_score_best_fit(int64_t cpu_left, int64_t gpu_left, double cmax,
                         double gmax);
/* dot-product: the node's free CPU and GPU milli, the pod's asks. */
int gs_kp_score_dot(int64_t cpu_free, int64_t cpu_ask, int64_t gpu_free,
                    int64_t gpu_ask, double cmax, double gmax);
/* The affinity group of a request: -1 none (CPU only), 0 a share of one
 * GPU, k (<= 63) k whole GPUs; a node's tags have bit g set when it hosts
 * a pod of group g. */
int gs_kp_group(int gpus, int milli);
/* clustering: a pod of group on a node with tags and gpu_free milli free. */
int gs_kp_score_clustering(int group, uint64_t tags, int64_t gpu_free,
                           int64_t gmax);
/* packing: gpus x milli asked of a node whose GPUs have s[0..gpn) free,
 * descending (the pod fits). */
int gs_kp_score_packing(const int32_t *s, int gpn, int gpus, int milli);

struct gs_kp;

/* A cluster of pools[0..npools) under policy, the fragmentation measured
 * for typical[0..ntyp) with frequencies freq (copied); rng is borrowed
 * (the node order, drawn here; uniform ties, random choices).  Ties are
 * GS_KP_TIES_ORDERED.  0 or GS_ENOMEM / GS_EINVAL. */
int gs_kp_new(const struct gs_kp_pool *pools, int npools, int policy,
              const struct gs_kp_pod *typical, const double *freq, int ntyp,
              gsl_rng *rng, struct gs_kp **out);
void gs_kp_free(struct gs_kp *k);

/* Place pod: the node index it went to, -1 when no node fits (nothing
 * changes), or GS_ENOMEM. */
int gs_kp_place(struct gs_kp *k, const struct gs_kp_pod *pod);

/* How ties between equal scores are broken (above). */
enum gs_kp_ties { GS_KP_TIES_ORDERED, GS_KP_TIES_UNIFORM };
void gs_kp_set_ties(struct gs_kp *k, int mode);

/* Allocated GPU milli, capacity in GPU milli. */
int64_t gs_kp_used_milli(const struct gs_kp *k);
int64_t gs_kp_capacity_milli(const struct gs_kp *k);
/* Free GPU milli stranded on nodes whose free CPU is below cpu_min or whose
 * free memory is below mem_min (the least any GPU pod asks): GPUs no GPU
 * pod can use.  Kept incrementally. */
int64_t gs_kp_stranded_milli(const struct gs_kp *k);
void gs_kp_set_strand_limits(struct gs_kp *k, int32_t cpu_min,
                             int32_t mem_min);
/* Allocated CPU and memory over capacity (0..1). */
void gs_kp_host_use(const struct gs_kp *k, double *cpu, double *mem);
/* Node states met so far. */
int gs_kp_nclasses(const struct gs_kp *k);
/* F of a node state (tests): model, free CPU, per-GPU free milli. */
double gs_kp_frag(const struct gs_kp *k, int model, int32_t cpu,
                  const int16_t *gpu, int gpn);

#endif
