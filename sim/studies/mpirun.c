/* mpirun.c -- tasks over MPI ranks (see mpirun.h).
 *
 * Tasks are dealt in contiguous blocks: rank r of size P takes tasks
 * [r*n/P, (r+1)*n/P).  Each rank runs its block with gs_pool_run (forked
 * workers), then MPI_Allgatherv puts every block on every rank in task
 * order.  One extra double per task carries its return code, so a failure
 * anywhere is known everywhere; the lowest failing rank broadcasts its
 * diagnostic, and every rank returns the same error.
 *
 * Open MPI tolerates fork() in a rank as long as the child makes no MPI
 * call and exits with _exit(), which is what pool.c's workers do. */
#include "mpirun.h"
#include "../io/outfile.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int started, rank, size = 1;
static gs_dist_done_fn *done_fn;
static void *done_ctx;
static int done_total;

static int launched(void)
{
    static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
                                        "PMI_RANK", NULL };
    for (int i = 0; vars[i]; i++)
        if (getenv(vars[i]))
            return 1;
    return 0;
}

int gs_dist_init(int *argc, char ***argv)
{
    if (started || !launched())
        return 0;
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return GS_EIO;
    started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return 0;
}

void gs_dist_finalize(void)
{
    if (started)
        MPI_Finalize();
    started = 0;
    rank = 0;
    size = 1;
}

int gs_dist_rank(void)
{
    return rank;
}

int gs_dist_size(void)
{
    return size;
}

int gs_dist_leader(void)
{
    return rank == 0;
}

void gs_dist_progress(gs_dist_done_fn *fn, void *ctx)
{
    done_fn = fn;
    done_ctx = ctx;
}

static void on_done(int task, int ndone, const double *out, void *ctx)
{
    (void)task;
    (void)out;
    (void)ctx;
    if (done_fn && rank == 0)
        done_fn(ndone, done_total, done_ctx);
}

/* gs_pool_exec, reporting progress on the leader. */
static int pool_run(int ntasks, int jobs, int nout, gs_pool_fn *fn,
                    gs_pool_name_fn *name, void *ctx, double *results,
                    struct gs_diag *d)
{
    struct gs_pool_tasks t = { .ntasks = ntasks, .jobs = jobs, .nout = nout,
                               .fn = fn, .name = name, .done = on_done,
                               .ctx = ctx };
    done_total = ntasks;
    return gs_pool_exec(&t, results, d);
}

int gs_dist_agree(int v)
{
    if (size > 1)
        MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return v;
}

int gs_dist_out_check(const char *scenario, const char *suffix, int force,
                      const char **out, char **defout, struct gs_diag *d)
{
    *defout = NULL;
    if (*out == NULL) {
        *defout = gs_out_default_name(scenario, suffix);
        GS_OOM_IF(*defout == NULL);
        *out = *defout;
    }
    int refused = gs_dist_leader() &&
                  (gs_out_check_seekable(*out, d) < 0 ||
                   (*defout && gs_out_check_new(*out, force, d) < 0));
    if (refused)
        gs_diag_prefix(d, "--out");
    return gs_dist_agree(refused) ? GS_EINVAL : 0;
}

int gs_dist_default_jobs(void)
{
    if (size > 1)
        return 1;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

struct blk {
    int first, nout;
    gs_pool_fn *fn;
    gs_pool_name_fn *name;
    void *ctx;
};

/* The name of one task of this rank's block. */
static char *blk_name(int task, void *ctx)
{
    struct blk *b = ctx;
    return b->name ? b->name(b->first + task, b->ctx) : NULL;
}

/* One task of this rank's block; its code goes in the last slot. */
static int blk_task(int task, double *out, void *ctx, struct gs_diag *d)
{
    struct blk *b = ctx;
    int rc = b->fn(b->first + task, out, b->ctx, d);
    out[b->nout] = rc;
    return rc;
}

int gs_dist_run(int ntasks, int jobs, int nout, gs_pool_fn *fn, void *ctx,
                double *results, struct gs_diag *d)
{
    return gs_dist_run_named(ntasks, jobs, nout, fn, NULL, ctx, results, d);
}

/* Rank first's diagnostic (mine there) sent to every rank and put in d
 * when it holds none: its code and strings' lengths, then the strings. */
static void tell_diag(const struct gs_diag *mine, int is_first, int first,
                      struct gs_diag *d)
{
    int len[3] = { 0, 0, 0 };
    if (is_first && mine->code) {
        len[0] = mine->code;
        len[1] = (int)strlen(mine->where);
        len[2] = (int)strlen(mine->what);
    }
    MPI_Bcast(len, 3, MPI_INT, first, MPI_COMM_WORLD);
    char *text = malloc((size_t)len[1] + (size_t)len[2] + 2);
    GS_OOM_IF(text == NULL);        /* the others wait in the broadcast */
    if (is_first && mine->code) {
        memcpy(text, mine->where, (size_t)len[1] + 1);
        memcpy(text + len[1] + 1, mine->what, (size_t)len[2] + 1);
    }
    MPI_Bcast(text, len[1] + len[2] + 2, MPI_CHAR, first, MPI_COMM_WORLD);
    text[len[1]] = text[len[1] + 1 + len[2]] = '\0';
    if (len[0])
        gs_diag_set(d, len[0], text, "%s", text + len[1] + 1);
    free(text);
}

int gs_dist_run_named(int ntasks, int jobs, int nout, gs_pool_fn *fn,
                      gs_pool_name_fn *name, void *ctx, double *results,
                      struct gs_diag *d)
{
    if (size <= 1)
        return pool_run(ntasks, jobs, nout, fn, name, ctx, results, d);
    int w = nout + 1;
    int *cnt = calloc((size_t)size, sizeof *cnt);
    int *disp = calloc((size_t)size, sizeof *disp);
    double *all = calloc((size_t)ntasks * (size_t)w + 1, sizeof *all);
    if (!cnt || !disp || !all) {
        free(cnt);
        free(disp);
        free(all);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    for (int r = 0; r < size; r++) {
        int lo = (int)((long)r * ntasks / size);
        int hi = (int)((long)(r + 1) * ntasks / size);
        cnt[r] = (hi - lo) * w;
        disp[r] = lo * w;
    }
    struct blk b = { disp[rank] / w, nout, fn, name, ctx };
    struct gs_diag mine = { 0 };
    int rc = pool_run(cnt[rank] / w, jobs, w, blk_task, blk_name, &b,
                      all + disp[rank], &mine);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, cnt, disp,
                   MPI_DOUBLE, MPI_COMM_WORLD);
    /* the lowest rank that failed tells the others why */
    int me = rc < 0 ? rank : size, first;
    MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first < size) {
        int code = rc;
        MPI_Bcast(&code, 1, MPI_INT, first, MPI_COMM_WORLD);
        tell_diag(&mine, rank == first, first, d);
        rc = code < 0 ? code : GS_EIO;
    } else {
        rc = 0;
    }
    gs_diag_free(&mine);
    for (int t = 0; t < ntasks; t++)
        memcpy(results + (size_t)t * nout, all + (size_t)t * w,
               (size_t)nout * sizeof *results);
    free(cnt);
    free(disp);
    free(all);
    return rc;
}
