/* cli.c -- the gpusim command line: run, policies, scenario, help.
 *
 * Exit status: 0 success; 2 bad input or usage (a message names the place
 * and the problem, and no result file is left behind); 1 when the result
 * cannot be written.  The progress line and timing go to stderr, so stdout
 * is exactly the summary: byte-identical for the same scenario and seed. */
#include "../base/cleanup.h"
#include "../base/datapath.h"
#include "../studies/compare.h"
#include "../studies/htmlrep.h"
#include "../../traces/tracecli.h"
#include "../io/h5out.h"
#include "../studies/llmcli.h"
#include "../studies/mpirun.h"
#include "../io/outfile.h"
#include "../io/jsonio.h"
#include "../studies/plan.h"
#include "../studies/planjson.h"
#include "../studies/placeexp.h"
#include "../studies/plugin.h"
#include "../studies/pool.h"
#include "../base/membudget.h"
#include "../base/path.h"
#include "../studies/progress.h"
#include "../studies/replay.h"
#include "../io/report.h"
#include "../io/question.h"
#include "../setup/scenario.h"
#include "../setup/setup.h"
#include "../setup/source.h"
#include "../base/suggest.h"
#include "../studies/sweep.h"
#include "../base/version.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_main[] =
"usage: gpusim COMMAND [ARGS]\n"
"\n"
"commands:\n"
"  run SCENARIO      simulate one scenario: summary on stdout, HDF5 results\n"
"  compare SCENARIO  policies x seeds: means with 95% intervals, HDF5, plots\n"
"  sweep SCENARIO    any scenario keys over lists of values x seeds\n"
"  plan SCENARIO     the cheapest fleet that meets the plan's targets\n"
"  train SCENARIO    fit the rl-lite policy's weights (JSON)\n"
"  trace SUBCOMMAND  convert, transform, stats, gen, fit workloads\n"
"  llm SUBCOMMAND    validate the LLM operator model, calibrate a GPU\n"
"  place-exp SCENARIO  the FGD paper's placement experiment: allocation vs load\n"
"  replay-check SCENARIO  a cluster's own history replayed: simulated waits\n"
"                    against recorded ones (docs/import.md)\n"
"  report FILE.h5    a run, compare or plan result as one HTML page\n"
"  policies          list scheduling policies, placers and trace formats\n"
"  scenario NAME     print a built-in scenario (quickstart) as JSON;\n"
"                    --schema: the scenarios' JSON Schema; --check FILE...\n"
"  help [COMMAND]    help on a command\n"
"\n"
"  gpusim --version  print the version (also -V)\n"
"every command also takes --max-memory SIZE and --task-timeout TIME\n"
"  gpusim --data-path DIR[:DIR...] COMMAND ...  where a scenario's files\n"
"                    are looked up when they are not beside it (also\n"
"                    $GPUSIM_DATA_PATH; see the README's Scenario files)\n"
"SCENARIO is a JSON file, or 'quickstart' for the built-in scenario.\n";

static const char usage_run[] =
"usage: gpusim run SCENARIO [options]\n"
"\n"
"Simulate SCENARIO (a JSON file, 'quickstart', or - for standard input)\n"
"and print its summary.\n"
"\n"
"options (--opt=VALUE works too; -- ends the options):\n"
"  -s, --seed N        override the scenario's seed\n"
"  -p, --policy NAME   override the scenario's policy (its parameters are\n"
"                      then not used)\n"
"      --placement NAME  override the scenario's placement\n"
"      --policy-lib SO   use the policy a compiled plug-in exports (see\n"
"                      docs/policies.md); overrides the scenario's policy\n"
"  -o, --out FILE      HDF5 result file, replaced if it exists (default:\n"
"                      the scenario file's name with .h5, in the current\n"
"                      folder; never replaced without --force)\n"
"  -f, --force         replace the default result file if it exists\n"
"      --no-out        write no result file\n"
"      --sample P      keep an evenly spaced share P in (0, 1] of each\n"
"                      service's requests in the result's /requests\n"
"      --json          print the summary as JSON\n"
"      --csv           print the summary as CSV (scope,metric,value)\n"
"  -q, --quiet         print no summary and no progress\n"
"      --precision R   steady-state runs: make the run longer (its\n"
"                      generated requests, or jobs) until every steady-\n"
"                      state estimate's 95% interval is within R of it\n"
"                      (0.05: 5%), its batches independent and its p99\n"
"                      sections full, or --max-length is reached;\n"
"                      stderr says which\n"
"      --max-length N  the cap of --precision (default 2000000)\n"
"\n"
"On a terminal, stderr shows a progress line: the share done (of the\n"
"horizon, or of a generated workload), simulated hours per second and the\n"
"time left.\n"
"\n"
"exit status: 0 done, 2 bad input or usage, 1 result not written\n";

static const char usage_policies[] =
"usage: gpusim policies\n"
"\n"
"List the built-in scheduling policies, placement plug-ins and trace\n"
"formats, with a line on each.\n";

static const char usage_scenario[] =
"usage: gpusim scenario quickstart\n"
"       gpusim scenario --schema\n"
"       gpusim scenario --check FILE...\n"
"\n"
"  quickstart   print the built-in quickstart scenario, a starting point\n"
"               for your own\n"
"  --schema     print the JSON Schema (draft 2020-12) of scenario files,\n"
"               made from the parser's own key tables: what an editor\n"
"               needs to complete and check a scenario (installed as\n"
"               share/gpusim/scenarios/gpusim.schema.json; see the README's\n"
"               Scenario reference)\n"
"  --check      validate each FILE ('-': standard input) as 'run' does\n"
"               before it starts, without running it: every key and\n"
"               value, the files the scenario reads at parse time (node\n"
"               lists, CDFs), the policy and placement names.  'FILE: ok'\n"
"               on stdout, or the problem on stderr; the plan section is\n"
"               checked by 'gpusim plan'\n"
"\n"
"exit status: 0 every FILE valid, 2 one is not, or bad usage\n";

/* A usage error; a message "CMD: ..." points to that command's help. */
static const char *const commands[] = {
    "run", "compare", "train", "trace", "llm", "place-exp", "replay-check",
    "report",
    "policies", "scenario", "help", "version", NULL,
};

static const char usage_help[] =
"usage: gpusim help [COMMAND [SUBCOMMAND]]\n"
"\n"
"Without COMMAND, list the commands; with one, its options and what it\n"
"does (the same as 'gpusim COMMAND --help').\n";

static int usage_error(const char *fmt, const char *arg)
{
    char msg[1024], topic[32] = "";
    snprintf(msg, sizeof msg, fmt, arg);
    size_t k = strcspn(msg, ": ");
    if (msg[k] == ':' && k < sizeof topic)
        snprintf(topic, sizeof topic, " %.*s", (int)k, msg);
    fprintf(stderr, "gpusim: %s\n(see 'gpusim help%s')\n", msg, topic);
    return 2;
}

/* Print d; a failure that filled no diagnostic (rc < 0, d empty: an
 * allocation deep in a model) is named by its code's message. */
static int report_rc(int rc, struct gs_diag *d)
{
    if (d->code == 0 && rc < 0)
        fprintf(stderr, "gpusim: %s\n", gs_strerror(rc));
    else
        gs_diag_print(stderr, "gpusim: ", d);
    gs_diag_free(d);
    return 2;
}

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static int load(const char *arg, struct gs_scenario **sc, struct gs_diag *d)
{
    if (strcmp(arg, "quickstart") == 0 && !is_file(arg))
        return gs_scenario_parse(gs_scenario_quickstart(),
                                 "<built-in quickstart>", ".", sc, d);
    return gs_scenario_load(arg, sc, d);
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s == '\0' || *s == '-' || *end != '\0' || errno)
        return -1;
    *out = v;
    return 0;
}

/* Read the scenario from standard input ("-"). */
static int load_stdin(struct gs_scenario **sc, struct gs_diag *d)
{
    int err;
    char *buf = gs_read_all(stdin, (size_t)64 << 20, &err);
    if (buf == NULL)
        return gs_diag_set(d, err, "<stdin>", err == GS_EIO
                           ? "read error"
                           : "out of memory, or a scenario over 64 MiB");
    int rc = gs_scenario_parse(buf, "<stdin>", ".", sc, d);
    free(buf);
    return rc;
}

static int load_any(const char *arg, struct gs_scenario **sc,
                    struct gs_diag *d)
{
    return strcmp(arg, "-") == 0 ? load_stdin(sc, d) : load(arg, sc, d);
}

static const struct option run_opts[] = {
    { "seed", required_argument, NULL, 's' },
    { "policy", required_argument, NULL, 'p' },
    { "placement", required_argument, NULL, 'P' },
    { "policy-lib", required_argument, NULL, 'L' },
    { "out", required_argument, NULL, 'o' },
    { "no-out", no_argument, NULL, 'N' },
    { "sample", required_argument, NULL, 'M' },
    { "force", no_argument, NULL, 'f' },
    { "json", no_argument, NULL, 'j' },
    { "csv", no_argument, NULL, 'c' },
    { "quiet", no_argument, NULL, 'q' },
    { "precision", required_argument, NULL, 'R' },
    { "max-length", required_argument, NULL, 'X' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* run --precision: a steady-state run is made longer (its generated
 * requests, or jobs, scaled by gs_next_length) and run again until every
 * steady-state estimate is as precise as asked or the length reaches max;
 * stderr says which.  Each run is a fresh run of the longer scenario with
 * the same seed, so its first requests are the shorter run's (common
 * random numbers).  *q receives the last run's analysis, which the
 * outputs use as it is (the steady state is analysed once a run).  0, or
 * a negative code with d filled. */
static int run_precise(struct gs_scenario *sc, const struct gs_sim_opts *o,
                       struct gs_sim **sim, double rel, long max, int quiet,
                       struct gs_question *q, struct gs_diag *d)
{
    for (int round = 1;; round++) {
        int rc = gs_question_analyse(*sim, q);
        if (rc < 0)
            return gs_diag_set(d, rc, "", "out of memory");
        double worst;
        long n = gs_question_length(sc);
        int ok = gs_question_precise(q, rel, &worst);
        if (q->question != GS_HORIZON_STEADY) {
            if (!quiet)
                fprintf(stderr, "gpusim: --precision: a finite-horizon run "
                        "is not made longer; its intervals come from "
                        "replications (gpusim compare --precision)\n");
            return 0;
        }
        if (ok || n <= 0 || n >= max) {
            if (!quiet)
                fprintf(stderr, "gpusim: --precision %g: %s with %ld "
                        "generated %s after %d run%s (worst relative "
                        "half-width %.3g)\n", rel, ok ? "met"
                        : n <= 0 ? "NOT met (a stream limited only by time "
                        "is not made longer)" : "NOT met at --max-length",
                        n, sc->nsvcs ? "requests" : "jobs", round,
                        round == 1 ? "" : "s", worst);
            return 0;
        }
        gs_question_set_length(sc, gs_next_length(n, worst, rel, max));
        gs_sim_free(*sim);
        *sim = NULL;
        if ((rc = gs_sim_new(sc, o, sim, d)) < 0 ||
            (rc = gs_sim_run(*sim, d)) < 0)
            return rc;
    }
}

/* Say so; exit status 1. */
static int out_of_memory(void)
{
    fprintf(stderr, "gpusim: out of memory\n");
    return 1;
}

/* run's --precision R ('R') and --max-length N ('X'): 0, or 2 after the
 * usage message. */
static int length_opt(int c, const char *arg, double *precision,
                      long *max_length)
{
    char *end;
    if (c == 'R') {
        *precision = strtod(arg, &end);
        if (*arg == '\0' || *end != '\0' || !(*precision > 0 &&
                                               *precision < 1))
            return usage_error("run: --precision takes a relative "
                               "half-width between 0 and 1 such as 0.05, "
                               "not '%s'", arg);
        return 0;
    }
    *max_length = strtol(arg, &end, 10);
    if (*arg == '\0' || *end != '\0' || *max_length < 1)
        return usage_error("run: --max-length takes a whole number of "
                           "requests (or jobs), not '%s'", arg);
    return 0;
}

/* run's outputs once the simulation is over: the HDF5 file at out (NULL:
 * --no-out) with a share `sample` of the request rows, then the summary on
 * the standard output as a table, JSON (fmt 1) or CSV (fmt 2) unless
 * quiet; `analysed` is the run's steady-state analysis when one was made
 * already (run --precision's last round), NULL to make it here.  The exit
 * status: 0, or 1 when the file could not be written or memory ran out. */
static int run_outputs(const struct gs_sim *sim,
                       const struct gs_question *analysed, const char *out,
                       double sample, int fmt, int quiet, struct gs_diag *d)
{
    int rc = 0;
    struct gs_question q;   /* it allocates: made before any output */
    if (analysed)
        q = *analysed;
    else if ((rc = gs_question_analyse(sim, &q)) < 0)
        rc = out_of_memory();
    if (rc == 0 && out &&
        (rc = gs_h5_write_sampled(out, sim, sample, &q, d)) < 0) {
        report_rc(rc, d);
        rc = 1;
    }
    if (rc == 0 && !quiet) {
        if (fmt == 1)
            gs_report_json_q(stdout, sim, &q);
        else if (fmt == 2)
            gs_report_csv(stdout, sim);
        else
            gs_report_table_q(stdout, sim, &q);
    }
    fflush(stdout);
    if (rc == 0 && out && !quiet)
        fprintf(stderr, "gpusim: results written to %s\n",
                strcmp(out, "-") == 0 ? "the standard output" : out);
    return rc;
}

/* gpusim run; run_main arms --task-timeout on the run once it knows the
 * scenario, and it is disarmed here whatever the way out. */
static int run_main(int argc, char **argv);

static int cmd_run(int argc, char **argv)
{
    int rc = run_main(argc, argv);
    gs_pool_deadline(NULL, NULL);
    return rc;
}

static int run_main(int argc, char **argv)
{
    const char *file = NULL, *out = NULL, *lib = NULL;
    int fmt = 0, quiet = 0, no_out = 0, force = 0, c;
    double sample = 1.0, precision = 0;
    long max_length = 2000000;
    struct gs_sim_opts o = { 0 };
    gs_input_reset();           /* this command's inputs only (path.h) */
    optind = 0;             /* 0: a full restart (suggest.h); 1 resumes a
                               cluster of short options left half read */
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:s:p:o:fqh", run_opts, NULL)) != -1 ||
           optind < argc) {
        if (c == -1) {          /* a scenario; options may follow it */
            int ended = strcmp(argv[optind - 1], "--") == 0;
            if (file != NULL || (ended && optind + 1 < argc))
                return usage_error("run: more than one scenario: '%s'",
                                   argv[file ? optind : optind + 1]);
            file = argv[optind++];
            if (ended)
                break;
            continue;
        }
        switch (c) {
        case 's':
            if (parse_u64(optarg, &o.seed) < 0)
                return usage_error("run: --seed takes a whole number >= 0, "
                                   "not '%s'", optarg);
            o.set_seed = 1;
            break;
        case 'p': o.policy = optarg; break;
        case 'P': o.placer = optarg; break;
        case 'L': lib = optarg; break;
        case 'o': out = optarg; break;
        case 'N': no_out = 1; break;
        case 'M': {
            char *end;
            sample = strtod(optarg, &end);
            if (*optarg == '\0' || *end != '\0' || !(sample > 0 &&
                                                     sample <= 1))
                return usage_error("run: --sample takes a share in (0, 1], "
                                   "not '%s'", optarg);
            break;
        }
        case 'f': force = 1; break;
        case 'R':
        case 'X':
            if (length_opt(c, optarg, &precision, &max_length) != 0)
                return 2;
            break;
        case 'j':
        case 'c':
            if (fmt && fmt != (c == 'j' ? 1 : 2))
                return usage_error("%s", "run: --json and --csv are "
                                   "different formats; give one");
            fmt = c == 'j' ? 1 : 2;
            break;
        case 'q': quiet = 1; break;
        case 'h':
            fputs(usage_run, stdout);
            return 0;
        default:
            return gs_suggest_bad_option("run", run_opts, argc, argv, c);
        }
    }
    if (file == NULL)
        return usage_error("%s", "run: which scenario? (a JSON file, "
                           "'quickstart', or - for standard input)");
    if (out && no_out)
        return usage_error("%s", "run: --out and --no-out contradict each "
                           "other; give one");
    if (gs_pool_deadline("run", file) < 0)      /* disarmed by cmd_run */
        return out_of_memory();
    struct gs_diag d = { 0 };
    if (out && !no_out && gs_out_check_seekable(out, &d) < 0) {
        gs_diag_print(stderr, "gpusim: --out: ", &d);
        gs_diag_free(&d);
        return 2;
    }
    char *defout = NULL;
    if (!no_out && out == NULL) {
        defout = gs_out_default_name(file, ".h5");
        if (defout == NULL)
            return report_rc(GS_ENOMEM, &d);
        if (gs_out_check(defout, &d) < 0 ||
            gs_out_check_new(defout, force, &d) < 0) {
            free(defout);
            return report_rc(GS_EINVAL, &d);
        }
        out = defout;
    }
    struct gs_scenario *sc = NULL;
    struct gs_sim *sim = NULL;
    struct gs_plugin *plug = NULL;
    int rc;
    if (lib) {
        if ((rc = gs_plugin_open(lib, &plug, &d)) < 0) {
            free(defout);
            return report_rc(rc, &d);
        }
        o.policy_ops = gs_plugin_policy(plug);
    }
    if ((rc = load_any(file, &sc, &d)) < 0) {
        gs_plugin_close(plug);
        free(defout);
        return report_rc(rc, &d);
    }
    struct gs_progress pr;
    gs_progress_init(&pr, "run", quiet);
    if (pr.on) {
        o.status = gs_progress_sim;
        o.status_ctx = &pr;
    }
    rc = gs_sim_new(sc, &o, &sim, &d);
    /* the inputs are open now (the scenario, its traces): --out naming
     * one is refused before the run */
    const char *target = no_out ? NULL : out ? out : defout;
    if (rc == 0 && target && gs_out_check(target, &d) < 0)
        rc = GS_EINVAL;
    if (rc == 0)
        rc = gs_sim_run(sim, &d);
    struct gs_question q = { 0 };   /* --precision's last analysis */
    if (rc == 0 && precision > 0)
        rc = run_precise(sc, &o, &sim, precision, max_length, quiet, &q, &d);
    gs_progress_end(&pr);
    if (rc < 0) {
        gs_sim_free(sim);
        gs_scenario_free(sc);
        gs_plugin_close(plug);
        free(defout);
        return report_rc(rc, &d);
    }
    rc = run_outputs(sim, precision > 0 ? &q : NULL, no_out ? NULL : out,
                     sample, fmt, quiet, &d);
    gs_diag_free(&d);
    free(defout);
    gs_sim_free(sim);
    gs_scenario_free(sc);
    gs_plugin_close(plug);
    return rc;
}

static int cmd_policies(void)
{
    printf("policies:\n");
    for (int i = 0; gs_policies[i]; i++)
        printf("  %-16s %s\n", gs_policies[i]->name, gs_policies[i]->summary);
    printf("placement:\n");
    for (int i = 0; gs_placers[i]; i++)
        printf("  %-16s %s\n", gs_placers[i]->name, gs_placers[i]->summary);
    printf("trace formats:\n");
    for (int i = 0; gs_trace_formats[i]; i++)
        printf("  %-16s %s\n", gs_trace_formats[i]->name,
               gs_trace_formats[i]->summary);
    return 0;
}

/* The scenario's sections that tools read themselves: their tables go into
 * the schema and their checks into --check. */
static const struct gs_sc_section *const sections[] = {
    &gs_plan_section, NULL
};

/* `gpusim scenario --schema`: the registries' names go in here, where the
 * CLI sees every layer. */
static int cmd_schema(void)
{
    const char *pol[128], *plc[128], *fmt[64];
    int n = 0;
    for (int i = 0; gs_policies[i] && n < 127; i++)
        pol[n++] = gs_policies[i]->name;
    pol[n] = NULL;
    n = 0;
    for (int i = 0; gs_placers[i] && n < 127; i++)
        plc[n++] = gs_placers[i]->name;
    plc[n] = NULL;
    n = 0;
    for (int i = 0; gs_trace_formats[i] && n < 63; i++)
        fmt[n++] = gs_trace_formats[i]->name;
    fmt[n] = NULL;
    if (gs_scenario_schema(stdout, pol, plc, fmt, sections) < 0 ||
        fflush(stdout)) {
        fprintf(stderr, "gpusim: scenario --schema: cannot write to "
                "standard output\n");
        return 1;
    }
    return 0;
}

/* `gpusim scenario --check FILE...`: each file parsed as run parses it;
 * 2 when any is invalid. */
static int cmd_check(int n, char **files)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        struct gs_scenario *sc = NULL;
        struct gs_diag d = { 0 };
        int rc = load_any(files[i], &sc, &d);
        if (rc == 0)
            rc = gs_check_names(sc, &d);
        for (int k = 0; rc == 0 && sections[k]; k++)
            rc = sections[k]->check(sc, &d);
        gs_scenario_free(sc);
        if (rc < 0) {
            report_rc(rc, &d);
            bad = 1;
        } else {
            printf("%s: ok\n", files[i]);
        }
    }
    return bad ? 2 : 0;
}

static int cmd_help(const char *topic, const char *sub)
{
    if (topic == NULL) {
        fputs(usage_main, stdout);
        return 0;
    }
    if (strcmp(topic, "run") == 0)
        fputs(usage_run, stdout);
    else if (strcmp(topic, "policies") == 0)
        fputs(usage_policies, stdout);
    else if (strcmp(topic, "scenario") == 0)
        fputs(usage_scenario, stdout);
    else if (strcmp(topic, "place-exp") == 0) {
        char *av[] = { (char *)"--help", NULL };
        return gs_place_exp_main(1, av);
    }
    else if (strcmp(topic, "replay-check") == 0) {
        char *av[] = { (char *)"replay-check", (char *)"--help", NULL };
        return gs_replay_main(2, av);
    }
    else if (strcmp(topic, "trace") == 0) {
        char *av[] = { (char *)"help", (char *)sub, NULL };
        return gs_trace_main(sub ? 2 : 1, av);
    }
    else if (strcmp(topic, "llm") == 0) {
        char *av[] = { (char *)"--help", NULL };
        return gs_llm_main(1, av);
    }
    else if (strcmp(topic, "sweep") == 0 || strcmp(topic, "plan") == 0) {
        char *av[] = { (char *)"--help", NULL };
        return strcmp(topic, "sweep") == 0 ? gs_sweep_main(1, av)
                                           : gs_plan_main(1, av);
    }
    else if (strcmp(topic, "compare") == 0 || strcmp(topic, "train") == 0) {
        char *av[] = { (char *)"--help", NULL };
        return strcmp(topic, "compare") == 0 ? gs_compare_main(1, av)
                                             : gs_train_main(1, av);
    }
    else if (strcmp(topic, "report") == 0) {
        char *av[] = { (char *)"--help", NULL };
        return gs_htmlrep_main(1, av);
    }
    else if (strcmp(topic, "help") == 0)
        fputs(usage_help, stdout);
    else {
        char msg[512], hint[128];
        gs_suggest_fmt(topic, commands, hint, sizeof hint);
        snprintf(msg, sizeof msg, "help: no command '%.100s'%s", topic, hint);
        return usage_error("%s", msg);
    }
    return 0;
}

/* Standard output is checked at close: a full disk, /dev/full or a closed
 * descriptor turns a silent loss into a message and exit status 1.  A
 * descriptor closed before gpusim started (`>&-`) is only an error when
 * something was written to it. */
static int close_stdout(int status)
{
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !bad && errno != EBADF) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        fprintf(stderr, "gpusim: cannot write the standard output: %s\n",
                strerror(e));
        return status == 0 ? 1 : status;
    }
    return status;
}

/* The options every command takes, anywhere before a "--": taken out of
 * argv here so each command's parser never sees them.
 *   --max-memory SIZE    the memory budget (membudget.h): "8G", "512M"
 *   --task-timeout TIME  the longest a task may run in a worker, or run,
 *                        place-exp and replay-check as a whole (pool.h):
 *                        "90s", "10m", or seconds
 * 0, or 2 after a message. */
static int global_opts(int *argc, char **argv)
{
    int out = 2;
    for (int i = 2; i < *argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            while (i < *argc)
                argv[out++] = argv[i++];
            break;
        }
        int mem = strncmp(a, "--max-memory", 12) == 0 &&
                  (a[12] == '\0' || a[12] == '=');
        int tmo = strncmp(a, "--task-timeout", 14) == 0 &&
                  (a[14] == '\0' || a[14] == '=');
        if (!mem && !tmo) {
            argv[out++] = argv[i];
            continue;
        }
        const char *eq = strchr(a, '='), *v = eq ? eq + 1 : NULL;
        if (v == NULL && i + 1 < *argc)
            v = argv[++i];
        if (v == NULL)
            return usage_error("%s needs a value", mem ? "--max-memory"
                                                       : "--task-timeout");
        if (mem) {
            uint64_t b;
            if (gs_mem_parse(v, &b) < 0)
                return usage_error("--max-memory takes a size such as 8G, "
                                   "512M or 2GiB (a number of bytes), not "
                                   "'%s'", v);
            gs_mem_set_budget(b);
        } else {
            gs_time t;
            if (gs_parse_time(v, &t) < 0 || t <= 0)
                return usage_error("--task-timeout takes a duration such as "
                                   "90s, 10m or 2h (seconds when bare), not "
                                   "'%s'", v);
            gs_pool_set_timeout((double)t / 1000.0);
        }
    }
    argv[out] = NULL;
    *argc = out;
    return 0;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
    gs_cleanup_install();
    return close_stdout(dispatch(argc, argv));
}

static int dispatch(int argc, char **argv)
{
    /* the built-in models, before any output names their fields */
    int installed = gs_builtin_install();
    GS_ASSERT(installed == 0);
    /* gpusim --data-path DIR[:DIR...] COMMAND ...: where scenarios' files
     * are looked up when they are not beside the scenario (datapath.h) */
    while (argc >= 2 && (strcmp(argv[1], "--data-path") == 0 ||
                         strncmp(argv[1], "--data-path=", 12) == 0)) {
        const char *v = argv[1][11] == '=' ? argv[1] + 12 : argv[2];
        int used = argv[1][11] == '=' ? 1 : 2;
        if (v == NULL || v[0] == '\0')
            return usage_error("%s", "--data-path needs a list of folders "
                               "(DIR[:DIR...])");
        if (gs_data_path_set(v) < 0)
            return report_rc(GS_ENOMEM, &(struct gs_diag){ 0 });
        argv[used] = argv[0];
        argv += used;
        argc -= used;
    }
    if (argc < 2) {
        fputs(usage_main, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (global_opts(&argc, argv) != 0)
        return 2;
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 ||
        strcmp(cmd, "version") == 0) {
        printf("gpusim %s (result layout %d)\n", GS_VERSION, GS_H5_LAYOUT);
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0)
        return cmd_help(NULL, NULL);
    if (strcmp(cmd, "help") == 0)
        return cmd_help(argc > 2 ? argv[2] : NULL,
                        argc > 3 ? argv[3] : NULL);
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return gs_compare_main(argc - 2, argv + 2);
    if (strcmp(cmd, "train") == 0)
        return gs_train_main(argc - 2, argv + 2);
    if (strcmp(cmd, "sweep") == 0 || strcmp(cmd, "plan") == 0) {
        /* MPI starts only when mpirun or srun launched us (mpirun.h) */
        if (gs_dist_init(&argc, &argv) < 0) {
            fprintf(stderr, "gpusim: cannot start MPI\n");
            return 1;
        }
        int rc = strcmp(cmd, "sweep") == 0
                     ? gs_sweep_main(argc - 2, argv + 2)
                     : gs_plan_main(argc - 2, argv + 2);
        gs_dist_finalize();
        return rc;
    }
    if (strcmp(cmd, "trace") == 0)
        return gs_trace_main(argc - 2, argv + 2);
    if (strcmp(cmd, "llm") == 0)
        return gs_llm_main(argc - 2, argv + 2);
    if (strcmp(cmd, "place-exp") == 0)
        return gs_place_exp_main(argc - 2, argv + 2);
    if (strcmp(cmd, "replay-check") == 0)
        return gs_replay_main(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return gs_htmlrep_main(argc - 2, argv + 2);
    if (strcmp(cmd, "policies") == 0) {
        if (argc > 2 && strcmp(argv[2], "--help") == 0)
            return cmd_help("policies", NULL);
        return cmd_policies();
    }
    if (strcmp(cmd, "scenario") == 0) {
        if (argc == 3 && strcmp(argv[2], "quickstart") == 0) {
            fputs(gs_scenario_quickstart(), stdout);
            return 0;
        }
        if (argc == 3 && strcmp(argv[2], "--help") == 0)
            return cmd_help("scenario", NULL);
        if (argc == 3 && strcmp(argv[2], "--schema") == 0)
            return cmd_schema();
        if (argc >= 4 && strcmp(argv[2], "--check") == 0)
            return cmd_check(argc - 3, argv + 3);
        if (argc == 3 && strcmp(argv[2], "--check") == 0)
            return usage_error("%s", "scenario: --check needs a file");
        return usage_error("%s", "scenario: the built-in scenario is "
                           "'quickstart'; or --schema, --check FILE...");
    }
    char msg[512], hint[128];
    gs_suggest_fmt(cmd, commands, hint, sizeof hint);
    snprintf(msg, sizeof msg, "unknown command '%.100s'%s", cmd, hint);
    return usage_error("%s", msg);
}
