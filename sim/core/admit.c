/* admit.c -- admission: what the simulation works out for a job that
 * arrives, before it is queued.
 *
 * A job that arrives (from the scenario's source, or submitted or offered
 * by a model) has its tenant interned, its host asks given its tier's
 * defaults where it states none (host_defaults: never more than its GPUs'
 * share of a node), the GPU models its attributes admit and its least time
 * factor -- worked out once per job shape and remembered in a small table
 * (shape_answers), since traces repeat a few shapes many times -- and its
 * record (struct gs_jobrec, in memory of its own: bigmem.h).  A job that no
 * pool may ever take fails the run with the reason, naming the trace row
 * or class it came from (job_where): a workload the cluster cannot run is
 * an input error, never a job silently dropped.  sim.c's arrive() gives
 * the job struct and queues the job admitted; nothing here calls back into
 * sim.c.
 *
 * The host asks are kept as distinct (CPU, memory) pairs with an index per
 * record while few pairs exist, so a million records cost a few bytes
 * each; past GS_JOBREC_HOSTS pairs every record keeps its own. */
#include "simint.h"
#include "../base/bigmem.h"
#include "../cluster/power.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int gs_sim_any_pool_fits(const struct gs_sim *s, const struct gs_job *j)
{
    for (int p = 0; p < s->fleet->npools; p++)
        if (gs_fleet_pool_eligible(s->fleet, p, &j->need) &&
            sim_pool_ok(s, p, j))
            return 1;
    return 0;
}

/* Why a job fits no pool, when the spot rule is the reason. */
static const char *spot_hint(const struct gs_sim *s, const struct gs_job *j)
{
    for (int p = 0; p < s->fleet->npools; p++)
        if (gs_fleet_pool_eligible(s->fleet, p, &j->need))
            return " (the pools that would fit are spot pools, closed to "
                   "its tier by $.spot.tiers)";
    return "";
}

/* The host resources j asks when its trace or class states none: the
 * tier's, per GPU (a fraction pro rata; a MIG profile as one slice of 7)
 * or for a job asking no GPU -- but never more than its GPUs' share of a
 * node (the GPUs it would hold / the node's GPUs: a time-slicing replica
 * 1/N of a GPU's share) on the most generous pool it may use, so a
 * default alone neither makes a job unplaceable nor strands GPUs.  What a
 * job states is kept as stated. */
static void host_defaults(const struct gs_sim *s, struct gs_job *j,
                          const struct gs_tiercfg *tc)
{
    struct gs_need *n = &j->need;
    int def_c = n->cpu_milli <= 0, def_m = n->mem_mib <= 0;
    if (!def_c && !def_m)
        return;
    int host = gs_need_host_only(n);
    double g = n->gpus > 0 ? n->gpus
               : n->milli > 0 ? n->milli / 1000.0 : 1.0 / 7.0;
    int64_t cpu = host ? tc->cpu_only : llround(tc->cpu_per_gpu * g);
    int64_t mem = host ? tc->mem_only : llround(tc->mem_per_gpu * g);
    /* the most one job of this shape may ask on some eligible pool */
    struct gs_need bare = *n;
    bare.cpu_milli = bare.mem_mib = 0;
    int64_t cmax = -1, mmax = -1;
    for (int p = 0; p < s->fleet->npools; p++) {
        if (!gs_fleet_pool_eligible(s->fleet, p, &bare) ||
            !sim_pool_ok(s, p, j))
            continue;
        const struct gs_pool_spec *ps = &s->fleet->pools[p].s;
        int32_t nc, nm;
        gs_pool_host(s->fleet->cat, ps, &nc, &nm);
        struct gs_demand dm;
        int64_t held = 1000, per = 1000;   /* milli held, of per */
        if (!host && gs_fleet_demand(s->fleet, p, &bare, &dm) == 0) {
            held = dm.kind == GS_DEM_WHOLE ? 1000LL * dm.gpus : dm.milli;
            per = 1000LL * ps->gpn;     /* a gang's parts split it by
                                           their GPUs (gs_part_host) */
        }
        int64_t c = (int64_t)nc * held / per, m = (int64_t)nm * held / per;
        if (c > cmax)
            cmax = c;
        if (m > mmax)
            mmax = m;
    }
    if (def_c)
        n->cpu_milli = (int32_t)(cmax >= 0 && cpu > cmax ? cmax : cpu);
    if (def_m)
        n->mem_mib = (int32_t)(mmax >= 0 && mem > mmax ? mmax : mem);
}

_Static_assert(sizeof(struct gs_jobrec) == GS_JOBREC_BYTES,
               "struct gs_jobrec has padding or grew");
_Static_assert(GS_NTIERS <= 8 && GS_NKILL <= 8 && GS_JOB_UNFINISHED < 8,
               "a record's 3-bit codes are too small");

/* The records' memory (bigmem.h): mappings of their own, grown by mremap
 * (no copy) and marked for transparent huge pages, so a million records
 * take a few dozen page faults rather than 16,000.  They grow by doubling,
 * which costs address space, not memory: only the pages written are
 * resident.  The side arrays -- every job's host asks once there are too
 * many distinct pairs to index, what requeued jobs keep -- exist only once
 * needed and then grow with the records. */
int gs_sim_side_grow(void **p, size_t each, long old, long cap)
{
    void *q = gs_big_realloc(*p, (size_t)old * each, (size_t)cap * each);
    if (q == NULL)
        return GS_ENOMEM;
    *p = q;
    return 0;
}

/* Room for one more record: the arrays doubled (records_grow). */
static GS_COLD int records_double(struct gs_sim *s)
{
    long cap = s->caprec ? s->caprec * 2 : 1024;   /* 64 KB, then doubling */
    if ((size_t)cap > (size_t)UINT32_MAX + 1)
        return GS_ENOMEM;       /* a job's record index is 32 bits */
    if (gs_sim_side_grow((void **)&s->rec, sizeof *s->rec, s->caprec,
                         cap) < 0 ||
        (s->host && gs_sim_side_grow((void **)&s->host, sizeof *s->host,
                                     s->caprec, cap) < 0) ||
        (s->redo && gs_sim_side_grow((void **)&s->redo, sizeof *s->redo,
                                     s->caprec, cap) < 0) ||
        (s->energy && gs_sim_side_grow((void **)&s->energy,
                                       sizeof *s->energy, s->caprec,
                                       cap) < 0))
        return GS_ENOMEM;
    s->caprec = cap;
    return 0;
}

/* Room for one more record. */
static inline int records_grow(struct gs_sim *s)
{
    return s->nrec < s->caprec ? 0 : records_double(s);
}

static uint32_t host_hash(uint64_t key, long cap)
{
    key *= 0x9e3779b97f4a7c15ULL;
    return (uint32_t)(key >> 32) & (uint32_t)(cap - 1);
}

/* The index table of the host pairs twice as large; 0 or GS_ENOMEM. */
static GS_COLD int hh_double(struct gs_sim *s)
{
    long cap = s->hhcap ? s->hhcap * 2 : 64;
    uint32_t *t = calloc((size_t)cap, sizeof *t);
    if (t == NULL)
        return GS_ENOMEM;
    for (long i = 1; i < s->nhostv; i++) {
        const struct gs_jobhost *v = &s->hostv[i];
        uint32_t k = host_hash((uint64_t)(uint32_t)v->cpu_milli << 32 |
                               (uint32_t)v->mem_mib, cap);
        while (t[k])
            k = (k + 1) & (uint32_t)(cap - 1);
        t[k] = (uint32_t)i;
    }
    free(s->hh);
    s->hh = t;
    s->hhcap = cap;
    return 0;
}

/* The index of host pair h in the table of distinct pairs, added if new;
 * GS_ERANGE when the table is full (host_pairs pairs), GS_ENOMEM. */
static long host_index(struct gs_sim *s, struct gs_jobhost h)
{
    uint64_t key = (uint64_t)(uint32_t)h.cpu_milli << 32 |
                   (uint32_t)h.mem_mib;
    if (key == 0)
        return 0;
    if (key == s->hlast_key && s->hlast)
        return s->hlast;
    if (s->nhostv * 2 + 2 >= s->hhcap && hh_double(s) < 0)
        return GS_ENOMEM;
    uint32_t k = host_hash(key, s->hhcap);
    for (; s->hh[k]; k = (k + 1) & (uint32_t)(s->hhcap - 1)) {
        const struct gs_jobhost *v = &s->hostv[s->hh[k]];
        if (v->cpu_milli == h.cpu_milli && v->mem_mib == h.mem_mib) {
            s->hlast_key = key;
            return s->hlast = s->hh[k];
        }
    }
    if (s->nhostv == 0)
        s->nhostv = 1;          /* index 0: no asks */
    if (s->nhostv > s->host_pairs)
        return GS_ERANGE;
    if (s->nhostv >= s->caphostv) {
        long cap = s->caphostv ? s->caphostv * 2 : 16;
        struct gs_jobhost *v = realloc(s->hostv, (size_t)cap * sizeof *v);
        if (v == NULL)
            return GS_ENOMEM;
        v[0] = (struct gs_jobhost){ 0, 0 };
        s->hostv = v;
        s->caphostv = cap;
    }
    s->hostv[s->nhostv] = h;
    s->hh[k] = (uint32_t)s->nhostv;
    s->hlast_key = key;
    return s->hlast = (uint32_t)s->nhostv++;
}

/* Too many distinct host pairs: every record keeps its own from record i
 * on (host_keep), those before it copied into the side array now. */
static GS_COLD int host_own(struct gs_sim *s, long i)
{
    if (gs_sim_side_grow((void **)&s->host, sizeof *s->host, 0,
                         s->caprec) < 0)
        return GS_ENOMEM;
    for (long r = 0; r < i; r++)
        s->host[r] = s->hostv[s->rec[r].host];
    return 0;
}

/* Keep the host asks of record i (the last one): its pair's index, or in
 * the side array once the pairs are too many to index. */
static int host_keep(struct gs_sim *s, long i, struct gs_jobhost h)
{
    if (s->host == NULL) {
        long k = host_index(s, h);
        if (k >= 0) {
            s->rec[i].host = (unsigned)k;
            return 0;
        }
        if (k != GS_ERANGE)
            return (int)k;
        if (host_own(s, i) < 0)
            return GS_ENOMEM;
    }
    s->rec[i].host = 0;
    s->host[i] = h;
    return 0;
}

/* Where a job's problem is: the scenario, the job, its trace line. */
static char *job_where(const struct gs_sim *s, const struct gs_jobspec *sp)
{
    if (sp->line > 0)
        return gs_strf("%s: job %lld (trace line %ld)", s->sc->file,
                       (long long)sp->id, sp->line);
    return gs_strf("%s: job %lld", s->sc->file, (long long)sp->id);
}

/* gs_sim_fail naming job sp (job_where). */
static int job_fail(struct gs_sim *s, const struct gs_jobspec *sp, int code,
                    const char *what)
{
    char *where = job_where(s, sp);
    int rc = gs_sim_fail(s, code, where, what);
    free(where);
    return rc;
}

/* The least time factor over the pools j may use (-1 if none: the pools
 * and their models are fixed for the run, so admission works it out once
 * and the estimate, asked for every pending job a backfill pass looks at,
 * is one multiplication), and whether any pool may take j (1) or none (0),
 * in one pass over the pools. */
static int pools_for(const struct gs_sim *s, const struct gs_job *j,
                     double *factor)
{
    double best = -1;
    int fits = 0, host = gs_need_host_only(&j->need);
    for (int p = 0; p < s->fleet->npools; p++) {
        if (!gs_fleet_pool_eligible(s->fleet, p, &j->need))
            continue;
        if (!host) {
            double f = gs_sim_pool_factor(s, j, p);
            if (best < 0 || f < best)
                best = f;
        }
        if (!fits)
            fits = sim_pool_ok(s, p, j);
    }
    *factor = host ? (fits ? 1.0 : -1) : best;  /* CPU work: no GPU model */
    return fits;
}

/* What admission works out from a job's shape alone (shape_answers). */
struct shape {
    double mem_gb, gpu_mem_min, cb;
    uint64_t allowed;
    int32_t tier, gpus, milli, guar, burst, ref_model, cpu_milli, mem_mib;
};

struct shape_memo {
    struct shape k;
    int32_t cpu_milli, mem_mib;     /* the asks, defaults included */
    uint64_t allowed;               /* with its attributes */
    double efactor;
    int attrs_empty, fits, used;
};

_Static_assert(sizeof(struct shape) == 64, "struct shape has padding");

/* Work out, for job j (its need as the spec states it), the models its
 * attributes admit, its host asks with the tier's defaults (host_defaults),
 * its least time factor and whether any pool may take it (pools_for); *ae
 * is 1 when its attributes admit no model it may use.  Each is a function
 * of the job's shape -- tier, need, reference model and compute share --
 * since the pools, the catalog, the tiers and the models' vetoes (model.h:
 * pool_ok looks at the pool and the job's tier and need) are fixed for
 * the run; so the answers for a shape are remembered in a small
 * direct-mapped table and alike jobs, most of a workload, look them up.
 * Jobs that name a MIG profile or a GPU family, or tolerate a taint, are
 * worked out each time. */
static void shape_work(struct gs_sim *s, struct gs_job *j,
                       const struct gs_jobspec *sp,
                       const struct gs_tiercfg *tc, int *ae, int *fits,
                       struct shape_memo *m, const struct shape *k);

static void shape_answers(struct gs_sim *s, struct gs_job *j,
                          const struct gs_jobspec *sp,
                          const struct gs_tiercfg *tc, int *ae, int *fits)
{
    struct shape_memo *m = NULL;
    struct shape k;
    if (!sp->mig_profile[0] && !sp->gpu_family[0] && !sp->tolerates) {
        k = (struct shape){ .mem_gb = j->need.mem_gb,
                            .gpu_mem_min = sp->gpu_mem_min, .cb = sp->cb,
                            .allowed = j->need.allowed, .tier = sp->tier,
                            .gpus = j->need.gpus, .milli = j->need.milli,
                            .guar = j->need.guar, .burst = j->need.burst,
                            .ref_model = sp->ref_model,
                            .cpu_milli = j->need.cpu_milli,
                            .mem_mib = j->need.mem_mib };
        uint64_t h = k.allowed ^ (uint64_t)(uint32_t)k.gpus << 7 ^
                     (uint64_t)(uint32_t)k.milli << 13 ^
                     (uint64_t)(uint32_t)k.tier << 29 ^
                     (uint64_t)(uint32_t)k.cpu_milli << 31 ^
                     (uint64_t)(uint32_t)k.mem_mib << 17;
        h *= 0x9e3779b97f4a7c15ULL;
        m = &s->shapes[h >> (64 - GS_SHAPE_BITS)];
        if (m->used && memcmp(&m->k, &k, sizeof k) == 0) {
            j->need.cpu_milli = m->cpu_milli;
            j->need.mem_mib = m->mem_mib;
            j->need.allowed = m->allowed;
            j->efactor = m->efactor;
            *ae = m->attrs_empty;
            *fits = m->fits;
            return;
        }
    }
    shape_work(s, j, sp, tc, ae, fits, m, &k);
}

/* shape_answers for a shape not in the table: worked out, and kept in
 * slot m when m is not NULL (key *k). */
static __attribute__((noinline)) void
shape_work(struct gs_sim *s, struct gs_job *j, const struct gs_jobspec *sp,
           const struct gs_tiercfg *tc, int *ae, int *fits,
           struct shape_memo *m, const struct shape *k)
{
    *ae = 0;
    if (sp->gpu_family[0] || sp->gpu_mem_min > 0) {
        /* DRA attributes: the models they admit, within any list */
        uint64_t mm = gs_jobspec_attr_models(&s->sc->cat, sp->gpu_family,
                                             sp->gpu_mem_min);
        if (j->need.allowed)
            mm &= j->need.allowed;
        *ae = mm == 0 && !gs_need_host_only(&j->need);
        j->need.allowed = mm;
    }
    host_defaults(s, j, tc);
    *fits = pools_for(s, j, &j->efactor);
    if (m)
        *m = (struct shape_memo){ .k = *k, .cpu_milli = j->need.cpu_milli,
                                  .mem_mib = j->need.mem_mib,
                                  .allowed = j->need.allowed,
                                  .efactor = j->efactor, .attrs_empty = *ae,
                                  .fits = *fits, .used = 1 };
}

static uint32_t hash_str(const char *p)
{
    uint32_t h = 2166136261u;
    for (; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h;
}

/* Index of tenant name, added if new; GS_ENOMEM, or GS_ERANGE past
 * GS_MAX_TENANTS tenants (a record's field). */
static int tenant_intern(struct gs_sim *s, const char *name)
{
    if (s->ntn * 2 >= s->thcap) {
        int cap = s->thcap ? s->thcap * 2 : 64;
        int *h = malloc((size_t)cap * sizeof *h);
        if (h == NULL)
            return GS_ENOMEM;
        for (int i = 0; i < cap; i++)
            h[i] = -1;
        for (int i = 0; i < s->ntn; i++) {
            uint32_t k = hash_str(s->tnames[i]) & (uint32_t)(cap - 1);
            while (h[k] >= 0)
                k = (k + 1) & (uint32_t)(cap - 1);
            h[k] = i;
        }
        free(s->thash);
        s->thash = h;
        s->thcap = cap;
    }
    uint32_t k = hash_str(name) & (uint32_t)(s->thcap - 1);
    while (s->thash[k] >= 0) {
        if (strcmp(s->tnames[s->thash[k]], name) == 0)
            return s->thash[k];
        k = (k + 1) & (uint32_t)(s->thcap - 1);
    }
    if (s->ntn >= GS_MAX_TENANTS)
        return GS_ERANGE;
    if (s->ntn == s->captn) {
        int cap = s->captn ? s->captn * 2 : 16;
        void *t = realloc(s->tnames, (size_t)cap * sizeof *s->tnames);
        if (t == NULL)
            return GS_ENOMEM;
        s->tnames = t;
        s->captn = cap;
    }
    snprintf(s->tnames[s->ntn], GS_TENANT_NAME, "%s", name);
    s->thash[k] = s->ntn;
    return s->ntn++;
}

/* The tenant index of sp's tenant, through the source's number for it
 * when it gives one (struct gs_jobspec: tenant_key) -- the name is hashed
 * once, not for every job -- or by name.  Negative: tenant_intern's. */
static __attribute__((noinline)) int tenant_slow(struct gs_sim *s, const struct gs_jobspec *sp);

static int tenant_of(struct gs_sim *s, const struct gs_jobspec *sp)
{
    int key = sp->tenant_key;
    if (key > 0 && key < s->ntkey && s->tkey[key] > 0)
        return s->tkey[key] - 1;
    return tenant_slow(s, sp);
}

/* tenant_of for a job whose source gives no key, or one not seen yet: by
 * name, the key remembered. */
static __attribute__((noinline)) int tenant_slow(struct gs_sim *s, const struct gs_jobspec *sp)
{
    int key = sp->tenant_key;
    int t = tenant_intern(s, sp->tenant);
    if (t < 0 || key <= 0 || key > GS_TENANT_KEYS)
        return t;
    if (key >= s->ntkey) {
        int n = s->ntkey ? s->ntkey : 64;
        while (n <= key)
            n *= 2;
        int *k = realloc(s->tkey, (size_t)n * sizeof *k);
        if (k == NULL)
            return t;           /* looked up by name next time */
        memset(k + s->ntkey, 0, (size_t)(n - s->ntkey) * sizeof *k);
        s->tkey = k;
        s->ntkey = n;
    }
    s->tkey[key] = t + 1;
    return t;
}

/* A job no pool may ever take (its attributes admit no model, or no pool
 * it may use fits it): its record dropped, j freed, the run failed with
 * the reason. */
static GS_COLD int admit_refused(struct gs_sim *s, struct gs_job *j,
                                 const struct gs_jobspec *sp, int attrs_empty)
{
    char what[300];
    if (attrs_empty)
        snprintf(what, sizeof what,
                 "no GPU model of the catalog is both allowed to it and "
                 "has its attributes (gpu_family '%s', at least %g GiB)",
                 sp->gpu_family, sp->gpu_mem_min);
    else if (sp->gpu_family[0] || sp->gpu_mem_min > 0)
        snprintf(what, sizeof what,
                 "it asks for %g GPUs of family '%s' with at least %g GiB "
                 "each, but no pool it may use has them%s",
                 sp->gpus > 0 ? sp->gpus : sp->milli / 1000.0,
                 sp->gpu_family[0] ? sp->gpu_family : "any",
                 sp->gpu_mem_min, spot_hint(s, j));
    else if (gs_need_host_only(&j->need))
        snprintf(what, sizeof what,
                 "it asks for no GPU, %.3f CPUs and %d MiB of host "
                 "memory, but no pool it may use has a node with that "
                 "much CPU and memory%s", sp->cpu_milli / 1000.0,
                 (int)sp->mem_mib, spot_hint(s, j));
    else if (sp->cpu_milli > 0 || sp->mem_mib > 0)
        snprintf(what, sizeof what,
                 "it asks for %g GPUs, %.3f CPUs and %d MiB of host "
                 "memory, but no pool it may use has nodes with room for "
                 "all of them%s", sp->gpus > 0 ? sp->gpus
                                                : sp->milli / 1000.0,
                 sp->cpu_milli / 1000.0, (int)sp->mem_mib,
                 spot_hint(s, j));
    else if (sp->mig_profile[0])
        snprintf(what, sizeof what,
                 "it asks for MIG profile '%s' but no MIG pool it may use "
                 "has that profile in its layout or may reconfigure to it",
                 sp->mig_profile);
    else if (sp->gpus > 0)
        snprintf(what, sizeof what,
                 "it asks for %d GPUs (%.1f GB each) but no pool it may "
                 "use has that many GPUs with that memory%s", sp->gpus,
                 sp->mem_gb, spot_hint(s, j));
    else
        snprintf(what, sizeof what,
                 "it asks for %.3f GPU with %.1f GB but no GPU model it "
                 "may use has that memory%s", sp->milli / 1000.0,
                 sp->mem_gb, spot_hint(s, j));
    s->nrec--;
    free(j);
    return job_fail(s, sp, GS_EINVAL, what);
}

int gs_sim_admit(struct gs_sim *s, struct gs_job *j,
                 const struct gs_jobspec *sp)
{
    const struct gs_tiercfg *tc = &s->sc->tiers[sp->tier];
    j->model = -1;
    j->tenant = tenant_of(s, sp);
    if (j->tenant < 0) {
        int rc = j->tenant;
        free(j);
        if (rc == GS_ENOMEM)
            return gs_sim_fail(s, GS_ENOMEM, "", "out of memory");
        return job_fail(s, sp, GS_ERANGE, "its tenant would be the run's "
                        "16,777,217th: a run has at most 2^24 tenants");
    }
    j->prio = sp->priority == INT_MIN ? tc->priority : sp->priority;
    j->preemptible = sp->preemptible < 0 ? tc->preemptible : sp->preemptible;
    j->max_wait = sp->max_wait < 0 ? tc->max_wait : sp->max_wait;
    j->ckpt = sp->ckpt > 0 ? sp->ckpt : tc->ckpt;
    j->need = (struct gs_need){ .gpus = sp->gpus,
                                .milli = sp->gpus > 0 ? 0 : sp->milli,
                                .mem_gb = sp->mem_gb, .allowed = sp->allowed,
                                .tolerates = sp->tolerates,
                                .profile = sp->mig_profile[0] ? j->mig_profile
                                                              : NULL,
                                .guar = sp->guar_milli,
                                .burst = sp->burst_milli,
                                .cpu_milli = sp->cpu_milli,
                                .mem_mib = sp->mem_mib,
                                .dev_gb = sp->gpu_mem_min };
    int attrs_empty, fits;
    shape_answers(s, j, sp, tc, &attrs_empty, &fits);

    if (records_grow(s) < 0) {
        free(j);
        return gs_sim_fail(s, GS_ENOMEM, "", "out of memory");
    }
    j->rec = (uint32_t)s->nrec;
    struct gs_jobrec *r = &s->rec[s->nrec++];
    *r = (struct gs_jobrec){ .id = sp->id, .arrival = sp->arrival,
                             .start = -1, .end = -1, .work = sp->work,
                             .gpus = sim_alloc_gpus(j),
                             .tenant = (unsigned)j->tenant,
                             .model = -1, .tier = (unsigned)sp->tier & 7,
                             .state = GS_JOB_PENDING };
    /* what it asks, tier defaults included */
    if (host_keep(s, (long)j->rec, (struct gs_jobhost){
                      j->need.cpu_milli, j->need.mem_mib }) < 0) {
        s->nrec--;
        free(j);
        return gs_sim_fail(s, GS_ENOMEM, "", "out of memory");
    }

    if (attrs_empty || !fits)
        return admit_refused(s, j, sp, attrs_empty);
    return 0;
}

struct shape_memo *gs_sim_shapes_new(void)
{
    return calloc((size_t)1 << GS_SHAPE_BITS, sizeof(struct shape_memo));
}

double gs_sim_pool_factor(const struct gs_sim *s, const struct gs_job *j,
                          int p)
{
    const struct gs_pool_spec *ps = &s->fleet->pools[p].s;
    double speed = ps->power_cap_w > 0
        ? gs_power_cap_speed(&gs_power_default,
                             s->sc->cat.m[ps->model].power_w, ps->power_cap_w)
        : 1.0;
    return gs_catalog_time_factor_at(&s->sc->cat, j->s.ref_model, ps->model,
                                     j->s.cb, speed);
}
