/* test_mig.c -- tests of sim/cluster/mig.c: the MIG profile tables, layout rules, placement, parsing and enumeration.
 *
 * The expected values are written out here independently of sim/cluster/mig.c, from
 * the NVIDIA Multi-Instance GPU User Guide: Tables 6-8 (GPU Instance Profiles
 * on A100 / H100 / H200, Table 9 on B200) for names, SM fractions, memory and instance counts;
 * the `nvidia-smi mig -lgipp` listing for the allowed starts; and the
 * "Instance Geometry" examples (3g+3g, 3-2-1-1, 2-1-1-1-1-1).  The guide
 * draws the valid combinations only as pictures (Figure 7 "MIG Profiles on
 * A100", Figure 8 "Profile Placements on A100"); the text copy consulted did
 * not include the images, so figure_configs below was worked out by hand from
 * the -lgipp placements: the 19 maximal combinations of the 1g/2g/3g/4g/7g
 * profiles (18 before driver R510, which refused 4g + 3g), the number usually
 * quoted for the A100, and also what a separate Python brute force found.
 * The enumeration counts are checked against a brute force over all subsets
 * of placements written separately in this file.
 *
 * Every test asserts exact values, so a wrong table entry, a missing rule or
 * a rule applied too eagerly makes one fail. */
#include "cutest.h"
#include "../sim/cluster/mig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NGPU 5

static const char *const gpu_names[NGPU] = {
    "A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB", "B200-180GB"
};

/* The 1g, 2g, 3g, 4g and 7g profiles of each GPU (no +me, no 1g with two
 * memory slices): the profiles Figure 7 is drawn with. */
static const char *const base_names[NGPU][5] = {
    { "1g.5gb",  "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"  },
    { "1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"  },
    { "1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"  },
    { "1g.18gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb" },
    { "1g.23gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb" },
};

/* The valid maximal combinations (Figures 7/8), as "size@start". */
static const char *const figure_configs[19] = {
    "7@0",
    "4@0 3@4",
    "4@0 2@4 1@6",
    "4@0 1@4 1@5 1@6",
    "3@0 3@4",
    "3@0 2@4 1@6",
    "3@0 1@4 1@5 1@6",
    "2@0 2@2 3@4",
    "2@0 1@2 1@3 3@4",
    "1@0 1@1 2@2 3@4",
    "1@0 1@1 1@2 1@3 3@4",
    "2@0 2@2 2@4 1@6",
    "2@0 2@2 1@4 1@5 1@6",
    "2@0 1@2 1@3 2@4 1@6",
    "1@0 1@1 2@2 2@4 1@6",
    "2@0 1@2 1@3 1@4 1@5 1@6",
    "1@0 1@1 2@2 1@4 1@5 1@6",
    "1@0 1@1 1@2 1@3 2@4 1@6",
    "1@0 1@1 1@2 1@3 1@4 1@5 1@6",
};

static const struct gs_mig_gpu *gpu(const char *name)
{
    const struct gs_mig_gpu *g = gs_mig_gpu_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    return g;
}

static const struct gs_mig_profile *prof(const struct gs_mig_gpu *g, const char *name)
{
    const struct gs_mig_profile *p = gs_mig_profile_find(g, name);
    if (p == NULL)
        fprintf(stderr, "no profile %s on %s\n", name, g->name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    return p;
}

/* Build l from space-separated "profile@start" tokens ("@-1" or no '@'
 * leaves the instance unplaced), without going through the parser. */
static void build(const struct gs_mig_gpu *g, const char *tokens, struct gs_mig_layout *l)
{
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", tokens);
    gs_mig_layout_init(l, g);
    for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        char *at = strchr(t, '@');
        int start = -1;
        if (at) {
            *at = '\0';
            start = atoi(at + 1);
        }
        CU_ASSERT_FATAL(l->n < GS_MIG_MAX_INSTANCES);
        l->inst[l->n].profile = prof(g, t);
        l->inst[l->n].start = start;
        l->n++;
    }
}

/* Build a Figure 7 configuration ("3@0 2@4 1@6") on GPU number gi. */
static void build_figure(int gi, const char *cfg, struct gs_mig_layout *l)
{
    char tokens[256] = "";
    size_t off = 0;
    for (const char *c = cfg; *c; c++) {
        if (*c < '1' || *c > '7' || c[1] != '@')
            continue;
        int cls = *c == '7' ? 4 : *c - '1';
        off += (size_t)snprintf(tokens + off, sizeof tokens - off, "%s%s@%c",
                                off ? " " : "", base_names[gi][cls], c[2]);
        c += 2;
    }
    build(gpu(gpu_names[gi]), tokens, l);
}

static void format(const struct gs_mig_layout *l, char *buf, size_t len)
{
    CU_ASSERT_EQUAL(gs_mig_layout_format(l, buf, len), 0);
}

/* ---- tables ---------------------------------------------------------- */

static void test_gpu_find(void)
{
    static const double mem[NGPU] = { 40.0, 80.0, 80.0, 141.0, 180.0 };
    for (int i = 0; i < NGPU; i++) {
        const struct gs_mig_gpu *g = gs_mig_gpu_find(gpu_names[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        CU_ASSERT_STRING_EQUAL(g->name, gpu_names[i]);
        CU_ASSERT_DOUBLE_EQUAL(g->mem_gb, mem[i], 1e-12);
        CU_ASSERT_EQUAL(g->nprofiles, 7);
    }
    CU_ASSERT_PTR_NULL(gs_mig_gpu_find("V100-32GB"));
    CU_ASSERT_PTR_NULL(gs_mig_gpu_find("T4"));
    CU_ASSERT_PTR_NULL(gs_mig_gpu_find(""));
    CU_ASSERT_PTR_NULL(gs_mig_gpu_find(NULL));
    CU_ASSERT_PTR_NULL(gs_mig_gpu_find("A100"));

    /* the registry lists exactly the five GPUs, each name once */
    int n = 0;
    for (const struct gs_mig_gpu *g; (g = gs_mig_gpu_at(n)) != NULL; n++) {
        CU_ASSERT_PTR_EQUAL(gs_mig_gpu_find(g->name), g);
        for (int j = 0; j < n; j++)
            CU_ASSERT_STRING_NOT_EQUAL(gs_mig_gpu_at(j)->name, g->name);
    }
    CU_ASSERT_EQUAL(n, NGPU);
    CU_ASSERT_PTR_NULL(gs_mig_gpu_at(-1));
}

struct want_profile {
    const char *name;
    int compute, mem_slices;
    double gb;
    int max_count;
    const char *starts;     /* as -lgipp prints them */
    int me;
};

static unsigned starts_mask(const char *list)
{
    unsigned m = 0;
    for (const char *c = list; *c; c++)
        if (*c >= '0' && *c <= '7')
            m |= 1u << (*c - '0');
    return m;
}

static void check_table(const char *gname, const struct want_profile *want)
{
    const struct gs_mig_gpu *g = gpu(gname);
    CU_ASSERT_EQUAL_FATAL(g->nprofiles, 7);
    for (int i = 0; i < 7; i++) {
        const struct gs_mig_profile *p = &g->profiles[i];
        CU_ASSERT_STRING_EQUAL(p->name, want[i].name);
        CU_ASSERT_PTR_EQUAL(gs_mig_profile_find(g, want[i].name), p);
        CU_ASSERT_EQUAL(p->compute_slices, want[i].compute);
        CU_ASSERT_EQUAL(p->mem_slices, want[i].mem_slices);
        CU_ASSERT_DOUBLE_EQUAL(p->mem_gb, want[i].gb, 1e-12);
        CU_ASSERT_EQUAL(p->max_count, want[i].max_count);
        CU_ASSERT_EQUAL(p->start_mask, starts_mask(want[i].starts));
        CU_ASSERT_EQUAL(p->media_ext, want[i].me);
        /* every allowed start keeps the instance inside the 8 slices */
        for (int s = 0; s < 8; s++)
            if ((p->start_mask >> s) & 1u)
                CU_ASSERT(s + p->mem_slices <= GS_MIG_MEM_SLICES);
    }
}

static void test_profile_tables(void)
{
    static const struct want_profile a100_40[7] = {
        { "1g.5gb",    1, 1,  5, 7, "0,1,2,3,4,5,6", 0 },
        { "1g.5gb+me", 1, 1,  5, 1, "0,1,2,3,4,5,6", 1 },
        { "1g.10gb",   1, 2, 10, 4, "0,2,4,6",       0 },
        { "2g.10gb",   2, 2, 10, 3, "0,2,4",         0 },
        { "3g.20gb",   3, 4, 20, 2, "0,4",           0 },
        { "4g.20gb",   4, 4, 20, 1, "0",             0 },
        { "7g.40gb",   7, 8, 40, 1, "0",             0 },
    };
    static const struct want_profile x_80[7] = {     /* A100-80GB and H100-80GB */
        { "1g.10gb",    1, 1, 10, 7, "0,1,2,3,4,5,6", 0 },
        { "1g.10gb+me", 1, 1, 10, 1, "0,1,2,3,4,5,6", 1 },
        { "1g.20gb",    1, 2, 20, 4, "0,2,4,6",       0 },
        { "2g.20gb",    2, 2, 20, 3, "0,2,4",         0 },
        { "3g.40gb",    3, 4, 40, 2, "0,4",           0 },
        { "4g.40gb",    4, 4, 40, 1, "0",             0 },
        { "7g.80gb",    7, 8, 80, 1, "0",             0 },
    };
    static const struct want_profile h200[7] = {
        { "1g.18gb",    1, 1,  18, 7, "0,1,2,3,4,5,6", 0 },
        { "1g.18gb+me", 1, 1,  18, 1, "0,1,2,3,4,5,6", 1 },
        { "1g.35gb",    1, 2,  35, 4, "0,2,4,6",       0 },
        { "2g.35gb",    2, 2,  35, 3, "0,2,4",         0 },
        { "3g.71gb",    3, 4,  71, 2, "0,4",           0 },
        { "4g.71gb",    4, 4,  71, 1, "0",             0 },
        { "7g.141gb",   7, 8, 141, 1, "0",             0 },
    };
    check_table("A100-40GB", a100_40);
    check_table("A100-80GB", x_80);
    check_table("H100-80GB", x_80);
    /* Table 9, GPU Instance Profiles on B200 (B200 180 GB) */
    static const struct want_profile b200[7] = {
        { "1g.23gb",    1, 1,  23, 7, "0,1,2,3,4,5,6", 0 },
        { "1g.23gb+me", 1, 1,  23, 1, "0,1,2,3,4,5,6", 1 },
        { "1g.45gb",    1, 2,  45, 4, "0,2,4,6",       0 },
        { "2g.45gb",    2, 2,  45, 3, "0,2,4",         0 },
        { "3g.90gb",    3, 4,  90, 2, "0,4",           0 },
        { "4g.90gb",    4, 4,  90, 1, "0",             0 },
        { "7g.180gb",   7, 8, 180, 1, "0",             0 },
    };
    check_table("H200-141GB", h200);
    check_table("B200-180GB", b200);
}

static void test_profile_find(void)
{
    const struct gs_mig_gpu *a = gpu("A100-40GB"), *h = gpu("H100-80GB");
    CU_ASSERT_PTR_EQUAL(gs_mig_profile_find(a, "MIG 3g.20gb"), gs_mig_profile_find(a, "3g.20gb"));
    CU_ASSERT_PTR_NULL(gs_mig_profile_find(a, "3g.40gb"));     /* an 80GB name */
    CU_ASSERT_PTR_NULL(gs_mig_profile_find(h, "1g.5gb"));
    CU_ASSERT_PTR_NULL(gs_mig_profile_find(h, "3G.40GB"));
    CU_ASSERT_PTR_NULL(gs_mig_profile_find(NULL, "3g.40gb"));
    CU_ASSERT_PTR_NULL(gs_mig_profile_find(h, NULL));
    CU_ASSERT_EQUAL(prof(h, "1g.10gb+me")->media_ext, 1);
    CU_ASSERT_EQUAL(prof(h, "1g.10gb")->media_ext, 0);
}

static void test_compute_share(void)
{
    const struct gs_mig_gpu *h = gpu("H100-80GB");
    CU_ASSERT_DOUBLE_EQUAL(gs_mig_compute_share(prof(h, "3g.40gb")), 3.0 / 7.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(gs_mig_compute_share(prof(h, "1g.20gb")), 1.0 / 7.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(gs_mig_compute_share(prof(h, "7g.80gb")), 1.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(gs_mig_compute_share(NULL), 0.0, 1e-15);
}

static void expect_fit(const char *gname, double mem, double frac, const char *want)
{
    const struct gs_mig_profile *p = gs_mig_smallest_fit(gpu(gname), mem, frac);
    if (want == NULL) {
        CU_ASSERT_PTR_NULL(p);
        return;
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    if (strcmp(p->name, want) != 0)
        fprintf(stderr, "smallest_fit(%s, %g, %g) = %s, want %s\n", gname, mem, frac,
                p->name, want);
    CU_ASSERT_STRING_EQUAL(p->name, want);
}

static void test_smallest_fit(void)
{
    expect_fit("A100-40GB", 4.0, 0.0, "1g.5gb");
    expect_fit("A100-40GB", 5.0, 0.0, "1g.5gb");
    expect_fit("A100-40GB", 6.0, 0.0, "1g.10gb");       /* 1 compute slice beats 2g.10gb */
    expect_fit("A100-40GB", 10.0, 2.0 / 7.0, "2g.10gb");
    expect_fit("A100-40GB", 12.0, 0.0, "3g.20gb");      /* 3g.20gb before 4g.20gb */
    expect_fit("A100-40GB", 0.0, 3.0 / 7.0, "3g.20gb"); /* exactly 3 slices, no round-up */
    expect_fit("A100-40GB", 0.0, 0.5, "4g.20gb");       /* 3.5 slices -> 4 */
    expect_fit("A100-40GB", 21.0, 0.0, "7g.40gb");
    expect_fit("A100-40GB", 41.0, 0.0, NULL);
    expect_fit("A100-40GB", 0.0, 1.0, "7g.40gb");
    expect_fit("A100-40GB", 0.0, 1.01, NULL);
    expect_fit("A100-80GB", 15.0, 0.1, "1g.20gb");
    expect_fit("H100-80GB", 10.0, 0.0, "1g.10gb");
    expect_fit("H100-80GB", 15.0, 0.0, "1g.20gb");
    expect_fit("H100-80GB", 20.0, 0.2, "2g.20gb");      /* 1.4 slices -> 2 */
    expect_fit("H100-80GB", 40.0, 0.0, "3g.40gb");
    expect_fit("H100-80GB", 0.0, 0.55, "4g.40gb");     /* 3.85 slices -> 4 */
    expect_fit("H100-80GB", 0.0, 0.6, "7g.80gb");      /* 4.2 slices -> 5: only 7g */
    expect_fit("H100-80GB", 60.0, 0.0, "7g.80gb");
    expect_fit("H200-141GB", 18.0, 0.0, "1g.18gb");
    expect_fit("H200-141GB", 18.5, 0.0, "1g.35gb");
    expect_fit("H200-141GB", 36.0, 0.0, "3g.71gb");
    expect_fit("H200-141GB", 72.0, 0.0, "7g.141gb");
    expect_fit("H200-141GB", 142.0, 0.0, NULL);
    expect_fit("B200-180GB", 23.0, 0.0, "1g.23gb");
    expect_fit("B200-180GB", 23.5, 0.0, "1g.45gb");    /* 1 compute slice */
    expect_fit("B200-180GB", 40.0, 2.0 / 7.0, "2g.45gb");
    expect_fit("B200-180GB", 46.0, 0.0, "3g.90gb");
    expect_fit("B200-180GB", 0.0, 0.5, "4g.90gb");
    expect_fit("B200-180GB", 91.0, 0.0, "7g.180gb");
    expect_fit("B200-180GB", 181.0, 0.0, NULL);
    /* fractions a rounding step above k/7 (as when 4/7 is printed with 16
     * digits and read back) still need only k slices */
    expect_fit("H100-80GB", 0.0, 0.5714285714285715, "4g.40gb");
    expect_fit("H100-80GB", 0.0, 0.14285714285714288, "1g.10gb");
    expect_fit("H100-80GB", 10.000000000000002, 0.0, "1g.10gb");   /* same for memory */
    CU_ASSERT_PTR_NULL(gs_mig_smallest_fit(NULL, 1.0, 0.0));

    /* ties and +me, on a table whose order does not already sort them */
    static const struct gs_mig_profile shuffled[] = {
        { "1g.5gb+me", 1, 1,  5.0, 1, 0x7Fu, 1 },
        { "1g.10gb",   1, 2, 10.0, 4, 0x55u, 0 },
        { "2g.10gb",   2, 2, 10.0, 3, 0x15u, 0 },
        { "1g.5gb",    1, 1,  5.0, 7, 0x7Fu, 0 },
    };
    static const struct gs_mig_gpu sg = { "SHUFFLED", 40.0, 4, shuffled };
    CU_ASSERT_PTR_EQUAL(gs_mig_smallest_fit(&sg, 4.0, 0.0), &shuffled[3]);
    CU_ASSERT_PTR_EQUAL(gs_mig_smallest_fit(&sg, 6.0, 0.0), &shuffled[1]);
    CU_ASSERT_PTR_EQUAL(gs_mig_smallest_fit(&sg, 6.0, 0.2), &shuffled[2]);
}

/* ---- layout rules ------------------------------------------------------ */

static void expect_valid(const struct gs_mig_layout *l)
{
    struct gs_diag d = { 0 };
    int rc = gs_mig_layout_check(l, &d);
    if (rc != 0) {
        char msg[1100];
        gs_test_diag_text(&d, msg, sizeof msg);
        fprintf(stderr, "unexpectedly invalid: %s\n", msg);
    }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(d.code, 0);
    gs_diag_free(&d);
}

static void test_documented_configs_valid(void)
{
    for (int gi = 0; gi < NGPU; gi++) {
        struct gs_mig_layout l;
        for (int c = 0; c < 19; c++) {
            build_figure(gi, figure_configs[c], &l);
            expect_valid(&l);
        }
    }

    struct { const char *gpu, *layout; } docs[] = {
        /* Instance Geometry, Example 1: two 3g.20gb at 4:4 and 0:4 */
        { "A100-40GB", "3g.20gb@4 3g.20gb@0" },
        /* Example 2: 3-2-1-1 as nvidia-smi -lgi lists it */
        { "A100-40GB", "1g.5gb@0 1g.5gb@1 2g.10gb@2 3g.20gb@4" },
        /* Example 3: 2-1-1-1-1-1 */
        { "A100-40GB", "1g.5gb@0 1g.5gb@1 1g.5gb@2 1g.5gb@3 1g.5gb@6 2g.10gb@4" },
        /* -lgipp: 1g.10gb {0,2,4,6}:2, 4 instances available */
        { "A100-40GB", "1g.10gb@0 1g.10gb@2 1g.10gb@4 1g.10gb@6" },
        { "H100-80GB", "1g.20gb@0 1g.20gb@2 1g.20gb@4 1g.20gb@6" },
        { "H200-141GB", "1g.35gb@6 3g.71gb@0 1g.35gb@4" },
        /* "A single 1g profile can include media extensions" */
        { "A100-40GB", "1g.5gb+me@3 1g.5gb@0 1g.5gb@1 1g.5gb@2 1g.5gb@4 1g.5gb@5 1g.5gb@6" },
        { "H100-80GB", "1g.10gb+me@6 3g.40gb@0 2g.20gb@4" },
        { "A100-80GB", "1g.10gb+me@1 1g.20gb@2 3g.40gb@4 1g.10gb@0" },
        /* MPS example on H100: two 3g.40gb */
        { "H100-80GB", "3g.40gb@0 3g.40gb@4" },
        /* 4g + 3g, allowed since R510 */
        { "H100-80GB", "4g.40gb@0 3g.40gb@4" },
        { "H200-141GB", "4g.71gb@0 3g.71gb@4" },
        { "B200-180GB", "4g.90gb@0 3g.90gb@4" },
        { "B200-180GB", "1g.23gb+me@6 3g.90gb@0 2g.45gb@4" },
        { "B200-180GB", "1g.45gb@0 1g.45gb@2 1g.45gb@4 1g.45gb@6" },
        /* mig-parted all-balanced */
        { "H200-141GB", "3g.71gb@4 2g.35gb@0 1g.18gb@2 1g.18gb@3" },
        /* a single small instance is a valid (non-maximal) layout */
        { "A100-80GB", "1g.10gb@6" },
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        struct gs_mig_layout l;
        build(gpu(docs[i].gpu), docs[i].layout, &l);
        expect_valid(&l);
    }
}

struct bad_case {
    const char *gpu, *layout;
    int code;
    const char *what;       /* expected substring of the diagnostic */
};

static void test_known_invalid(void)
{
    static const struct bad_case bad[] = {
        /* two 4g instances: one start, max count 1 */
        { "A100-40GB", "4g.20gb@0 4g.20gb@0", GS_ENOFIT, "at most 1 fit" },
        { "H100-80GB", "4g.40gb@0 4g.40gb@0", GS_ENOFIT, "at most 1 fit" },
        /* 7g excludes everything */
        { "A100-40GB", "7g.40gb@0 1g.5gb@6", GS_ENOFIT, "overlaps" },
        { "H200-141GB", "7g.141gb@0 1g.18gb@0", GS_ENOFIT, "overlaps" },
        { "B200-180GB", "7g.180gb@0 1g.23gb@6", GS_ENOFIT, "overlaps" },
        { "B200-180GB", "3g.90gb@0 3g.90gb@4 3g.90gb@4", GS_ENOFIT, "at most 2" },
        { "B200-180GB", "1g.45gb@1", GS_EINVAL, "allowed starts: 0, 2, 4, 6" },
        { "B200-180GB", "1g.23gb@7", GS_EINVAL, "may not start at memory slice 7" },
        /* 4g and 3g cannot both start at slice 0 */
        { "A100-40GB", "4g.20gb@0 3g.20gb@0", GS_ENOFIT, "overlaps" },
        /* 3g.20gb may start only at 0 or 4 */
        { "A100-40GB", "3g.20gb@2", GS_EINVAL, "may not start at memory slice 2" },
        { "A100-40GB", "3g.20gb@2", GS_EINVAL, "allowed starts: 0, 4" },
        /* two +me instances at once; max count 1 */
        { "H100-80GB", "1g.10gb+me@0 1g.10gb+me@1", GS_ENOFIT, "at most 1 fit" },
        { "A100-40GB", "1g.5gb+me@0 1g.5gb+me@1", GS_ENOFIT, "1g.5gb+me" },
        /* 1g.20gb only at even starts */
        { "H100-80GB", "1g.20gb@1", GS_EINVAL, "allowed starts: 0, 2, 4, 6" },
        { "A100-80GB", "1g.20gb@3", GS_EINVAL, "may not start at memory slice 3" },
        /* no 1g starts at memory slice 7 (8 memory slices, 7 compute) */
        { "A100-40GB", "1g.5gb@7", GS_EINVAL, "may not start at memory slice 7" },
        /* five 1g.10gb on an A100-40GB: max count 4 */
        { "A100-40GB", "1g.10gb@0 1g.10gb@2 1g.10gb@4 1g.10gb@6 1g.10gb@6", GS_ENOFIT, "at most 4" },
        /* ranges overlap */
        { "A100-40GB", "2g.10gb@2 1g.5gb@3", GS_ENOFIT, "memory slices 2-3" },
        { "A100-80GB", "1g.10gb+me@0 1g.20gb@2 4g.40gb@0", GS_ENOFIT, "overlaps" },
        /* unplaced instances are not a valid layout */
        { "A100-40GB", "3g.20gb", GS_EINVAL, "has not been placed" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct gs_mig_layout l;
        struct gs_diag d = { 0 };
        build(gpu(bad[i].gpu), bad[i].layout, &l);
        int rc = gs_mig_layout_check(&l, &d);
        if (rc != bad[i].code || strstr(d.what, bad[i].what) == NULL)
            fprintf(stderr, "case %zu (%s): rc %d, what \"%s\"\n", i, bad[i].layout, rc, d.what);
        CU_ASSERT_EQUAL(rc, bad[i].code);
        CU_ASSERT_EQUAL(d.code, bad[i].code);
        CU_ASSERT_PTR_NOT_NULL(strstr(d.what, bad[i].what));
        CU_ASSERT_PTR_NOT_NULL(strstr(d.where, bad[i].gpu));
        gs_diag_free(&d);
    }

    /* eight 1g.5gb cannot even be written down as a layout */
    struct gs_mig_layout l;
    build(gpu("A100-40GB"), "1g.5gb@0 1g.5gb@1 1g.5gb@2 1g.5gb@3 1g.5gb@4 1g.5gb@5 1g.5gb@6", &l);
    expect_valid(&l);
    l.n = 8;
    CU_ASSERT_EQUAL(gs_mig_layout_check(&l, NULL), GS_ERANGE);

    /* a profile of another GPU */
    build(gpu("A100-40GB"), "3g.20gb@0", &l);
    l.inst[0].profile = prof(gpu("H100-80GB"), "3g.40gb");
    CU_ASSERT_EQUAL(gs_mig_layout_check(&l, NULL), GS_EINVAL);
    l.inst[0].profile = NULL;
    CU_ASSERT_EQUAL(gs_mig_layout_check(&l, NULL), GS_EINVAL);
    CU_ASSERT_EQUAL(gs_mig_layout_check(NULL, NULL), GS_EINVAL);
    gs_mig_layout_init(&l, NULL);
    CU_ASSERT_EQUAL(gs_mig_layout_check(&l, NULL), GS_EINVAL);
}

/* With NVIDIA's tables the 7-compute-slice rule follows from the placements,
 * so it is tested with a made-up profile: 2 compute slices on 1 memory slice. */
static void test_compute_limit(void)
{
    static const struct gs_mig_profile fake_profiles[] = {
        { "2g.fake", 2, 1, 1.0, 7, 0xFFu, 0 },
    };
    static const struct gs_mig_gpu fake = { "FAKE", 8.0, 1, fake_profiles };
    struct gs_mig_layout l;
    struct gs_diag d = { 0 };
    gs_mig_layout_init(&l, &fake);
    for (int i = 0; i < 3; i++) {
        l.inst[i].profile = &fake_profiles[0];
        l.inst[i].start = i;
    }
    l.n = 3;
    CU_ASSERT_EQUAL(gs_mig_layout_check(&l, NULL), 0);          /* 6 slices */
    l.inst[3].profile = &fake_profiles[0];
    l.inst[3].start = 3;
    l.n = 4;                                                      /* 8 slices */
    CU_ASSERT_EQUAL(gs_mig_layout_check(&l, &d), GS_ENOFIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "needs 8 compute slices"));
    /* the enumeration respects it too: at most 3 of them */
    CU_ASSERT_EQUAL(gs_mig_enumerate_valid(&fake, GS_MIG_ENUM_MAXIMAL, NULL, NULL), 56); /* C(8,3) */
    gs_diag_free(&d);
}

/* ---- enumeration ------------------------------------------------------- */

struct figure_match {
    int gi;
    char want[19][160];
    int seen[19];
    int unexpected;
};

static void figure_cb(const struct gs_mig_layout *l, void *arg)
{
    struct figure_match *fm = arg;
    /* render as sorted-by-start "name@s" tokens to compare with want[] */
    int idx[GS_MIG_MAX_INSTANCES];
    for (int i = 0; i < l->n; i++)
        idx[i] = i;
    for (int i = 1; i < l->n; i++)
        for (int j = i; j > 0 && l->inst[idx[j]].start < l->inst[idx[j - 1]].start; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    char got[160] = "";
    size_t off = 0;
    for (int i = 0; i < l->n; i++)
        off += (size_t)snprintf(got + off, sizeof got - off, "%s%s@%d", i ? " " : "",
                                l->inst[idx[i]].profile->name, l->inst[idx[i]].start);
    for (int c = 0; c < 19; c++)
        if (strcmp(got, fm->want[c]) == 0) {
            fm->seen[c]++;
            return;
        }
    fprintf(stderr, "enumerated layout not in Figure 7: %s\n", got);
    fm->unexpected++;
}

static void test_enumerate_matches_figure(void)
{
    for (int gi = 0; gi < NGPU; gi++) {
        const struct gs_mig_gpu *g = gpu(gpu_names[gi]);
        /* the GPU restricted to the profiles of the figure */
        struct gs_mig_profile sub[5];
        for (int k = 0; k < 5; k++)
            sub[k] = *prof(g, base_names[gi][k]);
        struct gs_mig_gpu gsub = { g->name, g->mem_gb, 5, sub };

        static struct figure_match fm;
        memset(&fm, 0, sizeof fm);
        fm.gi = gi;
        for (int c = 0; c < 19; c++) {
            struct gs_mig_layout l;
            build_figure(gi, figure_configs[c], &l);
            size_t off = 0;
            for (int i = 0; i < l.n; i++)
                off += (size_t)snprintf(fm.want[c] + off, sizeof fm.want[c] - off, "%s%s@%d",
                                        i ? " " : "", l.inst[i].profile->name, l.inst[i].start);
        }
        int n = gs_mig_enumerate_valid(&gsub, GS_MIG_ENUM_MAXIMAL, figure_cb, &fm);
        CU_ASSERT_EQUAL(n, 19);
        CU_ASSERT_EQUAL(fm.unexpected, 0);
        for (int c = 0; c < 19; c++)
            CU_ASSERT_EQUAL(fm.seen[c], 1);
    }
}

/* Independent brute force: every subset of (profile, start) placements. */
static void brute_force(const struct gs_mig_gpu *g, int with_me, int *all, int *maximal)
{
    const struct gs_mig_profile *pp[64];
    int ps[64], np = 0;
    for (int i = 0; i < g->nprofiles; i++) {
        if (!with_me && g->profiles[i].media_ext)
            continue;
        for (int s = 0; s < 8; s++)
            if ((g->profiles[i].start_mask >> s) & 1u) {
                pp[np] = &g->profiles[i];
                ps[np++] = s;
            }
    }
    CU_ASSERT_FATAL(np <= 20);
    *all = *maximal = 0;
    char *ok = calloc((size_t)1 << np, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ok);
    for (unsigned long set = 1; set < (1ul << np); set++) {
        unsigned mem = 0;
        int compute = 0, n = 0, good = 1;
        for (int i = 0; i < np && good; i++) {
            if (!((set >> i) & 1ul))
                continue;
            unsigned r = ((1u << pp[i]->mem_slices) - 1u) << ps[i];
            int same = 0;
            for (int j = 0; j <= i; j++)
                same += ((set >> j) & 1ul) && pp[j] == pp[i];
            good = !(mem & r) && same <= pp[i]->max_count;
            mem |= r;
            compute += pp[i]->compute_slices;
            n++;
        }
        ok[set] = good && compute <= 7 && n <= 7;
    }
    for (unsigned long set = 1; set < (1ul << np); set++) {
        if (!ok[set])
            continue;
        (*all)++;
        int ext = 0;
        for (int i = 0; i < np && !ext; i++)
            ext = !((set >> i) & 1ul) && ok[set | (1ul << i)];
        *maximal += !ext;
    }
    free(ok);
}

static int cb_calls, cb_invalid;

static void counting_cb(const struct gs_mig_layout *l, void *arg)
{
    (void)arg;
    cb_calls++;
    cb_invalid += gs_mig_layout_check(l, NULL) != 0;
}

static void test_enumerate_counts(void)
{
    for (int gi = 0; gi < NGPU; gi++) {
        const struct gs_mig_gpu *g = gpu(gpu_names[gi]);
        int all, maximal;
        brute_force(g, 0, &all, &maximal);
        cb_calls = cb_invalid = 0;
        CU_ASSERT_EQUAL(gs_mig_enumerate_valid(g, GS_MIG_ENUM_NO_ME, counting_cb, NULL), all);
        CU_ASSERT_EQUAL(cb_calls, all);
        CU_ASSERT_EQUAL(cb_invalid, 0);
        CU_ASSERT_EQUAL(gs_mig_enumerate_valid(g, GS_MIG_ENUM_NO_ME | GS_MIG_ENUM_MAXIMAL,
                                               NULL, NULL), maximal);
        /* all four GPUs share one geometry; numbers also found by a
         * separate Python brute force when this test was written */
        CU_ASSERT_EQUAL(all, 722);
        CU_ASSERT_EQUAL(maximal, 78);
        /* with the +me profile (too many subsets for the brute force) */
        cb_calls = cb_invalid = 0;
        CU_ASSERT_EQUAL(gs_mig_enumerate_valid(g, 0, counting_cb, NULL), 2318);
        CU_ASSERT_EQUAL(cb_invalid, 0);
        CU_ASSERT_EQUAL(gs_mig_enumerate_valid(g, GS_MIG_ENUM_MAXIMAL, NULL, NULL), 239);
    }
    CU_ASSERT_EQUAL(gs_mig_enumerate_valid(NULL, 0, NULL, NULL), GS_EINVAL);
}

/* ---- placement, add, remove ---------------------------------------------- */

static void test_place(void)
{
    const struct gs_mig_gpu *a = gpu("A100-40GB");
    struct gs_mig_layout l;
    struct gs_diag d = { 0 };
    char buf[256];

    /* the order that makes nvidia-smi fail in the guide's Example 2 */
    build(a, "1g.5gb 1g.5gb 2g.10gb 3g.20gb", &l);
    CU_ASSERT_EQUAL(gs_mig_layout_place(&l, &d), 0);
    format(&l, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "1g.5gb@2+1g.5gb@3+2g.10gb@0+3g.20gb@4");
    expect_valid(&l);

    /* fixed instances stay where they are */
    build(a, "1g.5gb@0 3g.20gb 2g.10gb", &l);
    CU_ASSERT_EQUAL(gs_mig_layout_place(&l, NULL), 0);
    format(&l, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "1g.5gb@0+3g.20gb@4+2g.10gb@2");

    /* 4g + 3g: 4g must take slice 0 */
    build(a, "3g.20gb 4g.20gb", &l);
    CU_ASSERT_EQUAL(gs_mig_layout_place(&l, NULL), 0);
    format(&l, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "3g.20gb@4+4g.20gb@0");

    /* sums fit (5 compute, 6 memory slices) but no placement exists */
    build(a, "1g.5gb@0 1g.5gb@4 3g.20gb", &l);
    gs_diag_free(&d);
    CU_ASSERT_EQUAL(gs_mig_layout_place(&l, &d), GS_ENOFIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.where, "1g.5gb@0+1g.5gb@4+3g.20gb"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.where, "A100-40GB"));
    CU_ASSERT_EQUAL(l.inst[2].start, -1);                     /* unchanged */

    build(a, "2g.10gb@2 4g.20gb", &l);
    CU_ASSERT_EQUAL(gs_mig_layout_place(&l, NULL), GS_ENOFIT);

    /* the search places 3g.20gb@0 before finding no room for 2g.10gb; the
     * failed attempt must not leak into the layout */
    build(a, "1g.5gb@5 3g.20gb 2g.10gb", &l);
    CU_ASSERT_EQUAL(gs_mig_layout_place(&l, NULL), GS_ENOFIT);
    CU_ASSERT_EQUAL(l.inst[0].start, 5);
    CU_ASSERT_EQUAL(l.inst[1].start, -1);
    CU_ASSERT_EQUAL(l.inst[2].start, -1);

    /* totals are refused before any search */
    build(a, "3g.20gb 3g.20gb 1g.5gb", &l);
    gs_diag_free(&d);
    CU_ASSERT_EQUAL(gs_mig_layout_place(&l, &d), GS_ENOFIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "needs 9 memory slices"));
    build(a, "4g.20gb 2g.10gb 2g.10gb", &l);
    gs_diag_free(&d);
    CU_ASSERT_EQUAL(gs_mig_layout_place(&l, &d), GS_ENOFIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "needs 8 compute slices"));

    /* a fixed start that is not allowed */
    build(a, "3g.20gb@2 1g.5gb", &l);
    CU_ASSERT_EQUAL(gs_mig_layout_place(&l, NULL), GS_EINVAL);
    CU_ASSERT_EQUAL(gs_mig_layout_place(NULL, NULL), GS_EINVAL);

    /* placing an already placed layout changes nothing */
    build(a, "2g.10gb@4 1g.5gb@6", &l);
    CU_ASSERT_EQUAL(gs_mig_layout_place(&l, NULL), 0);
    format(&l, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "2g.10gb@4+1g.5gb@6");
    gs_diag_free(&d);
}

static void test_add_remove(void)
{
    const struct gs_mig_gpu *a = gpu("A100-40GB"), *h = gpu("H100-80GB");
    struct gs_mig_layout l;
    int start = -99;
    gs_mig_layout_init(&l, a);

    CU_ASSERT_EQUAL(gs_mig_add(&l, prof(a, "3g.20gb"), &start), 0);
    CU_ASSERT_EQUAL(start, 0);
    CU_ASSERT_EQUAL(gs_mig_add(&l, prof(a, "3g.20gb"), &start), 0);
    CU_ASSERT_EQUAL(start, 4);
    CU_ASSERT_EQUAL(gs_mig_layout_compute_slices(&l), 6);
    CU_ASSERT_EQUAL(gs_mig_layout_mem_mask(&l), 0xFFu);
    start = -99;
    CU_ASSERT_EQUAL(gs_mig_add(&l, prof(a, "1g.5gb"), &start), GS_ENOFIT);  /* no memory */
    CU_ASSERT_EQUAL(start, -99);
    CU_ASSERT_EQUAL(l.n, 2);

    CU_ASSERT_EQUAL(gs_mig_remove(&l, 0), 0);
    CU_ASSERT_EQUAL(l.n, 1);
    CU_ASSERT_EQUAL(l.inst[0].start, 4);
    CU_ASSERT_EQUAL(gs_mig_layout_mem_mask(&l), 0xF0u);
    CU_ASSERT_EQUAL(gs_mig_add(&l, prof(a, "4g.20gb"), &start), 0);          /* 4g + 3g */
    CU_ASSERT_EQUAL(start, 0);
    CU_ASSERT_EQUAL(gs_mig_add(&l, prof(a, "1g.5gb"), NULL), GS_ENOFIT);     /* compute 8 */
    CU_ASSERT_EQUAL(gs_mig_remove(&l, 2), GS_ERANGE);
    CU_ASSERT_EQUAL(gs_mig_remove(&l, -1), GS_ERANGE);
    CU_ASSERT_EQUAL(gs_mig_remove(&l, 0), 0);
    CU_ASSERT_STRING_EQUAL(l.inst[0].profile->name, "4g.20gb");

    /* 1g instances fill from the lowest free slice; the 8th does not fit */
    gs_mig_layout_init(&l, a);
    for (int i = 0; i < 7; i++) {
        CU_ASSERT_EQUAL(gs_mig_add(&l, prof(a, "1g.5gb"), &start), 0);
        CU_ASSERT_EQUAL(start, i);
    }
    CU_ASSERT_EQUAL(gs_mig_add(&l, prof(a, "1g.5gb"), NULL), GS_ENOFIT);
    CU_ASSERT_EQUAL(gs_mig_remove(&l, 3), 0);
    CU_ASSERT_EQUAL(gs_mig_add(&l, prof(a, "1g.5gb+me"), &start), 0);        /* reuses slice 3 */
    CU_ASSERT_EQUAL(start, 3);
    expect_valid(&l);

    /* at most one +me; the double-memory 1g needs an even start */
    gs_mig_layout_init(&l, h);
    CU_ASSERT_EQUAL(gs_mig_add(&l, prof(h, "1g.10gb+me"), &start), 0);
    CU_ASSERT_EQUAL(gs_mig_add(&l, prof(h, "1g.10gb+me"), &start), GS_ENOFIT);
    CU_ASSERT_EQUAL(gs_mig_add(&l, prof(h, "1g.20gb"), &start), 0);
    CU_ASSERT_EQUAL(start, 2);

    /* wrong GPU, NULLs, unplaced layout */
    CU_ASSERT_EQUAL(gs_mig_add(&l, prof(a, "1g.5gb"), NULL), GS_EINVAL);
    CU_ASSERT_EQUAL(gs_mig_add(NULL, prof(h, "1g.10gb"), NULL), GS_EINVAL);
    CU_ASSERT_EQUAL(gs_mig_add(&l, NULL, NULL), GS_EINVAL);
    CU_ASSERT_EQUAL(gs_mig_remove(NULL, 0), GS_EINVAL);
    build(h, "3g.40gb", &l);
    CU_ASSERT_EQUAL(gs_mig_add(&l, prof(h, "1g.10gb"), NULL), GS_EINVAL);
}

/* ---- parsing ------------------------------------------------------------- */

static void expect_parse(const char *gname, const char *spec, const char *want)
{
    struct gs_mig_layout l;
    struct gs_diag d = { 0 };
    char buf[256];
    int rc = gs_mig_layout_parse(gpu(gname), spec, &l, &d);
    if (rc != 0)
        fprintf(stderr, "parse(%s, \"%s\"): %s: %s\n", gname, spec, d.where, d.what);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    format(&l, buf, sizeof buf);
    if (strcmp(buf, want) != 0)
        fprintf(stderr, "parse(%s, \"%s\") = %s, want %s\n", gname, spec, buf, want);
    CU_ASSERT_STRING_EQUAL(buf, want);
    expect_valid(&l);

    /* the formatted layout parses back to itself */
    struct gs_mig_layout again;
    CU_ASSERT_EQUAL(gs_mig_layout_parse(gpu(gname), buf, &again, NULL), 0);
    char buf2[256];
    format(&again, buf2, sizeof buf2);
    CU_ASSERT_STRING_EQUAL(buf2, buf);
    gs_diag_free(&d);
}

static void test_parse_forms(void)
{
    const char *seven = "1g.10gb@0+1g.10gb@1+1g.10gb@2+1g.10gb@3+1g.10gb@4+1g.10gb@5+1g.10gb@6";
    expect_parse("H100-80GB", "7x1g.10gb", seven);
    expect_parse("H100-80GB", "1g.10gb*7", seven);
    expect_parse("H100-80GB", "7*1g.10gb", seven);
    expect_parse("H100-80GB", " 1g.10gb , 6x1g.10gb ", seven);
    expect_parse("H100-80GB", "3g.40gb+2g.20gb+1g.10gb+1g.10gb",
                 "3g.40gb@4+2g.20gb@0+1g.10gb@2+1g.10gb@3");
    expect_parse("H100-80GB", "1g.10gb+me+3g.40gb@4", "1g.10gb+me@0+3g.40gb@4");
    expect_parse("A100-40GB", "4g.20gb+3g.20gb", "4g.20gb@0+3g.20gb@4");
    expect_parse("A100-40GB", "4x1g.10gb", "1g.10gb@0+1g.10gb@2+1g.10gb@4+1g.10gb@6");
    expect_parse("A100-40GB", "3g.20gb@4,1g.5gb@0,2g.10gb,1g.5gb",
                 "3g.20gb@4+1g.5gb@0+2g.10gb@2+1g.5gb@1");
    expect_parse("H200-141GB", "7g.141gb", "7g.141gb@0");

    /* named layouts */
    expect_parse("A100-40GB", "full", "7g.40gb@0");
    expect_parse("A100-40GB", "all-1g",
                 "1g.5gb@0+1g.5gb@1+1g.5gb@2+1g.5gb@3+1g.5gb@4+1g.5gb@5+1g.5gb@6");
    expect_parse("A100-80GB", "all-2g", "2g.20gb@0+2g.20gb@2+2g.20gb@4");
    expect_parse("H100-80GB", "all-3g", "3g.40gb@0+3g.40gb@4");
    expect_parse("H100-80GB", " halves ", "3g.40gb@0+3g.40gb@4");
    expect_parse("H100-80GB", "balanced", "3g.40gb@4+2g.20gb@0+1g.10gb@2+1g.10gb@3");
    expect_parse("H200-141GB", "balanced", "3g.71gb@4+2g.35gb@0+1g.18gb@2+1g.18gb@3");
    expect_parse("H200-141GB", "all-1g",
                 "1g.18gb@0+1g.18gb@1+1g.18gb@2+1g.18gb@3+1g.18gb@4+1g.18gb@5+1g.18gb@6");
}

struct parse_bad {
    const char *gpu, *spec;
    int code;
    const char *what;
};

static void test_parse_errors(void)
{
    static const struct parse_bad bad[] = {
        { "H100-80GB", "3g.40gb+5g.30gb", GS_ENOTFOUND, "unknown MIG profile \"5g.30gb\" for H100-80GB" },
        { "H100-80GB", "5g.30gb", GS_ENOTFOUND,
          "valid profiles: 1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb" },
        { "A100-40GB", "3g.40gb", GS_ENOTFOUND, "unknown MIG profile \"3g.40gb\" for A100-40GB" },
        { "A100-40GB", "3g.20gb+me", GS_ENOTFOUND, "\"3g.20gb+me\"" },
        { "A100-40GB", "bogus", GS_ENOTFOUND, "named layouts: full" },
        { "A100-40GB", "", GS_EPARSE, "empty" },
        { "A100-40GB", "   ", GS_EPARSE, "empty" },
        { "A100-40GB", "3g.20gb++1g.5gb", GS_EPARSE, "column 9" },
        { "A100-40GB", "3g.20gb+", GS_EPARSE, "expected a MIG profile name" },
        { "A100-40GB", "1g.5gb*", GS_EPARSE, "after '*'" },
        { "A100-40GB", "2x1g.5gb*3", GS_EPARSE, "given twice" },
        { "A100-40GB", "3g.20gb@", GS_EPARSE, "after '@'" },
        { "A100-40GB", "3g.20gb 1g.5gb", GS_EPARSE, "unexpected '1' at column 9" },
        { "A100-40GB", "2x3g.20gb@0", GS_EPARSE, "single 3g.20gb" },
        { "A100-40GB", "0x1g.5gb", GS_ERANGE, "at least 1" },
        { "A100-40GB", "3g.20gb@2", GS_EINVAL, "may not start at memory slice 2" },
        { "H100-80GB", "1g.20gb@5", GS_EINVAL, "allowed starts: 0, 2, 4, 6" },
        { "A100-40GB", "8x1g.5gb", GS_ENOFIT, "8 instances of 1g.5gb requested, but at most 7" },
        { "A100-40GB", "1g.5gb*4+1g.5gb*4", GS_ENOFIT, "at most 7" },
        { "A100-40GB", "6x1g.5gb+2g.10gb", GS_ENOFIT, "needs 8 compute slices" },
        { "H100-80GB", "1g.10gb+me+1g.10gb+me", GS_ENOFIT, "2 instances of 1g.10gb+me requested, but at most 1" },
        /* "+me" belongs to the profile name: this asks for two +me instances */
        { "H100-80GB", "2x1g.10gb+me", GS_ENOFIT, "2 instances of 1g.10gb+me requested" },
        { "A100-40GB", "4g.20gb+4g.20gb", GS_ENOFIT, "at most 1" },
        { "H100-80GB", "7g.80gb+1g.10gb", GS_ENOFIT, "needs 8 compute slices" },
        { "H100-80GB", "7g.80gb@0+1g.10gb@6", GS_ENOFIT, "overlaps" },
        { "A100-40GB", "3g.20gb+3g.20gb+1g.5gb", GS_ENOFIT, "needs 9 memory slices" },
        { "A100-40GB", "1g.5gb@0+1g.5gb@4+3g.20gb", GS_ENOFIT, "no placement" },
        { "A100-40GB", "5x1g.10gb", GS_ENOFIT, "at most 4" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct gs_mig_layout l;
        struct gs_diag d = { 0 };
        int rc = gs_mig_layout_parse(gpu(bad[i].gpu), bad[i].spec, &l, &d);
        if (rc != bad[i].code || strstr(d.what, bad[i].what) == NULL)
            fprintf(stderr, "parse case %zu \"%s\": rc %d, where \"%s\", what \"%s\"\n",
                    i, bad[i].spec, rc, d.where, d.what);
        CU_ASSERT_EQUAL(rc, bad[i].code);
        CU_ASSERT_EQUAL(d.code, bad[i].code);
        CU_ASSERT_PTR_NOT_NULL(strstr(d.what, bad[i].what));
        CU_ASSERT_PTR_NOT_NULL(strstr(d.where, bad[i].gpu));      /* names the GPU */
        CU_ASSERT_EQUAL(l.n, 0);                                   /* emptied */
        CU_ASSERT_PTR_EQUAL(l.gpu, gpu(bad[i].gpu));
        gs_diag_free(&d);
    }

    /* the diagnostic names the layout as written */
    struct gs_mig_layout l;
    struct gs_diag d = { 0 };
    char msg[1100];
    CU_ASSERT_EQUAL(gs_mig_layout_parse(gpu("A100-40GB"), "3g.20gb+3g.20gb+1g.5gb", &l, &d),
                    GS_ENOFIT);
    gs_test_diag_text(&d, msg, sizeof msg);
    CU_ASSERT_STRING_EQUAL(msg, "A100-40GB layout \"3g.20gb+3g.20gb+1g.5gb\": "
                                "needs 9 memory slices, but A100-40GB has 8");

    CU_ASSERT_EQUAL(gs_mig_layout_parse(NULL, "full", &l, NULL), GS_EINVAL);
    CU_ASSERT_EQUAL(gs_mig_layout_parse(gpu("A100-40GB"), NULL, &l, NULL), GS_EINVAL);
    CU_ASSERT_EQUAL(gs_mig_layout_parse(gpu("A100-40GB"), "full", NULL, NULL), GS_EINVAL);
    gs_diag_free(&d);
}

static void test_format(void)
{
    struct gs_mig_layout l;
    char buf[8];
    build(gpu("A100-40GB"), "3g.20gb@0 3g.20gb@4", &l);
    CU_ASSERT_EQUAL(gs_mig_layout_format(&l, buf, sizeof buf), GS_ERANGE);
    CU_ASSERT_EQUAL(strlen(buf), 7);                 /* cut, terminated */
    char big[64];
    CU_ASSERT_EQUAL(gs_mig_layout_format(&l, big, sizeof big), 0);
    CU_ASSERT_STRING_EQUAL(big, "3g.20gb@0+3g.20gb@4");
    gs_mig_layout_init(&l, gpu("A100-40GB"));
    CU_ASSERT_EQUAL(gs_mig_layout_format(&l, big, sizeof big), 0);
    CU_ASSERT_STRING_EQUAL(big, "");
    CU_ASSERT_EQUAL(gs_mig_layout_format(NULL, big, sizeof big), GS_EINVAL);
    CU_ASSERT_EQUAL(gs_mig_layout_format(&l, NULL, 4), GS_EINVAL);
}

static CU_TestInfo tests[] = {
    { "gpu table lookup", test_gpu_find },
    { "profile tables match the User Guide", test_profile_tables },
    { "profile lookup", test_profile_find },
    { "compute share", test_compute_share },
    { "smallest fitting profile", test_smallest_fit },
    { "documented layouts are valid", test_documented_configs_valid },
    { "known-invalid layouts are refused", test_known_invalid },
    { "at most 7 compute slices", test_compute_limit },
    { "enumeration finds Figure 7's 19 layouts", test_enumerate_matches_figure },
    { "enumeration counts match brute force", test_enumerate_counts },
    { "placement", test_place },
    { "add and remove", test_add_remove },
    { "parse accepted forms", test_parse_forms },
    { "parse errors", test_parse_errors },
    { "format", test_format },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("mig", tests)
