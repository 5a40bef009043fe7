/* plancand.c -- a candidate of `gpusim plan` as a scenario: the base
 * scenario's text with the edits of its axis values and counts (and of
 * its run length and load factor), parsed and validated again
 * (gs_plan_cand_build); and the check that load growth applies.  The
 * search (plansearch.c) and its pruning (planprune.c) build candidates
 * through it. */
#include "planint.h"
#include "../io/jsoncheck.h"
#include "../setup/scenario.h"
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The key a load factor scales: the job generator's rate_per_hour (j < 0)
 * or service j's request rate, under the name its scenario gave it.  A
 * new string (caller frees), or NULL out of memory. */
static char *growth_key(const struct gs_scenario *sc, int j)
{
    if (j < 0)
        return strdup("workload.generate.rate_per_hour");
    char *k = gs_strf("services[%d].requests.generate.rate_per_hour", j);
    if (k == NULL || gs_json_has(sc->text, k))
        return k;
    free(k);
    return gs_strf("services[%d].requests.generate.rate_per_second", j);
}

/* Growth scales generated load only: every source of load (the jobs, if
 * any, and each service's requests) must be a generator. */
int gs_plan_growth_check(const struct gs_scenario *sc, struct gs_diag *d)
{
    if (sc->wl_kind != GS_WL_GENERATE && sc->wl_kind != GS_WL_NONE)
        return gs_diag_set(d, GS_EINVAL, sc->file, "load growth scales a "
                           "generated workload's rate_per_hour; for a trace, "
                           "convert it with `gpusim trace convert "
                           "--scale-rate K`");
    for (int j = 0; j < sc->nsvcs; j++)
        if (sc->svcs[j].src != GS_SVCSRC_GENERATE)
            return gs_diag_set(d, GS_EINVAL, sc->file, "load growth scales "
                               "generated request rates; services[%d] (%s) "
                               "replays a trace", j, sc->svcs[j].name);
    return 0;
}

/* The edits that make a run lenf times as long: each generator's count
 * ("jobs", "requests") and horizon ("until") scaled, the keys the scenario
 * gives.  The count of edits; their paths and values go to v[] (*k
 * counted; a NULL there is memory that ran out). */
static int length_edits(const struct search *s, int lenf, struct gs_edit *e,
                        char **v, int *k)
{
    static const char *const key[2][2] = { { "jobs", "until" },
                                           { "requests", "until" } };
    int n = 0, k0 = *k;
    for (int j = -1; j < s->base->nsvcs; j++) {
        for (int i = 0; i < 2; i++) {
            char *path = j < 0 ? gs_strf("workload.generate.%s", key[0][i])
                         : gs_strf("services[%d].requests.generate.%s", j,
                                   key[1][i]);
            if (path != NULL && !gs_json_has(s->base->text, path)) {
                free(path);
                continue;
            }
            /* a horizon may be a string ("30m"): set it in seconds (the
             * parsed value is in milliseconds) */
            double until = j < 0 ? s->base->gen.until
                                 : s->base->svcs[j].gen.until;
            char num[64];
            e[n].op = i == 0 ? GS_EDIT_SCALE : GS_EDIT_SET;
            e[n].path = v[(*k)++ - k0] = path;
            if (i == 0)
                snprintf(num, sizeof num, "%d", lenf);
            else
                snprintf(num, sizeof num, "%.17g",
                         (double)until / 1000.0 * lenf);
            v[*k - k0] = strdup(num);
            e[n++].value = v[(*k)++ - k0];
        }
    }
    return n;
}

/* The edits that make candidate (combo c, bisected index idx). *ne set;
 * the edits' values are owned by the plan (or by vals[]). */
static int cand_edits(const struct search *s, const struct combo *c, int idx,
                      int lenf, struct gs_edit **out, int *ne, char ***vals,
                      int *nv)
{
    const struct gs_plancfg *pc = s->pc;
    int cap = 12 + 3 * pc->ncounts + 4 * s->base->nsvcs;
    for (int a = 0; a < pc->naxes; a++)
        cap += pc->ax[a].nedits[c->ax[a]] + 2;
    struct gs_edit *e = calloc((size_t)cap, sizeof *e);
    char **v = calloc(2 * (size_t)cap, sizeof *v);     /* paths, values */
    if (!e || !v) {
        free(e);
        free(v);
        return GS_ENOMEM;
    }
    int n = 0, k = 0, clones = 0;
    int clone_of[GS_PLAN_MAX_AXES];
    double share_of[GS_PLAN_MAX_AXES];
    for (int a = 0; a < pc->naxes; a++) {
        const struct gs_plan_axis *ax = &pc->ax[a];
        int val = c->ax[a];
        for (int i = 0; i < ax->nedits[val]; i++)
            e[n++] = ax->edits[val][i];
        if (ax->spot_pool >= 0 && ax->share[val] > 0) {
            char num[64];
            const char *pname = ax->label;  /* "POOL.spot_share" */
            size_t sfx = strlen(".spot_share"), plen = strlen(pname);
            plen = plen > sfx ? plen - sfx : 0;
            /* the clone's name "POOL-spot" as a JSON string, and its spot
             * object whole (a 4,096-byte buffer cut a long one) */
            char *esc = gs_json_key_esc(pname, plen);
            e[n].op = GS_EDIT_CLONE;
            e[n].path = v[k++] = gs_strf("fleet[%d]", ax->spot_pool);
            v[k] = esc ? gs_strf("{\"name\": \"%s-spot\", \"market\": "
                                 "\"spot\", \"nodes\": 0, \"spot\": %s}",
                                 esc, ax->spot_cfg) : NULL;
            free(esc);
            e[n++].value = v[k++];
            /* the spot price: the pool's own price less the discount, or
             * the scenario's spot pricing with that discount */
            int at = s->nfleet + clones;
            if (ax->spot_key[0]) {
                e[n].op = GS_EDIT_SCALE;
                e[n].path = v[k++] = gs_strf("fleet[%d].%s", at,
                                             ax->spot_key);
                snprintf(num, sizeof num, "%.17g", 1 - ax->spot_discount);
            } else {
                e[n].op = GS_EDIT_SET;
                e[n].path = v[k++] = gs_strf("fleet[%d].discount", at);
                snprintf(num, sizeof num, "%.17g", ax->spot_discount);
            }
            v[k] = strdup(num);
            e[n++].value = v[k++];
            clone_of[clones] = ax->spot_pool;
            share_of[clones++] = ax->share[val];
        }
    }
    for (int j = 0; s->svc_sla && j < s->base->nsvcs; j++)
        if (s->svc_sla[j]) {
            e[n].op = GS_EDIT_SET;
            e[n].path = v[k++] = gs_strf("services[%d].sla", j);
            v[k] = strdup(s->svc_sla[j]);
            e[n++].value = v[k++];
        }
    if (s->growth != 1) {
        char g[64];
        snprintf(g, sizeof g, "%.17g", s->growth);
        for (int j = -1; j < s->base->nsvcs; j++) {
            if (j < 0 && s->base->wl_kind != GS_WL_GENERATE)
                continue;
            e[n].op = GS_EDIT_SCALE;
            e[n].path = v[k++] = growth_key(s->base, j);
            v[k] = strdup(g);
            e[n++].value = v[k++];
        }
    }
    if (lenf > 1)
        n += length_edits(s, lenf, &e[n], &v[k], &k);
    for (int q = 0; q < pc->ncounts; q++) {
        const struct gs_plan_count *pk = &pc->counts[q];
        int nodes = q == pc->ncounts - 1 ? pk->lo + idx * pk->step
                                         : c->cnt[q];
        int spot = 0, ci = -1;
        for (int j = 0; j < clones && pk->pool >= 0; j++)
            if (clone_of[j] == pk->pool) {
                spot = (int)floor(share_of[j] * nodes + 0.5);
                ci = j;
            }
        char num[32];
        e[n].op = GS_EDIT_SET;
        e[n].path = v[k++] = strdup(pk->key);
        snprintf(num, sizeof num, "%d", nodes - spot);
        v[k] = strdup(num);
        e[n++].value = v[k++];
        if (ci >= 0) {
            e[n].op = GS_EDIT_SET;
            e[n].path = v[k++] = gs_strf("fleet[%d].nodes", s->nfleet + ci);
            snprintf(num, sizeof num, "%d", spot);
            v[k] = strdup(num);
            e[n++].value = v[k++];
        }
    }
    for (int i = 0; i < k; i++)
        if (v[i] == NULL) {
            for (int j = 0; j < k; j++)
                free(v[j]);
            free(v);
            free(e);
            return GS_ENOMEM;
        }
    *out = e;
    *ne = n;
    *vals = v;
    *nv = k;
    return 0;
}


/* The scenario of candidate (combo c, idx) with runs lenf times as long,
 * parsed and validated into *sc.  0 or a negative code with d filled. */
int gs_plan_cand_build(const struct search *s, const struct combo *c, int idx,
                      int lenf, struct gs_scenario **sc, struct gs_diag *d)
{
    struct gs_edit *e = NULL;
    char **vals = NULL, *text = NULL;
    int ne = 0, nv = 0;
    int rc = cand_edits(s, c, idx, lenf, &e, &ne, &vals, &nv);
    if (rc < 0)
        rc = gs_diag_set(d, rc, "", "out of memory");
    if (rc == 0)
        rc = gs_json_edit(s->base->text, e, ne, &text, "$.plan", d);
    if (rc == 0)
        rc = gs_reparse(s->base, text, sc, d);
    free(text);
    for (int i = 0; i < nv; i++)
        free(vals[i]);
    free(vals);
    free(e);
    return rc;
}

