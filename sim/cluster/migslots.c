/* migslots.c -- MIG instances as slots: layouts, busy masks, profile index.
 *
 * See migslots.h for the representation.  Invariants, for every GPU g:
 *   - busy[g] has bits only below the instance count of layouts[lid[g]];
 *   - pm_part[g] (pm_empty[g]) has bit k iff g is open, in use (empty), and
 *     its layout has a free instance of profile k -- and exactly then g is a
 *     member of part[k] (empty[k]);
 *   - busy_compute and busy_inst are the sums over GPUs.
 * The reconfiguration target for profile P (homog[P]) is built by
 * gs_mig_add: P as many times as it fits, then the non-"+me" profiles from
 * the largest (most compute, then most memory) down, each as often as it
 * fits.  So 1g.10gb gives 7 x 1g.10gb, 2g.20gb gives 3 x 2g.20gb + 1g.10gb,
 * 4g.40gb gives 4g.40gb + 3g.40gb, 3g gives 2 x 3g.  Layout ids fit a byte;
 * a pool has at most 1 + 1 + nprofiles <= 9 distinct layouts. */
#include "migslots.h"
#include "../base/err.h"

#include <stdlib.h>
#include <string.h>

static int same_layout(const struct gs_mig_layout *a,
                       const struct gs_mig_layout *b)
{
    if (a->n != b->n)
        return 0;
    for (int i = 0; i < a->n; i++)
        if (a->inst[i].profile != b->inst[i].profile ||
            a->inst[i].start != b->inst[i].start)
            return 0;
    return 1;
}

/* Id of l in the table, added if new. */
static int layout_id(struct gs_migslots *m, const struct gs_mig_layout *l)
{
    for (int i = 0; i < m->nlayouts; i++)
        if (same_layout(&m->layouts[i], l))
            return i;
    GS_ASSERT(m->nlayouts < GS_MIGSLOTS_MAX_LAYOUTS);
    int id = m->nlayouts++;
    m->layouts[id] = *l;
    for (int k = 0; k < m->nprof; k++) {
        uint8_t mask = 0;
        for (int i = 0; i < l->n; i++)
            if (l->inst[i].profile == &m->gpu->profiles[k])
                mask |= (uint8_t)(1u << i);
        m->inst_of[id][k] = mask;
    }
    return id;
}

/* Profiles from the largest down (compute slices, then memory slices). */
static int larger(const struct gs_mig_profile *a, const struct gs_mig_profile *b)
{
    if (a->compute_slices != b->compute_slices)
        return a->compute_slices > b->compute_slices;
    return a->mem_slices > b->mem_slices;
}

static void build_homog(const struct gs_mig_gpu *g, const struct gs_mig_profile *p,
                        struct gs_mig_layout *out)
{
    gs_mig_layout_init(out, g);
    while (gs_mig_add(out, p, NULL) == 0)
        ;
    int order[GS_MIGSLOTS_MAX_PROFILES], n = 0;
    for (int k = 0; k < g->nprofiles; k++) {
        if (g->profiles[k].media_ext)
            continue;
        int j = n++;
        while (j > 0 && larger(&g->profiles[k], &g->profiles[order[j - 1]])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
    }
    for (int i = 0; i < n; i++)
        while (gs_mig_add(out, &g->profiles[order[i]], NULL) == 0)
            ;
}

static void index_gpu(struct gs_migslots *m, int g)
{
    uint8_t want_part = 0, want_empty = 0;
    if (m->up[g]) {
        int lid = m->lid[g];
        uint8_t free_mask = 0;
        for (int k = 0; k < m->nprof; k++)
            if (m->inst_of[lid][k] & ~m->busy[g])
                free_mask |= (uint8_t)(1u << k);
        if (m->busy[g])
            want_part = free_mask;
        else
            want_empty = free_mask;
    }
    for (int k = 0; k < m->nprof; k++) {
        uint8_t b = (uint8_t)(1u << k);
        if ((want_part ^ m->pm_part[g]) & b) {
            if (want_part & b)
                gs_bitidx_set(&m->part[k], g);
            else
                gs_bitidx_clear(&m->part[k], g);
        }
        if ((want_empty ^ m->pm_empty[g]) & b) {
            if (want_empty & b)
                gs_bitidx_set(&m->empty[k], g);
            else
                gs_bitidx_clear(&m->empty[k], g);
        }
    }
    m->pm_part[g] = want_part;
    m->pm_empty[g] = want_empty;
}

struct gs_migslots *gs_migslots_new(const struct gs_share_cfg *cfg,
                                    int ngpus, int gpn)
{
    GS_ASSERT(cfg->mode == GS_SHARE_MIG && cfg->mig_gpu != NULL);
    GS_ASSERT(cfg->mig_gpu->nprofiles <= GS_MIGSLOTS_MAX_PROFILES);
    struct gs_migslots *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->gpu = cfg->mig_gpu;
    m->reconfigure = cfg->reconfigure;
    m->ngpus = ngpus;
    m->gpn = gpn;
    m->nprof = m->gpu->nprofiles;
    GS_ASSERT(gs_mig_layout_check(&cfg->layout, NULL) == 0);
    layout_id(m, &cfg->layout);
    struct gs_mig_layout l;
    for (int k = 0; k < m->nprof; k++) {
        build_homog(m->gpu, &m->gpu->profiles[k], &l);
        m->homog[k] = layout_id(m, &l);
    }
    gs_mig_layout_init(&l, m->gpu);
    for (int k = 0; k < m->nprof; k++)
        if (m->gpu->profiles[k].compute_slices == GS_MIG_COMPUTE_SLICES)
            gs_mig_add(&l, &m->gpu->profiles[k], NULL);
    GS_ASSERT(l.n == 1);
    m->full = layout_id(m, &l);
    size_t n = (size_t)(ngpus > 0 ? ngpus : 1);
    m->lid = calloc(n, 1);
    m->busy = calloc(n, 1);
    m->up = malloc(n);
    m->pm_part = calloc(n, 1);
    m->pm_empty = calloc(n, 1);
    m->nreconf = calloc(n, sizeof *m->nreconf);
    if (!m->lid || !m->busy || !m->up || !m->pm_part || !m->pm_empty ||
        !m->nreconf)
        goto fail;
    memset(m->up, 1, n);
    for (int k = 0; k < m->nprof; k++)
        if (gs_bitidx_init(&m->part[k], ngpus) < 0 ||
            gs_bitidx_init(&m->empty[k], ngpus) < 0)
            goto fail;
    for (int g = 0; g < ngpus; g++)
        index_gpu(m, g);
    return m;
fail:
    gs_migslots_free(m);
    return NULL;
}

void gs_migslots_free(struct gs_migslots *m)
{
    if (m == NULL)
        return;
    for (int k = 0; k < GS_MIGSLOTS_MAX_PROFILES; k++) {
        gs_bitidx_free(&m->part[k]);
        gs_bitidx_free(&m->empty[k]);
    }
    free(m->lid);
    free(m->busy);
    free(m->up);
    free(m->pm_part);
    free(m->pm_empty);
    free(m->nreconf);
    free(m);
}

int gs_migslots_profile_index(const struct gs_migslots *m,
                              const struct gs_mig_profile *p)
{
    for (int k = 0; p && k < m->nprof; k++)
        if (&m->gpu->profiles[k] == p)
            return k;
    return -1;
}

const struct gs_mig_profile *gs_migslots_profile(const struct gs_migslots *m,
                                                 int k)
{
    return k >= 0 && k < m->nprof ? &m->gpu->profiles[k] : NULL;
}

int gs_migslots_next(const struct gs_migslots *m, int k, int in_use,
                     int from, int to)
{
    int g = gs_bitidx_next(in_use ? &m->part[k] : &m->empty[k], from);
    return g >= 0 && g < to ? g : -1;
}

int gs_migslots_free_inst(const struct gs_migslots *m, int gpu, int k)
{
    uint8_t f = m->inst_of[m->lid[gpu]][k] & (uint8_t)~m->busy[gpu];
    return f ? __builtin_ctz(f) : -1;
}

int gs_migslots_target_inst(const struct gs_migslots *m, int k)
{
    uint8_t f = m->inst_of[m->homog[k]][k];
    GS_ASSERT(f != 0);
    return __builtin_ctz(f);
}

const struct gs_mig_profile *gs_migslots_inst_profile(
    const struct gs_migslots *m, int gpu, int inst, int target)
{
    const struct gs_mig_layout *l = &m->layouts[target >= 0 ? target
                                                            : m->lid[gpu]];
    return inst >= 0 && inst < l->n ? l->inst[inst].profile : NULL;
}

static void set_layout(struct gs_migslots *m, int gpu, int lid)
{
    GS_ASSERT(m->busy[gpu] == 0);
    if (m->lid[gpu] == lid)
        return;
    m->lid[gpu] = (uint8_t)lid;
    m->nreconf[gpu]++;
    m->reconfigs++;
}

void gs_migslots_claim(struct gs_migslots *m, int gpu, int inst, int target)
{
    if (target >= 0)
        set_layout(m, gpu, target);
    const struct gs_mig_layout *l = &m->layouts[m->lid[gpu]];
    GS_ASSERT(inst >= 0 && inst < l->n && !(m->busy[gpu] & (1u << inst)));
    m->busy[gpu] |= (uint8_t)(1u << inst);
    m->busy_compute += l->inst[inst].profile->compute_slices;
    m->busy_inst++;
    index_gpu(m, gpu);
}

void gs_migslots_release(struct gs_migslots *m, int gpu, int inst)
{
    const struct gs_mig_layout *l = &m->layouts[m->lid[gpu]];
    GS_ASSERT(inst >= 0 && inst < l->n && (m->busy[gpu] & (1u << inst)));
    m->busy[gpu] &= (uint8_t)~(1u << inst);
    m->busy_compute -= l->inst[inst].profile->compute_slices;
    m->busy_inst--;
    index_gpu(m, gpu);
}

void gs_migslots_claim_whole(struct gs_migslots *m, int gpu)
{
    set_layout(m, gpu, m->full);
    gs_migslots_claim(m, gpu, 0, -1);
}

void gs_migslots_release_whole(struct gs_migslots *m, int gpu)
{
    GS_ASSERT(m->lid[gpu] == m->full);
    gs_migslots_release(m, gpu, 0);
}

int gs_migslots_is_full(const struct gs_migslots *m, int gpu)
{
    return m->lid[gpu] == m->full;
}

void gs_migslots_set_open(struct gs_migslots *m, int gpu, int open)
{
    if (m->up[gpu] == (uint8_t)(open != 0))
        return;
    m->up[gpu] = (uint8_t)(open != 0);
    index_gpu(m, gpu);
}
