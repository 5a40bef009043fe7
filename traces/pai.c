/* pai.c -- Alibaba PAI 2020 (cluster-trace-gpu-v2020): tasks to jobs.
 *
 * Source: alibaba/clusterdata, cluster-trace-gpu-v2020 (README.md and the
 * *.header files); Weng et al., "MLaaS in the Wild: Workload Analysis and
 * Scheduling in Large-Scale Heterogeneous GPU Clusters", NSDI'22.  Two
 * months of a production cluster of ~6,500 GPUs on ~1,800 machines.  The
 * tables are CSV without a header row (the columns are in separate
 * .header files; a copy of that line at the top of a file is accepted):
 *   pai_task_table  job_name,task_name,inst_num,status,start_time,end_time,
 *                   plan_cpu,plan_mem,plan_gpu,gpu_type
 *   pai_job_table   job_name,inst_id,user,status,start_time,end_time
 * Times are seconds (shifted by a constant by the publisher).  A job is
 * translated into tasks (roles such as ps, worker, evaluator), each of
 * inst_num instances that ask plan_gpu percent of a GPU each.
 *
 * The rule (documented in docs/traces.md):
 *   one job per task row -- gpusim schedules a task's instances as one
 *             gang, as PAI's tasks are launched; the tasks of one PAI job
 *             are independent jobs here (their roles run side by side);
 *   gpus      total = inst_num x plan_gpu / 100: 0 (or an empty plan_gpu)
 *             is CPU-only; below 1 a fraction of one GPU (to 1/1000);
 *             else ceil(total) whole GPUs;
 *   arrival   the job's submit time (pai_job_table start_time) when the
 *             option "jobs" names that table or pai_job_table.csv lies
 *             beside the task table, else the task's start_time; a task
 *             whose job is not in the job table also falls back to its
 *             own start_time;
 *   duration  end_time - start_time of the task (0 -> 1 ms), measured on
 *             the GPU it ran on;
 *   reference gpu_type: V100 -> V100-16GB, V100M32 -> V100-32GB, P100 ->
 *             P100-16GB, T4 -> T4, MISC ("older generations, e.g. K40m,
 *             K80, M60") -> K80; empty -> none (the same time on any
 *             model).  gpu_type is where the task ran, not a constraint:
 *             any model is allowed;
 *   rows left out (and reported): tasks without a start or an end time
 *             (Waiting, or Running when the collection ended);
 *   status    Terminated and Failed tasks are kept alike (a failed task
 *             held its GPUs until it failed); option failed = "skip"
 *             leaves Failed ones out;
 *   tier      training (PAI mixes training and inference but does not say
 *             which a task is); tenant = the job table's user, else the
 *             option "tenant" (default "default");
 *   id        the task row's line number.
 * pai_instance_table (where each instance ran) is not read: placement is
 * what the simulation decides.  plan_cpu and plan_mem are not used.
 * pai_machine_spec (machine,gpu_type,cap_cpu,cap_mem,cap_gpu; no header)
 * is the node-list format "alibaba-pai-2020" (alibaba.c): one pool per
 * (GPU type, GPUs per machine), the types mapped as above.
 *
 * The job table is held in an open-addressing hash of job names (memory
 * proportional to its ~1 M rows); the task table is not sorted by time and
 * is loaded and sorted by the row engine (tread.h). */
#include "pai.h"
#include "tread.h"

#include "../sim/spec/scenario.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { T_JOB, T_TASK, T_INST, T_STATUS, T_START, T_END, T_CPU, T_MEM,
       T_GPU, T_TYPE, NTCOLS };

struct jobrec {
    char name[40];              /* "" = empty slot */
    char user[GS_TENANT_NAME];
    double submit;
};

struct pai {
    const struct gs_catalog *cat;
    char tenant[GS_TENANT_NAME];
    int skip_failed;
    struct jobrec *h;           /* the job table, NULL when not given */
    size_t hcap;                /* a power of 2 */
    struct gs_rows *rows;
};

static const struct { const char *trace, *catalog; } models[] = {
    { "V100", "V100-16GB" }, { "V100M32", "V100-32GB" },
    { "P100", "P100-16GB" }, { "T4", "T4" }, { "MISC", "K80" },
};

const char *gs_pai_gpu_model(const char *gpu_type)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].trace, gpu_type) == 0)
            return models[i].catalog;
    return NULL;
}

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;       /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static struct jobrec *lookup(const struct pai *p, const char *name, int add)
{
    size_t i = (size_t)hash(name) & (p->hcap - 1);
    while (p->h[i].name[0]) {
        if (strcmp(p->h[i].name, name) == 0)
            return &p->h[i];
        i = (i + 1) & (p->hcap - 1);
    }
    return add ? &p->h[i] : NULL;
}

/* Load pai_job_table: job_name -> (submit time, user). */
static int load_jobs(struct pai *p, const char *path, struct gs_diag *d)
{
    struct gs_tread *t;
    int rc = gs_tread_open(path, &t, d);
    if (rc < 0)
        return rc;
    long n = 0;
    char *line;
    while ((rc = gs_tread_line(t, &line, d)) == 1)
        n++;
    if (rc == 0)
        rc = gs_tread_rewind(t, d);
    p->hcap = 1024;
    while (rc == 0 && p->hcap < (size_t)n * 2)
        p->hcap *= 2;
    if (rc == 0 && (p->h = calloc(p->hcap, sizeof *p->h)) == NULL)
        rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    while (rc == 0 && (rc = gs_tread_line(t, &line, d)) == 1) {
        rc = 0;
        char *f[8];
        long ln = gs_tread_lineno(t);
        int nf = gs_tsplit(line, ',', f, 8);
        if (nf == 0 || (nf == 1 && f[0][0] == '\0'))
            continue;
        if (nf != 6) {
            rc = gs_diag_set_line(d, GS_EPARSE, path, ln, "%d fields where a "
                                  "pai_job_table row has 6 (job_name,inst_id,"
                                  "user,status,start_time,end_time)", nf);
            break;
        }
        if (ln == 1 && strcmp(f[0], "job_name") == 0)
            continue;                   /* the .header line */
        double submit;
        if (gs_tnum(f[4], &submit) < 0 || submit < 0 || submit > 9.0e12) {
            rc = gs_diag_set_line(d, GS_EPARSE, path, ln, "field "
                                  "'start_time': '%s' is not a time in "
                                  "seconds >= 0", f[4]);
            break;
        }
        if (f[0][0] == '\0' || strlen(f[0]) >= sizeof p->h[0].name) {
            rc = gs_diag_set_line(d, GS_EPARSE, path, ln, "field 'job_name': "
                                  "'%s' is empty or longer than %zu "
                                  "characters", f[0], sizeof p->h[0].name - 1);
            break;
        }
        struct jobrec *j = lookup(p, f[0], 1);
        if (j->name[0] == '\0') {
            snprintf(j->name, sizeof j->name, "%s", f[0]);
            char *where = gs_strf("%s:%ld", path, ln);
            gs_tenant_name(j->user, f[2][0] ? f[2] : p->tenant, path,
                           where ? where : path);
            free(where);
            j->submit = submit;
        }
    }
    gs_tread_close(t);
    return rc < 0 ? rc : 0;
}

static int pai_row(void *st, struct gs_trow *r, struct gs_jobspec *j)
{
    struct pai *p = st;
    if (r->line == 1 && r->nf >= 1 && strcmp(r->f[0], "job_name") == 0) {
        r->why = "the header line (pai_task_table.header)";
        return 0;
    }
    if (r->nf != NTCOLS)
        return gs_trow_fail(r, NULL, "%d fields where a pai_task_table row "
                            "has %d (job_name,task_name,inst_num,status,"
                            "start_time,end_time,plan_cpu,plan_mem,plan_gpu,"
                            "gpu_type)", r->nf, NTCOLS);
    char **v = r->f;
    if (v[T_JOB][0] == '\0')
        return gs_trow_fail(r, "job_name", "empty");
    double inst, gpu = 0, start, end;
    if (gs_tnum(v[T_INST], &inst) < 0 || inst < 1 || inst > 1e6 ||
        inst != floor(inst))
        return gs_trow_fail(r, "inst_num", "'%s' is not a whole number of "
                            "instances >= 1", v[T_INST]);
    if (v[T_GPU][0] && (gs_tnum(v[T_GPU], &gpu) < 0 || gpu < 0 || gpu > 1e6))
        return gs_trow_fail(r, "plan_gpu", "'%s' is not a GPU percentage "
                            ">= 0", v[T_GPU]);
    if (v[T_START][0] == '\0' || v[T_END][0] == '\0') {
        r->why = "no start_time or end_time (Waiting, or still Running)";
        return 0;
    }
    if (gs_tnum(v[T_START], &start) < 0 || start < 0 || start > 9.0e12)
        return gs_trow_fail(r, "start_time", "'%s' is not a time in seconds "
                            ">= 0", v[T_START]);
    if (gs_tnum(v[T_END], &end) < 0 || end < start || end > 9.0e12)
        return gs_trow_fail(r, "end_time", "'%s' is not a time in seconds at "
                            "or after start_time", v[T_END]);
    if (p->skip_failed && strcmp(v[T_STATUS], "Failed") == 0) {
        r->why = "status Failed (failed = \"skip\")";
        return 0;
    }
    int ref = -1;
    if (v[T_TYPE][0]) {
        const char *cn = gs_pai_gpu_model(v[T_TYPE]);
        if (cn == NULL)
            return gs_trow_fail(r, "gpu_type", "unknown GPU type '%s' (the "
                                "trace uses V100, V100M32, P100, T4, MISC)",
                                v[T_TYPE]);
        ref = gs_catalog_find(p->cat, cn);
    }
    double total = inst * gpu / 100.0;
    if (total <= 0) {
        j->gpus = 0;
    } else if (total < 1) {
        long m = lround(total * 1000.0);
        j->gpus = 0;
        j->milli = m < 1 ? 1 : m > 999 ? 999 : (int)m;
    } else {
        double g = ceil(total - 1e-9);
        if (g > GS_MAX_GPN * 4096.0)
            return gs_trow_fail(r, "plan_gpu", "%g GPUs in one task",
                                total);
        j->gpus = (int)g;
    }
    double arrival = start;
    snprintf(j->tenant, sizeof j->tenant, "%s", p->tenant);
    if (p->h) {
        const struct jobrec *jr = lookup(p, v[T_JOB], 0);
        if (jr) {
            arrival = jr->submit;
            snprintf(j->tenant, sizeof j->tenant, "%s", jr->user);
        }
    }
    j->id = r->line;
    j->arrival = (gs_time)llround(arrival * 1000.0);
    double ms = (end - start) * 1000.0;
    j->work = ms < 1.0 ? 1.0 : round(ms);
    j->ref_model = j->gpus > 0 || j->milli > 0 ? ref : -1;
    j->tier = GS_TIER_TRAINING;
    return 1;
}

static const struct gs_rows_ops pai_ops = {
    .delim = ',',
    .row = pai_row,
};

static void pai_close(void *st)
{
    struct pai *p = st;
    if (p == NULL)
        return;
    gs_rows_close(p->rows);
    free(p->h);
    free(p);
}

static int pai_open(const struct gs_scenario *sc, struct gs_params *o,
                    void **state, struct gs_diag *d)
{
    *state = NULL;
    struct pai *p = calloc(1, sizeof *p);
    if (p == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    p->cat = &sc->cat;
    snprintf(p->tenant, sizeof p->tenant, "%s", "default");
    char *path = NULL, *jobs = NULL;    /* gs_topt_path: in memory */
    const char *failed = NULL;
    int skip = 0, found = 0, rc;
    if ((rc = gs_topt_path(sc, o, "path", 1, &path, NULL, d)) < 0 ||
        (rc = gs_topt_path(sc, o, "jobs", 0, &jobs, &found, d)) < 0 ||
        (rc = gs_topt_skip(o, &skip, d)) < 0 ||
        (rc = gs_topt_tenant(o, "tenant", p->tenant, d)) < 0 ||
        (rc = gs_params_str(o, "failed", &failed, d)) < 0)
        goto fail;
    if (failed && strcmp(failed, "keep") != 0 && strcmp(failed, "skip") != 0) {
        char *where;
        where = gs_strf("%s.failed", o->where);
        rc = gs_diag_set_at(d, GS_EINVAL, where, "'%s' is not \"keep\" or "
                            "\"skip\"", failed);
        goto fail;
    }
    p->skip_failed = failed && strcmp(failed, "skip") == 0;
    if (!jobs) {
        /* pai_job_table.csv beside the task table, when it is there: built
         * in memory (cut to a buffer, a long folder's name could end in
         * another file's), not tried when no system call would take it */
        const char *slash = strrchr(path, '/');
        jobs = gs_strf("%.*s%s", slash ? (int)(slash - path + 1) : 0, path,
                       "pai_job_table.csv");
        if (jobs == NULL) {
            rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
            goto fail;
        }
        found = strlen(jobs) < PATH_MAX && access(jobs, R_OK) == 0;
    }
    if ((found && (rc = load_jobs(p, jobs, d)) < 0) ||
        (rc = gs_rows_open(path, &pai_ops, p, skip, &p->rows, d)) < 0)
        goto fail;
    free(path);
    free(jobs);
    *state = p;
    return 0;
fail:
    free(path);
    free(jobs);
    pai_close(p);
    return rc;
}

static int pai_next(void *st, struct gs_jobspec *out, struct gs_diag *d)
{
    struct pai *p = st;
    return gs_rows_next(p->rows, out, d);
}

const struct gs_trace_format gs_pai_format = {
    .name = "alibaba-pai-2020",
    .summary = "Alibaba PAI 2020 pai_task_table (+ pai_job_table): "
               "cluster-trace-gpu-v2020",
    .open = pai_open,
    .next = pai_next,
    .close = pai_close,
};
