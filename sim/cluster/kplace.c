/* kplace.c -- Kubernetes-faithful placement over node resources (kplace.h).
 *
 * Layout: nodes hold their own per-GPU free milli in GPU index order (the
 * GPU a share lands on is chosen on the node); classes hold the sorted
 * (descending) multiset, the free CPU and memory, the affinity groups
 * hosted, their member nodes (an array with each node's position, so a
 * node leaves in O(1)) and, lazily, the fragmentation F.  A hash table maps
 * a state to its class; classes are never freed, so a (class, request)
 * score cached once stays true. */
#include "kplace.h"
#include "../base/bits.h"
#include "../base/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KP_MAXG 64
#define KP_UNSCORED (-3)

static const char *const policy_names[GS_KP_N] = {
    "random", "best-fit", "dot-product", "clustering", "packing", "fgd"
};

int gs_kp_policy_find(const char *name)
{
    for (int i = 0; i < GS_KP_N; i++)
        if (strcmp(policy_names[i], name) == 0)
            return i;
    return -1;
}

const char *gs_kp_policy_name(int policy)
{
    return policy >= 0 && policy < GS_KP_N ? policy_names[policy] : "?";
}

struct kclass {
    int pool, gpn, nfull;
    int32_t cpu, mem, total;
    uint64_t tags;              /* affinity groups hosted: bit 0 shares,
                                   bit k k-GPU pods */
    uint64_t hash;
    double F;
    int fok;
    int count, cap, live;       /* live: index in k->live, -1 if empty */
    int *members;               /* a min-heap by node rank */
    int16_t gpu[KP_MAXG];       /* descending */
};

struct knode {
    int pool, cls, pos;         /* pos: index in its class's heap */
    int32_t cpu, mem;
    uint64_t tags;
    int16_t *gpu;               /* index order */
};

struct fgroup {                 /* typical GPU pods of one GPU request */
    int gpus, milli;
    uint64_t allowed;
    int n;
    int32_t *cpu;               /* ascending */
    double *cum;                /* cum[i] = sum of frequencies of 0..i */
};

struct gs_kp {
    int policy;
    gsl_rng *rng;
    int npools;
    struct gs_kp_pool *pools;
    double cmax, gmax;
    int nnodes;
    struct knode *nodes;
    int16_t *gpus;
    struct kclass *cls;
    int ncls, capcls;
    int *tab;                   /* class hash table, -1 empty */
    int tabsize;
    int *live;
    int nlive;
    uint64_t *ckey;             /* score cache: key + 1, 0 empty */
    int8_t *cval;
    long csize, cn;
    struct gs_kp_mix *mix;      /* the typical pods, for F */
    int64_t used, capacity, stranded;
    int32_t cpu_min, mem_min;
    int64_t cpu_used, cpu_cap, mem_used, mem_cap;
    int *ties;
    int capties;
    int ties_mode;              /* enum gs_kp_ties */
    int *rank;                  /* [node]: its place in the name order */
};

/* --- requests -------------------------------------------------------------- */

static int req_cmp(const struct gs_kp_pod *a, const struct gs_kp_pod *b,
                   int with_mem)
{
    if (a->cpu != b->cpu)
        return a->cpu < b->cpu ? -1 : 1;
    if (with_mem && a->mem != b->mem)
        return a->mem < b->mem ? -1 : 1;
    if (a->gpus != b->gpus)
        return a->gpus < b->gpus ? -1 : 1;
    if (a->milli != b->milli)
        return a->milli < b->milli ? -1 : 1;
    if (a->allowed != b->allowed)
        return a->allowed < b->allowed ? -1 : 1;
    return 0;
}

static const struct gs_kp_pod *sort_base;
static int sort_mem;

static int idx_cmp(const void *x, const void *y)
{
    long a = *(const long *)x, b = *(const long *)y;
    int c = req_cmp(&sort_base[a], &sort_base[b], sort_mem);
    return c ? c : (a < b ? -1 : a > b);
}

/* Indexes of pods sorted by request (mem included or not). */
static long *sorted_index(const struct gs_kp_pod *pods, long n, int with_mem)
{
    long *ix = malloc((size_t)(n ? n : 1) * sizeof *ix);
    if (ix == NULL)
        return NULL;
    for (long i = 0; i < n; i++)
        ix[i] = i;
    sort_base = pods;
    sort_mem = with_mem;
    qsort(ix, (size_t)n, sizeof *ix, idx_cmp);
    return ix;
}

int gs_kp_intern(struct gs_kp_pod *pods, long n)
{
    long *ix = sorted_index(pods, n, 1);
    if (ix == NULL)
        return GS_ENOMEM;
    int32_t id = -1;
    for (long i = 0; i < n; i++) {
        if (i == 0 || req_cmp(&pods[ix[i]], &pods[ix[i - 1]], 1) != 0)
            id++;
        if (id >= (1 << 24)) {
            free(ix);
            return GS_ERANGE;
        }
        pods[ix[i]].key = id;
    }
    free(ix);
    return (int)(id + 1);
}

struct run {
    struct gs_kp_pod r;
    long count;
};

static int run_cmp(const void *x, const void *y)
{
    const struct run *a = x, *b = y;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    /* equal counts: the larger request first (the artifact sorts by
     * count, then request, both descending) */
    return -req_cmp(&a->r, &b->r, 0);
}

int gs_kp_typical(const struct gs_kp_pod *pods, long n, double threshold,
                  struct gs_kp_pod **out, double **freq, int *nout)
{
    *out = NULL;
    *freq = NULL;
    *nout = 0;
    long *ix = sorted_index(pods, n, 0);
    struct run *runs = malloc((size_t)(n ? n : 1) * sizeof *runs);
    if (ix == NULL || runs == NULL) {
        free(ix);
        free(runs);
        return GS_ENOMEM;
    }
    long nr = 0;
    for (long i = 0; i < n; i++) {
        if (i == 0 || req_cmp(&pods[ix[i]], &pods[ix[i - 1]], 0) != 0) {
            runs[nr].r = pods[ix[i]];
            runs[nr].r.mem = 0;
            runs[nr++].count = 0;
        }
        runs[nr - 1].count++;
    }
    free(ix);
    qsort(runs, (size_t)nr, sizeof *runs, run_cmp);
    double want = threshold * (double)n, cum = 0;
    long k = 0;
    while (k < nr && cum < want)
        cum += (double)runs[k++].count;
    *out = malloc((size_t)(k ? k : 1) * sizeof **out);
    *freq = malloc((size_t)(k ? k : 1) * sizeof **freq);
    if (*out == NULL || *freq == NULL) {
        free(*out);
        free(*freq);
        *out = NULL;
        *freq = NULL;
        free(runs);
        return GS_ENOMEM;
    }
    for (long i = 0; i < k; i++) {
        (*out)[i] = runs[i].r;
        (*freq)[i] = (double)runs[i].count / cum;
    }
    *nout = (int)k;
    free(runs);
    return 0;
}

/* --- fragmentation ----------------------------------------------------------- */

static int g_cmp(const void *x, const void *y)
{
    const struct gs_kp_pod *a = x, *b = y;
    if (a->gpus != b->gpus)
        return a->gpus - b->gpus;
    if (a->milli != b->milli)
        return a->milli - b->milli;
    if (a->allowed != b->allowed)
        return a->allowed < b->allowed ? -1 : 1;
    return a->cpu < b->cpu ? -1 : a->cpu > b->cpu;
}

struct gs_kp_mix {
    struct fgroup *groups;
    int ngroups;
    double ptot;                /* sum of typical frequencies */
};

void gs_kp_mix_free(struct gs_kp_mix *x)
{
    if (x == NULL)
        return;
    for (int g = 0; g < x->ngroups; g++) {
        free(x->groups[g].cpu);
        free(x->groups[g].cum);
    }
    free(x->groups);
    free(x);
}

/* The typical GPU pods grouped by GPU request, CPU sorted within. */
int gs_kp_mix_new(const struct gs_kp_pod *typ, const double *freq, int n,
                  struct gs_kp_mix **out)
{
    *out = NULL;
    struct gs_kp_mix *x = calloc(1, sizeof *x);
    struct gs_kp_pod *t = malloc((size_t)(n ? n : 1) * sizeof *t);
    if (x == NULL || t == NULL) {
        free(x);
        free(t);
        return GS_ENOMEM;
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        x->ptot += freq[i];
        if (typ[i].gpus > 0) {
            t[m] = typ[i];
            /* carry the frequency's index in the key slot: the sort must
             * move them together */
            t[m].key = i;
            m++;
        }
    }
    qsort(t, (size_t)m, sizeof *t, g_cmp);
    x->groups = calloc((size_t)(m ? m : 1), sizeof *x->groups);
    if (x->groups == NULL) {
        free(t);
        gs_kp_mix_free(x);
        return GS_ENOMEM;
    }
    for (int i = 0; i < m;) {
        int j = i;
        while (j < m && t[j].gpus == t[i].gpus && t[j].milli == t[i].milli &&
               t[j].allowed == t[i].allowed)
            j++;
        struct fgroup *g = &x->groups[x->ngroups++];
        g->gpus = t[i].gpus;
        g->milli = t[i].milli;
        g->allowed = t[i].allowed;
        g->n = j - i;
        g->cpu = malloc((size_t)g->n * sizeof *g->cpu);
        g->cum = malloc((size_t)g->n * sizeof *g->cum);
        if (g->cpu == NULL || g->cum == NULL) {
            free(t);
            gs_kp_mix_free(x);
            return GS_ENOMEM;
        }
        double c = 0;
        for (int q = 0; q < g->n; q++) {
            c += freq[t[i + q].key];
            g->cpu[q] = t[i + q].cpu;
            g->cum[q] = c;
        }
        i = j;
    }
    free(t);
    *out = x;
    return 0;
}

double gs_kp_mix_frag(const struct gs_kp_mix *x, int model, int32_t cpu,
                      const int32_t *s, int gpn)
{
    int64_t total = 0;
    for (int i = 0; i < gpn; i++)
        total += s[i];
    if (total == 0)
        return 0;
    double F = (double)total * x->ptot;
    for (int gi = 0; gi < x->ngroups; gi++) {
        const struct fgroup *g = &x->groups[gi];
        if (g->allowed && !(g->allowed >> model & 1))
            continue;
        if (g->gpus > gpn || s[g->gpus - 1] < g->milli)
            continue;
        if (g->cpu[0] > cpu)
            continue;
        /* members with cpu <= free CPU: the last such index */
        int lo = 0, hi = g->n - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (g->cpu[mid] <= cpu)
                lo = mid;
            else
                hi = mid - 1;
        }
        int64_t fr = 0;
        for (int i = gpn - 1; i >= 0 && s[i] < g->milli; i--)
            fr += s[i];
        F -= (double)(total - fr) * g->cum[lo];
    }
    return F;
}

/* F for a node of model with free CPU cpu and GPUs s[0..gpn) descending. */
static double frag_sorted(const struct gs_kp *k, int model, int32_t cpu,
                          const int16_t *s, int gpn)
{
    int32_t w[KP_MAXG] = { 0 };
    for (int i = 0; i < gpn; i++)
        w[i] = s[i];
    return gs_kp_mix_frag(k->mix, model, cpu, w, gpn);
}

static int desc16(const void *x, const void *y)
{
    return *(const int16_t *)y - *(const int16_t *)x;
}

double gs_kp_frag(const struct gs_kp *k, int model, int32_t cpu,
                  const int16_t *gpu, int gpn)
{
    int16_t s[KP_MAXG];
    memcpy(s, gpu, (size_t)gpn * sizeof *s);
    qsort(s, (size_t)gpn, sizeof *s, desc16);
    return frag_sorted(k, model, cpu, s, gpn);
}

/* --- classes --------------------------------------------------------------------- */

static uint64_t state_hash(int pool, int32_t cpu, int32_t mem, uint64_t tags,
                           const int16_t *s, int gpn)
{
    uint64_t h = 1469598103934665603ULL;
#define MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ULL, \
                h ^= h >> 29)
    MIX(pool);
    MIX((uint32_t)cpu);
    MIX((uint32_t)mem);
    MIX(tags);
    for (int i = 0; i < gpn; i++)
        MIX((uint16_t)s[i]);
#undef MIX
    return h;
}

static int tab_grow(struct gs_kp *k)
{
    int size = k->tabsize ? k->tabsize * 2 : 1024;
    int *t = malloc((size_t)size * sizeof *t);
    if (t == NULL)
        return GS_ENOMEM;
    for (int i = 0; i < size; i++)
        t[i] = -1;
    for (int c = 0; c < k->ncls; c++) {
        int i = (int)(k->cls[c].hash & (uint64_t)(size - 1));
        while (t[i] >= 0)
            i = (i + 1) & (size - 1);
        t[i] = c;
    }
    free(k->tab);
    k->tab = t;
    k->tabsize = size;
    return 0;
}

/* The class of a node state (s descending), made if new; -1 when out of
 * memory. */
static int class_of(struct gs_kp *k, int pool, int32_t cpu, int32_t mem,
                    uint64_t tags, const int16_t *s)
{
    int gpn = k->pools[pool].gpn;
    uint64_t h = state_hash(pool, cpu, mem, tags, s, gpn);
    int i = (int)(h & (uint64_t)(k->tabsize - 1));
    for (; k->tab[i] >= 0; i = (i + 1) & (k->tabsize - 1)) {
        const struct kclass *c = &k->cls[k->tab[i]];
        if (c->hash == h && c->pool == pool && c->cpu == cpu &&
            c->mem == mem && c->tags == tags &&
            memcmp(c->gpu, s, (size_t)gpn * sizeof *s) == 0)
            return k->tab[i];
    }
    if (k->ncls == k->capcls) {
        int cap = k->capcls ? k->capcls * 2 : 256;
        struct kclass *nc = realloc(k->cls, (size_t)cap * sizeof *nc);
        if (nc == NULL)
            return -1;
        k->cls = nc;
        k->capcls = cap;
    }
    int id = k->ncls++;
    struct kclass *c = &k->cls[id];
    memset(c, 0, sizeof *c);
    c->pool = pool;
    c->gpn = gpn;
    c->cpu = cpu;
    c->mem = mem;
    c->tags = tags;
    c->hash = h;
    c->live = -1;
    memcpy(c->gpu, s, (size_t)gpn * sizeof *s);
    for (int g = 0; g < gpn; g++) {
        c->total += s[g];
        c->nfull += s[g] == 1000;
    }
    k->tab[i] = id;
    if (2 * k->ncls > k->tabsize && tab_grow(k) < 0)
        return -1;
    return id;
}

/* A class's members form a binary min-heap by rank, so the first node of
 * the name order among a class's members is members[0]. */
static void heap_set(struct gs_kp *k, struct kclass *c, int i, int node)
{
    c->members[i] = node;
    k->nodes[node].pos = i;
}

static void heap_up(struct gs_kp *k, struct kclass *c, int i)
{
    int node = c->members[i];
    while (i > 0) {
        int up = (i - 1) / 2;
        if (k->rank[c->members[up]] <= k->rank[node])
            break;
        heap_set(k, c, i, c->members[up]);
        i = up;
    }
    heap_set(k, c, i, node);
}

static void heap_down(struct gs_kp *k, struct kclass *c, int i)
{
    int node = c->members[i];
    for (;;) {
        int l = 2 * i + 1, m = l;
        if (l >= c->count)
            break;
        if (l + 1 < c->count &&
            k->rank[c->members[l + 1]] < k->rank[c->members[l]])
            m = l + 1;
        if (k->rank[c->members[m]] >= k->rank[node])
            break;
        heap_set(k, c, i, c->members[m]);
        i = m;
    }
    heap_set(k, c, i, node);
}

static int class_add(struct gs_kp *k, int id, int node)
{
    struct kclass *c = &k->cls[id];
    if (c->count == c->cap) {
        int cap = c->cap ? c->cap * 2 : 4;
        int *m = realloc(c->members, (size_t)cap * sizeof *m);
        if (m == NULL)
            return GS_ENOMEM;
        c->members = m;
        c->cap = cap;
    }
    k->nodes[node].cls = id;
    heap_set(k, c, c->count++, node);
    heap_up(k, c, c->count - 1);
    if (c->live < 0) {
        c->live = k->nlive;
        k->live[k->nlive++] = id;
    }
    return 0;
}

static void class_remove(struct gs_kp *k, int node)
{
    struct knode *n = &k->nodes[node];
    struct kclass *c = &k->cls[n->cls];
    int at = n->pos, last = c->members[--c->count];
    if (at < c->count) {
        heap_set(k, c, at, last);
        heap_up(k, c, at);
        heap_down(k, c, k->nodes[last].pos);
    }
    if (c->count == 0) {
        int moved = k->live[--k->nlive];
        k->live[c->live] = moved;
        k->cls[moved].live = c->live;
        c->live = -1;
    }
}

/* --- scores -------------------------------------------------------------------------- */

static double sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

static double class_F(struct gs_kp *k, struct kclass *c)
{
    if (!c->fok) {
        c->F = frag_sorted(k, k->pools[c->pool].model, c->cpu, c->gpu,
                           c->gpn);
        c->fok = 1;
    }
    return c->F;
}

static int fits(const struct gs_kp *k, const struct kclass *c,
                const struct gs_kp_pod *p)
{
    const struct gs_kp_pool *pl = &k->pools[c->pool];
    if (p->allowed && !(p->allowed >> pl->model & 1) && p->gpus > 0)
        return 0;
    if (c->cpu < p->cpu || c->mem < p->mem)
        return 0;
    if (p->gpus == 0)
        return 1;
    if (p->milli < 1000)
        return c->gpn > 0 && c->gpu[0] >= p->milli;
    return c->nfull >= p->gpus;
}

/* The FGD score of putting share p on a GPU with free milli v of class c. */
static int fgd_share(struct gs_kp *k, struct kclass *c,
                     const struct gs_kp_pod *p, int v)
{
    int16_t s[KP_MAXG];
    memcpy(s, c->gpu, (size_t)c->gpn * sizeof *s);
    int i = 0;
    while (s[i] != v)
        i++;
    /* the last GPU of value v becomes v - milli: keep descending order */
    while (i + 1 < c->gpn && s[i + 1] == v)
        i++;
    s[i] = (int16_t)(v - p->milli);
    for (int j = i; j + 1 < c->gpn && s[j] < s[j + 1]; j++) {
        int16_t t = s[j];
        s[j] = s[j + 1];
        s[j + 1] = t;
    }
    double F1 = frag_sorted(k, k->pools[c->pool].model, c->cpu - p->cpu, s,
                            c->gpn);
    return (int)(sigmoid((class_F(k, c) - F1) / 1000.0) * 100.0);
}

/* --- the scores, shared with the simulation's placers -------------------------- */

int gs_kp_score_best_fit(int64_t cpu_left, int64_t gpu_left, double cmax,
                         double gmax)
{
    double s = 0.5 * (double)cpu_left / cmax + 0.5 * (double)gpu_left / gmax;
    return (int)((1.0 - s) * 100.0);
}

int gs_kp_score_dot(int64_t cpu_free, int64_t cpu_ask, int64_t gpu_free,
                    int64_t gpu_ask, double cmax, double gmax)
{
    double d = ((double)cpu_free / cmax) * ((double)cpu_ask / cmax) +
               ((double)gpu_free / gmax) * ((double)gpu_ask / gmax);
    return (int)(100.0 * (1.0 - d / 2.0));
}

int gs_kp_group(int gpus, int milli)
{
    if (gpus <= 0)
        return -1;
    return milli < 1000 ? 0 : (gpus < 63 ? gpus : 63);
}

int gs_kp_score_clustering(int group, uint64_t tags, int64_t gpu_free,
                           int64_t gmax)
{
    if (group < 0)
        return 0;
    int band = (int)(25 * (gmax - gpu_free) / gmax);
    if (tags >> group & 1)
        return band + (gs_popcount64(tags) == 1 ? 75 : 50);
    return band + (tags == 0 ? 25 : 0);
}

int gs_kp_score_packing(const int32_t *s, int gpn, int gpus, int milli)
{
    if (gpus <= 0)
        return 0;
    int nfull = 0;
    while (nfull < gpn && s[nfull] == 1000)
        nfull++;
    if (nfull == gpn) {
        int v = 33 - nfull;
        return v > nfull ? v : nfull;
    }
    int need = gpus, full = 0, sum = 0;
    for (int i = gpn - 1; i >= 0 && need > 0; i--)
        if (s[i] >= milli) {
            need--;
            full += s[i] == 1000;
            sum += s[i] * 100 / 1000;
        }
    if (full > 0)
        return 50 - full > 33 ? 50 - full : 33;
    return 100 - sum / 10 > 50 ? 100 - sum / 10 : 50;
}

static int score(struct gs_kp *k, struct kclass *c, const struct gs_kp_pod *p)
{
    int64_t req = (int64_t)p->gpus * p->milli;
    switch (k->policy) {
    case GS_KP_RANDOM:
        return 0;
    case GS_KP_BEST_FIT:
        return gs_kp_score_best_fit(c->cpu - p->cpu, c->total - req, k->cmax,
                                    k->gmax);
    case GS_KP_DOT_PRODUCT:
        return gs_kp_score_dot(c->cpu, p->cpu, c->total, req, k->cmax,
                               k->gmax);
    case GS_KP_CLUSTERING:
        return gs_kp_score_clustering(gs_kp_group(p->gpus, p->milli),
                                      c->tags, c->total, (int64_t)k->gmax);
    case GS_KP_PACKING: {
        int32_t w[KP_MAXG];
        for (int i = 0; i < c->gpn; i++)
            w[i] = c->gpu[i];
        return gs_kp_score_packing(w, c->gpn, p->gpus, p->milli);
    }
    case GS_KP_FGD: {
        if (p->gpus == 1 && p->milli < 1000) {
            int best = -1;
            for (int i = 0; i < c->gpn; i++) {
                if (c->gpu[i] < p->milli)
                    break;
                if (i > 0 && c->gpu[i] == c->gpu[i - 1])
                    continue;
                int s = fgd_share(k, c, p, c->gpu[i]);
                if (s > best)
                    best = s;
            }
            return best;
        }
        int16_t s[KP_MAXG];
        memcpy(s, c->gpu, (size_t)c->gpn * sizeof *s);
        /* whole GPUs come off the fully free ones, which lead */
        for (int i = 0; i < p->gpus; i++)
            s[i] = 0;
        if (p->gpus > 0)
            qsort(s, (size_t)c->gpn, sizeof *s, desc16);
        double F1 = frag_sorted(k, k->pools[c->pool].model,
                                c->cpu - p->cpu, s, c->gpn);
        return (int)(sigmoid((class_F(k, c) - F1) / 1000.0) * 100.0);
    }
    }
    return 0;
}

static int cache_grow(struct gs_kp *k)
{
    long size = k->csize ? k->csize * 2 : 1L << 16;
    uint64_t *key = calloc((size_t)size, sizeof *key);
    int8_t *val = malloc((size_t)size);
    if (key == NULL || val == NULL) {
        free(key);
        free(val);
        return GS_ENOMEM;
    }
    for (long i = 0; i < k->csize; i++)
        if (k->ckey[i]) {
            uint64_t x = k->ckey[i] * 0x9E3779B97F4A7C15ULL;
            long j = (long)(x >> 20) & (size - 1);
            while (key[j])
                j = (j + 1) & (size - 1);
            key[j] = k->ckey[i];
            val[j] = k->cval[i];
        }
    free(k->ckey);
    free(k->cval);
    k->ckey = key;
    k->cval = val;
    k->csize = size;
    return 0;
}

/* The score of p on class id (cached unless trivial): -1 when it does not
 * fit, -2 when out of memory. */
static int cached_score(struct gs_kp *k, int id, const struct gs_kp_pod *p)
{
    struct kclass *c = &k->cls[id];
    if (!fits(k, c, p))
        return -1;
    if (k->policy == GS_KP_RANDOM)
        return 0;
    uint64_t key = (((uint64_t)id << 24) | (uint64_t)p->key) + 1;
    uint64_t x = key * 0x9E3779B97F4A7C15ULL;
    long j = (long)(x >> 20) & (k->csize - 1);
    while (k->ckey[j]) {
        if (k->ckey[j] == key)
            return k->cval[j];
        j = (j + 1) & (k->csize - 1);
    }
    int s = score(k, c, p);
    if (s > 100)
        s = 100;
    k->ckey[j] = key;
    k->cval[j] = (int8_t)s;
    if (2 * ++k->cn > k->csize && cache_grow(k) < 0)
        return -2;
    return s;
}

/* --- the cluster ------------------------------------------------------------------------ */

void gs_kp_free(struct gs_kp *k)
{
    if (k == NULL)
        return;
    for (int c = 0; c < k->ncls; c++)
        free(k->cls[c].members);
    gs_kp_mix_free(k->mix);
    free(k->cls);
    free(k->tab);
    free(k->live);
    free(k->ckey);
    free(k->cval);
    free(k->nodes);
    free(k->gpus);
    free(k->pools);
    free(k->ties);
    free(k->rank);
    free(k);
}

static int64_t node_stranded(const struct gs_kp *k, const struct knode *n)
{
    if (n->cpu >= k->cpu_min && n->mem >= k->mem_min)
        return 0;
    int64_t t = 0;
    for (int g = 0; g < k->pools[n->pool].gpn; g++)
        t += n->gpu[g];
    return t;
}

static int node_enter(struct gs_kp *k, int node)
{
    struct knode *n = &k->nodes[node];
    int gpn = k->pools[n->pool].gpn;
    int16_t s[KP_MAXG];
    memcpy(s, n->gpu, (size_t)gpn * sizeof *s);
    qsort(s, (size_t)gpn, sizeof *s, desc16);
    int id = class_of(k, n->pool, n->cpu, n->mem, n->tags, s);
    if (id < 0)
        return GS_ENOMEM;
    k->stranded += node_stranded(k, n);
    return class_add(k, id, node);
}

int gs_kp_new(const struct gs_kp_pool *pools, int npools, int policy,
              const struct gs_kp_pod *typical, const double *freq, int ntyp,
              gsl_rng *rng, struct gs_kp **out)
{
    *out = NULL;
    if (policy < 0 || policy >= GS_KP_N || npools < 1)
        return GS_EINVAL;
    struct gs_kp *k = calloc(1, sizeof *k);
    if (k == NULL)
        return GS_ENOMEM;
    k->policy = policy;
    k->rng = rng;
    k->npools = npools;
    k->cpu_min = 0;
    k->mem_min = 0;
    k->pools = malloc((size_t)npools * sizeof *k->pools);
    int ng = 0;
    for (int i = 0; i < npools; i++) {
        if (pools[i].gpn < 0 || pools[i].gpn > KP_MAXG || pools[i].nodes < 0) {
            gs_kp_free(k);
            return GS_EINVAL;
        }
        k->nnodes += pools[i].nodes;
        ng += pools[i].nodes * pools[i].gpn;
        if (pools[i].cpu > k->cmax)
            k->cmax = pools[i].cpu;
        if (1000.0 * pools[i].gpn > k->gmax)
            k->gmax = 1000.0 * pools[i].gpn;
    }
    if (k->cmax <= 0)
        k->cmax = 1;
    if (k->gmax <= 0)
        k->gmax = 1;
    k->nodes = calloc((size_t)(k->nnodes ? k->nnodes : 1), sizeof *k->nodes);
    k->gpus = malloc((size_t)(ng ? ng : 1) * sizeof *k->gpus);
    k->live = malloc((size_t)(k->nnodes ? k->nnodes : 1) * sizeof *k->live);
    k->rank = malloc((size_t)(k->nnodes ? k->nnodes : 1) * sizeof *k->rank);
    if (k->pools == NULL || k->nodes == NULL || k->gpus == NULL ||
        k->live == NULL || k->rank == NULL || tab_grow(k) < 0 ||
        cache_grow(k) < 0 ||
        gs_kp_mix_new(typical, freq, ntyp, &k->mix) < 0) {
        gs_kp_free(k);
        return GS_ENOMEM;
    }
    memcpy(k->pools, pools, (size_t)npools * sizeof *k->pools);
    /* the name order: a uniform permutation of the nodes (the artifact
     * prefixes every node's name with its place in rand.Perm) */
    for (int i = 0; i < k->nnodes; i++)
        k->rank[i] = i;
    for (int i = k->nnodes - 1; i > 0; i--) {
        int j = (int)gsl_rng_uniform_int(rng, (unsigned long)i + 1);
        int t = k->rank[i];
        k->rank[i] = k->rank[j];
        k->rank[j] = t;
    }
    int node = 0, g0 = 0;
    for (int p = 0; p < npools; p++)
        for (int i = 0; i < pools[p].nodes; i++, node++) {
            struct knode *n = &k->nodes[node];
            n->pool = p;
            n->cpu = pools[p].cpu;
            n->mem = pools[p].mem;
            n->gpu = k->gpus + g0;
            for (int g = 0; g < pools[p].gpn; g++)
                n->gpu[g] = 1000;
            g0 += pools[p].gpn;
            k->capacity += 1000 * pools[p].gpn;
            k->cpu_cap += pools[p].cpu;
            k->mem_cap += pools[p].mem;
            if (node_enter(k, node) < 0) {
                gs_kp_free(k);
                return GS_ENOMEM;
            }
        }
    *out = k;
    return 0;
}

void gs_kp_set_ties(struct gs_kp *k, int mode)
{
    k->ties_mode = mode == GS_KP_TIES_UNIFORM ? GS_KP_TIES_UNIFORM
                                              : GS_KP_TIES_ORDERED;
}

void gs_kp_set_strand_limits(struct gs_kp *k, int32_t cpu_min, int32_t mem_min)
{
    k->cpu_min = cpu_min;
    k->mem_min = mem_min;
    k->stranded = 0;
    for (int i = 0; i < k->nnodes; i++)
        k->stranded += node_stranded(k, &k->nodes[i]);
}

/* The GPU (index on node n) a share p takes. */
static int pick_gpu(struct gs_kp *k, struct knode *n, const struct gs_kp_pod *p)
{
    int gpn = k->pools[n->pool].gpn, pick = -1;
    if (k->policy == GS_KP_RANDOM) {
        int seen = 0;
        for (int g = 0; g < gpn; g++)
            if (n->gpu[g] >= p->milli &&
                gsl_rng_uniform_int(k->rng, (unsigned long)++seen) == 0)
                pick = g;
    } else if (k->policy == GS_KP_FGD) {
        struct kclass *c = &k->cls[n->cls];
        int best = -1;
        for (int g = 0; g < gpn; g++)
            if (n->gpu[g] >= p->milli) {
                int s = fgd_share(k, c, p, n->gpu[g]);
                if (pick < 0 || s > best) {
                    best = s;
                    pick = g;
                }
            }
    } else {
        for (int g = 0; g < gpn; g++)
            if (n->gpu[g] >= p->milli &&
                (pick < 0 || n->gpu[g] < n->gpu[pick]))
                pick = g;
    }
    return pick;
}

int gs_kp_place(struct gs_kp *k, const struct gs_kp_pod *p)
{
    if (k->capties < k->nlive) {
        int *t = realloc(k->ties, (size_t)k->nnodes * sizeof *t);
        if (t == NULL)
            return GS_ENOMEM;
        k->ties = t;
        k->capties = k->nnodes;
    }
    int best = -1, nt = 0;
    unsigned long w = 0;
    for (int i = 0; i < k->nlive; i++) {
        int id = k->live[i];
        int s = cached_score(k, id, p);
        if (s == -2)
            return GS_ENOMEM;
        if (s < 0 || s < best)
            continue;
        if (s > best) {
            best = s;
            nt = 0;
            w = 0;
        }
        k->ties[nt++] = id;
        w += (unsigned long)k->cls[id].count;
    }
    if (best < 0)
        return -1;
    int node;
    if (k->ties_mode == GS_KP_TIES_ORDERED && k->policy != GS_KP_RANDOM) {
        /* the first node of the name order among the best */
        node = k->cls[k->ties[0]].members[0];
        for (int t = 1; t < nt; t++) {
            int m = k->cls[k->ties[t]].members[0];
            if (k->rank[m] < k->rank[node])
                node = m;
        }
    } else {
        unsigned long r = w > 1 ? gsl_rng_uniform_int(k->rng, w) : 0;
        int t = 0;
        while (r >= (unsigned long)k->cls[k->ties[t]].count)
            r -= (unsigned long)k->cls[k->ties[t++]].count;
        node = k->cls[k->ties[t]].members[r];
    }
    struct knode *n = &k->nodes[node];

    k->stranded -= node_stranded(k, n);
    int gpn = k->pools[n->pool].gpn;
    if (p->gpus == 1 && p->milli < 1000) {
        int g = pick_gpu(k, n, p);
        GS_ASSERT(g >= 0);
        n->gpu[g] = (int16_t)(n->gpu[g] - p->milli);
    } else {
        for (int g = 0, left = p->gpus; g < gpn && left > 0; g++)
            if (n->gpu[g] == 1000) {
                n->gpu[g] = 0;
                left--;
            }
    }
    class_remove(k, node);
    n->cpu -= p->cpu;
    n->mem -= p->mem;
    if (p->gpus > 0)
        n->tags |= 1ULL << gs_kp_group(p->gpus, p->milli);
    k->used += (int64_t)p->gpus * p->milli;
    k->cpu_used += p->cpu;
    k->mem_used += p->mem;
    int rc = node_enter(k, node);
    return rc < 0 ? rc : node;
}

int64_t gs_kp_used_milli(const struct gs_kp *k)
{
    return k->used;
}

int64_t gs_kp_capacity_milli(const struct gs_kp *k)
{
    return k->capacity;
}

int64_t gs_kp_stranded_milli(const struct gs_kp *k)
{
    return k->stranded;
}

void gs_kp_host_use(const struct gs_kp *k, double *cpu, double *mem)
{
    *cpu = k->cpu_cap > 0 ? (double)k->cpu_used / (double)k->cpu_cap : 0;
    *mem = k->mem_cap > 0 ? (double)k->mem_used / (double)k->mem_cap : 0;
}

int gs_kp_nclasses(const struct gs_kp *k)
{
    return k->ncls;
}
