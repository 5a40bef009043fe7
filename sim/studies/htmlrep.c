/* htmlrep.c -- `gpusim report FILE.h5`: a result file as one HTML page.
 *
 * The page is for sharing: one file, readable offline, with no network
 * fetch, no script and no framework -- text, tables and inline SVG plots
 * drawn by gnuplot (svgplot.h).  The kind of file is read from it: the
 * root attribute kind ("compare", "plan"), or a run's /jobs and /summary
 * without one; anything else (a sweep, a placement experiment, a file
 * that is not HDF5) is refused with exit 2 and nothing written.  The
 * answer comes first (a run's headline measures; a comparison's ranking
 * and paired differences; a plan's fleet, cost and targets), then what
 * the file holds of utilization and queue, waits and JCTs, services, cost
 * and the Pareto front, then the scenario's JSON.  A section whose data
 * the file lacks is left out.
 *
 * Every string read from the file goes through gs_html_esc; names reach
 * gnuplot only as data (svgplot.h).  The page depends only on the file:
 * no date, no path, no host, so the same file gives the same bytes.  It
 * is built in memory and written all or nothing (outfile.h): the default
 * name (FILE's name, ".h5" made ".html", in the current folder) is never
 * replaced without --force; -o names the page (replaced), "-" is
 * standard output.  gnuplot's files go to a scratch folder beside the
 * page, removed at the end (or by cleanup.h on a signal). */
#include "htmlrep.h"

#include "../base/suggest.h"
#include "../io/gnuplot.h"
#include "../io/outfile.h"
#include "htmlint.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
"usage: gpusim report FILE.h5 [-o|--out PAGE.html] [-f|--force]\n"
"\n"
"Write one self-contained HTML page (inline SVG plots drawn by gnuplot, no\n"
"network fetch, no script) for a result file of 'gpusim run', 'compare' or\n"
"'plan': the answer first (a run's headline measures; a comparison's\n"
"ranking and paired differences; a plan's fleet, cost and each target\n"
"with its margin and interval), then utilization and queue over time,\n"
"wait and JCT distributions per tier, TTFT/ITL CDFs, SLA attainment and\n"
"replicas per service, cost by pool, market, tier and tenant, the plan's\n"
"Pareto front, and the scenario.  Sections whose data the file lacks are\n"
"left out.  The same file gives the same page, byte for byte.\n"
"\n"
"  -o, --out PAGE  the page (replaced if it exists; '-': standard output);\n"
"                  default FILE's name with .html, in the current folder,\n"
"                  never replaced without --force\n"
"  -f, --force     replace the default-named page\n"
"\n"
"Exit status: 0; 2 for bad usage or a file that is not a run, compare or\n"
"plan result; 1 when the page cannot be written, or gnuplot could not draw\n"
"one of its plots (the page says so in the plot's place).\n";

static const char STYLE[] =
"<style>\n"
"body{font-family:sans-serif;max-width:980px;margin:1em auto;padding:0 1em;"
"color:#222;background:#fff}\n"
"h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}\n"
"table{border-collapse:collapse;margin:.6em 0}\n"
"td,th{border:1px solid #ddd;padding:2px 8px;text-align:left;"
"vertical-align:top}\n"
"td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
"th{background:#f4f4f4}\n"
".bar{display:inline-block;height:.8em;background:#4a7fb5}\n"
".answer{background:#f3f8ff;border:1px solid #bcd;padding:.5em 1em}\n"
"figure{margin:1em 0}figure svg{max-width:100%;height:auto}\n"
"figcaption{font-size:.9em;color:#444}\n"
"pre{background:#f6f6f6;padding:.6em;overflow:auto;max-height:40em;"
"white-space:pre-wrap;word-break:break-all}\n"
".sig{font-weight:bold}\n"
"</style>\n";

/* --- the page ----------------------------------------------------------- */

enum kind { K_RUN, K_COMPARE, K_PLAN };

/* The kind of the open file, or -1 with d saying what it is. */
static int file_kind(struct gs_h5in *r, const char *path, struct gs_diag *d)
{
    char *k = gs_h5in_attr_str(r, "/", "kind");
    int kind = -1;
    if (k == NULL && gs_h5in_has(r, "/jobs") && gs_h5in_has(r, "/summary"))
        kind = K_RUN;
    else if (k && strcmp(k, "compare") == 0 && gs_h5in_has(r, "/compare"))
        kind = K_COMPARE;
    else if (k && strcmp(k, "plan") == 0 && gs_h5in_has(r, "/plan"))
        kind = K_PLAN;
    if (kind < 0) {
        char what[80];
        if (k)
            snprintf(what, sizeof what, "a '%.40s' file", k);
        else
            snprintf(what, sizeof what, "%s", "an HDF5 file gpusim did "
                     "not write");
        gs_diag_set(d, GS_EINVAL, path, "%s; gpusim report reads the "
                    "result files of run, compare and plan", what);
    }
    free(k);
    return kind;
}

static void page_head(struct gs_html *h, int kind)
{
    static const char *const kname[] = { "run", "comparison", "plan" };
    char *scen = gs_h5in_attr_str(h->r, "/", "scenario");
    char *ver = gs_h5in_attr_str(h->r, "/", "gpusim_version");
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8"
          "\">\n<meta name=\"viewport\" content=\"width=device-width\">\n"
          "<title>gpusim ", h->fp);
    fprintf(h->fp, "%s: ", kname[kind]);
    gs_html_esc(h->fp, scen ? scen : "");
    fprintf(h->fp, "</title>\n%s</head>\n<body>\n<h1>gpusim %s of "
            "scenario <q>", STYLE, kname[kind]);
    gs_html_esc(h->fp, scen ? scen : "");
    fputs("</q></h1>\n<p>", h->fp);
    if (kind == K_RUN) {
        char *pol = gs_h5in_attr_str(h->r, "/", "policy");
        char *plc = gs_h5in_attr_str(h->r, "/", "placement");
        double seed = NAN;
        gs_h5in_attr_num(h->r, "/", "seed", &seed);
        fputs("Policy <q>", h->fp);
        gs_html_esc(h->fp, pol ? pol : "");
        fputs("</q>, placement <q>", h->fp);
        gs_html_esc(h->fp, plc ? plc : "");
        fprintf(h->fp, "</q>, seed %.0f. ", seed);
        free(pol);
        free(plc);
    }
    fputs("Written by gpusim ", h->fp);
    gs_html_esc(h->fp, ver ? ver : "(unknown version)");
    fputs(".</p>\n", h->fp);
    free(scen);
    free(ver);
}

static void sec_scenario(struct gs_html *h)
{
    char **v = NULL;
    size_t n = 0;
    if (gs_h5in_strings(h->r, "/scenario", &v, &n) < 0 || n == 0) {
        gs_h5in_strs_free(v, n);
        return;
    }
    gs_html_section(h, "scenario", "The scenario");
    fputs("<p>The scenario JSON exactly as given.</p>\n<pre>", h->fp);
    gs_html_esc(h->fp, v[0]);
    fputs("</pre>\n", h->fp);
    gs_html_section_end(h);
    gs_h5in_strs_free(v, n);
}

/* The whole page of the open file into h->fp. */
static void page(struct gs_html *h, int kind)
{
    page_head(h, kind);
    if (kind == K_RUN) {
        struct gs_html_run one = { (char *)"", (char *)"" };
        gs_html_run_answer(h);
        gs_html_run_sections(h, &one, 1);
    } else if (kind == K_COMPARE) {
        struct gs_html_run *runs = NULL;
        gs_html_compare_answer(h);
        int n = gs_html_compare_runs(h, &runs);
        if (n > 0) {
            fputs("<p>The plots below show one run per policy: its first "
                  "seed.</p>\n", h->fp);
            gs_html_run_sections(h, runs, n);
        }
        gs_html_runs_free(runs, n);
    } else {
        gs_html_plan(h);
    }
    sec_scenario(h);
    fputs("</body>\n</html>\n", h->fp);
}

struct rargs {
    const char *file, *out;
    int force;
};

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "gpusim: report: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see 'gpusim help report')\n");
    return 2;
}

/* Parse the options: -1 to go on, else the exit status. */
static int parse(int argc, char **argv, struct rargs *a)
{
    static const struct option opts[] = {
        { "out", required_argument, NULL, 'o' },
        { "force", no_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int ch, status = -1;
    optind = 0;             /* 0: a full restart (suggest.h) */
    opterr = 0;
    while (status < 0 && (ch = gs_cli_getopt(argc, argv, "+:o:fh", opts,
                                             &a->file)) != -1) {
        switch (ch) {
        case GS_CLI_EXTRA:
            status = bad_usage("more than one file: '%s'", optarg);
            break;
        case 'o': a->out = optarg; break;
        case 'f': a->force = 1; break;
        case 'h':
            fputs(usage, stdout);
            status = 0;
            break;
        default:
            status = gs_suggest_bad_option("report", opts, argc, argv, ch);
        }
    }
    if (status < 0 && a->file == NULL)
        status = bad_usage("%s", "which result file? (an .h5 file of "
                           "gpusim run, compare or plan)");
    return status;
}

/* The default page name: FILE's name without its folder and ".h5",
 * followed by ".html"; malloc'ed. */
static char *default_name(const char *file)
{
    const char *b = strrchr(file, '/');
    b = b ? b + 1 : file;
    size_t n = strlen(b);
    if (n > 3 && strcmp(b + n - 3, ".h5") == 0)
        n -= 3;
    char *p = NULL;
    return asprintf(&p, "%.*s.html", (int)n, n ? b : "report") < 0 ? NULL
                                                                    : p;
}

/* Write the page's n bytes to path, all or nothing. */
static int write_page(const char *path, const char *buf, size_t n,
                      struct gs_diag *d)
{
    struct gs_out o;
    int rc = gs_out_begin(&o, path, d);
    if (rc < 0)
        return rc;
    for (size_t k = 0; k < n;) {
        ssize_t w = write(o.fd, buf + k, n - k);
        if (w <= 0) {
            gs_out_abort(&o);
            return gs_diag_set(d, GS_EIO, path, "cannot write the page");
        }
        k += (size_t)w;
    }
    return gs_out_commit(&o, d);
}

/* Build the page of the open file r (kind) with scratch folder dir. */
static int build(struct gs_html *h, int kind, char **buf, size_t *n)
{
    h->fp = open_memstream(buf, n);
    if (h->fp == NULL)
        return GS_ENOMEM;
    page(h, kind);
    return fclose(h->fp) == 0 ? 0 : GS_ENOMEM;
}

static int report_main(int argc, char **argv)
{
    struct rargs a = { 0 };
    int status = parse(argc, argv, &a);
    if (status >= 0)
        return status;
    struct gs_diag d = { 0 };
    struct gs_html h = { 0 };
    char *def = a.out ? NULL : default_name(a.file), *buf = NULL;
    char *dir = NULL, *adir = NULL;
    const char *out = a.out ? a.out : def;
    const char *opt = "gpusim: ";   /* "gpusim: --out: " when -o was refused */
    size_t n = 0;
    int rc = out ? 0 : GS_ENOMEM, kind = -1;
    if (rc == 0)
        rc = gs_h5in_open(a.file, &h.r, &d);
    if (rc == 0 && (kind = file_kind(h.r, a.file, &d)) < 0)
        rc = GS_EINVAL;
    if (rc == 0 && (rc = a.out ? gs_out_check(out, &d)
                               : gs_out_check_new(out, a.force, &d)) < 0 &&
        a.out)
        opt = "gpusim: --out: ";
    if (rc == 0)
        rc = gs_out_scratch(out, &dir, &d);
    if (rc == 0 && (adir = gs_gnuplot_path(dir)) == NULL)
        rc = GS_ENOMEM;
    h.dir = adir;
    if (rc == 0)
        rc = build(&h, kind, &buf, &n);
    if (rc == 0)
        rc = write_page(out, buf, n, &d);
    if (rc == 0)
        fprintf(stderr, "gpusim: report of %s written to %s (%d plot%s%s)\n",
                a.file, out, h.nplots, h.nplots == 1 ? "" : "s",
                h.nfailed ? "; gnuplot failed on some" : "");
    else if (d.code == 0)
        fprintf(stderr, "gpusim: report: %s\n", gs_strerror(rc));
    else
        gs_diag_print(stderr, opt, &d);
    gs_diag_free(&d);
    if (dir)
        gs_out_scratch_remove(&dir);
    gs_h5in_close(h.r);
    free(adir);
    free(buf);
    free(def);
    if (rc == 0)
        return h.nfailed ? 1 : 0;
    return rc == GS_EIO && kind >= 0 ? 1 : 2;
}

int gs_htmlrep_main(int argc, char **argv)
{
    return gs_cli_named("report", argc, argv, report_main);
}
