/* test_htmlrep.c -- `gpusim report`: the page of a run, a comparison and a
 * plan, looked at in headless Chromium, and hostile names.
 *
 * Each page is checked twice.  In its bytes: a whole HTML document, the
 * sections its kind's data gives, every plot an inline SVG in which
 * gnuplot drew data (a plot group with a path of at least two points, or
 * point marks), nothing fetched (no src=, no http(s) link, no @import, no
 * <img>, no <script>), and the same bytes when made again.  In Chromium
 * (Debian's `chromium`, headless): a screenshot that is not blank (its PNG
 * at least 3 times the size of a blank page's at the same window size:
 * a white page compresses to almost nothing) and no console message.  A
 * control page with a console error and a missing image must fail those
 * checks, so they can fail.  Without Chromium the browser half is skipped
 * ("[skipped") locally and fails under CI=true.
 *
 * Hostile names (hostile.h's, and <script>, &, ]]>, quotes) as the
 * scenario's, a pool's, a tenant's and a service's names: run and plan
 * exit 0, their pages exit 0 with every plot drawn, each name appears
 * HTML-escaped, no raw "<script" or "]]>" is in the page, Chromium logs
 * nothing (an unescaped name would run console.error), and no payload
 * ran (no CANARY file). */
#include "cutest.h"
#include "hostile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *dir;
static int nprof;                   /* Chromium profiles made */
static long blank_png = -1;         /* a blank page's screenshot, bytes */

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, got;
    char *b = malloc(cap);
    *n = 0;
    while (b && (got = fread(b + *n, 1, cap - *n - 1, f)) > 0) {
        *n += got;
        if (*n + 1 == cap) {
            char *nb = realloc(b, cap *= 2);
            if (nb == NULL)
                free(b);
            b = nb;
        }
    }
    fclose(f);
    if (b)
        b[*n] = '\0';
    return b;
}

/* dir/name, in one of 4 rotating buffers. */
static const char *in_dir(const char *name)
{
    static char buf[4][4096];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static char *page(const char *name)
{
    size_t n;
    return slurp(in_dir(name), &n);
}

/* --- the page's bytes --------------------------------------------------- */

/* The end of the <g> element that opens at g (after its </g>). */
static const char *group_end(const char *g, const char *e)
{
    int depth = 0;
    for (const char *c = g; c < e; c++) {
        if (strncmp(c, "<g", 2) == 0 && (c[2] == ' ' || c[2] == '>'))
            depth++;
        else if (strncmp(c, "</g>", 4) == 0 && --depth == 0)
            return c + 4;
    }
    return e;
}

/* Segments drawn in s..e: " L" in path data and <use> point marks. */
static void marks(const char *s, const char *e, int *segs, int *uses)
{
    *segs = *uses = 0;
    for (const char *d = strstr(s, " d='M"); d && d < e;
         d = strstr(d + 1, " d='M")) {
        const char *q = strchr(d + 5, '\'');
        for (const char *l = strstr(d, " L"); l && q && l < q && l < e;
             l = strstr(l + 1, " L"))
            (*segs)++;
    }
    for (const char *u = strstr(s, "<use"); u && u < e;
         u = strstr(u + 1, "<use"))
        (*uses)++;
}

/* 1 when the SVG s..e shows data: a plot group ("gnuplot_plot_", a
 * series) with more than its key's sample -- a second line segment, or a
 * second point mark. */
static int svg_has_data(const char *s, const char *e)
{
    for (const char *g = strstr(s, "gnuplot_plot_"); g && g < e;
         g = strstr(g + 1, "gnuplot_plot_")) {
        const char *open = g;
        while (open > s && strncmp(open, "<g", 2) != 0)
            open--;
        int segs, uses;
        marks(open, group_end(open, e), &segs, &uses);
        if (segs >= 2 || uses >= 2)
            return 1;
    }
    return 0;
}

/* The number of plots in p, -1 when one of them has no data drawn. */
static int plots(const char *p)
{
    int n = 0;
    for (const char *s = strstr(p, "<svg"); s; s = strstr(s + 4, "<svg")) {
        const char *e = strstr(s, "</svg>");
        if (e == NULL || !svg_has_data(s, e))
            return -1;
        n++;
    }
    return n;
}

/* 1 when p fetches nothing and runs nothing. */
static int self_contained(const char *p)
{
    static const char *const bad[] = { "src=", "<img", "<script", "<link",
                                       "@import", "href=\"http",
                                       "href='http", "<iframe", NULL };
    for (int i = 0; bad[i]; i++)
        if (strcasestr(p, bad[i]))
            return 0;
    for (const char *u = strstr(p, "url("); u; u = strstr(u + 1, "url("))
        if (u[4] != '#')
            return 0;
    return 1;
}

static int has_sections(const char *p, const char *const *ids)
{
    for (; *ids; ids++) {
        char want[64];
        snprintf(want, sizeof want, "<section id=\"%s\">", *ids);
        if (strstr(p, want) == NULL) {
            printf("\n    no section %s", *ids);
            return 0;
        }
    }
    return 1;
}

/* --- Chromium ----------------------------------------------------------- */

static int have_chromium(void)
{
    return system("command -v chromium >/dev/null 2>&1") == 0;
}

/* Render html (a path) at 1100x3000: its screenshot's size in bytes into
 * *png and the number of console lines into *console.  0, or -1 when
 * Chromium did not run or made no screenshot. */
static int render(const char *html, long *png, int *console)
{
    char shot[4200], log[4200], prof[4200], arg_shot[4300], arg_prof[4300];
    char url[4300];
    nprof++;
    snprintf(shot, sizeof shot, "%s/shot%d.png", dir, nprof);
    snprintf(log, sizeof log, "%s/chromium%d.log", dir, nprof);
    snprintf(prof, sizeof prof, "%s/profile%d", dir, nprof);
    snprintf(arg_shot, sizeof arg_shot, "--screenshot=%s", shot);
    snprintf(arg_prof, sizeof arg_prof, "--user-data-dir=%s", prof);
    snprintf(url, sizeof url, "file://%s", html);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int nul = open("/dev/null", O_RDWR);
        if (fd < 0 || nul < 0)
            _exit(126);
        dup2(nul, 0);
        dup2(nul, 1);
        dup2(fd, 2);
        execlp("timeout", "timeout", "120", "chromium", "--headless",
               "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--no-default-browser-check",
               "--disable-extensions", "--enable-logging=stderr", "--v=0",
               "--window-size=1100,3000", arg_prof, arg_shot, url,
               (char *)NULL);
        _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return -1;
    struct stat sb;
    if (stat(shot, &sb) != 0 || sb.st_size < 8)
        return -1;
    *png = (long)sb.st_size;
    size_t n;
    char *l = slurp(log, &n);
    *console = 0;
    for (const char *c = l ? strstr(l, "CONSOLE") : NULL; c;
         c = strstr(c + 1, "CONSOLE"))
        (*console)++;
    for (const char *c = l ? strstr(l, "CONSOLE") : NULL; c;
         c = strstr(c + 1, "CONSOLE")) {
        const char *e = strchr(c, '\n');
        printf("\n    Chromium's console on %s: %.*s", html,
               e ? (int)(e - c) : (int)strlen(c), c);
    }
    free(l);
    return 0;
}

/* Render page name (and, the first time, a blank page) in Chromium: its
 * screenshot's bytes into *png, console lines into *console.  0; 1 when
 * Chromium did not run; -1 when there is none (skipped with a notice, or
 * a failure under CI=true). */
static int browse(const char *name, long *png, int *console)
{
    if (!have_chromium()) {
        const char *ci = getenv("CI");
        if (ci && strcmp(ci, "true") == 0) {
            CU_FAIL("chromium is missing (make deps installs it)");
        } else {
            printf("\n    [skipped the browser check of %s: chromium is "
                   "missing]", name);
        }
        return -1;
    }
    if (blank_png < 0) {
        int c = 0;
        FILE *f = fopen(in_dir("blank.html"), "w");
        if (f)
            fputs("<!DOCTYPE html><html><body></body></html>\n", f);
        if (f == NULL || fclose(f) != 0 ||
            render(in_dir("blank.html"), &blank_png, &c) < 0 || c != 0)
            return 1;
    }
    return render(in_dir(name), png, console) < 0 ? 1 : 0;
}

/* Chromium's verdict on page name: 1 looks right (not blank, no console
 * line), 0 not, -1 no Chromium. */
static int browser_ok(const char *name)
{
    long png = 0;
    int console = 0, rc = browse(name, &png, &console);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    if (png < 3 * blank_png)
        printf("\n    %s: screenshot %ld bytes, a blank page's %ld", name,
               png, blank_png);
    return png >= 3 * blank_png && console == 0;
}

/* Make dir/out from dir/h5 with gpusim report; its exit status. */
static int report(const char *h5, const char *out)
{
    const char *a[] = { "gpusim", "report", h5, "-o", out, NULL };
    return gs_hostile_run(dir, a);
}

/* The checks every page passes; want: its sections; nplots: at least. */
static void check_page(const char *name, const char *const *want,
                       int nplots)
{
    char *p = page(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT(strncmp(p, "<!DOCTYPE html>", 15) == 0);
    CU_ASSERT(strstr(p, "</html>\n") != NULL);
    CU_ASSERT(has_sections(p, want));
    int n = plots(p);
    if (n < nplots)
        printf("\n    %s: %d plots with data, want %d", name, n, nplots);
    CU_ASSERT(n >= nplots);
    CU_ASSERT(self_contained(p));
    CU_ASSERT_PTR_NULL(strstr(p, "could not draw"));
    CU_ASSERT(browser_ok(name) != 0);
    free(p);
}

/* Two reports of h5 are the same bytes. */
static void check_same(const char *h5, const char *a, const char *b)
{
    CU_ASSERT_EQUAL(report(h5, a), 0);
    CU_ASSERT_EQUAL(report(h5, b), 0);
    size_t n1 = 0, n2 = 0;
    char *x = slurp(in_dir(a), &n1), *y = slurp(in_dir(b), &n2);
    CU_ASSERT(x && y && n1 == n2 && memcmp(x, y, n1) == 0);
    free(x);
    free(y);
}

/* --- the three kinds ---------------------------------------------------- */

static char *scenario_path(const char *rel)
{
    return realpath(rel, NULL);
}

static void test_run(void)
{
    static const char *const want[] = { "answer", "utilization", "waits",
                                        "services", "cost", "scenario",
                                        NULL };
    const char *a[] = { "gpusim", "run", "quickstart", "-q", "-o", "run.h5",
                        NULL };
    CU_ASSERT_EQUAL_FATAL(gs_hostile_run(dir, a), 0);
    CU_ASSERT_EQUAL_FATAL(report("run.h5", "run.html"), 0);
    /* util + queue, wait + JCT, TTFT + ITL, replicas */
    check_page("run.html", want, 7);
    char *p = page("run.html");
    CU_ASSERT(p && strstr(p, "scenario <q>quickstart</q>"));
    CU_ASSERT(p && strstr(p, "<td>utilization</td>"));
    CU_ASSERT(p && strstr(p, "<th>assistant</th>"));    /* the service */
    free(p);
    check_same("run.h5", "run-a.html", "run-b.html");
}

static void test_compare(void)
{
    static const char *const want[] = { "answer", "utilization", "waits",
                                        "services", "cost", "scenario",
                                        NULL };
    const char *a[] = { "gpusim", "compare", "quickstart", "-p", "fifo,fair",
                        "-s", "2", "-j", "2", "--no-plots", "-q", "-o",
                        "cmp.h5", NULL };
    CU_ASSERT_EQUAL_FATAL(gs_hostile_run(dir, a), 0);
    CU_ASSERT_EQUAL_FATAL(report("cmp.h5", "cmp.html"), 0);
    check_page("cmp.html", want, 7);
    char *p = page("cmp.html");
    CU_ASSERT(p && strstr(p, "<th>fair &minus; fifo</th>"));
    CU_ASSERT(p && strstr(p, "(lower is better)"));
    free(p);
    check_same("cmp.h5", "cmp-a.html", "cmp-b.html");
}

/* plan-erlang: Erlang C's answer, 12 nodes (test_plan.c), comes first. */
static void test_plan(void)
{
    static const char *const want[] = { "answer", "front", "candidates",
                                        "scenario", NULL };
    char *s = scenario_path("scenarios/plan-erlang.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    const char *a[] = { "gpusim", "plan", s, "--no-plots", "--no-advice",
                        "-j", "2", "-q", "-o", "plan.h5", NULL };
    CU_ASSERT_EQUAL_FATAL(gs_hostile_run(dir, a), 0);
    free(s);
    CU_ASSERT_EQUAL_FATAL(report("plan.h5", "plan.html"), 0);
    check_page("plan.html", want, 1);
    char *p = page("plan.html");
    CU_ASSERT(p && strstr(p, "The cheapest feasible fleet: <b>gpu.nodes=12"
                             "</b> at $61.44 an hour"));
    CU_ASSERT(p && strstr(p, "<td>wait_mean_s</td><td class=num>&le; 210"));
    /* the chosen plan is marked on the front, by name */
    CU_ASSERT(p && strstr(p, "<text>chosen: gpu.nodes=12</text>"));
    CU_ASSERT(p && strstr(p, "<use"));
    free(p);
    check_same("plan.h5", "plan-a.html", "plan-b.html");
}

/* 1 when the log of the commands run in dir holds s. */
static int logged(const char *s)
{
    char *l = NULL;
    size_t n;
    char *path = NULL;
    if (asprintf(&path, "%s.log", dir) < 0)
        return 0;
    l = slurp(path, &n);
    free(path);
    int ok = l && strstr(l, s);
    free(l);
    return ok;
}

static void test_refuse(void)
{
    /* a sweep file */
    FILE *f = fopen(in_dir("small.json"), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\"name\": \"small\", \"seed\": 1, \"fleet\": [{\"name\": \"g\", "
          "\"gpu\": \"A100-80GB\", \"nodes\": 4, \"gpus_per_node\": 1, "
          "\"price_per_gpu_hour\": 2}], \"policy\": \"fifo\", \"workload\": "
          "{\"generate\": {\"jobs\": 50, \"rate_per_hour\": 4, "
          "\"reference_gpu\": \"A100-80GB\", \"classes\": [{\"name\": \"j\", "
          "\"tier\": \"training\", \"weight\": 1, \"tenants\": 1, \"gpus\": "
          "1, \"duration\": {\"dist\": \"exponential\", \"mean\": \"1h\"}}]}}}"
          "\n", f);
    CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
    const char *sw[] = { "gpusim", "sweep", "small.json", "--set",
                         "fleet[0].nodes=2,4", "-s", "1", "-q", "-o",
                         "sweep.h5", NULL };
    CU_ASSERT_EQUAL_FATAL(gs_hostile_run(dir, sw), 0);
    CU_ASSERT_EQUAL(report("sweep.h5", "sweep.html"), 2);
    CU_ASSERT(logged("sweep.h5: a 'sweep' file; gpusim report reads the "
                     "result files of run, compare and plan"));
    /* not HDF5; missing */
    CU_ASSERT_EQUAL(report("small.json", "small.html"), 2);
    CU_ASSERT(logged("small.json: not an HDF5 file"));
    CU_ASSERT_EQUAL(report("missing.h5", "missing.html"), 2);
    struct stat st;
    CU_ASSERT(stat(in_dir("sweep.html"), &st) != 0);
    CU_ASSERT(stat(in_dir("small.html"), &st) != 0);
    CU_ASSERT(stat(in_dir("missing.html"), &st) != 0);
    /* the default name (run.h5 -> run.html, made by test_run) is not
     * replaced without --force */
    const char *d1[] = { "gpusim", "report", "run.h5", NULL };
    const char *d2[] = { "gpusim", "report", "run.h5", "--force", NULL };
    CU_ASSERT_EQUAL(gs_hostile_run(dir, d1), 2);
    CU_ASSERT_EQUAL(gs_hostile_run(dir, d2), 0);
    /* usage */
    const char *u[] = { "gpusim", "report", NULL };
    CU_ASSERT_EQUAL(gs_hostile_run(dir, u), 2);
}

/* The checks can fail: a page with a console error and a missing image. */
static void test_control(void)
{
    FILE *f = fopen(in_dir("control.html"), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("<!DOCTYPE html><html><body><h1>control</h1><img src=\"missing.png"
          "\"><script>console.error('control')</script></body></html>\n", f);
    CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
    char *p = page("control.html");
    CU_ASSERT_FALSE(self_contained(p));
    free(p);
    /* in the browser: a console line, and next to nothing drawn (an <h1>
     * and a broken image's icon: under 3 times a blank page's bytes) */
    long png = 0;
    int console = 0;
    printf("\n    (a console message is expected next)");
    if (browse("control.html", &png, &console) == 0) {
        CU_ASSERT(console >= 1);
        CU_ASSERT(png < 3 * blank_png);
    }
    /* an SVG with axes and a key and no data: no plot; with data: one */
    const char *empty = "<svg><path d='M0,0 L9,0 L9,9'/><g id=\"p1-gnuplot_"
                        "plot_1\"><title>x</title><g><text>x</text></g>"
                        "<path d='M1,2 L3,2 '/></g><path d='M1,2 L3,4 L5,6'/>"
                        "</svg>";
    const char *one = "<svg><g id=\"p1-gnuplot_plot_1\"><g></g><path d='M1,2"
                      " L3,2 '/><path d='M1,1 L2,2 '/></g></svg>";
    CU_ASSERT_EQUAL(plots(empty), -1);
    CU_ASSERT_EQUAL(plots(one), 1);
}

/* --- hostile names ------------------------------------------------------ */

/* Four names a variant: the scenario's, a pool's, a tenant's, a
 * service's; hostile.h has 10, so index 10 is a tenant's name and 11 a
 * service's (a legend in two plots and a table's header; a service's name
 * may not hold '/'). */
static const char *const extra[] = {
    "<script>console.error('xss')</script>",
    "<svg onload=console.error('xss')>",
    "a & b ]]> \"q\" 'q' system('id') $(id)",
    "</td></tr></table><b>x",
};
#define NEXTRA ((int)(sizeof extra / sizeof *extra))
#define NNAMES (GS_HOSTILE_N + NEXTRA)

static const char *hname(int i)
{
    i %= NNAMES;
    return i < GS_HOSTILE_N ? gs_hostile_names[i] : extra[i - GS_HOSTILE_N];
}

static char *json_str(const char *s)
{
    char *j = malloc(6 * strlen(s) + 1);
    if (j)
        gs_hostile_json(s, j);
    return j;
}

/* Scenario dir/vK.json: names n[0] the scenario, n[1] the pool, n[2] a
 * tenant, n[3] the service; a small run and a plan over 4..8 nodes. */
static int write_variant(int k, const char *const n[4])
{
    char *j[4];
    for (int i = 0; i < 4; i++)
        j[i] = json_str(n[i]);
    char file[32];
    snprintf(file, sizeof file, "v%d.json", k);
    FILE *f = j[0] && j[1] && j[2] && j[3] ? fopen(in_dir(file), "w") : NULL;
    if (f) {
        fprintf(f, "{\"name\": \"%s\", \"seed\": 1,\n \"fleet\": [{\"name\": "
                "\"%s\", \"gpu\": \"A100-80GB\", \"nodes\": 8, "
                "\"gpus_per_node\": 1, \"price_per_gpu_hour\": 2}],\n "
                "\"policy\": \"fifo\", \"placement\": \"first-fit\",\n "
                "\"workload\": {\"generate\": {\"jobs\": 200, "
                "\"rate_per_hour\": 4, \"reference_gpu\": \"A100-80GB\", "
                "\"classes\": [{\"name\": \"j\", \"tier\": \"training\", "
                "\"weight\": 1, \"tenants\": [\"%s\", \"other\"], \"gpus\": 1, "
                "\"duration\": {\"dist\": \"exponential\", \"mean\": "
                "\"1h\"}}]}},\n", j[0], j[1], j[2]);
        fprintf(f, " \"services\": [{\"name\": \"%s\", \"tenant\": \"%s\", "
                "\"model\": \"llama3-8b\", \"gpu\": \"A100-80GB\", "
                "\"replicas\": 1, \"requests\": {\"generate\": "
                "{\"rate_per_second\": 0.2, \"until\": \"30m\", "
                "\"input_tokens\": {\"dist\": \"lognormal\", \"median\": 300,"
                " \"sigma\": 0.5, \"max\": 2000}, \"output_tokens\": "
                "{\"dist\": \"lognormal\", \"median\": 50, \"sigma\": 0.5, "
                "\"max\": 500}}}, \"sla\": {\"ttft\": \"1s\", \"itl\": "
                "\"50ms\"}}],\n", j[3], j[2]);
        fputs(" \"plan\": {\"targets\": {\"wait_mean\": \"10m\"}, \"search\":"
              " {\"pools\": [{\"pool\": \"", f);
        fprintf(f, "%s\", \"nodes\": [4, 8]}]}, \"seeds\": 2, "
                "\"min_seeds\": 2}}\n", j[1]);
    }
    for (int i = 0; i < 4; i++)
        free(j[i]);
    return f == NULL || fclose(f) != 0 ? -1 : 0;
}

/* s HTML-escaped as the page must show it (written independently of
 * gs_html_esc: the five characters, control characters but newline and
 * tab as U+FFFD; the names here are ASCII). */
static char *html_escaped(const char *s)
{
    char *o = malloc(6 * strlen(s) + 1), *w = o;
    for (; o && *s; s++) {
        switch (*s) {
        case '&': w += sprintf(w, "&amp;"); break;
        case '<': w += sprintf(w, "&lt;"); break;
        case '>': w += sprintf(w, "&gt;"); break;
        case '"': w += sprintf(w, "&quot;"); break;
        case '\'': w += sprintf(w, "&#39;"); break;
        default: *w++ = *s;
        }
    }
    if (o)
        *w = '\0';
    return o;
}

static int shows(const char *p, const char *name)
{
    char *e = html_escaped(name);
    int ok = e && strstr(p, e) != NULL;
    if (!ok)
        printf("\n    the page does not show [%s] escaped", name);
    free(e);
    return ok;
}

/* No raw markup of a name: nothing but the page's own tags. */
static void no_raw(const char *p)
{
    CU_ASSERT_PTR_NULL(strcasestr(p, "<script"));
    CU_ASSERT_PTR_NULL(strcasestr(p, "<svg onload"));
    CU_ASSERT_PTR_NULL(strstr(p, "]]>"));
    CU_ASSERT_PTR_NULL(strstr(p, "<touch"));
    CU_ASSERT_PTR_NULL(strstr(p, "</table><b>x"));
}

static void hostile_variant(int k)
{
    const char *n[4];
    for (int i = 0; i < 4; i++)
        n[i] = hname(4 * k + i);
    CU_ASSERT_EQUAL_FATAL(write_variant(k, n), 0);
    char json[32], h5[32], html[32], ph5[32], phtml[32];
    snprintf(json, sizeof json, "v%d.json", k);
    snprintf(h5, sizeof h5, "v%d.h5", k);
    snprintf(html, sizeof html, "v%d.html", k);
    snprintf(ph5, sizeof ph5, "v%d-plan.h5", k);
    snprintf(phtml, sizeof phtml, "v%d-plan.html", k);
    const char *r[] = { "gpusim", "run", json, "-q", "-o", h5, NULL };
    const char *pl[] = { "gpusim", "plan", json, "--no-plots", "--no-advice",
                         "-j", "1", "-q", "-o", ph5, NULL };
    CU_ASSERT_EQUAL_FATAL(gs_hostile_run(dir, r), 0);
    CU_ASSERT_EQUAL_FATAL(gs_hostile_run(dir, pl), 0);
    CU_ASSERT_EQUAL(report(h5, html), 0);
    CU_ASSERT_EQUAL(report(ph5, phtml), 0);
    char *p = page(html), *q = page(phtml);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    for (int i = 0; i < 4; i++)
        CU_ASSERT(shows(p, n[i]));      /* title, pool, tenant, service */
    CU_ASSERT(shows(q, n[0]));
    CU_ASSERT(shows(q, n[1]));          /* the candidates' labels */
    no_raw(p);
    no_raw(q);
    CU_ASSERT_PTR_NULL(strstr(p, "could not draw"));
    CU_ASSERT_PTR_NULL(strstr(q, "could not draw"));
    CU_ASSERT(plots(p) >= 7);           /* the service's legend, a name */
    CU_ASSERT(plots(q) == 1);           /* "chosen: POOL.nodes=N" */
    CU_ASSERT(self_contained(p));
    CU_ASSERT(self_contained(q));
    free(p);
    free(q);
}

static void test_hostile(void)
{
    int nv = (NNAMES + 3) / 4;
    for (int k = 0; k < nv; k++)
        hostile_variant(k);
    /* the page whose tenant is <script>console.error('xss')</script> and
     * whose service is <svg onload=...>, in the browser: an unescaped
     * name would log 'xss' */
    CU_ASSERT(browser_ok("v2.html") != 0);
    CU_ASSERT_FALSE(gs_hostile_canary(dir));
}

static void test_cleanup(void)
{
    if (getenv("GS_KEEP"))
        return;
    gs_hostile_rmdir(dir);
    char *log = NULL;
    if (asprintf(&log, "%s.log", dir) >= 0)
        unlink(log);
    free(log);
}

static CU_TestInfo tests[] = {
    { "the checks fail on a console error, an image, a blank page, an "
      "empty plot", test_control },
    { "a run's page: sections, plots with data, the browser, same bytes",
      test_run },
    { "a comparison's page: paired differences, ranking, per-policy plots",
      test_compare },
    { "a plan's page: Erlang C's 12 nodes first, the front marked",
      test_plan },
    { "other files refused (exit 2, no page); no silent replace",
      test_refuse },
    { "hostile names: escaped in the page and the plots, nothing runs",
      test_hostile },
    { "(cleanup)", test_cleanup },
    CU_TEST_INFO_NULL,
};

int main(void)
{
    dir = gs_hostile_dir();
    if (dir == NULL)
        abort();
    return gs_test_run("htmlrep", tests);
}
