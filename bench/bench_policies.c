/* bench_policies.c -- the policy regression check (`make bench-policies`).
 *
 * Runs every built-in policy on a fixed set of scenarios -- the built-in
 * quickstart, scenarios/small-tenants.json (three tenants with quotas),
 * and Alibaba's openb pod list from ../shared/traces when it is there
 * (bench/scenarios/alibaba-openb.json; skipped, and said so, when not),
 * and bench/scenarios/inference-mix.json (a chat service opening beside
 * training: the inference metrics) --
 * and compares each metric of `gpusim compare` with the baseline stored in
 * bench/baselines.json, within that file's tolerances: a metric drifts when
 * |now - base| > abs + rel * |base|.  Prints one line per run and every
 * drifted metric; exits 1 on any drift or missing baseline, 2 on bad input.
 * The simulations are deterministic, so a drift means a policy's decisions
 * changed: on purpose, refresh the baselines with
 *     make bench-policies-update     (bench_policies --update)
 * and commit bench/baselines.json with the change that explains it.
 *
 * Options: --update, --baselines FILE (default bench/baselines.json),
 * --policies a,b (default: all built-in; static only where the scenario
 * has partitions). */
#include "../sim/studies/compare.h"
#include "../sim/io/jsonio.h"
#include "../sim/setup/scenario.h"
#include "../sim/setup/builtin.h"
#include "../sim/setup/setup.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const scenarios[] = {
    "quickstart",
    "scenarios/small-tenants.json",
    "bench/scenarios/alibaba-openb.json",
    "bench/scenarios/inference-mix.json",
};
#define NSCEN ((int)(sizeof scenarios / sizeof scenarios[0]))

struct result {
    char scenario[GS_JSON_NAME], policy[GS_JSON_NAME];
    double *v;
};

static int load(const char *arg, struct gs_scenario **sc, struct gs_diag *d)
{
    if (strcmp(arg, "quickstart") == 0)
        return gs_scenario_parse(gs_scenario_quickstart(),
                                 "<built-in quickstart>", ".", sc, d);
    return gs_scenario_load(arg, sc, d);
}

static int listed(const char *list, const char *name)
{
    if (list == NULL)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

static void json_num(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, "%.10g", v);
    else
        fprintf(fp, "0");
}

static int write_baselines(const char *path, const struct gs_baselines *old,
                           const struct result *r, int nr)
{
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.tmp", path) < 0)
        return -1;
    FILE *fp = fopen(tmp, "w");
    if (fp == NULL) {
        free(tmp);
        return -1;
    }
    int nm = gs_compare_nmetrics();
    const char *const *names = gs_compare_metric_names();
    fprintf(fp, "{\n  \"gpusim_baselines\": 1,\n  \"tolerances\": {\n");
    struct gs_bl_tol def = { "default", 1e-6, 1e-9 };
    if (old && (old->def.rel > 0 || old->def.abs > 0))
        def = old->def;
    fprintf(fp, "    \"default\": {\"rel\": %g, \"abs\": %g}", def.rel,
            def.abs);
    for (int i = 0; old && i < old->ntol; i++)
        fprintf(fp, ",\n    \"%s\": {\"rel\": %g, \"abs\": %g}",
                old->tol[i].metric, old->tol[i].rel, old->tol[i].abs);
    fprintf(fp, "\n  },\n  \"runs\": [");
    for (int i = 0; i < nr; i++) {
        fprintf(fp, "%s\n    {\"scenario\": \"%s\", \"policy\": \"%s\", "
                "\"metrics\": {", i ? "," : "", r[i].scenario, r[i].policy);
        for (int m = 0; m < nm; m++) {
            fprintf(fp, "%s\n      \"%s\": ", m ? "," : "", names[m]);
            json_num(fp, r[i].v[m]);
        }
        fprintf(fp, "}}");
    }
    fprintf(fp, "\n  ]\n}\n");
    int rc = fclose(fp) != 0 || rename(tmp, path) != 0 ? -1 : 0;
    free(tmp);
    return rc;
}

static const struct gs_bl_run *find_run(const struct gs_baselines *b,
                                        const char *sc, const char *pol)
{
    for (int i = 0; i < b->nrun; i++)
        if (strcmp(b->run[i].scenario, sc) == 0 &&
            strcmp(b->run[i].policy, pol) == 0)
            return &b->run[i];
    return NULL;
}

int main(int argc, char **argv)
{
    const char *path = "bench/baselines.json", *only = NULL;
    int update = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--update") == 0)
            update = 1;
        else if (strcmp(argv[i], "--baselines") == 0 && i + 1 < argc)
            path = argv[++i];
        else if (strcmp(argv[i], "--policies") == 0 && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: bench_policies [--update] [--baselines "
                    "FILE] [--policies A,B]\n");
            return 2;
        }
    }
    /* the built-in models, before the metric names are asked for */
    if (gs_builtin_install() < 0) {
        fprintf(stderr, "bench_policies: the built-in models could not be "
                "installed\n");
        return 2;
    }
    struct gs_baselines base = { 0 };
    struct gs_diag d = { 0 };
    struct stat st;
    int have_base = stat(path, &st) == 0;
    if (have_base && gs_baselines_load(path, &base, &d) < 0) {
        gs_diag_print(stderr, "bench_policies: ", &d);
        return 2;
    }
    if (!have_base && !update) {
        fprintf(stderr, "bench_policies: no baselines at %s (create them "
                "with --update)\n", path);
        return 2;
    }
    int nm = gs_compare_nmetrics();
    const char *const *names = gs_compare_metric_names();
    struct result *res = NULL;
    int nres = 0, drift = 0, missing = 0, status = 0;
    printf("%-16s %-14s %8s %10s %8s %8s %10s  %s\n", "scenario", "policy",
           "util", "wait avg", "starved", "sla", "jobs/h", "vs baseline");
    for (int s = 0; s < NSCEN; s++) {
        struct gs_scenario *sc = NULL;
        gs_diag_free(&d);
        if (load(scenarios[s], &sc, &d) < 0) {
            gs_diag_print(stderr, "bench_policies: ", &d);
            gs_diag_free(&d);
            status = 2;
            continue;
        }
        for (int p = 0; gs_policies[p]; p++) {
            const char *pol = gs_policies[p]->name;
            if (!listed(only, pol) ||
                (strcmp(pol, "static") == 0 && sc->nparts == 0))
                continue;
            struct gs_sim_opts o = { .policy = pol };
            struct gs_sim *sim = NULL;
            gs_diag_free(&d);
            if (gs_sim_new(sc, &o, &sim, &d) < 0 ||
                gs_sim_run(sim, &d) < 0) {
                char *m = gs_diag_message(&d);
                const char *msg = m ? m : gs_strerror(GS_ENOMEM);
                int skip = d.code == GS_EIO;
                if (skip)       /* the trace is not there: skip it all */
                    printf("%-16s %-14s skipped: %s\n", sc->name, pol, msg);
                else
                    fprintf(stderr, "bench_policies: %s: %s\n", sc->name,
                            msg);
                free(m);
                gs_diag_free(&d);
                gs_sim_free(sim);
                if (skip)
                    break;
                status = 2;
                continue;
            }
            struct result *nr = realloc(res, (size_t)(nres + 1) * sizeof *nr);
            double *v = malloc((size_t)nm * sizeof *v);
            if (nr == NULL || v == NULL) {
                free(v);
                gs_sim_free(sim);
                fprintf(stderr, "bench_policies: out of memory\n");
                return 2;
            }
            res = nr;
            struct result *r = &res[nres++];
            snprintf(r->scenario, sizeof r->scenario, "%s", sc->name);
            snprintf(r->policy, sizeof r->policy, "%s", pol);
            r->v = v;
            const struct gs_summary *su = gs_sim_summary(sim);
            gs_compare_metric_values(su, v);
            char verdict[64] = "new";
            const struct gs_bl_run *b = have_base
                                            ? find_run(&base, sc->name, pol)
                                            : NULL;
            int bad = 0;
            if (b) {
                for (int m = 0; m < nm; m++) {
                    double want = NAN;
                    for (int k = 0; k < b->n; k++)
                        if (strcmp(b->names[k], names[m]) == 0)
                            want = b->v[k];
                    const struct gs_bl_tol *t = gs_baselines_tol(&base,
                                                                 names[m]);
                    double got = isfinite(v[m]) ? v[m] : 0;
                    if (isnan(want) ||
                        fabs(got - want) > t->abs + t->rel * fabs(want)) {
                        bad++;
                        if (!update)
                            fprintf(stderr, "  drift: %s / %s / %s: "
                                    "baseline %.10g, now %.10g\n", sc->name,
                                    pol, names[m], want, got);
                    }
                }
                snprintf(verdict, sizeof verdict, bad ? "DRIFT (%d)" : "ok",
                         bad);
            } else {
                missing++;
            }
            drift += bad;
            printf("%-16s %-14s %7.2f%% %9.1fs %8ld %8ld %10.2f  %s\n",
                   sc->name, pol, 100 * su->util, su->all.wait_mean,
                   su->starved, su->all.sla_wait + su->all.sla_deadline,
                   su->throughput_jph, verdict);
            gs_sim_free(sim);
        }
        gs_scenario_free(sc);
    }
    if (update) {
        if (write_baselines(path, have_base ? &base : NULL, res, nres) < 0) {
            fprintf(stderr, "bench_policies: cannot write %s\n", path);
            status = 2;
        } else {
            printf("baselines written to %s (%d runs)\n", path, nres);
        }
    } else if (status == 0 && (drift || missing)) {
        printf("bench-policies: %d metric%s drifted, %d run%s without a "
               "baseline (refresh on purpose with `make "
               "bench-policies-update`)\n", drift, drift == 1 ? "" : "s",
               missing, missing == 1 ? "" : "s");
        status = 1;
    } else if (status == 0) {
        printf("bench-policies: %d runs match their baselines\n", nres);
    }
    for (int i = 0; i < nres; i++)
        free(res[i].v);
    free(res);
    gs_baselines_free(&base);
    return status;
}
