/* test_look.c -- the core counts a policy's work (sim/core/look.h).
 *
 * Each counted accessor and container adds exactly one per entry it hands
 * over and nothing for upkeep (a probe policy reads them in known numbers
 * and checks the counter's steps), and the work of whole runs on a small
 * trace equals the count worked by hand from the policy's passes. */
#include "cutest.h"
#include "simutil.h"

#include <stddef.h>

static const char one_node[] =
    "{\"name\": \"t\", \"fleet\": [{\"gpu\": \"A100-80GB\", \"nodes\": 1,"
    " \"gpus_per_node\": 4}], \"policy\": %s,"
    " \"workload\": {\"trace\": {\"format\": \"native\", \"path\": \"%%s\"}}}";

/* A holds 3 of 4 GPUs from 0 to 100 s; B wants all 4; C and D one each
 * (50 and 150 s). */
static const char hol_csv[] =
    "id,arrival,gpus,duration\n"
    "1,0,3,100\n"
    "2,1,4,100\n"
    "3,2,1,50\n"
    "4,3,1,150\n";

static uint64_t work_of(const char *policy)
{
    char json[1024];
    snprintf(json, sizeof json, one_node, policy);
    struct run r;
    run_text(&r, json, hol_csv);
    CU_ASSERT_EQUAL_FATAL(r.rc, 0);
    uint64_t w = gs_sim_summary(r.sim)->policy_work;
    CU_ASSERT_EQUAL(w, gs_sim_work(r.sim));
    run_free(&r);
    return w;
}

/* fifo reads the pending list's head (1 each time there is one) and asks
 * for a placement (1 each, except one the core foresees missing: the same
 * need and tier missed and no capacity came back since).  Its passes:
 *   0 s   A arrives: head A, placed                            2
 *   1 s   B: head B, placed, misses                            2
 *   2 s   C: head B, the miss foreseen (no placement)          1
 *   3 s   D: head B, foreseen                                  1
 *   100 s A ends: head B, placed; head C, placed, misses       4
 *   200 s B ends: head C, placed; head D, placed (capacity
 *         came back since C's need missed)                     4
 *   250 s, 350 s: C and D end; the list is empty               0
 * = 14. */
static void test_fifo_by_hand(void)
{
    CU_ASSERT_EQUAL(work_of("\"fifo\""), 14);
}

/* smallest keeps the waiting jobs in a counted heap by GPUs asked: each
 * pass reads its top (1 when there is one) and places it (1) -- unless no
 * open node has the GPUs it asks fully free (gs_job_sure_miss: the
 * placement would miss; the tenth session, 17 before):
 *   0 s   A: top A, placed                                     2
 *   1 s   B: top B, 1 GPU free: no placement                   1
 *   2 s   C: top C (1 GPU), placed beside A; top B, foreseen   3
 *   3 s   D: top D, the node is full: no placement             1
 *   52 s  C ends: top D, placed; top B, none free              3
 *   100 s A ends: top B, 3 free (D holds one)                  1
 *   202 s D ends: top B, placed                                2
 *   302 s B ends: empty                                        0
 * = 13. */
static void test_smallest_by_hand(void)
{
    CU_ASSERT_EQUAL(work_of("\"smallest\""), 13);
}

/* priority keeps its jobs in groups of one need (A; B; C and D), the groups
 * in an array sorted by first job (gs_gorder).  The core adds one at each
 * arrival (4); a group's first job joining the array beside another
 * compares the two (2: C at 2 s, D at 3 s; a group alone compares none).
 * A pass reads a group's first job (1) and places it (1) when the GPUs it
 * asks are idle, steps past a group it sets aside (no read back: the
 * ninth session's array; the heap of groups read each back, 1); it ends
 * as soon as no open node has as many GPUs fully free as the smallest
 * waiting job asks (nothing_left: nothing could start):
 *   0 s   A: read, placed                                      2
 *   1 s   B (4 GPUs, 1 free): ends at once                     0
 *   2 s   C: B read, set aside; C read, placed                 3
 *   3 s   D: the node is full: ends at once                    0
 *   52 s  C ends: B read, aside; D read, placed                3
 *   100 s A ends: 3 free, B asks 4, D runs: ends at once       0
 *   202 s D ends: B read, placed                               2
 * = 4 + 4 + 10 = 18 (20 with the heap's reads back; 30 before the pass
 * could end early).  With preempt (every job here is a training job, of
 * one priority: no victims) the same, plus the victims' node list read
 * when a job stops, up to the job (C: A, C; A; D; B) = 23. */
static void test_priority_by_hand(void)
{
    CU_ASSERT_EQUAL(work_of("\"priority\""), 18);
    CU_ASSERT_EQUAL(work_of("{\"name\": \"priority\", \"preempt\": true}"),
                    23);
}

/* fifo-backfill (backfill.c) reads the pending list's head, asks for
 * placements, walks its heap of running jobs by estimated end to the
 * head's shadow time (one a job visited), reads the heap's top when a job
 * ends while the head's reservation is kept, and in a scan reads its
 * classes by GPUs asked as far as the idle GPUs reach (one each, and one
 * past them), each one's entries and tree nodes it looks at, and each step
 * the active classes and the entry tried.  The passes (the kept
 * reservation: B's, node 0 at 100 s, kept from 1 s to A's end):
 *   0 s   A: head, placed                                       2
 *   1 s   B: head, not placed (1 GPU free: gs_job_sure_miss, the
 *         tenth session); scan: the walk visits A (B fits at
 *         100 s); classes: A's (3 GPUs) is past the idle GPU    3
 *   2 s   C: head B, foreseen; scan (the kept answer): classes C's
 *         (tree built: 1 entry; its next entry: 1), A's; step:
 *         the active class, C's entry, C placed (ends at 52 s,
 *         before 100 s)                                         8
 *   3 s   D: head B, foreseen; the fleet is full: no scan        1
 *   52 s  C ends: the heap's top (A, after C: the answer holds) 1
 *         head B, not placed; scan: classes C's (its next
 *         entry: D), A's; step: the class, D's entry (D would
 *         outlive 100 s and no GPU is free off node 0, nor spare
 *         on it); step: the class, done                         7
 *   100 s A ends: head B, placed; head D, not placed (full)      3
 *   200 s B ends: head D, placed                                 2
 * = 27 (30 when the heads that must miss were placed). */
static void test_backfill_by_hand(void)
{
    CU_ASSERT_EQUAL(work_of("\"fifo-backfill\""), 27);
}

/* --- the accessors one by one ------------------------------------------ */

struct probe {
    struct gs_lheap h;
    struct gs_lvec v;
    struct gs_llist l;
    struct gs_hnode node[5];
    int done, bad;
};
static struct probe pr;

static int probe_init(struct gs_sim *sim, struct gs_params *p, void **st,
                      struct gs_diag *d)
{
    (void)p;
    (void)d;
    memset(&pr, 0, sizeof pr);
    gs_lheap_init(&pr.h, sim);
    gs_lvec_init(&pr.v, sim, sizeof(long));
    gs_llist_init_apart(&pr.l, sim, 9);
    *st = &pr;
    return 0;
}

static void probe_free(void *st)
{
    (void)st;
    gs_lheap_clear(&pr.h);
    gs_lvec_free(&pr.v);
    gs_llist_free(&pr.l);
}

static int visit_two(struct gs_hnode *n, void *arg)
{
    (void)n;
    return ++*(int *)arg == 2;     /* stop at the second */
}

/* Expect the counter to have moved by exactly d since *at. */
static void step(struct gs_sim *sim, uint64_t *at, uint64_t d)
{
    uint64_t now = gs_sim_work(sim);
    if (now - *at != d)
        pr.bad++;
    *at = now;
}

/* Record the order of a list's walk (node indexes into pr.node). */
struct order {
    int k[8], n, stop;
};

static int visit_order(struct gs_hnode *n, void *arg)
{
    struct order *o = arg;
    o->k[o->n++] = (int)(n - pr.node);
    return o->n == o->stop;
}

/* The list: upkeep free (insert, remove, a heap's front moved in), its
 * first key and every node a walk hands over one each; the order is the
 * keys', equal keys in order of arrival, a heap's front moved in after. */
static void probe_list(struct gs_sim *sim, uint64_t *at)
{
    gs_llist_insert(&pr.l, &pr.node[0], 20);
    gs_llist_insert(&pr.l, &pr.node[1], 10);
    gs_llist_insert(&pr.l, &pr.node[2], 20);    /* after node 0 */
    gs_llist_insert(&pr.l, &pr.node[3], 15);
    gs_llist_remove(&pr.l, &pr.node[1]);
    if (gs_llist_n(&pr.l) != 3 || gs_llist_has(&pr.l, &pr.node[1]) ||
        !gs_llist_has(&pr.l, &pr.node[2]))
        pr.bad++;
    /* the heap's two entries keyed below 40 follow, in key order; the
     * one at 40 stays */
    gs_lheap_push(&pr.h, &pr.node[4], 30);
    gs_lheap_push(&pr.h, &pr.node[1], 25);
    struct gs_hnode extra;
    gs_hnode_init(&extra);
    gs_lheap_push(&pr.h, &extra, 40);
    if (gs_lheap_move_below(&pr.h, 40, &pr.l) != 0 ||
        gs_lheap_size(&pr.h) != 1 || gs_llist_n(&pr.l) != 5)
        pr.bad++;
    step(sim, at, 0);
    if (gs_llist_first_time(&pr.l) != 15)
        pr.bad++;
    step(sim, at, 1);
    struct order o = { .stop = 0 };
    static const int want[5] = { 3, 0, 2, 1, 4 };
    if (gs_llist_walk(&pr.l, visit_order, &o) != 0 || o.n != 5 ||
        memcmp(o.k, want, sizeof want) != 0)
        pr.bad++;
    step(sim, at, 5);
    o = (struct order){ .stop = 2 };            /* stops at the second */
    if (gs_llist_walk(&pr.l, visit_order, &o) != 1 || o.n != 2)
        pr.bad++;
    step(sim, at, 2);
    for (int k = 0; k < 5; k++)
        gs_llist_remove(&pr.l, &pr.node[k]);
    gs_lheap_remove(&pr.h, &extra);
    if (gs_llist_n(&pr.l) != 0 || gs_llist_first_time(&pr.l) != GS_TIME_MAX
        || pr.node[0].seq != 0)
        pr.bad++;
    step(sim, at, 0);
}

static void probe_counts(struct gs_sim *sim)
{
    uint64_t at = gs_sim_work(sim);
    /* the pending list: 4 jobs waiting; head, 3 nexts, the last next
     * (NULL: nothing handed over), tail, prev */
    struct gs_job *j = gs_sim_pending_head(sim);
    step(sim, &at, 1);
    for (int k = 0; k < 3; k++)
        j = gs_sim_pending_next(sim, j);
    step(sim, &at, 3);
    if (gs_sim_pending_next(sim, j) != NULL || gs_sim_npending(sim) != 4)
        pr.bad++;
    step(sim, &at, 0);
    if (gs_sim_pending_prev(sim, gs_sim_pending_tail(sim)) == NULL)
        pr.bad++;
    step(sim, &at, 2);
    /* no job runs yet */
    if (gs_sim_nrunning(sim) != 0)
        pr.bad++;
    /* a heap: upkeep free, top/top_time/pop one each, a walk one a
     * visit, an empty heap's top nothing */
    for (int k = 0; k < 5; k++)
        gs_lheap_push(&pr.h, &pr.node[k], 10 - k);
    gs_lheap_update(&pr.h, &pr.node[0], 1);
    gs_lheap_remove(&pr.h, &pr.node[1]);
    step(sim, &at, 0);
    if (gs_lheap_top(&pr.h) != &pr.node[0] ||
        gs_lheap_top_time(&pr.h) != 1 || gs_lheap_size(&pr.h) != 4)
        pr.bad++;
    step(sim, &at, 2);
    int seen = 0;
    gs_lheap_walk(&pr.h, visit_two, &seen);
    step(sim, &at, 2);
    while (gs_lheap_pop(&pr.h) != NULL)
        ;
    step(sim, &at, 4);
    if (gs_lheap_top(&pr.h) != NULL || gs_lheap_top_time(&pr.h) !=
                                           GS_TIME_MAX)
        pr.bad++;
    step(sim, &at, 0);
    /* a vector: push, upd, del, setn free; at one a read */
    for (long k = 0; k < 6; k++)
        *(long *)gs_lvec_push(&pr.v) = k;
    *(long *)gs_lvec_upd(&pr.v, 0) = 7;
    gs_lvec_del(&pr.v, 1);             /* the last (5) moves into 1 */
    step(sim, &at, 0);
    long sum = 0;
    for (long k = 0; k < gs_lvec_n(&pr.v); k++)
        sum += *(long *)gs_lvec_at(&pr.v, k);
    if (sum != 7 + 5 + 2 + 3 + 4)
        pr.bad++;
    step(sim, &at, 5);
    gs_lvec_setn(&pr.v, 8);
    if (*(long *)gs_lvec_upd(&pr.v, 7) != 0)
        pr.bad++;
    step(sim, &at, 0);
    probe_list(sim, &at);
}

static void probe_schedule(void *st, struct gs_sim *sim)
{
    (void)st;
    if (gs_sim_npending(sim) == 4 && !pr.done) {
        probe_counts(sim);
        pr.done = 1;
    }
    /* then fifo, so the run ends; a running job read is counted too */
    struct gs_job *j;
    while ((j = gs_sim_pending_head(sim)) != NULL)
        if (gs_sim_try_start(sim, j, NULL, 0) < 0)
            break;
    uint64_t at = gs_sim_work(sim);
    for (long i = 0; i < gs_sim_nrunning(sim); i++)
        if (gs_sim_running_at(sim, i)->state != GS_JOB_RUNNING)
            pr.bad++;
    step(sim, &at, (uint64_t)gs_sim_nrunning(sim));
}

static const struct gs_policy_ops probe_policy = {
    .abi = GS_POLICY_ABI,
    .name = "probe",
    .init = probe_init,
    .free = probe_free,
    .schedule = probe_schedule,
};

static void test_accessors(void)
{
    /* five jobs of a whole node at once: the first pass starts one, and
     * the next (when it ends) finds four waiting, which the probe reads */
    static const char csv[] =
        "id,arrival,gpus,duration\n"
        "1,0,4,100\n"
        "2,0,4,100\n"
        "3,0,4,100\n"
        "4,0,4,100\n"
        "5,0,4,100\n";
    char json[1024];
    snprintf(json, sizeof json, one_node, "\"fifo\"");
    struct run r;
    memset(&r, 0, sizeof r);
    write_temp(csv, r.trace);
    char text[2048];
    snprintf(text, sizeof text, json, r.trace);
    CU_ASSERT_EQUAL_FATAL(gs_scenario_parse(text, "t.json", "/", &r.sc,
                                            &r.d), 0);
    struct gs_sim_opts o = { .policy_ops = &probe_policy };
    CU_ASSERT_EQUAL_FATAL(gs_sim_new(r.sc, &o, &r.sim, &r.d), 0);
    CU_ASSERT_EQUAL_FATAL(gs_sim_run(r.sim, &r.d), 0);
    CU_ASSERT_EQUAL(pr.done, 1);
    CU_ASSERT_EQUAL(pr.bad, 0);
    CU_ASSERT_EQUAL(gs_sim_summary(r.sim)->all.done, 5);
    run_free(&r);
}

static CU_TestInfo tests[] = {
    { "fifo's work on a small trace, worked by hand", test_fifo_by_hand },
    { "smallest's work (a counted heap), worked by hand",
      test_smallest_by_hand },
    { "fifo-backfill's work (heap, classes, trees), worked by hand",
      test_backfill_by_hand },
    { "priority's pass ends when nothing can start, worked by hand",
      test_priority_by_hand },
    { "each accessor counts what it hands over, upkeep nothing",
      test_accessors },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("look", tests)
