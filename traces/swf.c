/* swf.c -- Standard Workload Format logs (Parallel Workloads Archive).
 *
 * Source: Feitelson et al., "Experience with using the Parallel Workloads
 * Archive" (JPDC 2014) and the archive's SWF definition.  One job a line,
 * 18 blank-separated numbers, -1 = unknown; lines starting with ';' are
 * header comments.  Fields (1-based):
 *   1 job number  2 submit time  3 wait time  4 run time  5 allocated
 *   processors  6 average CPU time  7 used memory  8 requested processors
 *   9 requested time  10 requested memory  11 status  12 user  13 group
 *   14 executable  15 queue  16 partition  17 preceding job  18 think time
 * Status: 1 completed, 0 failed, 5 cancelled, 2/3/4 parts of a checkpointed
 * job (partial, last partial completed, last partial failed), -1 unknown.
 * The file may be gzip-compressed (read through zlib; a truncated file is an
 * error).
 *
 * SWF logs describe CPU jobs; GPUs follow from a ratio the scenario must
 * declare, never from a silent default:
 *   gpus      ceil(processors / procs_per_gpu), processors = field 5, or
 *             field 8 when 5 is unknown; a job with neither (or 0) is left
 *             out and reported
 *   arrival   field 2 (s)
 *   duration  field 4 (s); a job whose run time is unknown is left out
 *   estimate  field 9 when known and the option estimate is true (default)
 *   status    the option status: "all" (default) or the codes to keep,
 *             e.g. "1" or "1|0" (or a number); others are left out
 *   tenant    tenant_from: "user" (default: "user<N>" from field 12),
 *             "group" (field 13), "queue" (field 15), or "none" ("default");
 *             an unknown id gives "default"
 *   id        field 1; tier: training.
 * Every field must be a number; a line with another count of fields, or a
 * field that is not a number, is a bad row naming the field. */
#include "swf.h"
#include "tread.h"

#include "../sim/spec/scenario.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const fname[18] = {
    "job_number", "submit_time", "wait_time", "run_time",
    "allocated_processors", "average_cpu_time", "used_memory",
    "requested_processors", "requested_time", "requested_memory", "status",
    "user_id", "group_id", "executable", "queue", "partition",
    "preceding_job", "think_time"
};

enum { TEN_USER, TEN_GROUP, TEN_QUEUE, TEN_NONE };

struct swf {
    double ratio;
    unsigned keep;              /* bit s+1 for status s (-1..5) */
    int tenant_from;
    int estimate;
    struct gs_rows *rows;
};

static int swf_row(void *st, struct gs_trow *r, struct gs_jobspec *j)
{
    struct swf *s = st;
    if (r->nf != 18)
        return gs_trow_fail(r, NULL, "%d fields where an SWF line has 18",
                            r->nf);
    double v[18];
    for (int i = 0; i < 18; i++)
        if (gs_tnum(r->f[i], &v[i]) < 0 || (v[i] < 0 && v[i] != -1) ||
            v[i] > 9.0e12)
            return gs_trow_fail(r, fname[i], "'%s' is not a number >= 0 or "
                                "-1 (unknown)", r->f[i]);
    for (int i = 0; i < 18; i++)
        if (i != 5 && v[i] != floor(v[i]))
            return gs_trow_fail(r, fname[i], "'%s' is not a whole number",
                                r->f[i]);
    if (v[0] < 0)
        return gs_trow_fail(r, fname[0], "unknown (-1); every job has a "
                            "number");
    if (v[1] < 0)
        return gs_trow_fail(r, fname[1], "unknown (-1); a job needs its "
                            "submit time");
    int status = (int)v[10];
    if (status > 5)
        return gs_trow_fail(r, fname[10], "%d is not an SWF status (-1 to 5)",
                            status);
    if (!(s->keep & (1u << (status + 1)))) {
        r->why = "status not kept (option status)";
        return 0;
    }
    if (v[3] < 0) {
        r->why = "run time unknown (-1)";
        return 0;
    }
    double procs = v[4] >= 0 ? v[4] : v[7];
    if (procs <= 0) {
        r->why = "no processor count (allocated and requested unknown or 0)";
        return 0;
    }
    double g = ceil(procs / s->ratio - 1e-9);
    if (g > 1e6)
        return gs_trow_fail(r, v[4] >= 0 ? fname[4] : fname[7], "%.0f "
                            "processors make %.0f GPUs; too many", procs, g);
    j->id = (int64_t)v[0];
    j->arrival = (gs_time)llround(v[1] * 1000.0);
    j->gpus = g < 1 ? 1 : (int)g;
    j->work = v[3] > 0 ? v[3] * 1000.0 : 1.0;
    if (s->estimate && v[8] > 0)
        j->estimate = (gs_time)llround(v[8] * 1000.0);
    j->tier = GS_TIER_TRAINING;
    int col = s->tenant_from == TEN_USER ? 11 : s->tenant_from == TEN_GROUP
              ? 12 : s->tenant_from == TEN_QUEUE ? 14 : -1;
    if (col >= 0 && v[col] >= 0)
        snprintf(j->tenant, sizeof j->tenant, "%s%.0f",
                 col == 11 ? "user" : col == 12 ? "group" : "queue", v[col]);
    return 1;
}

static const struct gs_rows_ops swf_ops = {
    .delim = ' ',
    .comment = ';',
    .row = swf_row,
};

static void swf_close(void *st)
{
    struct swf *s = st;
    if (s == NULL)
        return;
    gs_rows_close(s->rows);
    free(s);
}

static int opt_fail(struct gs_params *o, const char *key, struct gs_diag *d,
                    const char *what)
{
    char *where;
    where = gs_strf("%s.%s", o->where, key);
    return gs_diag_set_at(d, GS_EINVAL, where, "%s", what);
}

static int parse_status(struct swf *s, struct gs_params *o, struct gs_diag *d)
{
    s->keep = 0x7f;
    struct gs_param *pv = NULL;
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->v[i].key, "status") == 0)
            pv = &o->v[i];
    if (pv == NULL)
        return 0;
    if (pv->is_num) {
        double x = 0;
        int rc = gs_params_num(o, "status", -1, 5, &x, d);
        if (rc < 0)
            return rc;
        if (x != floor(x))
            return opt_fail(o, "status", d, "expected a status code -1..5");
        s->keep = 1u << ((int)x + 1);
        return 0;
    }
    const char *str = NULL;
    gs_params_str(o, "status", &str, d);
    if (strcmp(str, "all") == 0)
        return 0;
    s->keep = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", str);
    for (char *p = buf, *bar; p; p = bar) {
        bar = strchr(p, '|');
        if (bar)
            *bar++ = '\0';
        long long c;
        if (gs_tint(p, -1, 5, &c) < 0)
            return opt_fail(o, "status", d, "expected \"all\" or status "
                            "codes -1..5 separated by '|', e.g. \"1|0\"");
        s->keep |= 1u << (c + 1);
    }
    return 0;
}

static int swf_open(const struct gs_scenario *sc, struct gs_params *o,
                    void **state, struct gs_diag *d)
{
    *state = NULL;
    struct swf *s = calloc(1, sizeof *s);
    if (s == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    s->ratio = -1;
    s->estimate = 1;
    char *path = NULL;
    const char *tf = NULL;
    int skip = 0, rc;
    if ((rc = gs_topt_path(sc, o, "path", 1, &path, NULL, d)) < 0 ||
        (rc = gs_topt_skip(o, &skip, d)) < 0 ||
        (rc = gs_params_num(o, "procs_per_gpu", 1e-6, 1e9, &s->ratio, d)) < 0 ||
        (rc = gs_params_bool(o, "estimate", &s->estimate, d)) < 0 ||
        (rc = gs_params_str(o, "tenant_from", &tf, d)) < 0 ||
        (rc = parse_status(s, o, d)) < 0)
        goto fail;
    if (s->ratio < 0) {
        rc = gs_diag_set(d, GS_EINVAL, o->where, "missing required key "
                         "'procs_per_gpu' (SWF jobs count processors; say how "
                         "many make one GPU)");
        goto fail;
    }
    if (tf) {
        static const char *const names[] = { "user", "group", "queue",
                                             "none" };
        s->tenant_from = -1;
        for (int i = 0; i < 4; i++)
            if (strcmp(tf, names[i]) == 0)
                s->tenant_from = i;
        if (s->tenant_from < 0) {
            rc = opt_fail(o, "tenant_from", d, "expected \"user\", \"group\", "
                          "\"queue\" or \"none\"");
            goto fail;
        }
    }
    if ((rc = gs_rows_open(path, &swf_ops, s, skip, &s->rows, d)) < 0)
        goto fail;
    free(path);
    *state = s;
    return 0;
fail:
    free(path);
    swf_close(s);
    return rc;
}

static int swf_next(void *st, struct gs_jobspec *out, struct gs_diag *d)
{
    struct swf *s = st;
    return gs_rows_next(s->rows, out, d);
}

const struct gs_trace_format gs_swf_format = {
    .name = "swf",
    .summary = "Parallel Workloads Archive SWF (.swf or .swf.gz); needs "
               "procs_per_gpu",
    .open = swf_open,
    .next = swf_next,
    .close = swf_close,
};
