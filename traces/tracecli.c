/* tracecli.c -- `gpusim trace`: import, transform, describe, synthesize and
 * fit workloads (see tracecli.h for the commands).
 *
 * Inputs.  A trace file is read through the same trace-format plug-ins a
 * scenario uses (formats.c), opened on a scenario shell: the built-in GPU
 * catalog plus the Alibaba trace's undisclosed models, paths relative to the
 * current folder, options from --opt KEY=VALUE exactly as a scenario's
 * workload.trace would give them (unknown keys are errors).  A scenario file
 * (*.json) stands for its workload -- trace or generator -- and its fleet.
 * LLM request traces (azure-llm, mooncake, splitwise, requests) load as
 * request tables.  Without --format the format is told from the file name
 * and the first line.
 *
 * Transforms, applied in this order to the job stream:
 *   --from T / --to T   keep arrivals in [T, to) and shift them by -T
 *   --tenants A,B       keep those tenants
 *   --sample P          keep each job with probability P ("trace.sample"
 *                       stream of --seed)
 *   --tier-mix t=p,...  relabel tiers so the shares become p in
 *                       expectation: a job of an over-represented tier i
 *                       moves with probability (q_i - p_i)/q_i to a tier
 *                       drawn in proportion to the shortfalls p_j - q_j (q =
 *                       shares measured in a first pass).  The volume is
 *                       kept; moved jobs take the new tier's defaults for
 *                       priority, preemptibility and SLA wait.
 *   --scale-rate K      divide arrival times by K: K times the arrival rate
 *                       ("traffic doubles": K = 2), same jobs
 *   --limit N           stop after N jobs
 * Every random choice comes from a GSL stream seeded by --seed (default 1),
 * so a transform is reproducible.
 *
 * Outputs go to a temporary file in the destination's folder, renamed over
 * it only when everything succeeded; standard output gets its text only at
 * the end too, so an error never leaves half a trace behind. */
#include "tracecli.h"
#include "../sim/cluster/mig.h"
#include "../sim/base/path.h"
#include "../sim/base/suggest.h"
#include "../sim/io/outfile.h"
#include "alibaba.h"
#include "dcgm.h"
#include "kube.h"
#include "llmreq.h"
#include "native.h"
#include "nodelist.h"
#include "tfit.h"
#include "tread.h"
#include "tstats.h"

#include "../sim/inference/llmcalib.h"
#include "../sim/base/rng.h"
#include "../sim/setup/scenario.h"
#include "../sim/setup/source.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The help texts: the shared option blocks, then one text per command
 * ('gpusim trace help CMD', 'gpusim trace CMD --help'). */
#define H_INPUT \
"input options:\n" \
"  --format F              the input's format (default: told from its name\n" \
"                          and first line; see 'gpusim trace formats')\n" \
"  --opt KEY=VALUE         a format option, as in a scenario's\n" \
"                          workload.trace (e.g. procs_per_gpu=8)\n" \
"  --skip-bad-rows         skip malformed rows (counted and reported)\n" \
"                          instead of stopping at the first\n" \
"  --tz ZONE               the zone of local times (slurm-sacct): UTC,\n" \
"                          +02:00, or a tz database name (Europe/Berlin)\n"
#define H_XFORM \
"transforms:\n" \
"  --from T, --to T        keep arrivals in [T, to), shifted to start at 0\n" \
"                          (T: seconds or 30s, 5m, 2h, 3d, 1w)\n" \
"  --tenants A,B,...       keep these tenants\n" \
"  --sample P              keep each job with probability P\n" \
"  --tier-mix T=P,...      shift the tier mix to these shares (inference,\n" \
"                          training, interactive, data) by relabeling jobs\n" \
"  --scale-rate K          K times the arrival rate (arrival times / K)\n" \
"  --limit N               at most N jobs\n" \
"  --seed N                seed of the random transforms (default 1)\n"
#define H_EXIT \
"\n" \
"exit status: 0 done, 2 bad usage or bad input, 1 output not written\n"

static const char usage_text[] =
"usage: gpusim trace COMMAND [options]\n"
"\n"
"commands ('gpusim trace help COMMAND' for one's options):\n"
"  formats                 list the trace, request and node-list formats\n"
"  convert INPUT -o OUT    convert a trace to gpusim's native CSV (request\n"
"                          traces to the request CSV); takes transforms\n"
"  transform INPUT -o OUT  the same as convert\n"
"  stats INPUT|SCENARIO    count, span, arrival rate by hour of day, GPU\n"
"                          demand, duration percentiles, tier and tenant\n"
"                          mix, offered load against a fleet; a node list:\n"
"                          its nodes and GPUs by model\n"
"  gen SPEC [-o OUT]       generate a workload from a generator spec (or a\n"
"                          scenario with a generated workload) as native CSV\n"
"  fit INPUT [-o SPEC]     fit arrival rate and daily/weekly cycle, duration\n"
"                          laws, GPU counts and mixes by maximum likelihood;\n"
"                          print goodness of fit; write a spec gen accepts;\n"
"                          a request trace: rate, cycle and token laws as a\n"
"                          service's \"requests\" block\n"
"  dcgm FILE...            what the GPUs did, from Prometheus range queries\n"
"                          of DCGM metrics: utilization by node, model,\n"
"                          namespace and hour; idle GPU-hours (--idle PCT,\n"
"                          default 5; --step T; --tz ZONE)\n"
"  kueue FILE              Kueue ClusterQueues (kubectl get clusterqueues\n"
"                          -o json) as a scenario's \"tenants\" (quotas)\n"
"  calibrate FILE          fit the GPUs' LLM serving factors to measured\n"
"                          prompt/token times (Splitwise's perf_model.csv)\n"
"                          and print the error table (docs/inference.md)\n"
"\n"
"-o - (or no -o) writes to standard output.\n"
H_EXIT;

static const char usage_formats[] =
"usage: gpusim trace formats\n"
"\n"
"List the job trace, request trace and node-list formats --format takes.\n";

static const char usage_convert[] =
"usage: gpusim trace convert|transform INPUT [-o OUT] [options]\n"
"\n"
"Convert a trace to gpusim's native CSV (a request trace to the request\n"
"CSV), applying the transforms on the way.\n"
"\n"
H_INPUT H_XFORM
"output:\n"
"  -o FILE, --out FILE     write here, replaced whole or not at all\n"
"                          (default, or -: standard output)\n"
H_EXIT;

static const char usage_stats[] =
"usage: gpusim trace stats INPUT|SCENARIO [options]\n"
"\n"
"Describe a workload: count, span, arrival rate by hour of day, GPU\n"
"demand, duration percentiles, tier and tenant mix, and the offered load\n"
"against a fleet.  With --format naming a node-list format (see 'gpusim\n"
"trace formats'), describe the node list instead: nodes, GPUs per node,\n"
"GPUs, CPU cores and memory by GPU model, as a scenario's\n"
"from_node_list would make its pools.\n"
"\n"
H_INPUT H_XFORM
"load:\n"
"  --gpus N                offered load against a fleet of N GPUs\n"
"  --fleet SCENARIO        ... against a scenario's fleet (a scenario input\n"
"                          uses its own fleet)\n"
H_EXIT;

static const char usage_gen[] =
"usage: gpusim trace gen SPEC [-o OUT] [options]\n"
"\n"
"Generate a workload from a generator spec (or a scenario with a\n"
"generated workload) as native CSV.\n"
"\n"
"options:\n"
"  --seed N, --jobs N, --until T   override the spec\n"
"  --scale-rate K          K times the spec's arrival rate\n"
"  -o FILE, --out FILE     write here (default, or -: standard output)\n"
H_EXIT;

static const char usage_fit[] =
"usage: gpusim trace fit INPUT [-o SPEC] [options]\n"
"\n"
"Fit arrival rate and daily/weekly cycle, duration laws, GPU counts and\n"
"mixes by maximum likelihood, print the goodness of fit, and write a spec\n"
"'gpusim trace gen' accepts; for a request trace, the rate, cycle and\n"
"token laws as a service's \"requests\" block.\n"
"\n"
H_INPUT H_XFORM
"fit:\n"
"  --by tier|none          one class per tier (default) or one class\n"
"  --durations L           auto (default), lognormal, pareto, exponential\n"
"                          or empirical (for requests: both token laws)\n"
"  -o FILE, --out FILE     write the spec here (only with -o; - is standard\n"
"                          output, the report then goes to stderr)\n"
H_EXIT;

static const char usage_calibrate[] =
"usage: gpusim trace calibrate FILE\n"
"\n"
"Fit the GPUs' LLM serving factors to measured prompt and token times\n"
"(Splitwise's perf_model.csv) and print the error table\n"
"(docs/inference.md).\n"
H_EXIT;

static const char usage_kueue[] =
"usage: gpusim trace kueue FILE\n"
"\n"
"Print Kueue ClusterQueues (the JSON of 'kubectl get clusterqueues -o\n"
"json') as a scenario's \"tenants\" block, their quotas included.\n"
H_EXIT;

static const struct { const char *name, *text; } usages[] = {
    { "formats", usage_formats }, { "convert", usage_convert },
    { "transform", usage_convert }, { "stats", usage_stats },
    { "gen", usage_gen }, { "fit", usage_fit },
    { "calibrate", usage_calibrate }, { "kueue", usage_kueue },
    { "dcgm", gs_dcgm_usage },
};

/* The help of trace command cmd (NULL: the list), on stdout; 0, or 2 with
 * a message for a command that does not exist. */
static int help(const char *cmd)
{
    if (cmd == NULL) {
        fputs(usage_text, stdout);
        return 0;
    }
    const char *names[16];
    size_t n = sizeof usages / sizeof usages[0];
    for (size_t i = 0; i < n; i++) {
        if (strcmp(cmd, usages[i].name) == 0) {
            fputs(usages[i].text, stdout);
            return 0;
        }
        names[i] = usages[i].name;
    }
    names[n] = NULL;
    char hint[128];
    gs_suggest_fmt(cmd, names, hint, sizeof hint);
    fprintf(stderr, "gpusim: trace: help: no command '%s'%s\n(see 'gpusim "
            "trace help')\n", cmd, hint);
    return 2;
}

/* --- options ------------------------------------------------------------------ */

enum { CMD_CONVERT, CMD_STATS, CMD_GEN, CMD_FIT };

#define MAXOPT 64
#define MAXTEN 64

struct opts {
    int cmd;
    const char *input, *format, *out, *fleet;
    int skip_bad;
    int nopt;
    const char *opt[MAXOPT];
    char tzopt[96];             /* "tz=ZONE" from --tz */
    double scale;
    gs_time from, to;
    int has_to;
    double sample;
    int ntenants;
    char tenants[MAXTEN][GS_TENANT_NAME];
    int has_mix;
    double mix[GS_NTIERS];
    long limit;
    uint64_t seed;
    int has_seed;
    double gpus;
    long jobs;
    int has_jobs;
    gs_time until;
    int has_until;
    int by_tier;
    int durations;
};

static int usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "gpusim: trace: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see 'gpusim trace help')\n");
    return 2;
}

static int report(struct gs_diag *d)
{
    gs_diag_print(stderr, "gpusim: ", d);
    gs_diag_free(d);
    return 2;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    size_t len = gs_decimal_len(s);     /* no 0x10, +3, inf */
    double v = strtod(s, &end);
    if (len == 0 || end != s + len || *end != '\0' || errno || !isfinite(v) ||
        v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno || v < lo || v > hi ||
        s[0] == '+' || s[0] == ' ')
        return -1;
    *out = v;
    return 0;
}

static int parse_tier_mix(struct opts *o, const char *arg)
{
    char *buf = strdup(arg);        /* whole: it was cut to 255 bytes */
    double sum = 0;
    int ok = buf != NULL;
    memset(o->mix, 0, sizeof o->mix);
    for (char *p = buf, *comma; ok && p; p = comma) {
        comma = strchr(p, ',');
        if (comma)
            *comma++ = '\0';
        char *eq = strchr(p, '=');
        if (eq)
            *eq = '\0';
        int t = eq ? gs_tier_parse(p) : -1;
        double v;
        if ((ok = t >= 0 && parse_double(eq + 1, 0, 1e9, &v) == 0)) {
            o->mix[t] = v;
            sum += v;
        }
    }
    free(buf);
    if (!ok || sum <= 0)
        return -1;
    for (int t = 0; t < GS_NTIERS; t++)
        o->mix[t] /= sum;
    o->has_mix = 1;
    return 0;
}

/* The trace commands' long options, for "did you mean". */
static const char *const long_opts[] = {
    "--out", "--format", "--opt", "--skip-bad-rows", "--scale-rate", "--from",
    "--to", "--sample", "--tenants", "--tier-mix", "--limit", "--seed",
    "--gpus", "--fleet", "--jobs", "--until", "--by", "--durations", "--tz",
    NULL,
};

/* getopt_long's forms by hand: "--name=value" is "--name" "value", and
 * "--" ends the options.  *out is a new array of *n pointers into argv's
 * strings and a block of split copies (free both). */
static int split_args(int argc, char **argv, char ***out, char **block,
                      int *n)
{
    size_t len = 0;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 2;
    char **v = malloc((2 * (size_t)argc + 1) * sizeof *v);
    char *b = malloc(len + 1), *p = b;
    if (v == NULL || b == NULL) {
        free(v);
        free(b);
        return -1;
    }
    int k = 0, ended = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '=');
        if (!ended && strcmp(a, "--") == 0) {
            ended = 1;
            v[k++] = argv[i];
        } else if (!ended && a[0] == '-' && a[1] == '-' && eq) {
            size_t m = (size_t)(eq - a);
            memcpy(p, a, m);
            p[m] = '\0';
            v[k++] = p;
            p += m + 1;
            v[k++] = (char *)eq + 1;
        } else {
            v[k++] = argv[i];
        }
    }
    v[k] = NULL;
    *out = v;
    *block = b;
    *n = k;
    return 0;
}

/* A file --out cannot be written (past PATH_MAX, a folder, a device) is
 * bad usage, said when the options are read rather than after the work:
 * 0, or 2 after the message. */
static int check_out(const char *out)
{
    struct gs_diag d = { 0 };
    if (out == NULL || strcmp(out, "-") == 0 || gs_out_check(out, &d) == 0)
        return 0;
    char *msg = gs_diag_message(&d);
    gs_diag_free(&d);
    int rc = usage("--out: %s", msg ? msg : gs_strerror(GS_ENOMEM));
    free(msg);
    return rc;
}

static int parse_args(struct opts *o, int argc, char **argv);

static int parse_opts(struct opts *o, int argc, char **argv)
{
    char **v, *block;
    int n;
    if (split_args(argc, argv, &v, &block, &n) < 0)
        return usage("%s", "out of memory");
    int rc = parse_args(o, n, v);
    /* o keeps pointers into argv's strings only: the split copies hold
     * option names, never values */
    free(v);
    free(block);
    return rc;
}

/* --opt KEY=VALUE, or --tz ZONE (the option tz=ZONE): 0 or 2. */
static int add_format_opt(struct opts *o, const char *a, const char *v)
{
    if (o->nopt == MAXOPT)
        return usage("%s", "too many --opt");
    if (strcmp(a, "--tz") == 0) {
        if (strlen(v) + 4 > sizeof o->tzopt || o->tzopt[0])
            return usage("%s", "--tz takes one zone (UTC, +02:00, "
                         "Europe/Berlin)");
        snprintf(o->tzopt, sizeof o->tzopt, "tz=%s", v);
        o->opt[o->nopt++] = o->tzopt;
        return 0;
    }
    if (strchr(v, '=') == NULL || v[0] == '=')
        return usage("--opt takes KEY=VALUE, not '%s'", v);
    o->opt[o->nopt++] = v;
    return 0;
}

/* --tenants A,B,...: 0 or 2. */
static int parse_tenants(struct opts *o, const char *v)
{
    char buf[4096];     /* holds 64 names of 46 bytes: longer is refused */
    int cut = snprintf(buf, sizeof buf, "%s", v) >= (int)sizeof buf;
    for (char *p = buf, *c; p; p = c) {
        c = strchr(p, ',');
        if (c)
            *c++ = '\0';
        if (cut || *p == '\0' || strlen(p) >= GS_TENANT_NAME ||
            o->ntenants == MAXTEN)
            return usage("--tenants takes up to 64 names separated by commas, "
                         "not '%s'", v);
        memcpy(o->tenants[o->ntenants++], p, strlen(p) + 1);
    }
    return 0;
}

static int parse_args(struct opts *o, int argc, char **argv)
{
    int xf = o->cmd != CMD_GEN, ended = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (!ended && strcmp(a, "--") == 0) {
            ended = 1;
            continue;
        }
        if (ended) {
            if (o->input != NULL)
                return usage("more than one input: '%s'", a);
            o->input = a;
            continue;
        }
        if ((strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0) && v &&
            o->cmd != CMD_STATS) {
            o->out = v;
            i++;
        } else if (strcmp(a, "--format") == 0 && v && o->cmd != CMD_GEN) {
            o->format = v;
            i++;
        } else if ((strcmp(a, "--opt") == 0 || strcmp(a, "--tz") == 0) &&
                   v && o->cmd != CMD_GEN) {
            if (add_format_opt(o, a, v) != 0)
                return 2;
            i++;
        } else if (strcmp(a, "--skip-bad-rows") == 0 && o->cmd != CMD_GEN) {
            o->skip_bad = 1;
        } else if (strcmp(a, "--scale-rate") == 0 && v) {
            if (parse_double(v, 1e-9, 1e9, &o->scale) < 0 || o->scale <= 0)
                return usage("--scale-rate takes a factor > 0, not '%s'", v);
            i++;
        } else if ((strcmp(a, "--from") == 0 || strcmp(a, "--to") == 0) &&
                   v && xf) {
            gs_time t;
            if (gs_parse_time(v, &t) < 0)
                return usage("--from/--to take a time (90, 30s, 5m, 2h, 3d), "
                             "not '%s'", v);
            if (a[2] == 'f')
                o->from = t;
            else {
                o->to = t;
                o->has_to = 1;
            }
            i++;
        } else if (strcmp(a, "--sample") == 0 && v && xf) {
            if (parse_double(v, 0, 1, &o->sample) < 0 || o->sample <= 0)
                return usage("--sample takes a probability in (0, 1], not "
                             "'%s'", v);
            i++;
        } else if (strcmp(a, "--tenants") == 0 && v && xf) {
            if (parse_tenants(o, v) != 0)
                return 2;
            i++;
        } else if (strcmp(a, "--tier-mix") == 0 && v && xf) {
            if (parse_tier_mix(o, v) < 0)
                return usage("--tier-mix takes TIER=SHARE,... (tiers "
                             "inference, training, interactive, data), not "
                             "'%s'", v);
            i++;
        } else if (strcmp(a, "--limit") == 0 && v && xf) {
            if (parse_long(v, 0, LONG_MAX, &o->limit) < 0)
                return usage("--limit takes a count, not '%s'", v);
            i++;
        } else if (strcmp(a, "--seed") == 0 && v) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(v, &end, 10);
            if (*v == '\0' || *v == '-' || *end || errno)
                return usage("--seed takes a whole number >= 0, not '%s'", v);
            o->seed = s;
            o->has_seed = 1;
            i++;
        } else if (strcmp(a, "--gpus") == 0 && v && o->cmd == CMD_STATS) {
            if (parse_double(v, 1, 1e9, &o->gpus) < 0)
                return usage("--gpus takes a GPU count >= 1, not '%s'", v);
            i++;
        } else if (strcmp(a, "--fleet") == 0 && v && o->cmd == CMD_STATS) {
            o->fleet = v;
            i++;
        } else if (strcmp(a, "--jobs") == 0 && v && o->cmd == CMD_GEN) {
            if (parse_long(v, 1, 1000000000L, &n) < 0)
                return usage("--jobs takes a count >= 1, not '%s'", v);
            o->jobs = n;
            o->has_jobs = 1;
            i++;
        } else if (strcmp(a, "--until") == 0 && v && o->cmd == CMD_GEN) {
            if (gs_parse_time(v, &o->until) < 0 || o->until <= 0)
                return usage("--until takes a duration > 0, not '%s'", v);
            o->has_until = 1;
            i++;
        } else if (strcmp(a, "--by") == 0 && v && o->cmd == CMD_FIT) {
            if (strcmp(v, "tier") == 0)
                o->by_tier = 1;
            else if (strcmp(v, "none") == 0)
                o->by_tier = 0;
            else
                return usage("--by takes tier or none, not '%s'", v);
            i++;
        } else if (strcmp(a, "--durations") == 0 && v && o->cmd == CMD_FIT) {
            static const struct { const char *n; int k; } laws[] = {
                { "auto", GS_WLFIT_AUTO }, { "lognormal", GS_DIST_LOGNORMAL },
                { "pareto", GS_DIST_PARETO },
                { "exponential", GS_DIST_EXPONENTIAL },
                { "empirical", GS_DIST_EMPIRICAL },
            };
            int found = 0;
            for (size_t k = 0; k < sizeof laws / sizeof laws[0]; k++)
                if (strcmp(v, laws[k].n) == 0) {
                    o->durations = laws[k].k;
                    found = 1;
                }
            if (!found)
                return usage("--durations takes auto, lognormal, pareto, "
                             "exponential or empirical, not '%s'", v);
            i++;
        } else if (a[0] == '-' && a[1] != '\0') {
            char hint[128] = "";
            const char *known = NULL;
            for (int k = 0; long_opts[k]; k++)
                if (strcmp(a, long_opts[k]) == 0)
                    known = a;
            if (known == NULL)
                gs_suggest_fmt(a, long_opts, hint, sizeof hint);
            char msg[256];
            snprintf(msg, sizeof msg, known ? "%s: this command does not "
                     "take it, or its value is missing%s" : "unknown option "
                     "'%s'%s", a, hint);
            return usage("%s", msg);
        } else if (o->input == NULL) {
            o->input = a;
        } else {
            return usage("more than one input: '%s'", a);
        }
    }
    if (o->input == NULL)
        return usage("%s", o->cmd == CMD_GEN ? "gen: which spec? (a JSON "
                     "generator spec or scenario)" : "which input? (a trace "
                     "file or a scenario)");
    if (o->has_to && o->to <= o->from)
        return usage("%s", "--to must be after --from");
    return check_out(o->out);
}

/* --- inputs --------------------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* 1 if one of the first lines of a JSON file names a Kubernetes
 * apiVersion (a kubectl export), else 0. */
static int kube_json(const char *path)
{
    struct gs_tread *t;
    struct gs_diag d = { 0 };
    int yes = 0;
    if (gs_tread_open(path, &t, &d) == 0) {
        char *line;
        for (int i = 0; i < 5 && !yes && gs_tread_line(t, &line, &d) == 1;
             i++)
            yes = strstr(line, "\"apiVersion\"") != NULL;
        gs_tread_close(t);
    }
    gs_diag_free(&d);
    return yes;
}

/* The format of path from its name or first line, or NULL. */
static const char *guess_format(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return "k8s-pods";      /* a folder of snapshots */
    if (ends_with(path, ".json") || ends_with(path, ".json.gz"))
        return kube_json(path) ? "k8s-pods" : "scenario";
    if (ends_with(path, ".jsonl") || ends_with(path, ".jsonl.gz"))
        return "mooncake";
    if (ends_with(path, ".swf") || ends_with(path, ".swf.gz"))
        return "swf";
    if (ends_with(path, ".trace"))
        return "philly-gavel";
    if (strstr(path, "pai_task_table"))
        return "alibaba-pai-2020";
    struct gs_tread *t;
    struct gs_diag d = { 0 };
    if (gs_tread_open(path, &t, &d) < 0) {
        gs_diag_free(&d);
        return NULL;
    }
    char *line;
    const char *fmt = NULL;
    while (gs_tread_line(t, &line, &d) == 1) {
        line += strspn(line, " \t");
        if (*line == '\0')
            continue;
        if (line[0] == ';')
            fmt = "swf";
        else if (line[0] == '{')
            fmt = "mooncake";
        else if (strncmp(line, "id,", 3) == 0 && strstr(line, "input_tokens"))
            fmt = "requests";
        else if (strstr(line, "arrival") && strstr(line, "duration"))
            fmt = "native";
        else if (strstr(line, "pod_phase") || strstr(line, "gpu_milli"))
            fmt = "alibaba-gpu-2023";
        else if (strncmp(line, "name,time,application", 21) == 0)
            fmt = "sia";
        else if (strncmp(line, "TIMESTAMP,", 10) == 0)
            fmt = "azure-llm";
        else if (strncmp(line, "request_id,", 11) == 0)
            fmt = "splitwise";
        else if (strncmp(line, "JobID|", 6) == 0)
            fmt = "slurm-sacct";
        break;
    }
    gs_tread_close(t);
    gs_diag_free(&d);
    return fmt;
}

struct input {
    struct gs_scenario *sc;     /* owned */
    int scenario;               /* sc came from a scenario file */
    struct gs_reqtable *req;    /* a request trace, or NULL */
    struct gs_source src;
    int open;
};

static struct gs_scenario *shell(void)
{
    struct gs_scenario *sc = calloc(1, sizeof *sc);
    if (sc == NULL)
        return NULL;
    gs_catalog_init(&sc->cat);
    gs_params_init(&sc->trace, "--opt");
    gs_params_init(&sc->policy_params, "");
    gs_params_init(&sc->placer_params, "");
    if ((sc->file = strdup("<command line>")) == NULL) {
        free(sc);
        return NULL;
    }
    sc->wl_kind = GS_WL_TRACE;
    sc->seed = 1;
    return sc;
}

static int add_opt(struct gs_params *p, const char *kv)
{
    const char *eq = strchr(kv, '=');
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
    const char *v = eq + 1;
    char *end;
    double x = strtod(v, &end);
    if (*v && *end == '\0' && isfinite(x))
        return gs_params_add_num(p, key, x);
    if (strcmp(v, "true") == 0)
        return gs_params_add_num(p, key, 1);
    if (strcmp(v, "false") == 0)
        return gs_params_add_num(p, key, 0);
    return gs_params_add_str(p, key, v);
}

static void input_close(struct input *in)
{
    if (in->open)
        gs_source_close(&in->src);
    in->open = 0;
    gs_reqtable_free(in->req);
    in->req = NULL;
    gs_scenario_free(in->sc);
    in->sc = NULL;
}

/* Open o->input.  2 on usage errors (printed), negative with d filled on
 * input errors, 0 on success. */
static int input_open(const struct opts *o, struct input *in,
                      struct gs_diag *d)
{
    memset(in, 0, sizeof *in);
    const char *fmt = o->format ? o->format : guess_format(o->input);
    if (fmt == NULL) {
        if (access(o->input, R_OK) != 0)
            return gs_diag_set(d, GS_EIO, o->input, "cannot open: %s",
                               strerror(errno));
        return usage("cannot tell the format of '%s' from its name or first "
                     "line; give --format (see 'gpusim trace formats')",
                     o->input);
    }
    if (strcmp(fmt, "scenario") == 0) {
        if (o->nopt > 0)
            return usage("%s", "--opt does not apply to a scenario; its "
                         "workload.trace holds the options");
        int rc = gs_scenario_load(o->input, &in->sc, d);
        if (rc < 0)
            return rc;
        in->scenario = 1;
        if (o->skip_bad && in->sc->wl_kind == GS_WL_TRACE) {
            const char *f = "";
            for (int i = 0; i < in->sc->trace.n; i++)
                if (strcmp(in->sc->trace.v[i].key, "format") == 0)
                    f = in->sc->trace.v[i].str;
            if (strcmp(f, "native") == 0)
                return usage("%s", "--skip-bad-rows: the scenario's trace is "
                             "native CSV, gpusim's own output, which skips "
                             "nothing; fix the row the message names");
            if (gs_params_add_num(&in->sc->trace, "skip_bad_rows", 1) < 0)
                return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
        }
    } else if (gs_request_format_known(fmt)) {
        if (o->nopt > 0)
            return usage("%s", "request formats take no --opt");
        return gs_reqtable_load(fmt, o->input, o->skip_bad, &in->req, d);
    } else {
        if (gs_trace_format_find(fmt) == NULL) {
            const char *near = gs_trace_format_suggest(fmt);
            if (near) {
                char msg[256];
                snprintf(msg, sizeof msg, "unknown format '%.64s' (did you "
                         "mean '%s'?)", fmt, near);
                return usage("%s", msg);
            }
            return usage("unknown format '%s' (see 'gpusim trace formats')",
                         fmt);
        }
        if (o->skip_bad && strcmp(fmt, "native") == 0)
            return usage("%s", "--skip-bad-rows: the native format is "
                         "gpusim's own output and skips nothing; fix the "
                         "row the message names");
        if ((in->sc = shell()) == NULL)
            return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
        int rc = gs_params_add_str(&in->sc->trace, "format", fmt);
        if (rc == 0)
            rc = gs_params_add_str(&in->sc->trace, "path", o->input);
        for (int i = 0; i < o->nopt && rc == 0; i++)
            rc = add_opt(&in->sc->trace, o->opt[i]);
        if (rc == 0 && o->skip_bad)
            rc = gs_params_add_num(&in->sc->trace, "skip_bad_rows", 1);
        if (rc < 0)
            return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    int rc = gs_source_open(in->sc, in->sc->seed, &in->src, d);
    if (rc < 0)
        return rc;
    in->open = 1;
    return 0;
}

/* --- transforms ------------------------------------------------------------------ */

struct xf {
    const struct opts *o;
    gsl_rng *sample, *mix;
    double move[GS_NTIERS];     /* relabel probability by tier */
    double dest[GS_NTIERS];     /* destination weights */
    int mixing;
    long emitted;
};

static int xf_init(struct xf *x, const struct opts *o)
{
    memset(x, 0, sizeof *x);
    x->o = o;
    x->sample = gs_rng_stream(o->seed, "trace.sample");
    x->mix = gs_rng_stream(o->seed, "trace.tier-mix");
    return x->sample && x->mix ? 0 : GS_ENOMEM;
}

static void xf_free(struct xf *x)
{
    if (x->sample)
        gsl_rng_free(x->sample);
    if (x->mix)
        gsl_rng_free(x->mix);
    x->sample = x->mix = NULL;
}

/* Window, tenants and sample: 1 keep (arrival shifted), 0 drop, -1 the
 * window is over (stop reading). */
static int xf_filter(struct xf *x, struct gs_jobspec *j)
{
    const struct opts *o = x->o;
    if (j->arrival < o->from)
        return 0;
    if (o->has_to && j->arrival >= o->to)
        return -1;
    if (o->ntenants > 0) {
        int keep = 0;
        for (int i = 0; i < o->ntenants && !keep; i++)
            keep = strcmp(j->tenant, o->tenants[i]) == 0;
        if (!keep)
            return 0;
    }
    if (o->sample < 1.0 && gsl_rng_uniform(x->sample) >= o->sample)
        return 0;
    j->arrival -= o->from;
    return 1;
}

static void xf_plan(struct xf *x, const long counts[GS_NTIERS])
{
    long n = 0;
    for (int t = 0; t < GS_NTIERS; t++)
        n += counts[t];
    x->mixing = n > 0;
    for (int t = 0; t < GS_NTIERS; t++) {
        double q = n ? (double)counts[t] / (double)n : 0, p = x->o->mix[t];
        x->move[t] = q > p && q > 0 ? (q - p) / q : 0;
        x->dest[t] = p > q ? p - q : 0;
    }
}

static void xf_mix(struct xf *x, struct gs_jobspec *j)
{
    if (!x->mixing || j->tier < 0 || j->tier >= GS_NTIERS)
        return;
    if (x->move[j->tier] <= 0 || gsl_rng_uniform(x->mix) >= x->move[j->tier])
        return;
    double sum = 0;
    for (int t = 0; t < GS_NTIERS; t++)
        sum += x->dest[t];
    if (sum <= 0)
        return;
    double u = gsl_rng_uniform(x->mix) * sum;
    int to = GS_NTIERS - 1;
    for (int t = 0; t < GS_NTIERS; t++) {
        if (u < x->dest[t]) {
            to = t;
            break;
        }
        u -= x->dest[t];
    }
    j->tier = to;
    j->priority = INT_MIN;
    j->preemptible = -1;
    j->max_wait = -1;
}

/* Next job after the transforms: 1, 0 at the end, negative with d. */
static int next_job(struct input *in, struct xf *x, struct gs_jobspec *j,
                    struct gs_diag *d)
{
    const struct opts *o = x->o;
    if (o->limit > 0 && x->emitted >= o->limit)
        return 0;
    for (;;) {
        int rc = gs_source_next(&in->src, j, d);
        if (rc <= 0)
            return rc;
        int k = xf_filter(x, j);
        if (k < 0)
            return 0;
        if (k == 0)
            continue;
        xf_mix(x, j);
        if (o->scale != 1.0)
            j->arrival = (gs_time)llround((double)j->arrival / o->scale);
        x->emitted++;
        return 1;
    }
}

/* Open the input with its transforms ready; a tier mix costs a first pass
 * to measure the shares.  0, 2 (usage printed) or negative with d. */
static int open_stream(const struct opts *o, struct input *in, struct xf *x,
                       struct gs_diag *d)
{
    int rc = input_open(o, in, d);
    if (rc != 0)
        return rc;
    if (in->req)
        return 0;
    if (xf_init(x, o) < 0)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    if (!o->has_mix)
        return 0;
    long counts[GS_NTIERS] = { 0 };
    struct gs_jobspec j;
    for (;;) {
        rc = gs_source_next(&in->src, &j, d);
        if (rc <= 0)
            break;
        int k = xf_filter(x, &j);
        if (k < 0)
            break;
        if (k > 0 && j.tier >= 0 && j.tier < GS_NTIERS)
            counts[j.tier]++;
    }
    if (rc < 0)
        return rc;
    input_close(in);
    xf_free(x);
    if ((rc = input_open(o, in, d)) != 0)
        return rc;
    if (xf_init(x, o) < 0)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    xf_plan(x, counts);
    return 0;
}

/* Requests: window, sample, scale and limit, in place. */
static int req_transform(const struct opts *o, struct gs_reqtable *t)
{
    if (o->ntenants > 0 || o->has_mix)
        return usage("%s", "--tenants and --tier-mix apply to jobs, not "
                     "requests");
    gsl_rng *r = gs_rng_stream(o->seed, "trace.sample");
    if (r == NULL)
        return 2;
    long m = 0;
    for (long i = 0; i < t->n; i++) {
        struct gs_request q = t->r[i];
        if (q.arrival < o->from)
            continue;
        if (o->has_to && q.arrival >= o->to)
            break;
        if (o->sample < 1.0 && gsl_rng_uniform(r) >= o->sample)
            continue;
        if (o->limit > 0 && m >= o->limit)
            break;
        q.arrival = (gs_time)llround((double)(q.arrival - o->from) / o->scale);
        t->r[m++] = q;
    }
    t->n = m;
    gsl_rng_free(r);
    return 0;
}

/* --- outputs -------------------------------------------------------------------------- */

struct out {
    FILE *fp;
    struct gs_out o;            /* the temporary beside path (outfile.h) */
    const char *path;           /* NULL: standard output */
};

static int out_open(struct out *w, const char *path, struct gs_diag *d)
{
    memset(w, 0, sizeof *w);
    w->path = path;
    if (path == NULL) {
        w->fp = tmpfile();
        if (w->fp == NULL)
            return gs_diag_set(d, GS_EIO, "<stdout>", "cannot make a "
                               "temporary file: %s", strerror(errno));
        return 0;
    }
    int rc = gs_out_begin(&w->o, path, d);
    if (rc < 0)
        return rc;
    if ((w->fp = fdopen(w->o.fd, "w")) == NULL) {
        int e = errno;
        gs_out_abort(&w->o);
        return gs_diag_set(d, GS_EIO, path, "cannot write: %s", strerror(e));
    }
    w->o.fd = -1;               /* closed with fp */
    return 0;
}

static void out_abort(struct out *w)
{
    if (w->fp)
        fclose(w->fp);
    if (w->path)
        gs_out_abort(&w->o);
    w->fp = NULL;
}

static int out_commit(struct out *w, struct gs_diag *d)
{
    int bad = fflush(w->fp) != 0 || ferror(w->fp);
    if (w->path == NULL) {
        if (!bad) {
            rewind(w->fp);
            char buf[65536];
            size_t n;
            while ((n = fread(buf, 1, sizeof buf, w->fp)) > 0)
                if (fwrite(buf, 1, n, stdout) != n) {
                    bad = 1;
                    break;
                }
            bad |= fflush(stdout) != 0;
        }
        fclose(w->fp);
        w->fp = NULL;
        return bad ? gs_diag_set(d, GS_EIO, "<stdout>", "write error") : 0;
    }
    int e = 0;
    if (fclose(w->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    w->fp = NULL;
    if (bad) {
        gs_out_abort(&w->o);
        return gs_diag_set(d, GS_EIO, w->path, "cannot write: %s",
                           e ? strerror(e) : "write error");
    }
    return gs_out_commit(&w->o, d);
}

/* --- commands ---------------------------------------------------------------------------- */

static int cmd_formats(void)
{
    printf("job trace formats (--format, or workload.trace.format):\n");
    for (int i = 0; gs_trace_formats[i]; i++)
        printf("  %-22s %s\n", gs_trace_formats[i]->name,
               gs_trace_formats[i]->summary);
    printf("request trace formats (LLM inference requests):\n");
    static const char *const req_summary[] = {
        "Azure LLM inference 2023: TIMESTAMP,ContextTokens,GeneratedTokens",
        "Mooncake JSON Lines with 512-token prefix blocks (hash_ids)",
        "splitwise-sim request CSV",
        "gpusim's request CSV: id,arrival,input_tokens,output_tokens,"
        "prefix_blocks",
    };
    for (int i = 0; gs_request_formats[i]; i++)
        printf("  %-22s %s\n", gs_request_formats[i], req_summary[i]);
    printf("node-list formats (a scenario fleet's from_node_list):\n");
    for (int i = 0; gs_node_list_formats[i]; i++)
        printf("  %-22s %s\n", gs_node_list_formats[i]->name,
               gs_node_list_formats[i]->summary);
    printf("  scenario               a scenario (*.json): its workload and "
           "fleet\n");
    return 0;
}

/* The exit status of a command that ended with rc; d is reported when
 * rc < 0, and emptied. */
static int finish(int rc, struct gs_diag *d)
{
    int status = rc == 2 ? 2 : rc < 0 ? report(d) : 0;
    gs_diag_free(d);
    return status;
}

static int cmd_convert(const struct opts *o)
{
    struct gs_diag d = { 0 };
    struct input in;
    struct xf x = { 0 };
    struct out w = { 0 };
    int rc = open_stream(o, &in, &x, &d);
    long n = 0;
    if (rc == 0 && out_open(&w, o->out, &d) < 0) {
        xf_free(&x);
        input_close(&in);
        report(&d);
        return 1;
    }
    if (rc == 0 && in.req) {
        if ((rc = req_transform(o, in.req)) == 0) {
            gs_reqtable_write(w.fp, in.req);
            n = in.req->n;
        }
    } else if (rc == 0) {
        struct gs_jobspec j;
        gs_native_write_header(w.fp);
        while ((rc = next_job(&in, &x, &j, &d)) == 1) {
            gs_native_write_row(w.fp, &j, &in.sc->cat);
            n++;
        }
    }
    int status = 0;
    if (rc == 0) {
        if (out_commit(&w, &d) < 0) {
            report(&d);
            status = 1;                 /* the output was not written */
        }
        else if (o->out)
            fprintf(stderr, "gpusim: wrote %ld %s to %s\n", n,
                    in.req ? "requests" : "jobs", o->out);
    } else {
        out_abort(&w);
        status = finish(rc, &d);
    }
    xf_free(&x);
    input_close(&in);
    return status;
}

static double fleet_gpus(const struct gs_scenario *sc)
{
    double g = 0;
    for (int i = 0; i < sc->npools; i++)
        g += (double)sc->pools[i].nodes * sc->pools[i].gpn;
    return g;
}

static int is_node_list_format(const char *f)
{
    for (int i = 0; f && gs_node_list_formats[i]; i++)
        if (strcmp(gs_node_list_formats[i]->name, f) == 0 &&
            strcmp(f, "scenario") != 0)
            return 1;
    return 0;
}

/* `trace stats --format F NODES` for a node-list format F: the fleet it
 * describes, one line per (GPU model, GPUs per node) as a scenario's
 * from_node_list would make its pools.  1 when printed, 0 when the file
 * is not such a node list (the caller then reads it as a job trace, or
 * reports *d when F is no job format), or a negative code. */
static int stats_nodes(const struct opts *o, struct gs_diag *d)
{
    struct gs_catalog cat;
    struct gs_pool_spec *pools = NULL;
    int n = 0;
    gs_catalog_init(&cat);
    int rc = gs_node_list_read(o->format, o->input, &cat, &pools, &n, d);
    if (rc < 0) {
        /* a bad row past the header is this node list's error; a header
         * it does not know may be a job trace's in the same format */
        size_t k = strlen(o->input);
        const char *at = gs_diag_where(d);
        int line = strncmp(at, o->input, k) == 0 && at[k] == ':'
                   ? atoi(at + k + 1) : 0;
        return rc == GS_ENOMEM || line > 1 ? rc : 0;
    }
    long nodes = 0, gpus = 0;
    double cpu = 0, mem = 0;
    printf("node list %s (%s)\n\n", o->input, o->format);
    printf("  %-20s %7s %9s %7s %12s %12s  %s\n", "GPU model", "nodes",
           "GPUs/node", "GPUs", "CPU cores", "memory GiB", "pool, sharing, "
           "taints");
    for (int i = 0; i < n; i++) {
        const struct gs_pool_spec *p = &pools[i];
        const char *m = p->model >= 0 && p->model < cat.n
                            ? cat.m[p->model].name : "(none)";
        double c = (double)p->cpu_milli / 1000.0 * p->nodes;
        double g = (double)p->mem_mib / 1024.0 * p->nodes;
        char share[160] = "", taints[256] = "";
        if (p->share.mode == GS_SHARE_MIG) {
            char lay[128];
            gs_mig_layout_format(&p->share.layout, lay, sizeof lay);
            snprintf(share, sizeof share, ", MIG %s", lay);
        } else if (p->share.mode == GS_SHARE_TS) {
            snprintf(share, sizeof share, ", time-slicing x%d",
                     p->share.replicas);
        }
        if (p->taints) {
            char t[200];
            gs_taints_format(&cat.taints, p->taints, t, sizeof t);
            snprintf(taints, sizeof taints, ", taints %s", t);
        }
        printf("  %-20s %7d %9d %7ld %12.1f %12.1f  %s%s%s\n", p->gpn > 0 ? m :
               "(CPU only)", p->nodes, p->gpn, (long)p->nodes * p->gpn, c, g,
               p->name, share, taints);
        nodes += p->nodes;
        gpus += (long)p->nodes * p->gpn;
        cpu += c;
        mem += g;
    }
    printf("  %-20s %7ld %9s %7ld %12.1f %12.1f\n", "all", nodes, "", gpus,
           cpu, mem);
    free(pools);
    return 1;
}

static int cmd_stats(const struct opts *o)
{
    struct gs_diag d = { 0 };
    if (is_node_list_format(o->format)) {
        int n = stats_nodes(o, &d);
        if (n != 0)
            return finish(n < 0 ? n : 0, &d);
        if (gs_trace_format_find(o->format) == NULL)
            return finish(GS_EINVAL, &d);
        gs_diag_free(&d);
    }
    struct input in;
    struct xf x = { 0 };
    double gpus = o->gpus;
    char *fleet = NULL;         /* what the offered load is against */
    int rc = open_stream(o, &in, &x, &d);
    if (rc == 0 && o->fleet && gpus <= 0) {
        struct gs_scenario *fs;
        if ((rc = gs_scenario_load(o->fleet, &fs, &d)) == 0) {
            gpus = fleet_gpus(fs);
            fleet = gs_strf("fleet of %s", o->fleet);
            gs_scenario_free(fs);
        }
    } else if (rc == 0 && in.scenario && gpus <= 0) {
        gpus = fleet_gpus(in.sc);
        fleet = gs_strf("fleet of %s", o->input);
    } else if (gpus > 0) {
        fleet = gs_strf("%s", "--gpus");
    }
    if (rc == 0 && in.req) {
        if ((rc = req_transform(o, in.req)) == 0)
            gs_reqstats_print(stdout, in.req);
    } else if (rc == 0) {
        struct gs_tstats s;
        gs_tstats_init(&s);
        struct gs_jobspec j;
        while ((rc = next_job(&in, &x, &j, &d)) == 1)
            if (gs_tstats_add(&s, &j) < 0) {
                rc = gs_diag_set(&d, GS_ENOMEM, "", "out of memory");
                break;
            }
        if (rc == 0)
            gs_tstats_print(stdout, &s, o->input, gpus, fleet ? fleet : "");
        gs_tstats_free(&s);
    }
    free(fleet);
    xf_free(&x);
    input_close(&in);
    return finish(rc, &d);
}

static int cmd_gen(const struct opts *o)
{
    struct gs_diag d = { 0 };
    struct gs_scenario *sc = shell();
    if (sc == NULL)
        return report(&d);
    uint64_t seed = 1;
    int rc = gs_genspec_load(o->input, &sc->cat, &sc->gen, &seed, &d);
    if (rc < 0) {
        gs_scenario_free(sc);
        return report(&d);
    }
    if (o->has_seed)
        seed = o->seed;
    if (o->has_jobs) {
        sc->gen.jobs = o->jobs;
        if (!o->has_until)
            sc->gen.until = 0;
    }
    if (o->has_until) {
        sc->gen.until = o->until;
        if (!o->has_jobs)
            sc->gen.jobs = 0;
    }
    sc->gen.rate_per_hour *= o->scale;
    sc->wl_kind = GS_WL_GENERATE;
    struct gs_source src;
    struct out w;
    if ((rc = gs_source_open(sc, seed, &src, &d)) < 0) {
        gs_scenario_free(sc);
        return report(&d);
    }
    long n = 0;
    if (out_open(&w, o->out, &d) < 0) {
        gs_source_close(&src);
        gs_scenario_free(sc);
        report(&d);
        return 1;
    }
    struct gs_jobspec j;
    gs_native_write_header(w.fp);
    while ((rc = gs_source_next(&src, &j, &d)) == 1) {
        gs_native_write_row(w.fp, &j, &sc->cat);
        n++;
    }
    gs_source_close(&src);
    int status = 0;
    if (rc == 0) {
        if (out_commit(&w, &d) < 0) {
            report(&d);
            status = 1;
        } else if (o->out)
            fprintf(stderr, "gpusim: wrote %ld jobs to %s (seed %llu)\n", n,
                    o->out, (unsigned long long)seed);
    } else {
        out_abort(&w);
        status = report(&d);
    }
    gs_scenario_free(sc);
    return status;
}

/* Write a fit to -o through a temporary file: the job generator's spec
 * (wl, cat) or a request source (rq).  0, or 1 after the report. */
static int write_fit(const struct opts *o, const struct gs_wlfit *wl,
                     const struct gs_catalog *cat,
                     const struct gs_reqfit *rq)
{
    struct gs_diag d = { 0 };
    struct out w;
    if (out_open(&w, o->out, &d) < 0) {
        report(&d);
        return 1;
    }
    if (rq)
        gs_reqfit_write_source(w.fp, rq, o->input);
    else
        gs_fit_write_spec(w.fp, wl, cat, o->input);
    if (out_commit(&w, &d) < 0) {
        report(&d);
        return 1;
    }
    return 0;
}

/* `trace fit` on a request trace: the service generator's arrival rate,
 * daily cycle and token laws (tfit.h), printed with their goodness of fit
 * and as a "requests" block to paste into a service; -o writes the block
 * alone. */
static int fit_requests(const struct opts *o, struct input *in)
{
    struct gs_diag d = { 0 };
    int rc = req_transform(o, in->req);
    if (rc != 0)
        return rc;
    struct gs_reqfit *fit = malloc(sizeof *fit);
    if (fit == NULL)
        return finish(gs_diag_set(&d, GS_ENOMEM, "", "out of memory"), &d);
    struct gs_fitopts fo;
    gs_fitopts_default(&fo);
    fo.durations = o->durations;
    if ((rc = gs_reqfit_run(in->req, &fo, fit, &d)) < 0) {
        free(fit);
        return finish(rc, &d);
    }
    gs_reqfit_print(stdout, fit);
    printf("\nas a service's request source (fitted to %s):\n\"requests\": ",
           o->input);
    gs_reqfit_write_source(stdout, fit, o->input);
    fflush(stdout);
    int status = 0;
    if (o->out && (status = write_fit(o, NULL, NULL, fit)) == 0)
        fprintf(stderr, "gpusim: wrote the request source to %s (a "
                "service's \"requests\")\n", o->out);
    free(fit);
    return status;
}

static int cmd_fit(const struct opts *o)
{
    struct gs_diag d = { 0 };
    struct input in;
    struct xf x = { 0 };
    struct gs_fitter *f = NULL;
    struct gs_wlfit *fit = NULL;
    int rc = open_stream(o, &in, &x, &d);
    if (rc == 0 && in.req) {
        int st = fit_requests(o, &in);
        input_close(&in);
        return st;
    }
    if (rc == 0 && ((f = gs_fitter_new()) == NULL ||
                    (fit = malloc(sizeof *fit)) == NULL))
        rc = gs_diag_set(&d, GS_ENOMEM, "", "out of memory");
    if (rc == 0) {
        struct gs_jobspec j;
        while ((rc = next_job(&in, &x, &j, &d)) == 1)
            if (gs_fitter_add(f, &j) < 0) {
                rc = gs_diag_set(&d, GS_ENOMEM, "", "out of memory");
                break;
            }
    }
    if (rc == 0) {
        struct gs_fitopts fo;
        gs_fitopts_default(&fo);
        fo.by_tier = o->by_tier;
        fo.durations = o->durations;
        if ((rc = gs_fitter_run(f, &fo, fit, &d)) < 0)
            gs_diag_reword(&d, gs_strf("%s", o->input), NULL);
    }
    int status = 0;
    if (rc == 0) {
        gs_fit_print(stdout, fit, &in.sc->cat);
        fflush(stdout);
        if (o->out && (status = write_fit(o, fit, &in.sc->cat, NULL)) == 0)
            fprintf(stderr, "gpusim: wrote the generator spec to %s "
                    "('gpusim trace gen %s')\n", o->out, o->out);
    } else {
        status = finish(rc, &d);
    }
    free(fit);
    gs_fitter_free(f);
    xf_free(&x);
    input_close(&in);
    return status;
}

int gs_trace_main(int argc, char **argv)
{
    gs_input_reset();           /* this command's inputs only (path.h) */
    if (argc < 1) {
        fputs(usage_text, stderr);
        return 2;
    }
    const char *cmd = argv[0];
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 ||
        strcmp(cmd, "-h") == 0)
        return help(argc > 1 ? argv[1] : NULL);
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return help(cmd);
    if (strcmp(cmd, "formats") == 0) {
        if (argc > 1)
            return usage("%s", "formats takes no arguments");
        return cmd_formats();
    }
    if (strcmp(cmd, "calibrate") == 0) {
        if (argc != 2 || argv[1][0] == '-')
            return usage("%s", "calibrate takes one file: Splitwise's "
                         "perf_model.csv");
        struct gs_catalog cat;
        struct gs_diag d = { 0 };
        gs_catalog_init(&cat);
        return gs_llm_calib_report(stdout, argv[1], &cat, &d) ? report(&d)
                                                               : 0;
    }
    if (strcmp(cmd, "dcgm") == 0)
        return gs_dcgm_main(argc - 1, argv + 1);
    if (strcmp(cmd, "kueue") == 0) {
        if (argc != 2 || argv[1][0] == '-')
            return usage("%s", "kueue takes one file: kubectl get "
                         "clusterqueues -o json");
        struct gs_diag d = { 0 };
        return gs_kube_kueue_tenants(argv[1], stdout, &d) ? report(&d) : 0;
    }
    struct opts o = { .scale = 1.0, .sample = 1.0, .seed = 1, .by_tier = 1,
                      .durations = GS_WLFIT_AUTO };
    if (strcmp(cmd, "convert") == 0 || strcmp(cmd, "transform") == 0)
        o.cmd = CMD_CONVERT;
    else if (strcmp(cmd, "stats") == 0)
        o.cmd = CMD_STATS;
    else if (strcmp(cmd, "gen") == 0)
        o.cmd = CMD_GEN;
    else if (strcmp(cmd, "fit") == 0)
        o.cmd = CMD_FIT;
    else
        return usage("unknown command '%s' (formats, convert, transform, "
                     "stats, gen, fit, dcgm, kueue, calibrate)", cmd);
    int rc = parse_opts(&o, argc - 1, argv + 1);
    if (rc != 0)
        return rc;
    struct gs_diag d = { 0 };
    if (o.out && strcmp(o.out, "-") == 0 && gs_out_check(o.out, &d) < 0)
        return report(&d);      /* "-": stdout is the result's alone */
    switch (o.cmd) {
    case CMD_CONVERT: return cmd_convert(&o);
    case CMD_STATS: return cmd_stats(&o);
    case CMD_GEN: return cmd_gen(&o);
    default: return cmd_fit(&o);
    }
}
