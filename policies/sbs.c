/* sbs.c -- Smart Batch: structurally similar waiting jobs are started
 * together, as a batch.
 *
 * The HPS paper (A. Mamirov, arXiv 2512.10980, 2025) names Smart Batch
 * (SBS) as its third dynamic scheduler: it groups jobs of the same
 * structure and runs them as batches, which raises efficiency for
 * structurally similar jobs (74.6% utilization against HPS's 78.2%).  The
 * paper's scheduler code groups jobs by model family and prefers the batch
 * with the most similar members (low variance of duration and GPU count)
 * whose GPUs add up to at most one node (max_batch_gpu 8), with at least
 * three members (batch_size_threshold 3); without such a batch it picks the
 * single job with the best efficiency x 1/(1 + GPUs/4) x 1/(1 + hours).
 *
 * Here a job's structure is what the scheduler can see of it: tenant, tier,
 * its exact request (GPUs or fraction, memory, GPU models, MIG profile,
 * sharing terms, host CPU and memory, least device memory) and the octave of its estimated runtime (floor of log2 of
 * minutes, so members of a group differ by less than 2x in duration).  Jobs
 * of a group have no variance in GPUs and little in duration, which is the
 * paper's similarity.  A pass repeatedly takes the best group:
 *
 *   1. groups with at least batch_min (3) waiting jobs before the others;
 *   2. then the group whose oldest job has the best individual score,
 *      1 / (1 + GPUs/4) / (1 + estimated hours) (the paper's fallback
 *      without its work term, which gpusim's jobs do not carry);
 *   3. then the oldest.
 *
 * and starts its members in arrival order -- a batch of them whose GPUs add
 * up to at most max_batch_gpus (default 8), at least one -- placed by the
 * scenario's placer (best-fit packs a batch onto one node when it can).
 * A group whose next member does not fit, or whose batch is out, waits for
 * the next pass.  There is no aging and no reservation: a job whose group
 * keeps losing can wait long, which is why SBS starves more than HPS.
 *
 * Cost: members of a group sit in a heap on arrival (their pnode); groups
 * sit in a heap per need and tier (jobs of one need and tier fit where the
 * others do; needtab.h) on their rank, re-ranked when their oldest member
 * or their size changes.  A pass reads each need's best group once, when
 * it first needs them, and keeps the needs in order of it (ties to the
 * earlier in the live list, as a scan would take them); a need moves only
 * when its group is set aside, and leaves when it is passed over.  A need
 * that cannot fit anywhere (no open node with its GPUs fully free:
 * gs_needtab_sure_miss) is passed over without a placement, which is what
 * it would have met.  So a pass costs O(needs) once plus O(log n) per job
 * it starts or need it passes over -- where it used to scan every need
 * for every group it took (159-260 entries read per job in bench_tenants'
 * 16 needs, then 46-76).
 *
 * Needs that cannot start anything are not read at all.  A pass reads the
 * needs by family (needtab.h: same GPU count and pools) and skips, unread,
 * the quiet needs of a family whose GPUs no open node has free: passing
 * them over would only set their best groups aside and put them back.
 * That changes no later order unless another group of the need has the
 * same rank (it would then come before the one put back), so a need with
 * a tie is loud and read as before; the ties are counted by (need, rank)
 * in a hash as groups are re-ranked (never during a pass).  A skipped
 * need still counts its try towards depth: when the tries skipped could
 * reach it, they are read and the pass goes on exactly as a scan would
 * (cands_skipped); skip_quiet false (a parameter for tests) reads them
 * all, with the same decisions.  This is what made work per job grow with the queue:
 * at 256 tenants, 46 at 200 k jobs and 77 at 1 M in bench_tenants, 4.5
 * then 7.5 live needs read a pass, nearly all of them missing; now 6.3
 * and 8.8, the same decisions.  A job's group is found by a hash of its
 * key, not a scan of every group (tenants x tiers x needs x octaves:
 * thousands with hundreds of tenants, where the scan at every arrival
 * took 70% of the run). */
#include "jobgroup.h"
#include "needtab.h"
#include "policy.h"
#include "../sim/core/sim.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Jobs with the same need (they fit exactly where the others do); an
 * entry of the need table. */
struct need {
    struct gs_needkey k;        /* first, as the table wants */
    struct gs_lheap groups;     /* its waiting groups, best first */
    long ndup;                  /* groups ranked alike with another */
};

struct cand;

struct group {
    struct gs_hnode node;       /* in its need's heap; first member */
    int tenant, tier, oct, need;
    struct gs_lheap q;          /* waiting members by arrival */
    long n;
    struct group *nextaside;    /* set aside during a pass */
    gs_time trank;              /* its rank in the tie counts, */
    int tracked;                /* if counted there */
};

/* How many groups of a need have a rank (while they wait). */
struct tie {
    gs_time rank;
    int need;
    long count;                 /* 0: an empty slot */
};

struct sbs {
    long batch_min;
    int skip;                   /* skip_quiet: pass quiet needs unread */
    double max_gpus;
    long depth;
    struct gs_sim *sim;
    struct gs_needtab t;        /* the needs (struct need); live: those
                                   with waiting groups */
    struct group **g;           /* every group (owned) */
    int ng, capg;
    int *gh;                    /* groups by key (open addressing), -1 */
    int ghcap;
    struct cand *cand;          /* the pass's needs (cands_make), best
                                   first; ncand < 0 until it needs them */
    long ncand, capcand;
    long nskip;                 /* quiet needs skipped, unread, */
    int *skipf, nskipf;                 /* in these families */
    long capskipf;
    struct tie *tie;            /* ranks by need (open addressing) */
    long ntie, captie;
};

static struct gs_job *job_of(struct gs_hnode *n)
{
    return (struct gs_job *)((char *)n - offsetof(struct gs_job, pnode));
}

static double gpus_of(const struct gs_job *j)
{
    return j->need.gpus > 0 ? j->need.gpus : j->need.milli / 1000.0;
}

static int sbs_init(struct gs_sim *sim, struct gs_params *p, void **state,
                    struct gs_diag *d)
{
    struct sbs *s = calloc(1, sizeof *s);
    if (s == NULL)
        return GS_ENOMEM;
    s->batch_min = 3;
    s->max_gpus = 8;
    s->depth = 256;
    s->skip = 1;
    int rc;
    if ((rc = gs_params_int(p, "batch_min", 1, 1000000, &s->batch_min,
                            d)) < 0 ||
        (rc = gs_params_num(p, "max_batch_gpus", 0.001, 1e6, &s->max_gpus,
                            d)) < 0 ||
        (rc = gs_params_int(p, "depth", 1, 100000000, &s->depth, d)) < 0 ||
        (rc = gs_params_bool(p, "skip_quiet", &s->skip, d)) < 0) {
        free(s);
        return rc;
    }
    s->sim = sim;
    gs_needtab_init(&s->t, sim, sizeof(struct need));
    *state = s;
    return 0;
}

static struct need *need_at(const struct sbs *s, int i)
{
    return gs_needtab_at(&s->t, i);
}

static void sbs_free(void *state)
{
    struct sbs *s = state;
    if (s == NULL)
        return;
    for (int i = 0; i < s->ng; i++) {
        gs_lheap_clear(&s->g[i]->q);
        free(s->g[i]);
    }
    for (int i = 0; i < s->t.n; i++)
        gs_lheap_clear(&need_at(s, i)->groups);
    free(s->g);
    free(s->gh);
    free(s->cand);
    free(s->skipf);
    free(s->tie);
    gs_needtab_free(&s->t);
    free(s);
}

static int octave(struct gs_sim *sim, const struct gs_job *j)
{
    double m = (double)gs_sim_estimate(sim, j) / GS_MIN;
    if (m < 1)
        return 0;
    int o = (int)floor(log2(m)) + 1;
    return o > 40 ? 40 : o;
}

static int need_of(struct sbs *s, const struct gs_job *j)
{
    int made, ni = gs_needtab_of(&s->t, &j->need, j->s.tier, &made);
    GS_OOM_IF(ni < 0);
    if (made)
        gs_lheap_init_apart(&need_at(s, ni)->groups, s->sim,
                            1 + (uint64_t)ni);
    return ni;
}

static uint32_t group_hash(int need, int tenant, int tier, int oct)
{
    uint64_t h = (uint64_t)(uint32_t)need * 0x9e3779b97f4a7c15ULL ^
                 (uint64_t)(uint32_t)tenant * 0xc2b2ae3d27d4eb4fULL ^
                 (uint64_t)(uint32_t)(tier << 8 | oct) * 0x165667b19e3779f9ULL;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    return (uint32_t)(h ^ h >> 32);
}

/* Index every group anew in a table of cap slots (a power of two). */
static void group_index(struct sbs *s, int cap)
{
    int *t = malloc((size_t)cap * sizeof *t);
    GS_OOM_IF(t == NULL);
    for (int i = 0; i < cap; i++)
        t[i] = -1;
    for (int i = 0; i < s->ng; i++) {
        const struct group *g = s->g[i];
        uint32_t h = group_hash(g->need, g->tenant, g->tier, g->oct);
        int k = (int)(h & (uint32_t)(cap - 1));
        while (t[k] >= 0)
            k = (k + 1) & (cap - 1);
        t[k] = i;
    }
    free(s->gh);
    s->gh = t;
    s->ghcap = cap;
}

/* j's group, made when new.  Groups are found through a hash of their key
 * (need, tenant, tier, octave): a run with many tenants has thousands. */
static struct group *group_of(struct sbs *s, struct gs_sim *sim,
                              const struct gs_job *j)
{
    int ni = need_of(s, j), oct = octave(sim, j);
    if (s->ghcap < 2 * (s->ng + 1))
        group_index(s, s->ghcap ? 2 * s->ghcap : 64);
    int k = (int)(group_hash(ni, j->tenant, j->s.tier, oct) &
                  (uint32_t)(s->ghcap - 1));
    for (; s->gh[k] >= 0; k = (k + 1) & (s->ghcap - 1)) {
        struct group *g = s->g[s->gh[k]];
        if (g->need == ni && g->tenant == j->tenant && g->tier == j->s.tier &&
            g->oct == oct)
            return g;
    }
    if (s->ng == s->capg) {
        int cap = s->capg ? 2 * s->capg : 16;
        struct group **v = realloc(s->g, (size_t)cap * sizeof *v);
        GS_OOM_IF(v == NULL);
        s->g = v;
        s->capg = cap;
    }
    struct group *g = calloc(1, sizeof *g);
    GS_OOM_IF(g == NULL);
    g->tenant = j->tenant;
    g->tier = j->s.tier;
    g->oct = oct;
    g->need = ni;
    gs_lheap_init_apart(&g->q, sim, (1u << 20) + (uint64_t)s->ng);
    s->gh[k] = s->ng;
    s->g[s->ng++] = g;
    return g;
}

/* A group's rank among those of its need, smallest first: batches (at
 * least batch_min members) before single jobs, then the better individual
 * score of its oldest member, 1 / (1 + GPUs/4) / (1 + estimated hours), in
 * steps of 2^-20, then the older oldest member. */
static gs_time rank(const struct sbs *s, struct gs_sim *sim,
                    const struct group *g)
{
    struct gs_job *j = job_of(gs_lheap_top(&g->q));
    double sc = 1.0 / (1.0 + gpus_of(j) / 4.0) /
                (1.0 + (double)gs_sim_estimate(sim, j) / GS_HOUR);
    uint64_t q = (uint64_t)((1.0 - sc) * (double)((1 << 20) - 1));
    uint64_t arr = (uint64_t)j->s.arrival & ((1ull << 40) - 1);
    return (gs_time)(((uint64_t)(g->n < s->batch_min) << 61) | q << 40 | arr);
}

/* --- ties ---------------------------------------------------------------
 * Passing a need over sets its best group aside, and the pass puts it
 * back with a fresh sequence number: after any other group of the need
 * ranked alike.  Where no other group is ranked alike, that changes no
 * order ever taken (a group's rank moves only with a fresh number), so
 * the need is quiet (needtab.h) and a pass may skip it unread.  The counts
 * of groups by (need, rank) tell which needs have ties. */

static uint64_t tie_hash(int need, gs_time r)
{
    uint64_t h = (uint64_t)r * 0x9e3779b97f4a7c15ULL ^
                 (uint64_t)(uint32_t)need * 0xc2b2ae3d27d4eb4fULL;
    return h ^ h >> 31;
}

/* The slot of (need, r), or the empty one where it goes. */
static long tie_slot(const struct sbs *s, int need, gs_time r)
{
    long m = s->captie - 1, k = (long)(tie_hash(need, r) & (uint64_t)m);
    while (s->tie[k].count > 0 &&
           (s->tie[k].need != need || s->tie[k].rank != r))
        k = (k + 1) & m;
    return k;
}

static void tie_grow(struct sbs *s)
{
    struct tie *old = s->tie;
    long cap = s->captie;
    s->captie = cap ? 2 * cap : 256;
    s->tie = calloc((size_t)s->captie, sizeof *s->tie);
    GS_OOM_IF(s->tie == NULL);
    for (long i = 0; i < cap; i++)
        if (old[i].count > 0)
            s->tie[tie_slot(s, old[i].need, old[i].rank)] = old[i];
    free(old);
}

/* Empty slot i, moving back the entries after it that probed past it. */
static void tie_del(struct sbs *s, long i)
{
    long m = s->captie - 1;
    for (long j = (i + 1) & m; s->tie[j].count > 0; j = (j + 1) & m) {
        long h = (long)(tie_hash(s->tie[j].need, s->tie[j].rank) &
                        (uint64_t)m);
        if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
            continue;           /* its probe does not pass i */
        s->tie[i] = s->tie[j];
        s->tie[j].count = 0;
        i = j;
    }
}

/* One group of need more (d 1) or less (d -1) at rank r. */
static void tie_add(struct sbs *s, int need, gs_time r, int d)
{
    if (d > 0 && 2 * (s->ntie + 1) > s->captie)
        tie_grow(s);
    long k = tie_slot(s, need, r);
    struct tie *e = &s->tie[k];
    struct need *nd = need_at(s, need);
    long before = e->count, after = before + d;
    GS_ASSERT(after >= 0);
    nd->ndup += (after >= 2 ? after : 0) - (before >= 2 ? before : 0);
    if (before == 0) {
        *e = (struct tie){ r, need, after };
        s->ntie++;
    }
    e->count = after;
    if (after == 0) {
        s->ntie--;
        tie_del(s, k);
    }
    gs_needtab_loud(&s->t, need, nd->ndup > 0);
}

/* g waits at rank r (in) or not, in the tie counts. */
static void tie_track(struct sbs *s, struct group *g, int in, gs_time r)
{
    if (g->tracked && (!in || g->trank != r)) {
        tie_add(s, g->need, g->trank, -1);
        g->tracked = 0;
    }
    if (in && !g->tracked) {
        tie_add(s, g->need, r, 1);
        g->tracked = 1;
        g->trank = r;
    }
}

/* g's place among its need's groups after a change (never during a
 * pass, so the tie counts stand still while one runs). */
static void rekey(struct sbs *s, struct gs_sim *sim, struct group *g)
{
    struct need *nd = need_at(s, g->need);
    if (g->n > 0) {
        gs_time r = rank(s, sim, g);
        GS_ASSERT(gs_lheap_update(&nd->groups, &g->node, r) == 0);
        tie_track(s, g, 1, r);
        gs_needtab_live(&s->t, g->need, 1);
        return;
    }
    gs_lheap_remove(&nd->groups, &g->node);
    tie_track(s, g, 0, 0);
    if (gs_lheap_size(&nd->groups) == 0)
        gs_needtab_live(&s->t, g->need, 0);
}

static void sbs_arrive(void *state, struct gs_sim *sim, struct gs_job *j)
{
    struct sbs *s = state;
    struct group *g = group_of(s, sim, j);
    GS_ASSERT(gs_lheap_push(&g->q, &j->pnode, j->s.arrival) == 0);
    j->pslot = (long)(intptr_t)g;
    g->n++;
    rekey(s, sim, g);
}

/* Take a waiting job out of its group; the group is re-ranked unless the
 * pass holds it aside (aside). */
static void unqueue(struct sbs *s, struct gs_sim *sim, struct gs_job *j,
                    int aside)
{
    struct group *g = (struct group *)(intptr_t)j->pslot;
    gs_lheap_remove(&g->q, &j->pnode);
    g->n--;
    j->pslot = 0;
    if (!aside)
        rekey(s, sim, g);
}

static void sbs_stopped(void *state, struct gs_sim *sim, struct gs_job *j,
                        int why)
{
    (void)why;
    if (j->pslot != 0)
        unqueue(state, sim, j, 0);      /* killed while waiting */
}

/* A need of a pass with waiting groups not yet set aside, not passed
 * over: its best group (top) and that group's rank (k), and its place in
 * the live list (which does not change during a pass: groups set aside
 * are re-ranked after it). */
struct cand {
    gs_time k;
    long pos;
    int ni;
    struct gs_hnode *top;
};

static int cand_cmp(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    return x->k < y->k ? -1 : x->k > y->k ? 1 : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Need ni as the pass's last candidate, its best group read (counted). */
static void cand_add(struct sbs *s, int ni)
{
    struct need *nd = need_at(s, ni);
    if (gs_lheap_size(&nd->groups) == 0)
        return;
    struct gs_hnode *top = gs_lheap_top(&nd->groups);
    s->cand[s->ncand++] = (struct cand){ top->time, s->t.pos[ni], ni, top };
}

static void cands_sort(struct sbs *s)
{
    if (s->ncand > 32) {
        qsort(s->cand, (size_t)s->ncand, sizeof *s->cand, cand_cmp);
        return;
    }
    for (long i = 1; i < s->ncand; i++) {       /* few: insertion */
        struct cand x = s->cand[i];
        long k = i;
        for (; k > 0 && cand_cmp(&s->cand[k - 1], &x) > 0; k--)
            s->cand[k] = s->cand[k - 1];
        s->cand[k] = x;
    }
}

/* The pass's needs, best group first (ties to the earlier in the live
 * list, as a scan of it would take) -- but the quiet needs of families
 * that surely miss (needtab.h): those are skipped, unread (nskip of them,
 * in the families skipf), as passing them over changes nothing. */
static void cands_make(struct sbs *s)
{
    long nlive = gs_needtab_nlive(&s->t);
    s->cand = gs_grow(s->cand, &s->capcand, nlive, sizeof *s->cand);
    s->skipf = gs_grow(s->skipf, &s->capskipf, s->t.nfam, sizeof *s->skipf);
    s->ncand = s->nskip = 0;
    s->nskipf = 0;
    for (int f = 0; f < s->t.nfam; f++) {
        long nq = gs_needtab_fam_n(&s->t, f, 0);
        int from = 0;
        if (s->skip && nq > 0 && gs_needtab_fam_misses(&s->t, f)) {
            s->skipf[s->nskipf++] = f;
            s->nskip += nq;
            from = 1;
        }
        for (int loud = from; loud < 2; loud++)
            for (long i = 0, n = gs_needtab_fam_n(&s->t, f, loud); i < n; i++)
                cand_add(s, gs_needtab_fam_at(&s->t, f, loud, i));
    }
    cands_sort(s);
}

/* The skipped needs join the pass, read: those ranked before its current
 * need (cand[0]) were passed over already, a try each; the others wait
 * their turn.  Done when the tries they would have counted could reach
 * depth, so the pass stops where a scan of every need would. */
static void cands_skipped(struct sbs *s, long *tried)
{
    long n0 = s->ncand;
    struct cand first = n0 > 0 ? s->cand[0] : (struct cand){ 0 };
    for (int k = 0; k < s->nskipf; k++) {
        int f = s->skipf[k];
        for (long i = 0, n = gs_needtab_fam_n(&s->t, f, 0); i < n; i++) {
            cand_add(s, gs_needtab_fam_at(&s->t, f, 0, i));
            if (n0 == 0 || cand_cmp(&s->cand[s->ncand - 1], &first) < 0) {
                s->ncand--;
                ++*tried;
            }
        }
    }
    s->nskip = 0;
    s->nskipf = 0;
    cands_sort(s);              /* cand[0] stays first */
}

/* 1 while the pass may try another job (the tries of skipped needs it
 * has passed counted). */
static int under_depth(struct sbs *s, long *tried)
{
    if (s->nskip > 0 && *tried + s->nskip >= s->depth)
        cands_skipped(s, tried);
    return *tried < s->depth;
}

/* The first need set a group aside: it leaves the pass when it was passed
 * over or has no group left, else moves to its next group's place. */
static void cand_next(struct sbs *s, int blocked)
{
    struct cand x = s->cand[0];
    struct need *nd = need_at(s, x.ni);
    s->ncand--;
    memmove(&s->cand[0], &s->cand[1], (size_t)s->ncand * sizeof *s->cand);
    if (blocked || gs_lheap_size(&nd->groups) == 0)
        return;
    x.top = gs_lheap_top(&nd->groups);
    x.k = x.top->time;
    long at = 0;
    while (at < s->ncand && cand_cmp(&s->cand[at], &x) < 0)
        at++;
    memmove(&s->cand[at + 1], &s->cand[at],
            (size_t)(s->ncand - at) * sizeof *s->cand);
    s->cand[at] = x;
    s->ncand++;
}

static void sbs_schedule(void *state, struct gs_sim *sim)
{
    struct sbs *s = state;
    const struct gs_fleet *f = gs_sim_fleet(sim);
    struct group *aside = NULL;
    long tried = 0;
    s->ncand = -1;
    s->nskip = 0;
    while (under_depth(s, &tried) && f->used_milli < f->gpus_up * 1000) {
        /* the best group over the needs not yet passed over */
        if (s->ncand < 0)
            cands_make(s);
        if (s->ncand == 0)
            break;
        struct need *nd = need_at(s, s->cand[0].ni);
        struct group *best = (struct group *)s->cand[0].top;
        /* its turn: set aside until the pass ends */
        gs_lheap_remove(&nd->groups, &best->node);
        best->nextaside = aside;
        aside = best;
        double sum = 0;
        long started = 0;
        int blocked = 0;
        struct gs_hnode *n;
        /* a need that surely misses is passed over on its first job
         * unread (it has one: its group was in the heap) */
        if (under_depth(s, &tried) &&
            gs_needtab_sure_miss(&s->t, &nd->k, NULL, 0)) {
            tried++;
            blocked = 1;
        }
        while (!blocked && under_depth(s, &tried) &&
               (n = gs_lheap_top(&best->q)) != NULL) {
            struct gs_job *j = job_of(n);
            if (started > 0 && sum + gpus_of(j) > s->max_gpus + 1e-9)
                break;
            tried++;
            if (gs_needtab_sure_miss(&s->t, &nd->k, NULL, 0) ||
                gs_sim_try_start(sim, j, NULL, 0) < 0) {
                blocked = 1;
                break;
            }
            sum += gpus_of(j);
            started++;
            unqueue(s, sim, j, 1);
        }
        cand_next(s, blocked);
    }
    for (struct group *g = aside, *nx; g; g = nx) {
        nx = g->nextaside;
        rekey(s, sim, g);
    }
}

const struct gs_policy_ops gs_policy_sbs = {
    .abi = GS_POLICY_ABI,
    .name = "sbs",
    .summary = "Smart Batch: structurally similar jobs started together as "
               "batches (arXiv 2512.10980)",
    .init = sbs_init,
    .free = sbs_free,
    .arrive = sbs_arrive,
    .stopped = sbs_stopped,
    .schedule = sbs_schedule,
};
