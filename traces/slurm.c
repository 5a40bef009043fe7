/* slurm.c -- Slurm accounting (sacct) as a workload, scontrol's node list
 * as a fleet.
 *
 * Sources: the sacct(1) and scontrol(1) man pages (Slurm 23.x): the
 * --parsable2 output ('|'-separated, a header line, no trailing '|'), job
 * ids (123, 123_4 for array tasks, 123+0 for heterogeneous components,
 * 123.batch / 123.extern / 123.0 for steps), times (local time
 * "YYYY-MM-DDTHH:MM:SS" without a zone; "Unknown" or "None" when not
 * known), the time-limit forms, and TRES strings ("billing=8,cpu=8,
 * gres/gpu:a100=4,gres/gpu=4,mem=64G,node=1").
 *
 * Trace format "slurm-sacct": the output of
 *   sacct --allusers --parsable2 -S START -E END --format=JobID,Submit,
 *         Start,End,Partition,Account,QOS,State,AllocTRES,ReqTRES,
 *         Timelimit,NNodes
 * with or without -X.  Columns are found by the header's names (JobID,
 * Submit, Start, End and State are required; the others optional).  One
 * job per job row; step rows (an id with '.') are folded into their job
 * (counted, never jobs of their own).  A job:
 *   arrival   Submit, local time in the option tz ("UTC" by default, an
 *             offset "+02:00", or a tz database name); ms after the
 *             earliest kept Submit
 *   start     Start; end End; work end - start (a RUNNING job ends at
 *             option export_time, else the latest time in the file, or
 *             is left out with option running "drop")
 *   GPUs      AllocTRES (ReqTRES when AllocTRES is empty): gres/gpu=N, or
 *             the gres/gpu:TYPE=N counts summed when there is no untyped
 *             total -- never the two added; the first TYPE's family
 *             ("a100" -> A100) is the job's gpu_family when the catalog
 *             has a model of it
 *   cpu, mem  the TRES's cpu and mem
 *   tenant    Account (option tenant_from: "account", "partition",
 *             "qos"); "default" when empty
 *   tier      QOS through option tiers ("qos=tier,..."), else by name as
 *             gs_cimp_tier_guess has it
 *   estimate  Timelimit
 *   allowed   with option nodes (a slurm-nodes file), the GPU models of
 *             the job's Partition's nodes
 * Left out, by reason: PENDING jobs, jobs that never started (Start
 * Unknown/None: cancelled in the queue), jobs asking no GPU (unless option
 * cpu_jobs is true), RUNNING jobs with running "drop", steps whose job row
 * is absent.  A malformed row is an error naming line and field
 * (skip_bad_rows: counted and left out).
 *
 * Node-list format "slurm-nodes": one node a line, blank-separated
 * KEY=VALUE (a word without '=' continues the previous value: Reason and
 * OS hold blanks).  NodeName; CPUTot (CPUs); RealMemory (MiB); Gres
 * "gpu:TYPE:N[(S:...)]" entries (several types on one node: the most
 * numerous is the node's model, with a warning); the model is the Gres
 * type, else the first AvailableFeatures word the catalog knows; State
 * with DOWN, DRAIN, FAIL, FUTURE, NOT_RESPONDING or a trailing '*' is left
 * out; Partitions names the pool ("gpu,all" -> "gpu+all").
 *
 * MIG.  Slurm names a MIG instance's gres type by its profile, alone
 * ("gpu:1g.10gb:7", gres.conf's Type=) or after the GPU's name
 * ("a100_3g.40gb", AutoDetect=nvml).  A node's instances become a MIG pool
 * of the fewest GPUs cut alike that hold them (mig_node); its whole GPUs,
 * if it has both, a node of their own beside it.  A job's one instance in
 * AllocTRES is its mig_profile, its work scaled by the profile's share of
 * the GPU's compute slices as k8s-pods does; several instances, or an
 * instance and whole GPUs, leave it out. */
#include "slurm.h"
#include "cimport.h"
#include "tread.h"

#include "../sim/cluster/mig.h"
#include "../sim/spec/scenario.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* --- small parsers ----------------------------------------------------------- */

int gs_slurm_timelimit(const char *s, int64_t *ms)
{
    if (strcasecmp(s, "UNLIMITED") == 0 || strcmp(s, "Partition_Limit") == 0 ||
        strcmp(s, "INFINITE") == 0 || s[0] == '\0') {
        *ms = 0;
        return 0;
    }
    long v[4] = { 0 }, days = 0;
    int n = 0, dash = 0;
    const char *p = s;
    const char *d = strchr(s, '-');
    if (d) {
        char *e;
        days = strtol(s, &e, 10);
        if (e != d || e == s || days < 0 || days > 100000)
            return -1;
        p = d + 1;
        dash = 1;
    }
    while (*p) {
        if (n == 3 || !isdigit((unsigned char)*p))
            return -1;
        char *e;
        v[n++] = strtol(p, &e, 10);
        if (v[n - 1] > 1000000)
            return -1;
        p = e;
        if (*p == ':')
            p++;
        else if (*p != '\0')
            return -1;
    }
    long secs;
    if (dash)   /* days-hours[:minutes[:seconds]] */
        secs = days * 86400 + v[0] * 3600 + v[1] * 60 + v[2];
    else if (n == 1)            /* minutes */
        secs = v[0] * 60;
    else if (n == 2)            /* minutes:seconds */
        secs = v[0] * 60 + v[1];
    else if (n == 3)            /* hours:minutes:seconds */
        secs = v[0] * 3600 + v[1] * 60 + v[2];
    else
        return -1;
    *ms = (int64_t)secs * 1000;
    return 0;
}

/* "64G", "1000M", "1.50T", "512" (MiB) -> MiB; -1 when malformed. */
static long mem_mib(const char *s)
{
    char *e;
    double v = strtod(s, &e);
    if (e == s || !(v >= 0))
        return -1;
    double mul = 1;
    switch (*e) {
    case 'K': mul = 1.0 / 1024; e++; break;
    case 'M': e++; break;
    case 'G': mul = 1024; e++; break;
    case 'T': mul = 1048576; e++; break;
    case 'P': mul = 1073741824.0; e++; break;
    default: break;
    }
    if (*e == 'c' || *e == 'n')     /* old ReqMem: per CPU / per node */
        e++;
    if (*e != '\0' || v * mul > 2.0e9)
        return -1;
    return (long)llround(v * mul);
}

static int tres_in(char *buf, long *total, long *typed, char *type, size_t n,
                   long *cpu, long *mem);

int gs_slurm_tres(const char *s, long *gpus, char *type, size_t n,
                  long *cpu, long *mem)
{
    long total = -1, typed = 0;
    *gpus = 0;
    *cpu = 0;
    *mem = 0;
    if (n)
        type[0] = '\0';
    char *buf = strdup(s);          /* any length (was 1,023 bytes) */
    if (buf == NULL)
        return -1;
    int rc = tres_in(buf, &total, &typed, type, n, cpu, mem);
    free(buf);
    if (rc < 0)
        return -1;
    *gpus = total >= 0 ? total : typed;
    return 0;
}

/* gs_slurm_tres on a copy it may split. */
static int tres_in(char *buf, long *total, long *typed, char *type, size_t n,
                   long *cpu, long *mem)
{
    char *save = NULL;
    for (char *it = strtok_r(buf, ",", &save); it;
         it = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(it, '=');
        if (eq == NULL)
            return -1;
        *eq = '\0';
        const char *val = eq + 1;
        long long v = 0;
        if (strcmp(it, "mem") == 0) {
            if ((*mem = mem_mib(val)) < 0)
                return -1;
            continue;
        }
        int isgpu = strcmp(it, "gres/gpu") == 0;
        int istyped = strncmp(it, "gres/gpu:", 9) == 0;
        if (strcmp(it, "cpu") != 0 && !isgpu && !istyped)
            continue;       /* billing, node, energy, licenses, ... */
        if (gs_tint(val, 0, 100000000, &v) < 0)
            return -1;
        if (strcmp(it, "cpu") == 0)
            *cpu = (long)v;
        else if (isgpu)
            *total = (long)v;
        else {
            *typed += (long)v;
            if (n && type[0] == '\0')
                snprintf(type, n, "%s", it + 9);
        }
    }
    return 0;
}

/* The MIG profile a gres type names ("1g.10gb", "a100_1g.10gb",
 * "nvidia_h100_80gb_hbm3_3g.40gb": Slurm's AutoDetect=nvml joins the GPU's
 * name and the profile), or NULL; *plen is the length of the GPU part
 * before it (0 when none, else without the '_'). */
static const char *mig_type(const char *type, size_t *plen)
{
    const char *p = strrchr(type, '_');
    p = p ? p + 1 : type;
    *plen = p > type ? (size_t)(p - type - 1) : 0;
    if (p[0] < '1' || p[0] > '7' || p[1] != 'g' || p[2] != '.' ||
        !isdigit((unsigned char)p[3]))
        return NULL;
    size_t k = 3;
    while (isdigit((unsigned char)p[k]))
        k++;
    return strcmp(p + k, "gb") == 0 ? p : NULL;
}

/* The model of cat, a MIG GPU with profile prof, that a gres type's GPU
 * part names (its family: "a100" -> the A100 with that profile), or with
 * no GPU part the catalog's first (*several set when more than one has
 * the profile); -1 when none. */
static int mig_model(struct gs_catalog *cat, const char *gpu, const char *prof,
                     int *several)
{
    char fam[GS_GPU_FAMILY_NAME] = "";
    *several = 0;
    if (gpu[0] && gs_cimp_gpu_family(cat, gpu, fam, sizeof fam) < 0)
        return -1;
    size_t fl = strlen(fam);
    int found = -1;
    for (int i = 0; i < cat->n; i++) {
        const char *nm = cat->m[i].name;
        if (fl && (strncasecmp(nm, fam, fl) != 0 ||
                   (nm[fl] != '\0' && nm[fl] != '-')))
            continue;
        const struct gs_mig_gpu *mg = gs_mig_gpu_find(nm);
        if (mg && gs_mig_profile_find(mg, prof)) {
            if (found >= 0)
                *several = 1;
            else
                found = i;
        }
    }
    return found;
}

/* --- sacct ------------------------------------------------------------------- */

enum { C_JOBID, C_SUBMIT, C_START, C_END, C_PART, C_ACCOUNT, C_QOS, C_STATE,
       C_ALLOC, C_REQ, C_LIMIT, C_NNODES, NCOL };

static const char *const cname[NCOL] = {
    "JobID", "Submit", "Start", "End", "Partition", "Account", "QOS", "State",
    "AllocTRES", "ReqTRES", "Timelimit", "NNodes",
};

enum { TEN_ACCOUNT, TEN_PARTITION, TEN_QOS };

/* A partition's GPU models (option nodes). */
struct spart {
    char name[GS_NAME];
    uint64_t models;
};

struct sjob {
    char key[64];               /* the job id without a step */
    int64_t submit, start, end;
    struct gs_jobspec s;
    int running;
    const char *why;            /* its asks leave it out, or NULL */
};

struct sacct {
    struct gs_cimp_hist h;      /* first: gs_cimp_hist_next reads it */
    const struct gs_scenario *sc;
    struct gs_cimp_tz tz;
    int tenant_from;
    int64_t export_ms;
    int col[NCOL];
    int ncols;
    struct spart *parts;
    int nparts;
    struct sjob *v;
    long n, cap;
    long steps;
    char last[64];              /* the last job row's id */
    int64_t latest;
};

static int sfail(struct gs_diag *d, const char *path, long line,
                 const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int sfail(struct gs_diag *d, const char *path, long line,
                 const char *field, const char *fmt, ...)
{
    char what[400];
    char *where = field ? gs_strf("%s:%ld: field '%s'", path, line, field)
                        : gs_strf("%s:%ld", path, line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gs_diag_set_at(d, GS_EPARSE, where, "%s", what);
}

/* Split a --parsable2 line at '|' in place; the number of fields. */
static int psplit(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;; p++) {
        if (n < max)
            f[n] = p;
        n++;
        p = strchr(p, '|');
        if (p == NULL)
            break;
        *p = '\0';
    }
    return n;
}

static int sacct_header(struct sacct *s, char *line, const char *path,
                        struct gs_diag *d)
{
    char *f[64];
    int nf = psplit(line, f, 64);
    if (nf > 64)
        return sfail(d, path, 1, NULL, "%d columns; at most 64", nf);
    for (int c = 0; c < NCOL; c++)
        s->col[c] = -1;
    for (int i = 0; i < nf; i++)
        for (int c = 0; c < NCOL; c++)
            if (strcasecmp(f[i], cname[c]) == 0)
                s->col[c] = i;
    for (int c = 0; c <= C_STATE; c++)
        if (s->col[c] < 0 && (c <= C_END || c == C_STATE))
            return sfail(d, path, 1, NULL, "no column '%s' in the header: run "
                         "sacct --parsable2 --format=JobID,Submit,Start,End,"
                         "Partition,Account,QOS,State,AllocTRES,ReqTRES,"
                         "Timelimit,NNodes", cname[c]);
    s->ncols = nf;
    return 0;
}

/* A time field: 0 with *ms (-1 for Unknown/None/empty), or the error. */
static int stime(struct sacct *s, const char *path, long line, int c,
                 const char *v, int64_t *ms, struct gs_diag *d)
{
    *ms = -1;
    if (v[0] == '\0' || strcmp(v, "Unknown") == 0 || strcmp(v, "None") == 0)
        return 0;
    if (gs_cimp_localtime(v, &s->tz, ms) < 0)
        return sfail(d, path, line, cname[c], "'%s' is not a time "
                     "(YYYY-MM-DDTHH:MM:SS, Unknown or None)", v);
    if (*ms > s->latest)
        s->latest = *ms;
    return 0;
}

static const char *fcol(char **f, int nf, const struct sacct *s, int c)
{
    return s->col[c] >= 0 && s->col[c] < nf ? f[s->col[c]] : "";
}

/* The MIG instances a TRES list asks ("gres/gpu:1g.10gb=1",
 * "gres/gpu:a100_3g.40gb=2"): their count into *migs, the first one's
 * profile and GPU part into prof and gpu; the typed whole GPUs into
 * *whole. */
static void tres_mig(const char *s, char *prof, size_t pn, char *gpu,
                     size_t gn, long *migs, long *whole)
{
    *migs = *whole = 0;
    prof[0] = gpu[0] = '\0';
    for (const char *p = strstr(s, "gres/gpu:"); p;
         p = strstr(p + 1, "gres/gpu:")) {
        const char *t = p + 9, *eq = strchr(t, '=');
        const char *comma = strchr(t, ',');
        if (eq == NULL || (comma && comma < eq))
            continue;
        char type[96];
        snprintf(type, sizeof type, "%.*s", (int)((eq - t) < 95 ? eq - t : 95),
                 t);
        long v = strtol(eq + 1, NULL, 10);
        size_t gl;
        const char *mp = mig_type(type, &gl);
        if (mp == NULL) {
            *whole += v;
            continue;
        }
        if (*migs == 0 || strcmp(prof, mp) == 0) {
            snprintf(prof, pn, "%.*s", (int)pn - 1, mp);
            snprintf(gpu, gn, "%.*s", (int)gl, type);
        } else {
            *migs += 1000;      /* two profiles: never one instance */
        }
        *migs += v;
    }
}

/* A job asking MIG instances (Slurm's MIG gres types): one instance is the
 * job's mig_profile; more, or instances and whole GPUs, leave it out. */
static void sacct_mig(struct sacct *s, const char *tres, struct sjob *j)
{
    char prof[GS_MIG_PROFILE_NAME], gpu[64];
    long migs, whole;
    tres_mig(tres, prof, sizeof prof, gpu, sizeof gpu, &migs, &whole);
    if (migs == 0)
        return;
    if (migs > 1)
        j->why = "asks for more than one MIG instance (a job takes one)";
    else if (whole > 0)
        j->why = "asks for a MIG instance and whole GPUs";
    if (j->why)
        return;
    j->s.gpus = 1;
    snprintf(j->s.mig_profile, sizeof j->s.mig_profile, "%s", prof);
    j->s.gpu_family[0] = '\0';
    if (gpu[0])
        gs_cimp_gpu_family(&s->sc->cat, gpu, j->s.gpu_family,
                           sizeof j->s.gpu_family);
}

/* The job's resources from its TRES and the other columns. */
static int sacct_asks(struct sacct *s, const char *path, long line, char **f,
                      int nf, struct sjob *j, struct gs_diag *d)
{
    const char *alloc = fcol(f, nf, s, C_ALLOC);
    int c = alloc[0] ? C_ALLOC : C_REQ;
    long gpus, cpu, mem;
    char type[GS_GPU_FAMILY_NAME];
    if (gs_slurm_tres(fcol(f, nf, s, c), &gpus, type, sizeof type, &cpu,
                      &mem) < 0)
        return sfail(d, path, line, cname[c], "'%s' is not a TRES list "
                     "(cpu=8,mem=64G,gres/gpu=4)", fcol(f, nf, s, c));
    if (gpus > 1000000 || cpu > 2000000)
        return sfail(d, path, line, cname[c], "%ld GPUs, %ld CPUs: out of "
                     "range", gpus, cpu);
    j->s.gpus = (int)gpus;
    j->s.cpu_milli = (int32_t)(cpu * 1000);
    j->s.mem_mib = (int32_t)mem;
    if (type[0])
        gs_cimp_gpu_family(&s->sc->cat, type, j->s.gpu_family,
                           sizeof j->s.gpu_family);
    sacct_mig(s, fcol(f, nf, s, c), j);
    int64_t lim;
    const char *tl = fcol(f, nf, s, C_LIMIT);
    if (gs_slurm_timelimit(tl, &lim) < 0)
        return sfail(d, path, line, cname[C_LIMIT], "'%s' is not a time limit "
                     "([D-]HH:MM:SS, minutes, UNLIMITED)", tl);
    j->s.estimate = lim;
    const char *part = fcol(f, nf, s, C_PART);
    for (int i = 0; i < s->nparts; i++)
        if (strcmp(s->parts[i].name, part) == 0)
            j->s.allowed = s->parts[i].models;
    const char *ten = fcol(f, nf, s, s->tenant_from == TEN_PARTITION ? C_PART
                           : s->tenant_from == TEN_QOS ? C_QOS : C_ACCOUNT);
    char *where = NULL;
    if (asprintf(&where, "%s:%ld", path, line) < 0)
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    gs_tenant_name(j->s.tenant, ten[0] ? ten : "default", path, where);
    free(where);
    j->s.tier = gs_cimp_tier(&s->h.tiers, fcol(f, nf, s, C_QOS));
    return 0;
}

/* One data row: a job appended, a step counted, or an error. */
static int sacct_row(struct sacct *s, const char *path, long line,
                     char *text, struct gs_diag *d)
{
    char *f[64];
    int nf = psplit(text, f, 64);
    if (nf == s->ncols + 1 && f[nf - 1][0] == '\0')
        nf--;       /* --parsable (not 2) ends lines with '|' */
    if (nf != s->ncols)
        return sfail(d, path, line, NULL, "%d fields where the header has %d",
                     nf, s->ncols);
    const char *id = fcol(f, nf, s, C_JOBID);
    if (id[0] == '\0' || strlen(id) >= 64 || !isdigit((unsigned char)id[0]))
        return sfail(d, path, line, "JobID", "'%s' is not a job id (123, "
                     "123_4, 123+0, 123.batch)", id);
    if (strchr(id, '.')) {
        s->steps++;
        size_t kl = (size_t)(strchr(id, '.') - id);
        if (strlen(s->last) != kl || strncmp(s->last, id, kl) != 0)
            gs_cimp_leave(&s->h.left, "a step whose job row is absent", id);
        return 0;
    }
    int rc = gs_cimp_grow_counted(&s->v, &s->cap, s->n, sizeof *s->v,
                                  gs_cimp_job_bytes(sizeof *s->v),
                                  "job rows", path, d);
    if (rc < 0)
        return rc;
    struct sjob *j = &s->v[s->n];
    memset(j, 0, sizeof *j);
    snprintf(s->last, sizeof s->last, "%s", id);
    gs_jobspec_init(&j->s);
    j->s.line = line;
    snprintf(j->key, sizeof j->key, "%s", id);
    if ((rc = stime(s, path, line, C_SUBMIT, fcol(f, nf, s, C_SUBMIT),
                    &j->submit, d)) < 0 ||
        (rc = stime(s, path, line, C_START, fcol(f, nf, s, C_START),
                    &j->start, d)) < 0 ||
        (rc = stime(s, path, line, C_END, fcol(f, nf, s, C_END), &j->end,
                    d)) < 0 ||
        (rc = sacct_asks(s, path, line, f, nf, j, d)) < 0)
        return rc;
    if (j->submit < 0)
        return sfail(d, path, line, "Submit", "Unknown: a job needs its "
                     "submit time");
    const char *state = fcol(f, nf, s, C_STATE);
    char why[96] = "";
    if (strncmp(state, "PENDING", 7) == 0)
        snprintf(why, sizeof why, "PENDING (never started)");
    else if (j->start < 0)
        snprintf(why, sizeof why, "never started (%.40s before it ran)",
                 state);
    else if (strncmp(state, "RUNNING", 7) == 0 ||
             strncmp(state, "REQUEUED", 8) == 0 ||
             strncmp(state, "SUSPENDED", 9) == 0 || j->end < 0) {
        if (s->h.running_drop)
            snprintf(why, sizeof why, "RUNNING at the export (option running "
                     "\"drop\")");
        j->running = 1;
    }
    if (!why[0] && j->why)
        snprintf(why, sizeof why, "%s", j->why);
    if (!why[0] && j->s.gpus == 0 && !s->h.keep_cpu)
        snprintf(why, sizeof why, "asks for no GPU (option cpu_jobs)");
    if (why[0]) {
        char first[96];
        snprintf(first, sizeof first, "line %ld, job %s", line, id);
        gs_cimp_leave(&s->h.left, why, first);
        j->key[0] = '\0';           /* its steps fold into nothing */
        s->n++;
        return 0;
    }
    s->n++;
    return 0;
}

/* Kept rows into the job list. */
static int sacct_build(struct sacct *s, const char *path, struct gs_diag *d)
{
    int64_t origin = INT64_MAX;
    long kept = 0;
    for (long i = 0; i < s->n; i++)
        if (s->v[i].key[0]) {
            kept++;
            if (s->v[i].submit < origin)
                origin = s->v[i].submit;
        }
    if (kept == 0)
        return gs_diag_set(d, GS_EPARSE, path, "no job to replay (%ld left "
                           "out)", s->h.left.n);
    int64_t exp = s->export_ms >= 0 ? s->export_ms : s->latest;
    for (long i = 0; i < s->n; i++) {
        struct sjob *j = &s->v[i];
        if (!j->key[0])
            continue;
        int64_t end = j->running ? exp : j->end;
        j->s.arrival = j->submit - origin;
        j->s.work = end > j->start ? (double)(end - j->start) : 1.0;
        if (j->s.mig_profile[0])    /* ran on Ng of the GPU's 7 slices */
            j->s.work = fmax(1.0, j->s.work * (j->s.mig_profile[0] - '0') /
                                      7.0);
        if (gs_jlist_add(&s->h.jobs, &j->s, j->start - origin) < 0)
            return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    }
    char detail[64];
    snprintf(detail, sizeof detail, " (%ld step rows folded into their jobs)",
             s->steps);
    return gs_cimp_hist_finish(&s->h, path, "rows", origin, detail,
                               "Submit to Start (when Slurm allocated the "
                               "job's nodes; the prolog and the job's own "
                               "start-up are in its run, as it held its "
                               "GPUs)", d);
}

static int sacct_load(struct sacct *s, const char *path, struct gs_diag *d)
{
    struct gs_tread *t;
    int rc = gs_tread_open(path, &t, d);
    if (rc < 0)
        return rc;
    char *line;
    int header = 0;
    long text = 0;      /* bytes read, after gzip: capped like a k8s export */
    s->latest = -1;
    while ((rc = gs_tread_line(t, &line, d)) == 1) {
        long ln = gs_tread_lineno(t);
        text += (long)strlen(line) + 1;
        if (text > GS_CIMP_MAX_BYTES) {
            rc = sfail(d, path, ln, NULL, "more than %ld MiB of text (after "
                       "gzip), the most an export is read for; export a "
                       "shorter window (sacct -S, -E)",
                       GS_CIMP_MAX_BYTES >> 20);
            break;
        }
        if (line[0] == '\0')
            continue;
        if (!header) {
            if ((rc = sacct_header(s, line, path, d)) < 0)
                break;
            header = 1;
            continue;
        }
        rc = sacct_row(s, path, ln, line, d);
        if (rc == GS_EPARSE && s->h.skip && d) {
            char why[112], first[200];
            const char *q = strstr(gs_diag_where(d), "field '");
            snprintf(why, sizeof why, "malformed %.60s (skip_bad_rows)",
                     q ? q : "row");
            snprintf(first, sizeof first, "line %ld: %.150s", ln,
                     gs_diag_what(d));
            gs_diag_free(d);
            gs_cimp_leave(&s->h.left, why, first);
            rc = 0;
        }
        if (rc < 0)
            break;
    }
    gs_tread_close(t);
    if (rc < 0)
        return rc;
    if (!header)
        return gs_diag_set(d, GS_EPARSE, path, "empty: no header line");
    return sacct_build(s, path, d);
}

/* --- scontrol show nodes ------------------------------------------------------ */

struct snode {
    char parts[GS_NAME];
    int model, gpn;
    struct gs_share_cfg share;  /* MIG GPUs: their layout */
    int32_t cpu_milli, mem_mib;
};

/* A node's gpu Gres: whole GPUs (count, the most numerous type), and MIG
 * instances by profile (Slurm's MIG gres types, "gpu:1g.10gb:7" or
 * "gpu:a100_1g.10gb:7"). */
#define SMIG_MAX 8
struct sgres {
    int count, types;
    char type[64];
    int nmig;
    char prof[SMIG_MAX][GS_MIG_PROFILE_NAME];
    int mcount[SMIG_MAX];
    char mgpu[64];              /* the first MIG type's GPU part */
};

/* The value of key in a oneliner's KEY=VALUE list (kv[2i], kv[2i+1]). */
static const char *kv_get(char **kv, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(kv[2 * i], key) == 0)
            return kv[2 * i + 1];
    return NULL;
}

/* Split a oneliner into pairs (in place); the number of pairs. */
static int kv_split(char *line, char **kv, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(line, " \t", &save); w;
         w = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(w, '=');
        int key = eq && eq > w;
        for (char *c = w; key && c < eq; c++)
            key &= isalnum((unsigned char)*c) || *c == '_';
        if (key && n < max) {
            *eq = '\0';
            kv[2 * n] = w;
            kv[2 * n + 1] = eq + 1;
            n++;
        } else if (n > 0 && n <= max) {
            /* a word of the previous value ("Reason=Not responding") */
            w[-1] = ' ';
        }
    }
    return n;
}

static int gres_in(char *buf, struct sgres *g);

/* A node's Gres value into g; 0, or -1 when malformed.  Read whole: cut
 * to 511 bytes, a long MIG list lost its last entries or read "gpu:X:16"
 * as 1. */
static int gres_gpus(const char *gres, struct sgres *g)
{
    memset(g, 0, sizeof *g);
    if (strcmp(gres, "(null)") == 0 || gres[0] == '\0')
        return 0;
    char *buf = strdup(gres);
    int rc = buf ? gres_in(buf, g) : -1;
    free(buf);
    return rc;
}

/* gres_gpus on a copy it may split. */
static int gres_in(char *buf, struct sgres *g)
{
    int best = -1;
    char *save = NULL;
    for (char *it = strtok_r(buf, ",", &save); it;
         it = strtok_r(NULL, ",", &save)) {
        char *par = strchr(it, '(');
        if (par)
            *par = '\0';
        if (strncmp(it, "gpu", 3) != 0 || (it[3] != ':' && it[3] != '\0'))
            continue;           /* shard, mps, ... */
        char *last = strrchr(it, ':');
        long long v = 1;
        if (last == NULL || gs_tint(last + 1, 0, 1000, &v) < 0)
            return -1;
        *last = '\0';
        const char *ty = it[3] == ':' ? it + 4 : "";
        size_t gl;
        const char *mp = mig_type(ty, &gl);
        if (mp) {
            int k = 0;
            while (k < g->nmig && strcmp(g->prof[k], mp) != 0)
                k++;
            if (k == SMIG_MAX || strlen(mp) >= GS_MIG_PROFILE_NAME)
                return -1;
            if (k == g->nmig) {
                snprintf(g->prof[k], sizeof g->prof[k], "%s", mp);
                g->nmig++;
            }
            if (g->mgpu[0] == '\0')
                snprintf(g->mgpu, sizeof g->mgpu, "%.*s", (int)gl, ty);
            g->mcount[k] += (int)v;
            continue;
        }
        g->count += (int)v;
        g->types++;
        if ((int)v > best) {
            best = (int)v;
            snprintf(g->type, sizeof g->type, "%s", ty);
        }
    }
    return 0;
}

/* The MIG GPUs of a node: the fewest G GPUs cut alike that hold its
 * instances (each profile's count divisible by G, one GPU's share fitting
 * a GPU of model m), as nd's MIG layout and GPUs.  0, or -1 when none. */
static int mig_node(const struct sgres *g, const struct gs_catalog *cat,
                    int m, struct snode *nd)
{
    const struct gs_mig_gpu *mg = gs_mig_gpu_find(cat->m[m].name);
    const struct gs_mig_profile *pr[SMIG_MAX];
    int total = 0;
    for (int k = 0; k < g->nmig; k++) {
        pr[k] = mg ? gs_mig_profile_find(mg, g->prof[k]) : NULL;
        if (pr[k] == NULL)
            return -1;
        total += g->mcount[k];
    }
    for (int G = 1; G <= GS_MAX_GPN && G <= total; G++) {
        int ok = 1;
        for (int k = 0; k < g->nmig && ok; k++)
            ok = g->mcount[k] % G == 0;
        if (!ok)
            continue;
        struct gs_share_cfg *sh = &nd->share;
        memset(sh, 0, sizeof *sh);
        sh->mode = GS_SHARE_MIG;
        sh->mig_gpu = mg;
        sh->reconf_time = GS_SHARE_RECONF_TIME;
        gs_mig_layout_init(&sh->layout, mg);
        for (int k = 0; k < g->nmig && ok; k++)
            for (int c = 0; c < g->mcount[k] / G && ok; c++)
                ok = gs_mig_add(&sh->layout, pr[k], NULL) == 0;
        if (ok) {
            nd->gpn = G;
            return 0;
        }
    }
    return -1;
}

/* The model of a node's GPUs: its Gres type, else the first
 * AvailableFeatures word the catalog knows, else (MIG instances only) a
 * MIG GPU that has the profile; -1 when none. */
static int snode_model(const struct sgres *g, const char *feat,
                       struct gs_catalog *cat, int *ambiguous)
{
    int w = 0, m = -1;
    *ambiguous = 0;
    if (g->count > 0 && g->type[0])
        m = gs_cimp_gpu_model(cat, g->type, 0, &w);
    if (m < 0 && g->count == 0 && g->nmig > 0 && g->mgpu[0])
        return mig_model(cat, g->mgpu, g->prof[0], ambiguous);
    char fb[256];
    snprintf(fb, sizeof fb, "%s", feat ? feat : "");
    char *save = NULL;
    for (char *f = strtok_r(fb, ",", &save); m < 0 && f;
         f = strtok_r(NULL, ",", &save))
        m = gs_cimp_gpu_model(cat, f, 0, &w);
    if (m < 0 && g->count == 0 && g->nmig > 0)
        m = mig_model(cat, "", g->prof[0], ambiguous);
    return m;
}

/* One node line into nd[0] (and nd[1] when it has both whole GPUs and
 * MIG instances: the two parts split its CPU and memory by their GPUs):
 * the number kept, 0 left out (why), or an error. */
static int snode_read(const char *path, long line, char *text,
                      struct gs_catalog *cat, struct snode *nd,
                      const char **why, char *name, size_t nn,
                      struct gs_diag *d)
{
    char *kv[2 * 128];
    int n = kv_split(text, kv, 128);
    const char *nm = kv_get(kv, n, "NodeName");
    const char *state = kv_get(kv, n, "State");
    const char *gres = kv_get(kv, n, "Gres");
    if (nm == NULL)
        return sfail(d, path, line, "NodeName", "missing (is this scontrol "
                     "show nodes --oneliner?)");
    snprintf(name, nn, "%s", nm);
    if (state == NULL)
        return sfail(d, path, line, "State", "missing");
    static const char *const bad[] = { "DOWN", "DRAIN", "FAIL", "FUTURE",
                                       "NOT_RESPONDING" };
    for (int i = 0; i < 5; i++)
        if (strstr(state, bad[i])) {
            *why = "DOWN, DRAIN, FAIL, FUTURE or NOT_RESPONDING";
            return 0;
        }
    if (state[0] && state[strlen(state) - 1] == '*') {
        *why = "DOWN, DRAIN, FAIL, FUTURE or NOT_RESPONDING";
        return 0;
    }
    long long cpus, mem;
    const char *ct = kv_get(kv, n, "CPUTot"), *rm = kv_get(kv, n, "RealMemory");
    if (ct == NULL || gs_tint(ct, 0, 2000000, &cpus) < 0)
        return sfail(d, path, line, "CPUTot", "'%s' is not a CPU count",
                     ct ? ct : "(missing)");
    if (rm == NULL || gs_tint(rm, 0, 2000000000, &mem) < 0)
        return sfail(d, path, line, "RealMemory", "'%s' is not MiB",
                     rm ? rm : "(missing)");
    struct sgres g;
    if (gres_gpus(gres ? gres : "", &g) < 0)
        return sfail(d, path, line, "Gres", "'%s' is not gpu:TYPE:N entries",
                     gres);
    if (g.count == 0 && g.nmig == 0) {
        *why = "no GPUs (no gpu Gres)";
        return 0;
    }
    if (g.count > GS_MAX_GPN)
        return sfail(d, path, line, "Gres", "%d GPUs on one node (at most "
                     "%d)", g.count, GS_MAX_GPN);
    int amb, m = snode_model(&g, kv_get(kv, n, "AvailableFeatures"), cat, &amb);
    if (m < 0)
        return sfail(d, path, line, "Gres", "no GPU model: type '%s' and the "
                     "node's features name none the catalog knows (give the "
                     "GPUs a type in gres.conf: gpu:a100:8)",
                     g.count ? g.type : g.prof[0]);
    if (amb && gs_trace_log())
        fprintf(gs_trace_log(), "gpusim: %s:%ld: warning: node %s: MIG "
                "profile %s is on several GPU models; taken as %s (name the "
                "GPU in the type, a100_%s, or in AvailableFeatures)\n", path,
                line, nm, g.prof[0], cat->m[m].name, g.prof[0]);
    if (g.types > 1 && gs_trace_log())
        fprintf(gs_trace_log(), "gpusim: %s:%ld: warning: node %s has %d GPU "
                "types; all %d GPUs taken as %s\n", path, line, nm, g.types,
                g.count, cat->m[m].name);
    const char *parts = kv_get(kv, n, "Partitions");
    int k = 0;
    if (g.count > 0) {
        memset(&nd[k], 0, sizeof nd[k]);
        nd[k].model = m;
        nd[k].gpn = g.count;
        k++;
    }
    if (g.nmig > 0) {
        memset(&nd[k], 0, sizeof nd[k]);
        nd[k].model = m;
        if (mig_node(&g, cat, m, &nd[k]) < 0)
            return sfail(d, path, line, "Gres", "MIG instances %s%s: no "
                         "number of %s GPUs cut alike holds them",
                         g.prof[0], g.nmig > 1 ? " and others" : "",
                         cat->m[m].name);
        k++;
    }
    int all = 0;
    for (int i = 0; i < k; i++)
        all += nd[i].gpn;
    for (int i = 0; i < k; i++) {
        snprintf(nd[i].parts, sizeof nd[i].parts, "%s", parts ? parts : "");
        nd[i].cpu_milli = (int32_t)(cpus * 1000 * nd[i].gpn / all);
        nd[i].mem_mib = (int32_t)(mem * nd[i].gpn / all);
    }
    if (k == 2 && gs_trace_log())
        fprintf(gs_trace_log(), "gpusim: %s:%ld: warning: node %s has %d "
                "whole GPUs and %d cut into MIG instances: two nodes of "
                "gpusim's, its CPU and memory split by GPUs\n", path, line,
                nm, nd[0].gpn, nd[1].gpn);
    return k;
}

static int snodes_load(const char *path, struct gs_catalog *cat,
                       struct snode **out, int *nout, struct gs_diag *d)
{
    struct gs_tread *t;
    *out = NULL;
    *nout = 0;
    int rc = gs_tread_open(path, &t, d);
    if (rc < 0)
        return rc;
    struct snode *v = NULL;
    int n = 0;
    long cap = 0;
    struct gs_cimp_left left = { 0 };
    char *line;
    while ((rc = gs_tread_line(t, &line, d)) == 1) {
        if (line[strspn(line, " \t")] == '\0')
            continue;
        if (gs_cimp_grow(&v, &cap, n + 1L, sizeof *v) < 0) {
            rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
            break;
        }
        const char *why = NULL;
        char name[96], first[128];
        long ln = gs_tread_lineno(t);
        rc = snode_read(path, ln, line, cat, &v[n], &why, name, sizeof name,
                        d);
        if (rc < 0)
            break;
        if (rc > 0) {
            n += rc;
            rc = 0;
        } else {
            snprintf(first, sizeof first, "line %ld, node %s", ln, name);
            gs_cimp_leave(&left, why, first);
        }
    }
    gs_tread_close(t);
    if (rc == 0 && n == 0)
        rc = gs_diag_set(d, GS_EPARSE, path, "no GPU node to build a fleet "
                         "from (%ld left out)", left.n);
    if (rc < 0) {
        free(v);
        return rc;
    }
    gs_cimp_left_print(path, "nodes", &left);
    *out = v;
    *nout = n;
    return 0;
}

static int same_share(const struct gs_share_cfg *a,
                      const struct gs_share_cfg *b)
{
    return a->mode == b->mode &&
           memcmp(&a->layout, &b->layout, sizeof a->layout) == 0;
}

int gs_slurm_node_list(const char *path, struct gs_catalog *cat,
                       struct gs_pool_spec **pools, int *npools,
                       struct gs_diag *d)
{
    struct snode *v;
    int n;
    *pools = NULL;
    *npools = 0;
    int rc = snodes_load(path, cat, &v, &n, d);
    if (rc < 0)
        return rc;
    struct gs_pool_spec *ps = calloc((size_t)n, sizeof *ps);
    int *rep = calloc((size_t)n, sizeof *rep);
    if (ps == NULL || rep == NULL) {
        free(ps);
        free(rep);
        free(v);
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    }
    int np = 0;
    for (int i = 0; i < n; i++) {
        int p = 0;
        while (p < np && !(strcmp(v[rep[p]].parts, v[i].parts) == 0 &&
                           v[rep[p]].model == v[i].model &&
                           v[rep[p]].gpn == v[i].gpn &&
                           same_share(&v[rep[p]].share, &v[i].share)))
            p++;
        if (p == np) {
            rep[np++] = i;
            ps[p].model = v[i].model;
            ps[p].gpn = v[i].gpn;
            ps[p].share = v[i].share;
            char base[2 * GS_NAME];
            if (v[i].parts[0]) {
                snprintf(base, sizeof base, "%s", v[i].parts);
                for (char *c = base; *c; c++)
                    *c = *c == ',' ? '+' : *c;
            } else {
                snprintf(base, sizeof base, "%s-x%d", cat->m[v[i].model].name,
                         v[i].gpn);
            }
            if (v[i].share.mode == GS_SHARE_MIG)
                snprintf(base + strlen(base), sizeof base - strlen(base),
                         "-mig");
            int clash = 0;
            for (int j = 0; j < p; j++)
                clash |= strncmp(ps[j].name, base, GS_NAME - 1) == 0;
            if (clash)
                snprintf(base + strlen(base), sizeof base - strlen(base),
                         "-%s-x%d-%d", cat->m[v[i].model].name, v[i].gpn, p);
            snprintf(ps[p].name, sizeof ps[p].name, "%.*s", GS_NAME - 1,
                     base);
        }
        gs_cimp_pool_node(&ps[p], v[i].cpu_milli, v[i].mem_mib);
    }
    free(rep);
    free(v);
    *pools = ps;
    *npools = np;
    return 0;
}

/* Option nodes: each partition's GPU models (in the scenario's catalog). */
static int sacct_parts(struct sacct *s, const char *path, struct gs_diag *d)
{
    struct gs_catalog cat = s->sc->cat;
    struct snode *v;
    int n;
    FILE *log = gs_trace_log();
    gs_trace_set_log(NULL);
    int rc = snodes_load(path, &cat, &v, &n, d);
    gs_trace_set_log(log);
    if (rc < 0)
        return rc;
    for (int i = 0; i < n && rc == 0; i++) {
        int m = gs_catalog_find(&s->sc->cat, cat.m[v[i].model].name);
        if (m < 0)
            continue;
        char buf[GS_NAME], *save = NULL;
        snprintf(buf, sizeof buf, "%s", v[i].parts);
        for (char *p = strtok_r(buf, ",", &save); p;
             p = strtok_r(NULL, ",", &save)) {
            int k = 0;
            while (k < s->nparts && strcmp(s->parts[k].name, p) != 0)
                k++;
            if (k == s->nparts) {
                struct spart *np = realloc(s->parts, (size_t)(k + 1) *
                                           sizeof *np);
                if (np == NULL) {
                    rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
                    break;
                }
                s->parts = np;
                s->nparts++;
                snprintf(np[k].name, sizeof np[k].name, "%s", p);
                np[k].models = 0;
            }
            s->parts[k].models |= 1ull << m;
        }
    }
    free(v);
    return rc;
}

static void sacct_close(void *st)
{
    struct sacct *s = st;
    if (s == NULL)
        return;
    free(s->v);
    free(s->parts);
    gs_cimp_hist_free(&s->h);
    free(s);
}

static int sacct_options(struct sacct *s, const struct gs_scenario *sc,
                         struct gs_params *o, char **nodes,
                         struct gs_diag *d)
{
    const char *tz = NULL, *tf = NULL, *exp = NULL;
    int rc;
    if ((rc = gs_cimp_hist_options(&s->h, sc, o, "cpu_jobs", "QOS", nodes,
                                   d)) < 0 ||
        (rc = gs_params_str(o, "tz", &tz, d)) < 0 ||
        (rc = gs_params_str(o, "tenant_from", &tf, d)) < 0 ||
        (rc = gs_params_str(o, "export_time", &exp, d)) < 0)
        return rc;
    struct gs_diag zd = { 0 };
    if (tz && gs_cimp_tz_parse(tz, &s->tz, &zd) < 0) {
        rc = gs_cimp_opt_fail(o, "tz", d, gs_diag_what(&zd));
        gs_diag_free(&zd);
        return rc;
    }
    if (tf) {
        static const char *const names[] = { "account", "partition", "qos" };
        s->tenant_from = -1;
        for (int i = 0; i < 3; i++)
            if (strcmp(tf, names[i]) == 0)
                s->tenant_from = i;
        if (s->tenant_from < 0)
            return gs_cimp_opt_fail(o, "tenant_from", d, "expected \"account\", "
                            "\"partition\" or \"qos\"");
    }
    s->export_ms = -1;
    if (exp && gs_cimp_localtime(exp, &s->tz, &s->export_ms) < 0 &&
        gs_cimp_rfc3339(exp, &s->export_ms) < 0)
        return gs_cimp_opt_fail(o, "export_time", d, "expected a time "
                        "(YYYY-MM-DDTHH:MM:SS in tz, or RFC 3339)");
    return 0;
}

static int sacct_open(const struct gs_scenario *sc, struct gs_params *o,
                      void **state, struct gs_diag *d)
{
    *state = NULL;
    struct sacct *s = calloc(1, sizeof *s);
    if (s == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    s->sc = sc;
    char *path = NULL, *nodes = NULL;   /* gs_topt_path: in memory */
    int rc;
    if ((rc = gs_topt_path(sc, o, "path", 1, &path, NULL, d)) < 0 ||
        (rc = sacct_options(s, sc, o, &nodes, d)) < 0 ||
        (nodes && (rc = sacct_parts(s, nodes, d)) < 0) ||
        (rc = sacct_load(s, path, d)) < 0) {
        free(path);
        free(nodes);
        sacct_close(s);
        return rc;
    }
    free(path);
    free(nodes);
    free(s->v);
    s->v = NULL;
    *state = s;
    return 0;
}

const struct gs_trace_format gs_slurm_sacct_format = {
    .name = "slurm-sacct",
    .summary = "sacct --parsable2 (JobID|Submit|Start|End|...|AllocTRES|"
               "ReqTRES|Timelimit|NNodes); steps folded",
    .open = sacct_open,
    .next = gs_cimp_hist_next,
    .close = sacct_close,
};
