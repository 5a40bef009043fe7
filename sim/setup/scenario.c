/* scenario.c -- parse and validate scenario JSON (cJSON, with jsonio.c).
 *
 * Every object is checked against the table of keys it may have
 * (keytab.h), so a typo is an error naming its JSON path and the nearest
 * key.  Malformed JSON is reported with the line and column where cJSON
 * stopped.  Values are range-checked where they are read, by their keys'
 * entries; cross-checks (a partition's pool exists and has the nodes, a
 * generated job fits some pool) follow once everything is read.
 *
 * This file reads the top level and calls one file per section (scenint.h
 * lists them); it also writes the tables as a JSON Schema
 * (gs_scenario_schema), so editors check a scenario as the parser does.
 * The defaults are documented in the README's scenario reference and in
 * each section's file. */
#include "scenint.h"
#include "setup.h"
#include "../base/membudget.h"
#include "../base/path.h"
#include "../../traces/nodelist.h"
#include "../../traces/queuelist.h"
#include "../io/gen.h"
#include "../io/jsoncheck.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the top level ------------------------------------------------------- */

static const char *const queues[] = { "radix", "heap", NULL };
static const char *const questions[] = { "finite", "steady", NULL };

static const struct gs_kt_key k_root[] = {
    GS_K_STR("name", GS_NAME - 1, 0, "names the run and the default result "
             "file (default \"scenario\")"),
    GS_K_STR("description", 4095, 0, "free text"),
    { .name = "seed", .type = GS_KT_NUM, .lo = 0, .hi = 9007199254740991.0,
      .schema = SEED_SCHEMA, .desc = "seeds every random stream (a whole "
      "number; default 1)" },
    GS_K_DUR("horizon", 0, "stop this long after the first arrival"),
    GS_K_DUR("bill_until", 0, "the least span of the run, billed (not with "
             "horizon)"),
    GS_K_DUR("sample_step", 0, "time-series step, at least 1 s (default "
             "1 min)"),
    { .name = "event_queue", .type = GS_KT_STR, .maxlen = 15,
      .names = queues, .desc = "the engine's event queue (same results)" },
    GS_K_OBJS("gpu_models", &gs_sc_t_gpu_model, 0, "GPU models added to the "
              "catalog, or built-in ones redefined"),
    { .name = "fleet", .type = GS_KT_ARR, .items = GS_KT_OBJ,
      .flags = GS_KF_REQ, .obj = &gs_sc_t_pool, .min_items = 1,
      .desc = "pools of nodes" },
    GS_K_OBJ("tiers", &gs_sc_t_tiers, 0, "per-tier defaults"),
    GS_K_OBJS("tenants", &gs_sc_t_tenant, 0, "tenants with quotas (fair, "
              "static)"),
    GS_K_OBJS("partitions", &gs_sc_t_partition, 0, "fixed node partitions "
              "(static)"),
    { .name = "policy", .type = GS_KT_STR | GS_KT_OBJ, .src = GS_KS_POLICY,
      .obj = &gs_sc_t_policy, .desc = "the scheduling policy: a name, or "
      "an object with its parameters (default fifo-backfill)" },
    { .name = "placement", .type = GS_KT_STR | GS_KT_OBJ,
      .src = GS_KS_PLACER, .obj = &gs_sc_t_placement, .desc = "which node "
      "or GPU a job goes to (default best-fit-gpu)" },
    GS_K_OBJ("workload", &gs_sc_t_workload, 0, "the jobs (required unless "
             "services are given)"),
    GS_K_OBJ("prices", &gs_sc_t_prices, 0, "prices by instance type and "
             "market"),
    GS_K_OBJ("billing", &gs_sc_t_billing, 0, "billing of every pool"),
    GS_K_OBJ("spot", &gs_sc_t_spot_globals, 0, "spot tiers and notice"),
    GS_K_OBJ("failures", &gs_sc_t_failures, 0, "failures of every pool"),
    GS_K_OBJ("reaper", &gs_sc_t_reaper, 0, "idle reaping"),
    GS_K_OBJ("autoscaler", &gs_sc_t_autoscaler, 0, "the node autoscaler's "
             "scan"),
    { .name = "services", .type = GS_KT_ARR, .items = GS_KT_OBJ,
      .desc = "inference services" },
    { .name = "plan", .type = GS_KT_OBJ, .schema = "\"type\": \"object\"",
      .desc = "the question `gpusim plan` answers (docs/planning.md); `gpusim "
      "plan` and `gpusim scenario --check` check it, the other commands "
      "leave it alone" },
    GS_K_OBJ("topology", &gs_sc_t_topology, 0, "gang placement and its "
             "cost"),
    { .name = "question", .type = GS_KT_STR, .maxlen = 15,
      .names = questions, .desc = "finite (the whole run) or steady (the "
      "long run, warm-up deleted); default from the workload" },
    GS_K_OBJ("energy", &gs_sc_t_energy, 0, "PUE, electricity tariff and "
             "grid carbon intensity, by region (docs/energy.md)"),
    GS_K_STR("$schema", 4095, 0, "the JSON Schema this file follows, for "
             "editors (ignored by gpusim)"),
    GS_K_END
};

static const struct gs_kt_rule r_root[] = {
    { .cond = GS_KC_ALWAYS, .any = "workload services" },
    { .cond = GS_KC_ALWAYS, .excl = "horizon bill_until" },
    { 0 }
};

static const struct gs_kt_obj t_root = {
    .id = "scenario", .desc = "a gpusim scenario (README, Scenario "
    "reference)", .keys = k_root, .rules = r_root
};

/* Section sec's table (and an array's bound) in its key's entry. */
static void section_key(struct gs_kt_key *keys, int n,
                        const struct gs_sc_section *sec)
{
    int found = 0;
    for (int k = 0; k < n; k++) {
        if (strcmp(keys[k].name, sec->key) != 0)
            continue;
        keys[k].schema = NULL;
        keys[k].obj = sec->table;
        keys[k].max_items = sec->max_items;
        found = 1;
    }
    GS_ASSERT(found);
}

/* The root's keys with each model's and tool's section table in its key's
 * entry (keys has room for GS_ROOT_MAX entries). */
#define GS_ROOT_MAX 64
static void root_keys(struct gs_kt_key *keys,
                      const struct gs_sc_section *const *sections)
{
    int n = 0;
    for (; k_root[n].name; n++) {
        GS_ASSERT(n + 1 < GS_ROOT_MAX);
        keys[n] = k_root[n];
    }
    keys[n] = k_root[n];
    for (int i = 0; gs_builtin_sections[i]; i++)
        section_key(keys, n, gs_builtin_sections[i]);
    for (int i = 0; sections && sections[i]; i++)
        section_key(keys, n, sections[i]);
}

int gs_scenario_schema(FILE *fp, const char *const *policies,
                       const char *const *placers,
                       const char *const *trace_formats,
                       const struct gs_sc_section *const *sections)
{
    struct gs_kt_key keys[GS_ROOT_MAX];
    root_keys(keys, sections);
    struct gs_kt_obj root = t_root;
    root.keys = keys;
    const char *nodefmt[32], *queuefmt[32], *gpus[GS_MAX_MODELS + 1];
    int n = 0;
    for (int i = 0; gs_queue_list_formats[i] && n < 31; i++)
        queuefmt[n++] = gs_queue_list_formats[i]->name;
    queuefmt[n] = NULL;
    n = 0;
    for (int i = 0; gs_node_list_formats[i] && n < 31; i++)
        nodefmt[n++] = gs_node_list_formats[i]->name;
    nodefmt[n] = NULL;
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    for (n = 0; n < cat.n; n++)
        gpus[n] = cat.m[n].name;
    gpus[n] = NULL;
    struct gs_kt_names names = { .strict_src = GS_KS_GPU,
                                 .strict_unless = "gpu_models" };
    names.src[GS_KS_POLICY] = policies;
    names.src[GS_KS_PLACER] = placers;
    names.src[GS_KS_TRACE_FORMAT] = trace_formats;
    names.src[GS_KS_NODE_FORMAT] = nodefmt;
    names.src[GS_KS_QUEUE_FORMAT] = queuefmt;
    names.src[GS_KS_GPU] = gpus;
    for (int i = 0; gs_builtin_sections[i]; i++)
        if (gs_builtin_sections[i]->names)
            gs_builtin_sections[i]->names(&names);
    return gs_kt_schema(fp, &root, GS_SCENARIO_SCHEMA_ID,
                        "gpusim scenario", &names);
}

/* 1 when cJSON stopped at a comment (after white space): JSON has none. */
static int at_comment(const char *text, const char *end)
{
    if (end == NULL)
        return 0;
    if (end > text && end[-1] == '/' && (end[0] == '/' || end[0] == '*'))
        return 1;               /* cJSON stops after the first '/' */
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    return end[0] == '/' && (end[1] == '/' || end[1] == '*');
}

static void line_col(const char *text, const char *at, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (const char *p = text; p < at && *p; p++) {
        if (*p == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

static int validate(struct gs_sc *c)
{
    struct gs_scenario *s = c->s;
    if (s->wl_kind == GS_WL_GENERATE) {
        int maxg = gs_scenario_max_gpus(s);
        for (int i = 0; i < s->gen.nclasses; i++)
            for (int v = 0; v < s->gen.cls[i].nvalues; v++)
                if (s->gen.cls[i].gpus[v] > maxg) {
                    GS_JSON_PATH(p);
                    gs_json_path_at(&p, "$.workload.generate.classes", i);
                    return gs_sc_err(c, gs_json_path_key(&p, p, "gpus"),
                                     "a job of %g GPUs is larger than "
                                     "any pool (the largest has %d GPUs)",
                                     s->gen.cls[i].gpus[v], maxg);
                }
        for (int i = 0; i < s->gen.nclasses; i++) {
            const char *prof = s->gen.cls[i].mig_profile;
            int ok = prof[0] == '\0';
            for (int k = 0; !ok && k < s->npools; k++)
                ok = s->pools[k].share.mode == GS_SHARE_MIG &&
                     gs_mig_profile_find(s->pools[k].share.mig_gpu, prof);
            if (!ok) {
                GS_JSON_PATH(p);
                gs_json_path_at(&p, "$.workload.generate.classes", i);
                return gs_sc_err(c, gs_json_path_key(&p, p, "mig_profile"),
                                 "no MIG pool of the fleet has "
                                 "profile '%s'", prof);
            }
        }
    }
    return 0;
}

int gs_scenario_max_gpus(const struct gs_scenario *s)
{
    int m = 0;
    for (int i = 0; i < s->npools; i++)
        if (s->pools[i].nodes * s->pools[i].gpn > m)
            m = s->pools[i].nodes * s->pools[i].gpn;
    return m;
}

int gs_scenario_mem_check(const struct gs_scenario *s, struct gs_diag *d)
{
    uint64_t nodes = 0, gpus = 0;
    for (int i = 0; i < s->npools; i++) {
        nodes += (uint64_t)s->pools[i].nodes;
        gpus += (uint64_t)s->pools[i].nodes * (uint64_t)s->pools[i].gpn;
    }
    uint64_t jobs = s->wl_kind == GS_WL_GENERATE && s->gen.jobs > 0
                        ? (uint64_t)s->gen.jobs : 0;
    return gs_mem_check(nodes, gpus, jobs, s->file, d);
}

/* The scalar keys of the top level. */
static int parse_top(struct gs_sc *c, const cJSON *root)
{
    const struct gs_kt_obj *t = &t_root;
    struct gs_scenario *s = c->s;
    double seed = 1;
    char desc[4096];
    int rc;
    if ((rc = gs_sc_str(c, root, "$", t, "name", s->name,
                        sizeof s->name)) < 0 ||
        (rc = gs_sc_str(c, root, "$", t, "description", desc,
                        sizeof desc)) < 0 ||
        (rc = gs_sc_num(c, root, "$", t, "seed", &seed)) < 0 ||
        (rc = gs_sc_time(c, root, "$", t, "horizon", &s->horizon)) < 0 ||
        (rc = gs_sc_time(c, root, "$", t, "bill_until", &s->bill_until)) < 0 ||
        (rc = gs_sc_time(c, root, "$", t, "sample_step", &s->step)) < 0)
        return rc;
    if (s->horizon > 0 && s->bill_until > 0)
        return gs_sc_err(c, "$.bill_until", "give horizon or bill_until, not "
                         "both: horizon ends the run at that time, bill_until "
                         "only keeps a run that ended sooner going (billed) "
                         "until then");
    if (seed != floor(seed))
        return gs_sc_err(c, "$.seed", "expected a whole number");
    s->seed = (uint64_t)seed;
    char queue[16] = "radix";
    if ((rc = gs_sc_str(c, root, "$", t, "event_queue", queue,
                        sizeof queue)) < 0)
        return rc;
    if (strcmp(queue, "radix") == 0)
        s->queue = GS_QUEUE_RADIX;
    else if (strcmp(queue, "heap") == 0)
        s->queue = GS_QUEUE_HEAP;
    else
        return gs_sc_err(c, "$.event_queue", "unknown event queue '%s' "
                         "(radix, heap)", queue);
    if (s->step < GS_SEC)
        return gs_sc_err(c, "$.sample_step", "must be at least 1 s");
    char question[16] = "", sch[4096];
    if ((rc = gs_sc_str(c, root, "$", t, "question", question,
                        sizeof question)) < 0 ||
        (rc = gs_sc_str(c, root, "$", t, "$schema", sch, sizeof sch)) < 0)
        return rc;
    if (question[0] == '\0')
        s->question = 0;                /* follows from the workload */
    else if (strcmp(question, "finite") == 0)
        s->question = 1;
    else if (strcmp(question, "steady") == 0)
        s->question = 2;
    else
        return gs_sc_err(c, "$.question", "unknown question '%s' (finite: "
                         "the whole run, intervals over replications; "
                         "steady: the long run, warm-up deleted)", question);
    return 0;
}

/* The sections, in the order they depend on each other: models before
 * pools, the cloud defaults before the pools' own, pools before
 * partitions, the models' sections (services) before the workload they
 * may replace. */
static int parse_sections(struct gs_sc *c, const cJSON *root)
{
    struct gs_scenario *s = c->s;
    const cJSON *v;
    int rc;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "gpu_models")) &&
        (rc = gs_sc_parse_models(c, v)) < 0)
        return rc;
    if ((rc = gs_sc_parse_cloud_globals(c, root)) < 0 ||
        (rc = gs_sc_parse_energy(c, root)) < 0)
        return rc;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "fleet")) == NULL)
        return gs_sc_err(c, "$", "missing required key 'fleet'");
    if ((rc = gs_sc_parse_fleet(c, v)) < 0)
        return rc;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "tiers")) &&
        (rc = gs_sc_parse_tiers(c, v)) < 0)
        return rc;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "tenants")) &&
        (rc = gs_sc_parse_tenants(c, v)) < 0)
        return rc;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "partitions")) &&
        (rc = gs_sc_parse_partitions(c, v)) < 0)
        return rc;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "policy")) &&
        (rc = gs_sc_parse_plugin(c, v, "$.policy", s->policy,
                                 sizeof s->policy, &s->policy_params)) < 0)
        return rc;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "placement")) &&
        (rc = gs_sc_parse_plugin(c, v, "$.placement", s->placer,
                                 sizeof s->placer, &s->placer_params)) < 0)
        return rc;
    for (int i = 0; gs_builtin_sections[i]; i++) {
        const struct gs_sc_section *sec = gs_builtin_sections[i];
        if (sec->parse &&
            (v = cJSON_GetObjectItemCaseSensitive(root, sec->key)) &&
            (rc = sec->parse(c, GJ(v))) < 0)
            return rc;
    }
    /* A scenario of services alone needs no job workload. */
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "workload")) == NULL) {
        if (s->nsvcs == 0)
            return gs_sc_err(c, "$", "missing required key 'workload'");
        s->wl_kind = GS_WL_NONE;
        return 0;
    }
    return gs_sc_parse_workload(c, v);
}

/* JSON text into a cJSON tree, or d filled with where it stopped. */
static cJSON *parse_json(const char *text, const char *name, int *rc,
                         struct gs_diag *d)
{
    const char *end = NULL;
    int oom;
    cJSON *root = gs_json_parse_raw(text, &end, &oom);
    if (root == NULL && oom) {
        *rc = gs_diag_set(d, GS_ENOMEM, name, "out of memory");
        return NULL;
    }
    if (root == NULL) {
        int line, col;
        line_col(text, end ? end : text, &line, &col);
        char *where = gs_strf("%s:%d:%d", name, line, col);
        if (at_comment(text, end))
            *rc = gs_diag_set_at(d, GS_EPARSE, where, "JSON has no comments; "
                                 "remove this one (or move it into a "
                                 "\"description\" string)");
        else
            *rc = gs_diag_set_at(d, GS_EPARSE, where, "malformed JSON here");
    }
    return root;
}

/* A new scenario with the defaults, or NULL out of memory. */
static struct gs_scenario *scenario_new(const char *text, const char *name,
                                        const char *dir)
{
    struct gs_scenario *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->file = strdup(name);
    s->trace_dir = strdup(dir ? dir : ".");
    s->text = strdup(text);
    if (s->file == NULL || s->trace_dir == NULL || s->text == NULL) {
        gs_scenario_free(s);
        return NULL;
    }
    gs_catalog_init(&s->cat);
    gs_sc_tier_defaults(s);
    snprintf(s->name, sizeof s->name, "scenario");
    snprintf(s->policy, sizeof s->policy, "fifo-backfill");
    snprintf(s->placer, sizeof s->placer, "best-fit-gpu");
    s->seed = 1;
    s->step = GS_MIN;
    gs_params_init(&s->policy_params, "");
    gs_params_init(&s->placer_params, "");
    gs_params_init(&s->trace, "");
    return s;
}

int gs_scenario_parse(const char *text, const char *name, const char *dir,
                      struct gs_scenario **out, struct gs_diag *d)
{
    *out = NULL;
    int rc = gs_jsoncheck(text, name, d);   /* duplicates, comments */
    if (rc < 0)
        return rc;
    struct gs_scenario *s = scenario_new(text, name, dir);
    if (s == NULL)
        return gs_diag_set(d, GS_ENOMEM, name, "out of memory");
    cJSON *root = parse_json(text, name, &rc, d);
    if (root == NULL) {
        gs_scenario_free(s);
        return rc;
    }
    struct gs_sc c = { .file = s->file, .d = d, .s = s, .root = root };
    if ((rc = gs_sc_keys(&c, root, "$", &t_root)) == 0 &&
        (rc = gs_sc_parse_topology(&c, root)) == 0 &&
        (rc = parse_top(&c, root)) == 0 &&
        (rc = parse_sections(&c, root)) == 0 &&
        (rc = validate(&c)) == 0)
        rc = gs_scenario_mem_check(s, d);
    /* $.plan is `gpusim plan`'s: it reads it (planjson.h gs_plancfg_load);
     * the parser depends on no tool. */
    cJSON_Delete(root);
    free(c.first);
    if (rc == 0) {
        *out = s;
        return 0;
    }
    gs_scenario_free(s);
    return rc < 0 ? rc : GS_EINVAL;
}

int gs_scenario_load(const char *file, struct gs_scenario **out,
                     struct gs_diag *d)
{
    *out = NULL;
    char *buf, *dir;
    int rc = gs_sc_read_text(file, &buf, &dir, d);
    if (rc < 0)
        return rc;
    rc = gs_scenario_parse(buf, file, dir, out, d);
    free(buf);
    free(dir);
    return rc;
}

int gs_genspec_load(const char *file, struct gs_catalog *cat,
                    struct gs_genspec *spec, uint64_t *seed,
                    struct gs_diag *d)
{
    char *text;
    int rc = gs_sc_read_text(file, &text, NULL, d);
    if (rc == 0 && (rc = gs_jsoncheck(text, file, d)) < 0)
        free(text);
    if (rc < 0)
        return rc;
    cJSON *root = parse_json(text, file, &rc, d);
    if (root == NULL) {
        free(text);
        return rc;
    }
    if (cJSON_IsObject(root) &&
        cJSON_GetObjectItemCaseSensitive(root, "workload")) {
        /* A whole scenario: its generator, catalog and seed. */
        cJSON_Delete(root);
        struct gs_scenario *sc;
        char *dir = gs_path_dir(file);
        rc = dir ? gs_scenario_parse(text, file, dir, &sc, d)
                 : gs_diag_set(d, GS_ENOMEM, file, "out of memory");
        free(dir);
        free(text);
        if (rc < 0)
            return rc;
        if (sc->wl_kind != GS_WL_GENERATE) {
            gs_scenario_free(sc);
            return gs_diag_set_at(d, GS_EINVAL,
                                  gs_strf("%s: $.workload", file), "the "
                                  "scenario replays a trace; a generator "
                                  "spec needs \"generate\"");
        }
        *spec = sc->gen;        /* the tenant arrays move to spec */
        *cat = sc->cat;
        *seed = sc->seed;
        sc->gen = (struct gs_genspec){ 0 };
        gs_scenario_free(sc);
        return 0;
    }
    free(text);
    struct gs_scenario *s = calloc(1, sizeof *s);
    if (s == NULL) {
        cJSON_Delete(root);
        return gs_diag_set(d, GS_ENOMEM, file, "out of memory");
    }
    if ((s->file = strdup(file)) == NULL) {
        free(s);
        cJSON_Delete(root);
        return gs_diag_set(d, GS_ENOMEM, file, "out of memory");
    }
    s->cat = *cat;
    struct gs_sc c = { .file = s->file, .d = d, .s = s };
    double sd = 1;
    char desc[4096];
    const cJSON *v;
    if (!cJSON_IsObject(root))
        rc = gs_sc_err(&c, "$", "expected an object: a generator spec");
    else if ((rc = gs_sc_num(&c, root, "$", &gs_sc_t_genspec, "seed",
                             &sd)) == 0 &&
             (rc = gs_sc_str(&c, root, "$", &gs_sc_t_genspec, "description",
                             desc, sizeof desc)) == 0 &&
             sd != floor(sd))
        rc = gs_sc_err(&c, "$.seed", "expected a whole number");
    if (rc == 0 && (v = cJSON_GetObjectItemCaseSensitive(root, "gpu_models")))
        rc = gs_sc_parse_models(&c, v);
    if (rc == 0)
        rc = gs_sc_parse_generate(&c, root, "$", 1);
    if (rc == 0) {
        *spec = s->gen;         /* the tenant arrays move to spec */
        *cat = s->cat;
        *seed = (uint64_t)sd;
    } else {
        gs_genspec_release(&s->gen);
    }
    cJSON_Delete(root);
    free(s->file);
    free(s);
    return rc;
}

void gs_scenario_free(struct gs_scenario *s)
{
    if (s == NULL)
        return;
    free(s->file);
    free(s->trace_dir);
    free(s->text);
    free(s->pools);
    for (int i = 0; s->cloud.pool && i < s->npools; i++) {
        free(s->cloud.pool[i].price_file);
        free(s->cloud.pool[i].hazard_file);
    }
    free(s->cloud.pool);
    free(s->tenants);
    free(s->parts);
    gs_genspec_release(&s->gen);
    for (int i = 0; gs_builtin_sections[i]; i++)
        if (gs_builtin_sections[i]->free)
            gs_builtin_sections[i]->free(s);
    gs_params_free(&s->policy_params);
    gs_params_free(&s->placer_params);
    gs_params_free(&s->trace);
    free(s);
}

/* The built-in quickstart: a mixed A100/H100/H200 fleet of 144 GPUs and a
 * day of generated mixed-tier work at roughly 70% offered load, beside a
 * small chat service (two Llama-3-8B replicas) so that the first run shows
 * TTFT and ITL. */
static const char quickstart[] =
"{\n"
"  \"name\": \"quickstart\",\n"
"  \"description\": \"Mixed-tier day on a small A100/H100/H200 fleet\",\n"
"  \"seed\": 42,\n"
"  \"sample_step\": \"5m\",\n"
"  \"fleet\": [\n"
"    {\"name\": \"h100\", \"gpu\": \"H100-80GB\", \"nodes\": 8, \"gpus_per_node\": 8,\n"
"     \"instance_type\": \"p5.48xlarge\", \"price_per_hour\": 55.04},\n"
"    {\"name\": \"a100\", \"gpu\": \"A100-80GB\", \"nodes\": 8, \"gpus_per_node\": 8,\n"
"     \"instance_type\": \"p4de.24xlarge\", \"price_per_hour\": 40.97},\n"
"    {\"name\": \"h200\", \"gpu\": \"H200-141GB\", \"nodes\": 2, \"gpus_per_node\": 8,\n"
"     \"instance_type\": \"p5e.48xlarge\", \"price_per_gpu_hour\": 7.91}\n"
"  ],\n"
"  \"policy\": \"fifo-backfill\",\n"
"  \"placement\": \"best-fit\",\n"
"  \"workload\": {\"generate\": {\n"
"    \"jobs\": 2000, \"rate_per_hour\": 55, \"diurnal_amplitude\": 0.4,\n"
"    \"peak_hour\": 14, \"reference_gpu\": \"A100-80GB\",\n"
"    \"classes\": [\n"
"      {\"name\": \"serve\", \"tier\": \"inference\", \"weight\": 0.25,\n"
"       \"tenants\": [\"search\", \"chat\"],\n"
"       \"gpus\": {\"values\": [1, 2, 4], \"weights\": [0.6, 0.3, 0.1]},\n"
"       \"duration\": {\"dist\": \"lognormal\", \"median\": \"40m\", \"sigma\": 0.8},\n"
"       \"compute_bound\": 0.3},\n"
"      {\"name\": \"train\", \"tier\": \"training\", \"weight\": 0.35,\n"
"       \"tenants\": [\"research\", \"ranking\"],\n"
"       \"gpus\": {\"values\": [1, 2, 4, 8, 16], \"weights\": [0.3, 0.2, 0.2, 0.2, 0.1]},\n"
"       \"duration\": {\"dist\": \"lognormal\", \"median\": \"1h\", \"sigma\": 1.0, \"max\": \"2d\"},\n"
"       \"compute_bound\": 0.8, \"checkpoint_interval\": \"30m\"},\n"
"      {\"name\": \"notebook\", \"tier\": \"interactive\", \"weight\": 0.3,\n"
"       \"tenants\": [\"research\", \"ranking\", \"chat\"],\n"
"       \"gpus\": {\"values\": [0.25, 0.5, 1], \"weights\": [0.4, 0.4, 0.2]},\n"
"       \"duration\": {\"dist\": \"exponential\", \"mean\": \"45m\"}},\n"
"      {\"name\": \"etl\", \"tier\": \"data\", \"weight\": 0.1,\n"
"       \"tenants\": [\"data\"],\n"
"       \"gpus\": {\"values\": [0, 1], \"weights\": [0.7, 0.3]},\n"
"       \"duration\": {\"dist\": \"exponential\", \"mean\": \"20m\"}}\n"
"    ]\n"
"  }},\n"
"  \"services\": [\n"
"    {\"name\": \"assistant\", \"tenant\": \"chat\", \"model\": \"llama3-8b\",\n"
"     \"gpu\": \"H100-80GB\", \"replicas\": 2,\n"
"     \"requests\": {\"generate\": {\"rate_per_second\": 0.2, \"until\": \"8h\",\n"
"       \"diurnal_amplitude\": 0.4, \"peak_hour\": 14,\n"
"       \"input_tokens\": {\"dist\": \"lognormal\", \"median\": 500, \"sigma\": 0.9,\n"
"                        \"max\": 8000},\n"
"       \"output_tokens\": {\"dist\": \"lognormal\", \"median\": 100, \"sigma\": 0.8,\n"
"                         \"max\": 2000}}},\n"
"     \"sla\": {\"ttft\": \"1s\", \"itl\": \"50ms\"}}\n"
"  ]\n"
"}\n";

const char *gs_scenario_quickstart(void)
{
    return quickstart;
}
