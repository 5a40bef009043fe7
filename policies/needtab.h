/* needtab.h -- the distinct needs of a policy's waiting jobs, each with
 * the policy's own bookkeeping, and the list of those that have jobs.
 *
 * hps and sbs keep their queues per need: jobs asking the same GPUs (or
 * fraction), memory, GPU models, MIG profile, sharing terms, host asks
 * and tier fit exactly where each other fit, so a need whose best job
 * does not fit can be passed over for the rest of a pass, and a pass
 * costs O(needs) -- tens in generated workloads (GPU counts x tiers x
 * host asks) -- plus O(log) per job it starts.  This is that table:
 * entries of a size the policy chooses, each starting with a struct
 * gs_needkey, allocated one by one so that they never move (a key's
 * need.profile points into the key itself), found by a hash of the asks
 * and tier (a job's arrival must not cost O(needs)), and a "live" list of
 * the entries the policy marks as having waiting jobs, with O(1)
 * insertion and removal, kept in a counted vector (look.h): a pass reads
 * it through gs_needtab_live_at, and each entry it reads is counted in
 * policy_work.  A key without the host asks or the tier would pass a job
 * asking less of the host (or of a tier allowed on spot) over with its
 * need's best (tests/test_resources.c checks both).
 *
 * Each key also lists the pools its jobs may ever use, and
 * gs_needtab_sure_miss says, from the pools' counts of open nodes by fully
 * free GPUs, when a try of the need must miss -- so a pass tries no need
 * that cannot fit anywhere (a try that would have missed and changed
 * nothing; only where misses repeat).
 *
 * Families.  Needs whose sure miss is told alike -- whole GPUs on one
 * node of plain pools, the same GPU count and the same pools -- form a
 * family (family 0 holds every need whose miss cannot be foreseen), and
 * each family keeps its live needs in two lists: "quiet" ones, which a
 * pass may pass over without reading them (the policy says when: for sbs,
 * when passing a need over would change no later decision), and the
 * others.  gs_needtab_fam_misses tells from the pools' masks, once for
 * the whole family, that every need of it misses now; a pass then reads
 * only its other list, so its work does not grow with needs that cannot
 * start anything (the live needs of a long queue: sbs's pass read 4.5 a
 * pass at 200 k jobs, 7.5 at 1 M, nearly all of them missing). */
#ifndef GS_NEEDTAB_H
#define GS_NEEDTAB_H

#include "../sim/cluster/fleet.h"
#include "../sim/core/job.h"
#include "../sim/core/look.h"

#include <stddef.h>
#include <stdint.h>

/* The first member of every entry. */
struct gs_needkey {
    struct gs_need need;        /* need.profile points at profile, or NULL */
    int tier;
    int *pools, npools;         /* the pools it may ever use (owned) */
    int fam;                    /* its family (0: no sure miss) */
    int loud;                   /* not quiet (gs_needtab_loud) */
    char profile[GS_MIG_PROFILE_NAME];
};

/* A family: needs of g whole GPUs on one node of the plain pools
 * pools[0..npools) (family 0: g = 0, every need whose miss cannot be
 * foreseen), and its live needs, quiet and loud ([0] and [1]: entry
 * indexes, in no order). */
struct gs_needfam {
    int g;
    const int *pools;           /* its first need's (not owned) */
    int npools;
    struct gs_lvec live[2];
};

struct gs_needtab {
    void **e;                   /* entries (owned), each `size` bytes */
    size_t size;
    int n, cap;
    int *hash, hcap;            /* entries by asks and tier (open
                                   addressing, -1 empty; hcap >= 2n) */
    const struct gs_fleet *fleet;
    int repeat;                 /* misses repeat, gangs are not spread */
    struct gs_lvec live;        /* entries marked live (int), in no order */
    int *pos;                   /* each entry's index in live, or -1 */
    struct gs_needfam *fam;     /* the families (family 0 first) */
    int nfam, capfam;
    int *fpos;                  /* each entry's index in its family's
                                   list, or -1 */
    struct gs_sim *sim;
};

/* An empty table of entries of size bytes (>= sizeof(struct gs_needkey))
 * for sim's policy. */
void gs_needtab_init(struct gs_needtab *t, struct gs_sim *sim, size_t size);
/* Frees the entries and the table's arrays (not what entries point to).
 * NULL-safe. */
void gs_needtab_free(struct gs_needtab *t);

/* The index of the entry of need and tier (a job's need and s.tier); a
 * new one (zeroed, its key and pools set, not live) if none matches, with
 * *made set to 1 (else 0).  GS_ENOMEM when out of memory. */
int gs_needtab_of(struct gs_needtab *t, const struct gs_need *need,
                  int tier, int *made);

static inline void *gs_needtab_at(const struct gs_needtab *t, int i)
{
    return t->e[i];
}

/* 1 if a try of a job of k's need must miss now, wherever in its pools
 * it is tried -- but on the nodes skip[0..nskip) (global indexes) -- and
 * whatever the placer: it asks whole GPUs on one node of plain pools, and
 * no open node of those pools outside skip has that many GPUs fully
 * free.  0 when it may fit, or when that cannot be told so (fractions,
 * MIG, sharing, gangs wider than a node, gangs spread over nodes, a
 * placer whose misses do not repeat: the try it would spare might have
 * changed something). */
int gs_sure_miss(const struct gs_fleet *f, const struct gs_need *need,
                 const int *pools, int npools, const int *skip, int nskip);
static inline int gs_needtab_fam_misses(const struct gs_needtab *t, int f);
static inline int gs_needtab_sure_miss(const struct gs_needtab *t,
                                       const struct gs_needkey *k,
                                       const int *skip, int nskip)
{
    if (nskip == 0)             /* told by its family (0: never) */
        return gs_needtab_fam_misses(t, k->fam);
    return t->repeat && gs_sure_miss(t->fleet, &k->need, k->pools,
                                     k->npools, skip, nskip);
}

/* The same test for any need and pools[0..npools) (those it may use),
 * without a table: 1 if a try of a whole-GPU need on one node of plain
 * pools must miss now off the nodes skip[0..nskip).  The caller makes
 * sure misses repeat (gs_sim_misses_repeat) and gangs are not spread. */
/* The same within the node ranges r[0..n): 1 if no open node there has
 * need's GPUs fully free (whole GPUs on one node of plain pools; 0 when
 * that cannot be told so).  O(nodes of the ranges): for a reservation's
 * single node. */
int gs_sure_miss_in(const struct gs_fleet *f, const struct gs_need *need,
                    const struct gs_range *r, int n);

/* A policy's try of job j -- within r[0..n), or (r NULL) anywhere it may
 * go, as gs_sim_try_start places it -- that must miss now: 1 when j wants
 * whole GPUs on one node of plain pools and no open node there has that
 * many fully free (the pools' masks; a pool j may not use is read only
 * when it has such a node).  0 when that cannot be told: misses that do
 * not repeat (the try might change something), gangs the core spreads
 * over nodes, fractions, MIG, sharing, gangs wider than a node.  The try
 * it spares would have changed nothing but the work counter: O(pools). */
struct gs_sim;
int gs_job_sure_miss(struct gs_sim *sim, const struct gs_job *j,
                     const struct gs_range *r, int n);

/* Mark entry i live (on) or not; marking twice is harmless. */
void gs_needtab_live(struct gs_needtab *t, int i, int on);
/* Mark entry i loud (on) or quiet (new entries are quiet). */
void gs_needtab_loud(struct gs_needtab *t, int i, int on);

/* 1 if every need of family f surely misses now (gs_needtab_sure_miss
 * with no node skipped): f > 0 and no open node of its pools has its GPUs
 * fully free. */
static inline int gs_needtab_fam_misses(const struct gs_needtab *t, int f)
{
    if (f <= 0)
        return 0;
    const struct gs_needfam *fm = &t->fam[f];
    for (int i = 0; i < fm->npools; i++)
        if ((t->fleet->pools[fm->pools[i]].fmask[1] >> fm->g) != 0)
            return 0;
    return 1;
}
/* 1 if every live need surely misses now (gs_needtab_sure_miss of each,
 * with no node skipped), told family by family: no live need is of
 * family 0 and every family with live needs misses.  Reads no entry:
 * O(families). */
int gs_needtab_all_miss(const struct gs_needtab *t);
/* Family f's live needs, quiet (loud 0) or loud: how many, and the entry
 * index of the i-th (counted). */
static inline long gs_needtab_fam_n(const struct gs_needtab *t, int f,
                                    int loud)
{
    return gs_lvec_n(&t->fam[f].live[loud]);
}
static inline int gs_needtab_fam_at(const struct gs_needtab *t, int f,
                                    int loud, long i)
{
    return *(const int *)gs_lvec_at(&t->fam[f].live[loud], i);
}
/* The live entries: how many, and the index of the i-th (counted). */
static inline long gs_needtab_nlive(const struct gs_needtab *t)
{
    return gs_lvec_n(&t->live);
}
static inline int gs_needtab_live_at(const struct gs_needtab *t, long i)
{
    return *(const int *)gs_lvec_at(&t->live, i);
}

#endif
