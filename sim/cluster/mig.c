/* mig.c -- MIG profile tables per GPU, and layout validation, placement, parsing and enumeration.
 *
 * Where the numbers come from.  Every row of the tables below is taken from
 * the NVIDIA Multi-Instance GPU User Guide (docs.nvidia.com/datacenter/tesla/
 * mig-user-guide, the v580 edition):
 *   - "Supported MIG Profiles": Table 6 "GPU Instance Profiles on A100" (the
 *     A100-SXM4-40GB; the text under it renames the profiles for the 80GB
 *     part: 1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb,
 *     7g.80gb), Table 7 "GPU Instance Profiles on H100", Table 8 "GPU
 *     Instance Profiles on H200" and Table 9 "GPU Instance Profiles on
 *     B200" (the B200 180 GB).  These give each profile's fraction of
 *     SMs (compute_slices/7), fraction of memory and "Number of Instances
 *     Available" (max_count).
 *   - "Getting Started: List GPU Instance Profiles": the `nvidia-smi mig
 *     -lgipp` listing of the allowed placements {starts}:size --
 *     1g {0..6}:1, 1g+me {0..6}:1, 1g double-memory {0,2,4,6}:2,
 *     2g {0,2,4}:2, 3g {0,4}:4, 4g {0}:4, 7g {0}:8.
 *   - "Supported GPUs", Table 1: memory sizes (40, 80, 80, 141, 180 GB) and
 *     at most 7 instances on each of these GPUs.
 *   - "Concepts": a memory slice is 1/8 of the memory, an SM slice 1/7 of
 *     the SMs; Figure 7 "MIG Profiles on A100" and Figure 8 "Profile
 *     Placements on A100" draw the valid combinations.  They are pictures
 *     only; tests/test_mig.c lists the 19 maximal combinations of the
 *     1g/2g/3g/4g/7g profiles that the placements allow and checks that
 *     gs_mig_enumerate_valid finds exactly those.
 * The guide prints -lgipp only for one GPU (an A100-40GB: profile 19 =
 * 1g.5gb); the H100 and H200 tables have the same fractions row for row, and
 * the same -lgipp listing is published for an H100 NVL (Colfax Research,
 * "Sharing NVIDIA GPUs at the System Level: Time-Sliced and MIG-Backed
 * vGPUs"), so all five GPUs share one placement geometry here (the B200's
 * Table 9 has the H200's fractions and counts row for row).  Memory is
 * the GB figure in the profile name (what a scenario asks for), not the
 * slightly smaller MiB figure nvidia-smi reports.
 *
 * The guide's ambiguities, and what this file does about them:
 *   - Table 6 gives 1g.10gb (A100-40GB) a memory fraction of 1/8, but its
 *     name (2 x 5 GB) and its -lgipp placement {0,2,4,6}:2 say 2 memory
 *     slices; Tables 7 and 8 give 1g.20gb / 1g.35gb 1/4.  We use 2 slices.
 *   - 7g is listed with memory "Full" but is placed as {0}:8: it occupies all
 *     8 memory slices, so it excludes every other instance.
 *   - 3g profiles take 4/8 of the memory but only 3/7 of the SMs, and no 1g
 *     profile may start at memory slice 7.  Hence the explicit rule that the
 *     compute slices in use may not exceed 7 even though there are 8 memory
 *     slices: with the real tables it follows from the placements, and the
 *     tests exercise it with a synthetic table.
 *   - The Partitioning section notes that before driver R510 a 4g (4 memory,
 *     4 compute) and a 3g (4 memory, 3 compute) could not be combined; newer
 *     drivers allow 4g@0 + 3g@4, and so do we.  4g and 3g can never both
 *     start at slice 0, as their ranges overlap.
 *   - "Instance Geometry", Example 2: nvidia-smi places instances in the
 *     order given, so "-cgi 19,19,14,9" (1g,1g,2g,3g) fails although the
 *     3-2-1-1 geometry exists.  gs_mig_layout_place does not depend on the
 *     order: it backtracks over every start.
 *   - The "+me" row says "A single 1g profile can include media extensions":
 *     max_count 1.  Whether the +me instance also counts against the plain
 *     1g profile's 7 is not said; it makes no difference, as the 7 compute
 *     slices cap the 1g instances at 7 either way.
 *
 * Algorithms.  Layouts hold at most 7 instances and a GPU has 8 memory
 * slices, so everything is exhaustive and cheap.  A memory range is a bit
 * mask; overlap is a mask intersection.  gs_mig_layout_place sorts the
 * unplaced instances larger-first (compute, then memory slices, then input
 * order) and tries each one's allowed starts from the lowest, backtracking
 * on failure, so it finds a placement whenever one exists and always the
 * same one.  gs_mig_enumerate_valid walks the list of (profile, start)
 * placements with an include/exclude recursion that prunes as soon as a rule
 * breaks; each valid set of placements is reported once.
 *
 * This file includes only err.h: it is a leaf of the simulator and owns no
 * heap memory. */
#include "mig.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Allowed starts ({starts} of nvidia-smi mig -lgipp), bit i = slice i. */
#define START_1G     0x7Fu  /* {0,1,2,3,4,5,6}:1 */
#define START_1G_2M  0x55u  /* {0,2,4,6}:2 */
#define START_2G     0x15u  /* {0,2,4}:2 */
#define START_3G     0x11u  /* {0,4}:4 */
#define START_4G     0x01u  /* {0}:4 */
#define START_7G     0x01u  /* {0}:8 */

/* Columns: name, compute slices, memory slices, GB, max count, starts, +me. */

/* User Guide Table 6, GPU Instance Profiles on A100 (A100-SXM4-40GB). */
static const struct gs_mig_profile a100_40gb_profiles[] = {
    { "1g.5gb",    1, 1,  5.0, 7, START_1G,    0 },
    { "1g.5gb+me", 1, 1,  5.0, 1, START_1G,    1 },
    { "1g.10gb",   1, 2, 10.0, 4, START_1G_2M, 0 },
    { "2g.10gb",   2, 2, 10.0, 3, START_2G,    0 },
    { "3g.20gb",   3, 4, 20.0, 2, START_3G,    0 },
    { "4g.20gb",   4, 4, 20.0, 1, START_4G,    0 },
    { "7g.40gb",   7, 8, 40.0, 1, START_7G,    0 },
};

/* Table 6 with the 80GB names given under it (A100-SXM4-80GB).  Table 7,
 * GPU Instance Profiles on H100 (H100 80GB), is this table row for row --
 * names, slices, memory, counts, placements -- so the H100 uses it too. */
static const struct gs_mig_profile a100_80gb_profiles[] = {
    { "1g.10gb",    1, 1, 10.0, 7, START_1G,    0 },
    { "1g.10gb+me", 1, 1, 10.0, 1, START_1G,    1 },
    { "1g.20gb",    1, 2, 20.0, 4, START_1G_2M, 0 },
    { "2g.20gb",    2, 2, 20.0, 3, START_2G,    0 },
    { "3g.40gb",    3, 4, 40.0, 2, START_3G,    0 },
    { "4g.40gb",    4, 4, 40.0, 1, START_4G,    0 },
    { "7g.80gb",    7, 8, 80.0, 1, START_7G,    0 },
};

/* Table 8, GPU Instance Profiles on H200 (H200 141GB). */
static const struct gs_mig_profile h200_141gb_profiles[] = {
    { "1g.18gb",    1, 1,  18.0, 7, START_1G,    0 },
    { "1g.18gb+me", 1, 1,  18.0, 1, START_1G,    1 },
    { "1g.35gb",    1, 2,  35.0, 4, START_1G_2M, 0 },
    { "2g.35gb",    2, 2,  35.0, 3, START_2G,    0 },
    { "3g.71gb",    3, 4,  71.0, 2, START_3G,    0 },
    { "4g.71gb",    4, 4,  71.0, 1, START_4G,    0 },
    { "7g.141gb",   7, 8, 141.0, 1, START_7G,    0 },
};

/* Table 9, GPU Instance Profiles on B200 (B200 180 GB): the H200's
 * fractions row for row (memory 1/8, 2/8, 2/8, 4/8, 4/8, full; SMs 1/7,
 * 1/7, 2/7, 3/7, 4/7, 7/7; 7, 1, 4, 3, 2, 1, 1 instances).  The guide
 * prints no -lgipp listing for it: the shared placement geometry is
 * assumed (its fractions and counts are the ones that geometry gives). */
static const struct gs_mig_profile b200_180gb_profiles[] = {
    { "1g.23gb",    1, 1,  23.0, 7, START_1G,    0 },
    { "1g.23gb+me", 1, 1,  23.0, 1, START_1G,    1 },
    { "1g.45gb",    1, 2,  45.0, 4, START_1G_2M, 0 },
    { "2g.45gb",    2, 2,  45.0, 3, START_2G,    0 },
    { "3g.90gb",    3, 4,  90.0, 2, START_3G,    0 },
    { "4g.90gb",    4, 4,  90.0, 1, START_4G,    0 },
    { "7g.180gb",   7, 8, 180.0, 1, START_7G,    0 },
};

#define NPROF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const struct gs_mig_gpu gpus[] = {
    { "A100-40GB",   40.0, NPROF(a100_40gb_profiles),  a100_40gb_profiles  },
    { "A100-80GB",   80.0, NPROF(a100_80gb_profiles),  a100_80gb_profiles  },
    { "H100-80GB",   80.0, NPROF(a100_80gb_profiles),  a100_80gb_profiles  },
    { "H200-141GB", 141.0, NPROF(h200_141gb_profiles), h200_141gb_profiles },
    { "B200-180GB", 180.0, NPROF(b200_180gb_profiles), b200_180gb_profiles },
};

#define NGPUS ((int)(sizeof gpus / sizeof gpus[0]))

/* Named layouts accepted by gs_mig_layout_parse, for error messages. */
static const char named_layouts[] = "full, all-1g, all-2g, all-3g, halves, balanced";

/* ---- tables ---------------------------------------------------------- */

const struct gs_mig_gpu *gs_mig_gpu_find(const char *gpu_name)
{
    if (gpu_name == NULL)
        return NULL;
    for (int i = 0; i < NGPUS; i++)
        if (strcmp(gpus[i].name, gpu_name) == 0)
            return &gpus[i];
    return NULL;
}

const struct gs_mig_gpu *gs_mig_gpu_at(int i)
{
    return (i >= 0 && i < NGPUS) ? &gpus[i] : NULL;
}

const struct gs_mig_profile *gs_mig_profile_find(const struct gs_mig_gpu *g,
                                                 const char *profile_name)
{
    if (g == NULL || profile_name == NULL)
        return NULL;
    if (strncmp(profile_name, "MIG ", 4) == 0)
        profile_name += 4;
    for (int i = 0; i < g->nprofiles; i++)
        if (strcmp(g->profiles[i].name, profile_name) == 0)
            return &g->profiles[i];
    return NULL;
}

double gs_mig_compute_share(const struct gs_mig_profile *p)
{
    return p ? p->compute_slices / (double)GS_MIG_COMPUTE_SLICES : 0.0;
}

const struct gs_mig_profile *gs_mig_smallest_fit(const struct gs_mig_gpu *g,
                                                 double mem_gb,
                                                 double compute_fraction)
{
    const double eps = 1e-9;
    if (g == NULL || mem_gb != mem_gb || compute_fraction != compute_fraction)
        return NULL;                             /* NaN */
    /* Smallest whole number of slices covering the fraction; the epsilon
     * keeps 3.0/7 * 7 from rounding up to 4. */
    int need = 0;
    while (need <= GS_MIG_COMPUTE_SLICES &&
           need + eps < compute_fraction * GS_MIG_COMPUTE_SLICES)
        need++;
    const struct gs_mig_profile *best = NULL;
    for (int i = 0; i < g->nprofiles; i++) {
        const struct gs_mig_profile *p = &g->profiles[i];
        if (p->media_ext || p->compute_slices < need || p->mem_gb + eps < mem_gb)
            continue;
        if (best == NULL ||
            p->compute_slices < best->compute_slices ||
            (p->compute_slices == best->compute_slices &&
             (p->mem_gb < best->mem_gb ||
              (p->mem_gb == best->mem_gb && p->mem_slices < best->mem_slices))))
            best = p;
    }
    return best;
}

/* ---- helpers --------------------------------------------------------- */

/* Index of p in g's table, or -1 if p is not one of g's profiles. */
static int profile_index(const struct gs_mig_gpu *g, const struct gs_mig_profile *p)
{
    for (int i = 0; p != NULL && i < g->nprofiles; i++)
        if (p == &g->profiles[i])
            return i;
    return -1;
}

/* Memory slices [start, start + mem_slices) as a mask; 0 if out of range. */
static unsigned range_mask(const struct gs_mig_profile *p, int start)
{
    if (start < 0 || p->mem_slices < 1 || start + p->mem_slices > GS_MIG_MEM_SLICES)
        return 0;
    return ((1u << p->mem_slices) - 1u) << start;
}

static int start_allowed(const struct gs_mig_profile *p, int start)
{
    return start >= 0 && start < GS_MIG_MEM_SLICES &&
           ((p->start_mask >> start) & 1u) && range_mask(p, start) != 0;
}

/* "0, 4" for START_3G. */
static void format_starts(unsigned mask, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int s = 0; s < GS_MIG_MEM_SLICES && off < len; s++)
        if ((mask >> s) & 1u)
            off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? ", " : "", s);
    if (buf[0] == '\0')
        snprintf(buf, len, "none");
}

/* "1g.5gb, 1g.5gb+me, ..." */
static void format_profile_names(const struct gs_mig_gpu *g, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < g->nprofiles && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
                                g->profiles[i].name);
}

/* "A100-40GB layout \"3g.20gb@2\"" -- the `where` of a layout diagnostic,
 * in memory the caller frees (gs_diag_set_at). */
static char *layout_where(const struct gs_mig_layout *l)
{
    char spec[256];
    gs_mig_layout_format(l, spec, sizeof spec);
    return gs_strf("%s layout \"%s\"", l->gpu ? l->gpu->name : "(no GPU)",
                   spec);
}

static int count_profile(const struct gs_mig_layout *l, const struct gs_mig_profile *p)
{
    int c = 0;
    for (int i = 0; i < l->n; i++)
        c += l->inst[i].profile == p;
    return c;
}

/* Rules 1-4 of mig.h.  With allow_unplaced, instances whose start is -1 are
 * accepted and take part in the count, compute and memory totals only. */
static int validate(const struct gs_mig_layout *l, struct gs_diag *d, int allow_unplaced)
{
    if (l == NULL)
        return gs_diag_set(d, GS_EINVAL, "MIG layout", "no layout given");
    if (l->gpu == NULL)
        return gs_diag_set(d, GS_EINVAL, "MIG layout", "layout has no GPU");
    if (l->n < 0 || l->n > GS_MIG_MAX_INSTANCES) {
        return gs_diag_set(d, GS_ERANGE, l->gpu->name,
                           "layout has %d instances; a GPU holds 0 to %d",
                           l->n, GS_MIG_MAX_INSTANCES);
    }
    const struct gs_mig_gpu *g = l->gpu;

    for (int i = 0; i < l->n; i++) {
        const struct gs_mig_profile *p = l->inst[i].profile;
        int s = l->inst[i].start;
        if (profile_index(g, p) < 0) {
            return gs_diag_set_at(d, GS_EINVAL, layout_where(l), "instance "
                                  "%d: %s is not a MIG profile of %s", i,
                                  p ? p->name : "(null profile)", g->name);
        }
        if (s == -1 && allow_unplaced)
            continue;
        if (s == -1) {
            return gs_diag_set_at(d, GS_EINVAL, layout_where(l), "instance %d "
                                  "(%s) has not been placed", i, p->name);
        }
        if (!start_allowed(p, s)) {
            char starts[64];
            format_starts(p->start_mask, starts, sizeof starts);
            return gs_diag_set_at(d, GS_EINVAL, layout_where(l), "%s may not "
                                  "start at memory slice %d on %s (allowed "
                                  "starts: %s)", p->name, s, g->name, starts);
        }
    }

    for (int i = 0; i < l->n; i++) {
        const struct gs_mig_profile *p = l->inst[i].profile;
        if (count_profile(l, p) > p->max_count) {
            return gs_diag_set_at(d, GS_ENOFIT, layout_where(l), "%d "
                                  "instances of %s, but at most %d fit on %s",
                                  count_profile(l, p), p->name, p->max_count,
                                  g->name);
        }
    }

    for (int i = 0; i < l->n; i++) {
        for (int j = i + 1; j < l->n; j++) {
            const struct gs_mig_instance *a = &l->inst[i], *b = &l->inst[j];
            if (a->start < 0 || b->start < 0)
                continue;
            if (range_mask(a->profile, a->start) & range_mask(b->profile, b->start)) {
                return gs_diag_set_at(d, GS_ENOFIT, layout_where(l), "%s@%d "
                                      "(memory slices %d-%d) overlaps %s@%d "
                                      "(memory slices %d-%d)",
                                      a->profile->name, a->start, a->start,
                                      a->start + a->profile->mem_slices - 1,
                                      b->profile->name, b->start, b->start,
                                      b->start + b->profile->mem_slices - 1);
            }
        }
    }

    int compute = gs_mig_layout_compute_slices(l), mem = 0;
    for (int i = 0; i < l->n; i++)
        mem += l->inst[i].profile->mem_slices;
    if (compute > GS_MIG_COMPUTE_SLICES) {
        return gs_diag_set_at(d, GS_ENOFIT, layout_where(l),
                              "needs %d compute slices, but %s has %d",
                              compute, g->name, GS_MIG_COMPUTE_SLICES);
    }
    if (mem > GS_MIG_MEM_SLICES) {
        return gs_diag_set_at(d, GS_ENOFIT, layout_where(l),
                              "needs %d memory slices, but %s has %d",
                              mem, g->name, GS_MIG_MEM_SLICES);
    }
    return 0;
}

/* ---- layouts --------------------------------------------------------- */

void gs_mig_layout_init(struct gs_mig_layout *l, const struct gs_mig_gpu *g)
{
    if (l == NULL)
        return;
    memset(l, 0, sizeof *l);
    l->gpu = g;
}

int gs_mig_layout_check(const struct gs_mig_layout *l, struct gs_diag *d)
{
    return validate(l, d, 0);
}

int gs_mig_layout_compute_slices(const struct gs_mig_layout *l)
{
    int c = 0;
    for (int i = 0; l != NULL && i < l->n && i < GS_MIG_MAX_INSTANCES; i++)
        if (l->inst[i].profile != NULL)
            c += l->inst[i].profile->compute_slices;
    return c;
}

unsigned gs_mig_layout_mem_mask(const struct gs_mig_layout *l)
{
    unsigned m = 0;
    for (int i = 0; l != NULL && i < l->n && i < GS_MIG_MAX_INSTANCES; i++)
        if (l->inst[i].profile != NULL)
            m |= range_mask(l->inst[i].profile, l->inst[i].start);
    return m;
}

int gs_mig_layout_format(const struct gs_mig_layout *l, char *buf, size_t len)
{
    if (l == NULL || buf == NULL || len == 0)
        return GS_EINVAL;
    size_t off = 0;
    int truncated = 0;
    buf[0] = '\0';
    for (int i = 0; i < l->n && i < GS_MIG_MAX_INSTANCES; i++) {
        const struct gs_mig_instance *in = &l->inst[i];
        const char *name = in->profile ? in->profile->name : "?";
        int w = in->start >= 0
            ? snprintf(buf + off, len - off, "%s%s@%d", i ? "+" : "", name, in->start)
            : snprintf(buf + off, len - off, "%s%s", i ? "+" : "", name);
        if (w < 0 || (size_t)w >= len - off) {
            truncated = 1;
            break;
        }
        off += (size_t)w;
    }
    return truncated ? GS_ERANGE : 0;
}

/* Backtracking for gs_mig_layout_place: give order[k..n) a start each. */
static int place_rec(const struct gs_mig_layout *l, const int *order, int k, int n,
                     unsigned used, int *starts)
{
    if (k == n)
        return 1;
    const struct gs_mig_profile *p = l->inst[order[k]].profile;
    for (int s = 0; s < GS_MIG_MEM_SLICES; s++) {
        if (!start_allowed(p, s) || (range_mask(p, s) & used))
            continue;
        starts[order[k]] = s;
        if (place_rec(l, order, k + 1, n, used | range_mask(p, s), starts))
            return 1;
    }
    return 0;
}

/* a goes before b: more compute, then more memory, then earlier. */
static int place_before(const struct gs_mig_layout *l, int a, int b)
{
    const struct gs_mig_profile *pa = l->inst[a].profile, *pb = l->inst[b].profile;
    if (pa->compute_slices != pb->compute_slices)
        return pa->compute_slices > pb->compute_slices;
    if (pa->mem_slices != pb->mem_slices)
        return pa->mem_slices > pb->mem_slices;
    return a < b;
}

int gs_mig_layout_place(struct gs_mig_layout *l, struct gs_diag *d)
{
    int rc = validate(l, d, 1);
    if (rc != 0)
        return rc;

    int order[GS_MIG_MAX_INSTANCES] = { 0 }, n = 0, starts[GS_MIG_MAX_INSTANCES] = { 0 };
    unsigned used = 0;
    for (int i = 0; i < l->n; i++) {
        starts[i] = l->inst[i].start;
        if (l->inst[i].start >= 0) {
            used |= range_mask(l->inst[i].profile, l->inst[i].start);
            continue;
        }
        int j = n++;                     /* insertion sort into order[] */
        while (j > 0 && place_before(l, i, order[j - 1])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    if (!place_rec(l, order, 0, n, used, starts)) {
        return gs_diag_set_at(d, GS_ENOFIT, layout_where(l), "no placement of "
                              "these instances fits on %s (memory slices "
                              "already taken: 0x%02x)", l->gpu->name, used);
    }
    for (int i = 0; i < l->n; i++)
        l->inst[i].start = starts[i];
    GS_ASSERT(gs_mig_layout_check(l, NULL) == 0);
    return 0;
}

int gs_mig_add(struct gs_mig_layout *l, const struct gs_mig_profile *p, int *start_out)
{
    if (l == NULL || l->gpu == NULL || p == NULL || profile_index(l->gpu, p) < 0)
        return GS_EINVAL;
    int rc = gs_mig_layout_check(l, NULL);
    if (rc != 0)
        return rc;
    if (l->n >= GS_MIG_MAX_INSTANCES || count_profile(l, p) >= p->max_count ||
        gs_mig_layout_compute_slices(l) + p->compute_slices > GS_MIG_COMPUTE_SLICES)
        return GS_ENOFIT;
    unsigned used = gs_mig_layout_mem_mask(l);
    for (int s = 0; s < GS_MIG_MEM_SLICES; s++) {
        if (!start_allowed(p, s) || (range_mask(p, s) & used))
            continue;
        l->inst[l->n].profile = p;
        l->inst[l->n].start = s;
        l->n++;
        if (start_out != NULL)
            *start_out = s;
        return 0;
    }
    return GS_ENOFIT;
}

int gs_mig_remove(struct gs_mig_layout *l, int index)
{
    if (l == NULL)
        return GS_EINVAL;
    if (index < 0 || index >= l->n || l->n > GS_MIG_MAX_INSTANCES)
        return GS_ERANGE;
    memmove(&l->inst[index], &l->inst[index + 1],
            (size_t)(l->n - index - 1) * sizeof l->inst[0]);
    l->n--;
    memset(&l->inst[l->n], 0, sizeof l->inst[0]);
    return 0;
}

/* ---- parsing --------------------------------------------------------- */

/* The non-+me profile with this geometry; for 1g, the one with fewest
 * memory slices. */
static const struct gs_mig_profile *find_geometry(const struct gs_mig_gpu *g,
                                                  int compute)
{
    const struct gs_mig_profile *best = NULL;
    for (int i = 0; i < g->nprofiles; i++) {
        const struct gs_mig_profile *p = &g->profiles[i];
        if (p->media_ext || p->compute_slices != compute)
            continue;
        if (best == NULL || p->mem_slices < best->mem_slices)
            best = p;
    }
    return best;
}

struct named_part { int compute, count; };

struct named_layout {
    const char *name;
    struct named_part parts[4];   /* {0, 0} ends the list */
};

/* Named layouts: see gs_mig_layout_parse in mig.h.  "balanced" follows
 * mig-parted's all-balanced (2 x 1g + 1 x 2g + 1 x 3g). */
static const struct named_layout named[] = {
    { "full",     { { 7, 1 } } },
    { "all-1g",   { { 1, 7 } } },
    { "all-2g",   { { 2, 3 } } },
    { "all-3g",   { { 3, 2 } } },
    { "halves",   { { 3, 2 } } },
    { "balanced", { { 3, 1 }, { 2, 1 }, { 1, 2 } } },
};

static int is_item_end(char c)
{
    return c == '\0' || c == '+' || c == ',' || c == '@' || c == '*' ||
           isspace((unsigned char)c);
}

/* Digits at *pp into *val (saturating at 1000000); 0 if there are none. */
static int parse_uint(const char **pp, int *val)
{
    const char *s = *pp;
    long v = 0;
    if (!isdigit((unsigned char)*s))
        return 0;
    while (isdigit((unsigned char)*s)) {
        if (v < 1000000)
            v = v * 10 + (*s - '0');
        s++;
    }
    *val = (int)(v > 1000000 ? 1000000 : v);
    *pp = s;
    return 1;
}

/* Append count instances of p at start (-1 = to be placed) to out. */
static int append(struct gs_mig_layout *out, const struct gs_mig_profile *p,
                  int count, int start, const char *where, struct gs_diag *d)
{
    int have = count_profile(out, p);
    if (have + count > p->max_count) {
        return gs_diag_set(d, GS_ENOFIT, where,
                           "%d instances of %s requested, but at most %d fit on %s",
                           have + count, p->name, p->max_count, out->gpu->name);
    }
    if (out->n + count > GS_MIG_MAX_INSTANCES) {
        return gs_diag_set(d, GS_ENOFIT, where,
                           "%d instances requested, but a GPU holds at most %d",
                           out->n + count, GS_MIG_MAX_INSTANCES);
    }
    for (int k = 0; k < count; k++) {
        out->inst[out->n].profile = p;
        out->inst[out->n].start = start;
        out->n++;
    }
    return 0;
}

static int parse_named(const struct gs_mig_gpu *g, const struct named_layout *nl,
                       struct gs_mig_layout *out, const char *where, struct gs_diag *d)
{
    for (int i = 0; i < 4 && nl->parts[i].count > 0; i++) {
        const struct gs_mig_profile *p = find_geometry(g, nl->parts[i].compute);
        if (p == NULL) {
            return gs_diag_set(d, GS_ENOTFOUND, where,
                               "layout \"%s\" needs a %dg profile, which %s lacks",
                               nl->name, nl->parts[i].compute, g->name);
        }
        int rc = append(out, p, nl->parts[i].count, -1, where, d);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int parse_items(const struct gs_mig_gpu *g, const char *spec,
                       struct gs_mig_layout *out, const char *where, struct gs_diag *d)
{
    const char *s = spec;
    for (;;) {
        while (isspace((unsigned char)*s))
            s++;
        int col = (int)(s - spec) + 1, count = -1, start = -1;

        /* optional "Nx" or "N*" prefix */
        const char *q = s;
        int n;
        if (parse_uint(&q, &n) && (*q == 'x' || *q == '*')) {
            count = n;
            s = q + 1;
        }

        /* profile name, with a trailing "+me" kept as part of it */
        const char *name = s;
        while (!is_item_end(*s))
            s++;
        if (strncmp(s, "+me", 3) == 0 && is_item_end(s[3]))
            s += 3;
        size_t len = (size_t)(s - name);
        if (len == 0) {
            return gs_diag_set(d, GS_EPARSE, where,
                               "expected a MIG profile name at column %d", col);
        }
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), name);

        if (*s == '*') {                 /* "*N" suffix */
            s++;
            if (!parse_uint(&s, &n)) {
                return gs_diag_set(d, GS_EPARSE, where,
                                   "expected a count after '*' at column %d",
                                   (int)(s - spec) + 1);
            }
            if (count >= 0) {
                return gs_diag_set(d, GS_EPARSE, where,
                                   "count of %s given twice at column %d", buf, col);
            }
            count = n;
        }
        if (*s == '@') {                 /* "@START" */
            s++;
            if (!parse_uint(&s, &start)) {
                return gs_diag_set(d, GS_EPARSE, where,
                                   "expected a memory slice number after '@' at column %d",
                                   (int)(s - spec) + 1);
            }
        }
        while (isspace((unsigned char)*s))
            s++;
        if (*s != '\0' && *s != '+' && *s != ',') {
            return gs_diag_set(d, GS_EPARSE, where,
                               "unexpected '%c' at column %d", *s, (int)(s - spec) + 1);
        }

        const struct gs_mig_profile *p = gs_mig_profile_find(g, buf);
        if (p == NULL) {
            char names[512];
            format_profile_names(g, names, sizeof names);
            return gs_diag_set(d, GS_ENOTFOUND, where,
                               "unknown MIG profile \"%s\" for %s; valid profiles: %s "
                               "(named layouts: %s)", buf, g->name, names, named_layouts);
        }
        if (count < 0)
            count = 1;
        if (count < 1) {
            return gs_diag_set(d, GS_ERANGE, where,
                               "count of %s at column %d must be at least 1", buf, col);
        }
        if (start >= 0 && count > 1) {
            return gs_diag_set(d, GS_EPARSE, where,
                               "a start (@%d) can be given only for a single %s, "
                               "not %d of them", start, buf, count);
        }
        int rc = append(out, p, count, start, where, d);
        if (rc != 0)
            return rc;

        if (*s == '\0')
            return 0;
        s++;                             /* the '+' or ',' */
    }
}

int gs_mig_layout_parse(const struct gs_mig_gpu *g, const char *spec,
                        struct gs_mig_layout *out, struct gs_diag *d)
{
    if (out == NULL)
        return gs_diag_set(d, GS_EINVAL, "MIG layout", "no output layout given");
    gs_mig_layout_init(out, g);
    if (g == NULL)
        return gs_diag_set(d, GS_EINVAL, "MIG layout", "no GPU given");
    if (spec == NULL)
        return gs_diag_set(d, GS_EINVAL, g->name, "no MIG layout given");

    char *where = gs_strf("%s layout \"%.300s\"", g->name, spec);

    const char *b = spec, *e = spec + strlen(spec);
    while (isspace((unsigned char)*b))
        b++;
    while (e > b && isspace((unsigned char)e[-1]))
        e--;
    if (b == e)
        return gs_diag_set_at(d, GS_EPARSE, where, "empty MIG layout");

    int rc = -1;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        if ((size_t)(e - b) == strlen(named[i].name) &&
            strncmp(b, named[i].name, (size_t)(e - b)) == 0) {
            rc = parse_named(g, &named[i], out, where, d);
            break;
        }
    }
    if (rc == -1)
        rc = parse_items(g, spec, out, where, d);
    free(where);
    if (rc == 0)
        rc = gs_mig_layout_place(out, d);
    if (rc != 0)
        gs_mig_layout_init(out, g);
    return rc;
}

/* ---- enumeration ----------------------------------------------------- */

#define ENUM_MAX_PROFILES 32
#define ENUM_MAX_PLACEMENTS (ENUM_MAX_PROFILES * GS_MIG_MEM_SLICES)

struct enum_state {
    unsigned flags;
    void (*cb)(const struct gs_mig_layout *, void *);
    void *arg;
    int np;                                     /* placements */
    const struct gs_mig_profile *pp[ENUM_MAX_PLACEMENTS];
    int pidx[ENUM_MAX_PLACEMENTS];              /* profile index */
    int ps[ENUM_MAX_PLACEMENTS];                /* start */
    int counts[ENUM_MAX_PROFILES];
    struct gs_mig_layout cur;
    unsigned used;
    int compute;
    int total;
};

static int enum_can_add(const struct enum_state *st, int i)
{
    const struct gs_mig_profile *p = st->pp[i];
    return st->cur.n < GS_MIG_MAX_INSTANCES &&
           !(range_mask(p, st->ps[i]) & st->used) &&
           st->compute + p->compute_slices <= GS_MIG_COMPUTE_SLICES &&
           st->counts[st->pidx[i]] < p->max_count;
}

static void enum_rec(struct enum_state *st, int i)
{
    if (i == st->np) {
        if (st->cur.n == 0)
            return;
        if (st->flags & GS_MIG_ENUM_MAXIMAL)
            for (int j = 0; j < st->np; j++)
                if (enum_can_add(st, j))
                    return;
        st->total++;
        if (st->cb != NULL)
            st->cb(&st->cur, st->arg);
        return;
    }
    if (enum_can_add(st, i)) {
        const struct gs_mig_profile *p = st->pp[i];
        st->cur.inst[st->cur.n].profile = p;
        st->cur.inst[st->cur.n].start = st->ps[i];
        st->cur.n++;
        st->used |= range_mask(p, st->ps[i]);
        st->compute += p->compute_slices;
        st->counts[st->pidx[i]]++;
        enum_rec(st, i + 1);
        st->counts[st->pidx[i]]--;
        st->compute -= p->compute_slices;
        st->used &= ~range_mask(p, st->ps[i]);
        st->cur.n--;
    }
    enum_rec(st, i + 1);
}

int gs_mig_enumerate_valid(const struct gs_mig_gpu *g, unsigned flags,
                           void (*cb)(const struct gs_mig_layout *, void *),
                           void *arg)
{
    if (g == NULL || g->nprofiles < 0 || (g->nprofiles > 0 && g->profiles == NULL))
        return GS_EINVAL;
    if (g->nprofiles > ENUM_MAX_PROFILES)
        return GS_ERANGE;
    struct enum_state st;
    memset(&st, 0, sizeof st);
    st.flags = flags;
    st.cb = cb;
    st.arg = arg;
    gs_mig_layout_init(&st.cur, g);
    for (int i = 0; i < g->nprofiles; i++) {
        const struct gs_mig_profile *p = &g->profiles[i];
        if ((flags & GS_MIG_ENUM_NO_ME) && p->media_ext)
            continue;
        for (int s = 0; s < GS_MIG_MEM_SLICES; s++) {
            if (!start_allowed(p, s))
                continue;
            st.pp[st.np] = p;
            st.pidx[st.np] = i;
            st.ps[st.np] = s;
            st.np++;
        }
    }
    enum_rec(&st, 0);
    return st.total;
}

/* The smallest MIG profile over the known MIG GPUs with need_gb of memory
 * and frac of the compute slices; *on names its GPU. */
const struct gs_mig_profile *gs_mig_smallest_any(double need_gb, double frac,
                                                 const struct gs_mig_gpu **on)
{
    const struct gs_mig_profile *bp = NULL;
    for (int g = 0; gs_mig_gpu_at(g); g++) {
        const struct gs_mig_gpu *mg = gs_mig_gpu_at(g);
        const struct gs_mig_profile *p = gs_mig_smallest_fit(mg, need_gb, frac);
        if (p && (bp == NULL || p->mem_gb < bp->mem_gb ||
                  (p->mem_gb == bp->mem_gb &&
                   p->compute_slices < bp->compute_slices))) {
            bp = p;
            *on = mg;
        }
    }
    return bp;
}
