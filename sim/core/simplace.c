/* simplace.c -- the core's placement call (gs_sim_place): which ranges a
 * job may be placed in, the misses remembered, the placer asked, and what
 * it chose checked before anything is committed.
 *
 * A policy asks the core to place a job in ranges of nodes (NULL: every
 * pool the job may use, each whole).  The core drops the ranges the spot
 * rule closes to it (every model's pool_ok veto), places a CPU-only job
 * itself (host_place: placers are asked only for jobs with GPUs), a gang
 * under $.topology.gang_placement "spread" as kube-scheduler's default
 * scoring would (spread_place), and asks the placer plug-in for the rest;
 * what comes back must be committable (gs_fleet_can_commit), or the core
 * takes the best fit among nodes where every resource fits
 * (NodeResourcesFit), or the run fails naming the placer.  A miss is
 * remembered per need and tier until the fleet's epoch moves (a release,
 * a node up or down, a loan: sim.c's on_fleet_change), so a job that found
 * no room does not search again while none came back.  Split from sim.c,
 * which keeps the loop, the jobs' starts and stops and the other engine
 * calls; the rare paths here are out of line (GS_COLD, noinline), so the
 * common one -- a remembered miss, or the placer's choice checked -- keeps
 * few lines of the instruction cache. */
#include "simint.h"

#include <stdlib.h>
#include <string.h>

static int default_ranges(struct gs_sim *s, const struct gs_job *j)
{
    int n = 0;
    for (int p = 0; p < s->fleet->npools; p++)
        if (gs_fleet_pool_eligible(s->fleet, p, &j->need) &&
            sim_pool_ok(s, p, j))
            s->ranges[n++] = (struct gs_range){ p, 0,
                                                s->fleet->pools[p].s.nodes };
    return n;
}

static struct miss *miss_slot(struct gs_sim *s, const struct gs_job *j)
{
    const struct gs_need *n = &j->need;
    uint64_t m;
    memcpy(&m, &n->mem_gb, sizeof m);
    uint64_t h = ((uint64_t)n->gpus * 1000003u + (uint64_t)n->milli) ^
                 m * 0x9e3779b97f4a7c15ULL ^ n->allowed * 0xc2b2ae3d27d4eb4fULL ^
                 n->tolerates * 0xd6e8feb86659fd93ULL;
    h ^= ((uint64_t)j->s.tier << 40) ^ ((uint64_t)n->guar << 20) ^
         (uint64_t)n->burst;
    h ^= ((uint64_t)(uint32_t)n->cpu_milli << 32 | (uint32_t)n->mem_mib) *
         0x94d049bb133111ebULL;
    h *= 0xff51afd7ed558ccdULL;
    return &s->miss[(h >> 40) & 63];
}

/* The miss's MIG profile: a copy of the name ("" for none), cut to fit
 * as snprintf would (a longer name then never matches, and is never
 * remembered as missing).  Not snprintf itself: it was some 3% of a run,
 * the memo being written at every miss. */
static void miss_profile(struct miss *x, const char *prof)
{
    size_t n = prof ? strnlen(prof, sizeof x->prof - 1) : 0;
    memcpy(x->prof, prof ? prof : "", n);
    x->prof[n] = '\0';
}

static int miss_same(const struct miss *x, const struct gs_job *j)
{
    const struct gs_need *a = &x->need, *b = &j->need;
    return x->tier == j->s.tier && gs_need_same_asks(a, b) &&
           strcmp(x->prof, b->profile ? b->profile : "") == 0;
}

/* Sharing lends and reclaims capacity without a release the epoch sees,
 * so misses are remembered only on fleets with no shared pool. */
static int fleet_shared(const struct gs_fleet *f)
{
    for (int p = 0; p < f->npools; p++)
        if (f->pools[p].s.share.mode != GS_SHARE_NONE)
            return 1;
    return 0;
}

int gs_sim_misses_repeat(const struct gs_sim *s)
{
    return !s->plc->draws_on_miss && !fleet_shared(s->fleet);
}

/* A gang under $.topology.gang_placement "spread": the core places it as
 * kube-scheduler's default scoring would place its GPUs as separate pods
 * (GS_FIT_SPREAD), in the first of the ranges where it fits. */
static __attribute__((noinline)) int
spread_place(struct gs_sim *s, const struct gs_job *j,
             const struct gs_range *ranges, int nranges, struct gs_alloc *out)
{
    for (int i = 0; i < nranges; i++) {
        int rc = gs_fleet_find(s->fleet, &ranges[i], &j->need, GS_FIT_SPREAD,
                               out, NULL);
        if (rc != GS_ENOFIT)
            return rc;
    }
    return GS_ENOFIT;
}

/* A CPU-only job, placed by the core (placers place GPUs): the first
 * node with its CPU and memory, in the ranges' pools without GPUs, then in
 * the others -- so GPU nodes' CPU is used only when CPU pools are full,
 * and on them first fit packs CPU-only jobs together, leaving whole nodes'
 * CPU to GPU jobs. */
static __attribute__((noinline)) int
host_place(struct gs_sim *s, const struct gs_job *j,
           const struct gs_range *ranges, int nranges, struct gs_alloc *out)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < nranges; i++) {
            int gpn = s->fleet->pools[ranges[i].pool].s.gpn;
            if ((pass == 0) != (gpn == 0))
                continue;
            int rc = gs_fleet_find(s->fleet, &ranges[i], &j->need,
                                   GS_FIT_FIRST, out, NULL);
            if (rc != GS_ENOFIT)
                return rc;
        }
    return GS_ENOFIT;
}

/* A policy's own ranges, some of which the spot rule closes to j: the
 * ones open to it placed (gs_sim_place), in s->ranges or, when more than
 * it holds, in memory of their own. */
static GS_COLD int place_open(struct gs_sim *s, const struct gs_job *j,
                              const struct gs_range *ranges, int nranges,
                              struct gs_alloc *out)
{
    struct gs_range *r = s->ranges;
    if (nranges > s->fleet->npools + 1 &&
        (r = malloc((size_t)nranges * sizeof *r)) == NULL)
        return gs_sim_fail(s, GS_ENOMEM, "", "out of memory");
    int n = 0;
    for (int i = 0; i < nranges; i++)
        if (sim_pool_ok(s, ranges[i].pool, j))
            r[n++] = ranges[i];
    int rc = n ? gs_sim_place(s, j, r, n, out) : GS_ENOFIT;
    if (r != s->ranges)
        free(r);
    return rc;
}

/* NodeResourcesFit: a placer that scores GPUs only may pick a node whose
 * CPU or memory is short (*out, which holds j's GPUs); the core then takes
 * the best fit among nodes where every resource fits, into *out, or none
 * (GS_ENOFIT, *out emptied).  Else whether *out can be committed. */
static __attribute__((noinline)) int
place_host_fit(struct gs_sim *s, const struct gs_job *j,
               const struct gs_range *ranges, int nranges,
               struct gs_alloc *out)
{
    int best = -1;
    struct gs_alloc a = { .pool = -1 };
    for (int i = 0; i < nranges; i++) {
        int sc = 0;
        if (gs_fleet_find(s->fleet, &ranges[i], &j->need, GS_FIT_BEST,
                          &a, &sc) == 0 &&
            (best < 0 || sc < best)) {
            best = sc;
            gs_alloc_reset(out);
            *out = a;
            a = (struct gs_alloc){ .pool = -1 };
        }
        gs_alloc_reset(&a);
    }
    if (best < 0) {
        gs_alloc_reset(out);
        return GS_ENOFIT;
    }
    return gs_fleet_can_commit(s->fleet, out, &j->need);
}

/* The placer chose what cannot be committed: the run fails. */
static GS_COLD int place_refused(struct gs_sim *s, const struct gs_job *j,
                                 struct gs_alloc *out)
{
    char what[256];
    snprintf(what, sizeof what, "placer '%s' chose GPUs that are not free "
             "for job %lld", s->plc->name, (long long)j->s.id);
    gs_alloc_reset(out);
    return gs_sim_fail(s, GS_ESTATE, "plug-in", what);
}

/* A miss remembered: j's asks at the fleet's epoch. */
static void miss_keep(struct gs_sim *s, struct miss *memo,
                      const struct gs_job *j)
{
    memo->need = j->need;
    memo->need.profile = NULL;
    memo->tier = j->s.tier;
    miss_profile(memo, j->need.profile);
    memo->epoch = s->epoch;
}

int gs_sim_place(struct gs_sim *s, const struct gs_job *j,
                 const struct gs_range *ranges, int nranges,
                 struct gs_alloc *out)
{
    struct miss *memo = NULL;
    if (ranges == NULL && s->memo_ok) {
        memo = miss_slot(s, j);
        if (memo->epoch == s->epoch && miss_same(memo, j))
            return GS_ENOFIT;   /* it missed, and nothing came back since */
    }
    if (ranges == NULL) {
        nranges = default_ranges(s, j);
        ranges = s->ranges;
    } else {
        /* A policy's own ranges obey the spot rule too. */
        for (int i = 0; i < nranges; i++)
            if (!sim_pool_ok(s, ranges[i].pool, j))
                return place_open(s, j, ranges, nranges, out);
    }
    if (nranges == 0)
        return GS_ENOFIT;
    s->look.work++;
    int rc = gs_need_host_only(&j->need)
                 ? host_place(s, j, ranges, nranges, out)
             : j->need.gpus > 1 && s->sc->topo.gang == GS_GANG_SPREAD &&
                   j->need.profile == NULL
                 ? spread_place(s, j, ranges, nranges, out)
                 : s->plc->place(s->plst, s, j, ranges, nranges, out);
    if (rc == GS_ENOFIT && memo)
        miss_keep(s, memo, j);
    if (rc < 0)
        return rc == GS_ENOMEM ? gs_sim_fail(s, rc, "", "out of memory")
                               : GS_ENOFIT;
    int ok = gs_fleet_can_commit(s->fleet, out, &j->need);
    if (!ok && (j->need.cpu_milli > 0 || j->need.mem_mib > 0)) {
        struct gs_need gpus_only = j->need;
        gpus_only.cpu_milli = gpus_only.mem_mib = 0;
        if (gs_fleet_can_commit(s->fleet, out, &gpus_only) &&
            (ok = place_host_fit(s, j, ranges, nranges, out)) < 0)
            return ok;
    }
    if (!ok)
        return place_refused(s, j, out);
    return 0;
}

