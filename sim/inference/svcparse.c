/* svcparse.c -- the inference model's own section of the scenario,
 * $.services (svccfg.h, docs/inference.md).
 *
 * A service: an LLM (built-in by name, or declared), its engine, one pool
 * of replicas or a prefill and a decode pool, a router, a request stream
 * (a trace, or a generator with token laws or a total-token CDF) and its
 * SLA.  A replica pool's autoscaler is the service model's own object
 * (svcscale.h reads it, with its own key table).  The parser
 * (setup/scenario.c) names no model: it calls this section through
 * gs_svc_section's hooks (io/scsection.h) -- parse, after the fleet, the
 * tiers, the tenants and the policy; free, with the scenario; names, the
 * routers, LLMs and request-trace formats the schema lists -- and this
 * file reads it with the parser's kit (io/scparse.h). */
#include "service.h"
#include "svcgen.h"
#include "../io/scparse.h"
#include "../../traces/llmreq.h"
#include "../../traces/tread.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* --- the model and the engine -------------------------------------------- */

static const struct gs_kt_key k_arch[] = {
    GS_K_STR("name", GS_LLM_NAME - 1, GS_KF_REQ, "the model's name"),
    GS_K_INT("layers", 1, 100000, GS_KF_REQ, NULL, "transformer layers"),
    GS_K_INT("hidden", 1, 10000000, GS_KF_REQ, NULL, "hidden size"),
    GS_K_INT("heads", 1, 100000, GS_KF_REQ, NULL, "attention heads"),
    GS_K_INT("kv_heads", 1, 100000, 0, NULL, "key/value heads (default: "
             "heads)"),
    GS_K_INT("ffn", 1, 100000000, GS_KF_REQ, NULL, "FFN inner size of one "
             "expert"),
    GS_K_BOOL("gated", "SwiGLU (3 FFN matrices, the default) or GELU (2)"),
    GS_K_INT("experts", 1, 100000, 0, NULL, "experts (default 1: dense)"),
    GS_K_INT("active_experts", 1, 100000, 0, NULL, "experts each token uses"),
    GS_K_INT("vocab", 1, 100000000, 0, NULL, "vocabulary (default 32000)"),
    GS_K_NUM("bytes_per_param", 0.125, 8, 0, "bytes", "weights' bytes per "
             "parameter (default 2)"),
    GS_K_NUM("kv_bytes", 0.125, 8, 0, "bytes", "bytes per cached K or V "
             "element (default: as the weights)"),
    GS_K_BOOL("tied_embeddings", "the LM head is the embedding matrix"),
    GS_K_BOOL("layernorm", "LayerNorm with biases, adds apart (BLOOM, GPT: "
              "15 kernels per layer) or RMSNorm fused with the add (Llama, "
              "the default: 12)"),
    GS_K_BOOL("rotary", "rotary position embedding, one kernel a layer "
              "(the default: Llama, Falcon, phi-2); false for ALiBi "
              "(BLOOM) or learned positions (GPT)"),
    GS_K_END
};

static const struct gs_kt_obj t_arch = {
    .id = "llm_architecture", .desc = "a declared LLM architecture",
    .keys = k_arch
};

static int parse_arch(struct gs_sc *c, const cJSON *v, const char *p,
                      struct gs_llm_arch *a)
{
    const struct gs_kt_obj *t = &t_arch;
    int rc;
    if (cJSON_IsString(v)) {
        if (gs_llm_arch_find(v->valuestring, a, p, c->d) == 0)
            return 0;
        return gs_sc_err(c, p, "%s", gs_diag_what(c->d));
    }
    if ((rc = gs_sc_keys(c, v, p, t)) < 0)
        return rc;
    memset(a, 0, sizeof *a);
    long layers = 0, hidden = 0, heads = 0, kvh = 0, ffn = 0, experts = 1,
         act = 1, vocab = 32000;
    int rotary = 1;
    a->gated = 1;
    a->bytes_per_param = 2;
    if ((rc = gs_sc_str(c, v, p, t, "name", a->name, sizeof a->name)) < 0 ||
        (rc = gs_sc_int(c, v, p, t, "layers", &layers)) < 0 ||
        (rc = gs_sc_int(c, v, p, t, "hidden", &hidden)) < 0 ||
        (rc = gs_sc_int(c, v, p, t, "heads", &heads)) < 0 ||
        (rc = gs_sc_int(c, v, p, t, "kv_heads", &kvh)) < 0 ||
        (rc = gs_sc_int(c, v, p, t, "ffn", &ffn)) < 0 ||
        (rc = gs_sc_bool(c, v, p, t, "gated", &a->gated)) < 0 ||
        (rc = gs_sc_int(c, v, p, t, "experts", &experts)) < 0 ||
        (rc = gs_sc_int(c, v, p, t, "active_experts", &act)) < 0 ||
        (rc = gs_sc_int(c, v, p, t, "vocab", &vocab)) < 0 ||
        (rc = gs_sc_num(c, v, p, t, "bytes_per_param",
                        &a->bytes_per_param)) < 0 ||
        (rc = gs_sc_num(c, v, p, t, "kv_bytes", &a->kv_bytes)) < 0 ||
        (rc = gs_sc_bool(c, v, p, t, "tied_embeddings", &a->tied)) < 0 ||
        (rc = gs_sc_bool(c, v, p, t, "layernorm", &a->layernorm)) < 0 ||
        (rc = gs_sc_bool(c, v, p, t, "rotary", &rotary)) < 0)
        return rc;
    a->no_rotary = !rotary;
    a->layers = (int)layers;
    a->hidden = (int)hidden;
    a->heads = (int)heads;
    a->kv_heads = (int)(kvh ? kvh : heads);
    a->ffn = (int)ffn;
    a->experts = (int)experts;
    a->active_experts = (int)act;
    a->vocab = (int)vocab;
    if (gs_llm_arch_check(a, p, c->d) == 0)
        return 0;
    return gs_sc_err(c, gs_diag_where(c->d), "%s", gs_diag_what(c->d));
}

static const struct gs_kt_key k_engine[] = {
    GS_K_INT("max_seqs", 1, 1000000, 0, NULL, "most sequences in a batch"),
    GS_K_INT("max_batched_tokens", 1, 100000000, 0, "tokens",
             "most tokens in one iteration"),
    GS_K_INT("block_size", 1, 4096, 0, "tokens", "KV-cache block"),
    GS_K_BOOL("chunked_prefill", "prefills are cut into chunks"),
    GS_K_BOOL("prefix_caching", "shared prompt prefixes are cached"),
    GS_K_INT("prefix_block_tokens", 1, 1 << 20, 0, "tokens", "prefix-cache "
             "block, a multiple of block_size"),
    GS_K_NUM("gpu_memory_utilization", 0.01, 1, 0, NULL, "share of GPU "
             "memory the engine takes"),
    GS_K_NUM("reserve_gb", 0, 1e4, 0, "GB", "memory kept back per GPU"),
    GS_K_END
};

static const struct gs_kt_obj t_engine = {
    .id = "engine", .desc = "the serving engine's limits (vLLM's defaults)",
    .keys = k_engine
};

/* A service's "engine": the serving engine's limits (llm.h). */
static int parse_svc_engine(struct gs_sc *c, const cJSON *o, const char *p,
                            struct gs_svccfg *sv)
{
    const struct gs_kt_obj *t = &t_engine;
    int rc;
    GS_JSON_PATH(pp);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "engine");
    if (e == NULL)
        return 0;
    struct gs_llm_engine_cfg *ec = &sv->eng;
    long seqs = ec->max_seqs, tok = ec->max_batched_tokens,
         bs = ec->block_size, pbt = ec->prefix_block_tokens;
    gs_json_path_key(&pp, p, "engine");
    if ((rc = gs_sc_keys(c, e, pp, t)) < 0 ||
        (rc = gs_sc_int(c, e, pp, t, "max_seqs", &seqs)) < 0 ||
        (rc = gs_sc_int(c, e, pp, t, "max_batched_tokens", &tok)) < 0 ||
        (rc = gs_sc_int(c, e, pp, t, "block_size", &bs)) < 0 ||
        (rc = gs_sc_bool(c, e, pp, t, "chunked_prefill",
                         &ec->chunked_prefill)) < 0 ||
        (rc = gs_sc_bool(c, e, pp, t, "prefix_caching",
                         &ec->prefix_caching)) < 0 ||
        (rc = gs_sc_int(c, e, pp, t, "prefix_block_tokens", &pbt)) < 0 ||
        (rc = gs_sc_num(c, e, pp, t, "gpu_memory_utilization",
                        &ec->gpu_mem_util)) < 0 ||
        (rc = gs_sc_num(c, e, pp, t, "reserve_gb", &ec->reserve_gb)) < 0)
        return rc;
    ec->max_seqs = (int)seqs;
    ec->max_batched_tokens = (int)tok;
    ec->block_size = (int)bs;
    ec->prefix_block_tokens = (int)pbt;
    if (ec->prefix_block_tokens % ec->block_size != 0)
        return gs_sc_err(c, pp, "prefix_block_tokens (%d) must be a multiple "
                         "of block_size (%d)", ec->prefix_block_tokens,
                         ec->block_size);
    return 0;
}

/* --- replica pools ------------------------------------------------------- */

static const struct gs_kt_key k_svcpool[] = {
    { .name = "gpu", .type = GS_KT_STR, .flags = GS_KF_CI, .src = GS_KS_GPU,
      .maxlen = GS_MODEL_NAME - 1, .desc = "the replicas' GPU model" },
    GS_K_STR("mig_profile", 23, 0, "a MIG profile per replica (tp 1)"),
    GS_K_INT("tp", 1, 64, 0, NULL, "GPUs per replica (tensor parallel; "
             "default 1)"),
    GS_K_INT("replicas", 0, 100000, 0, NULL, "replicas at the start "
             "(default 1)"),
    GS_K_INT("min_replicas", 0, 100000, 0, NULL, "least replicas"),
    GS_K_INT("max_replicas", 1, 100000, 0, NULL, "most replicas"),
    GS_K_OBJ("autoscaler", &gs_svcscale_table, 0, "scales the replicas as "
             "the HPA and KEDA do (docs/inference.md#autoscaling)"),
    GS_K_END
};

static const struct gs_kt_obj t_svcpool = {
    .id = "replica_pool", .desc = "a pool of replicas (prefill or decode)",
    .keys = k_svcpool
};

/* The keys of one pool of replicas, read from o over the defaults in *pl. */
static int parse_svcpool(struct gs_sc *c, const cJSON *o, const char *p,
                         struct gs_svcpool *pl)
{
    const struct gs_kt_obj *t = &t_svcpool;
    int rc;
    char gpu[GS_MODEL_NAME] = "";
    long tp = pl->tp, reps = pl->replicas, mn = pl->min_replicas,
         mx = pl->max_replicas;
    if ((rc = gs_sc_str(c, o, p, t, "gpu", gpu, sizeof gpu)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "mig_profile", pl->mig_profile,
                        sizeof pl->mig_profile)) < 0 ||
        (rc = gs_sc_int(c, o, p, t, "tp", &tp)) < 0 ||
        (rc = gs_sc_int(c, o, p, t, "replicas", &reps)) < 0 ||
        (rc = gs_sc_int(c, o, p, t, "min_replicas", &mn)) < 0 ||
        (rc = gs_sc_int(c, o, p, t, "max_replicas", &mx)) < 0)
        return rc;
    if (gpu[0]) {
        GS_JSON_PATH(pp);
        gs_json_path_key(&pp, p, "gpu");
        if ((pl->gpu_model = gs_catalog_find(&c->s->cat, gpu)) < 0)
            return gs_sc_err(c, pp, "unknown GPU model '%s'", gpu);
    }
    pl->tp = (int)tp;
    pl->replicas = (int)reps;
    pl->min_replicas = (int)mn;
    pl->max_replicas = (int)mx;
    const cJSON *as = cJSON_GetObjectItemCaseSensitive(o, "autoscaler");
    if (as) {
        GS_JSON_PATH(pp);
        gs_json_path_key(&pp, p, "autoscaler");
        if ((rc = gs_svcscale_cfg_parse(GJ(as), c->file, pp, &pl->as,
                                        c->d)) < 0)
            return rc;
        pl->autoscale = 1;
        pl->min_replicas = pl->as.min_replicas;
        pl->max_replicas = pl->as.max_replicas;
    }
    if (pl->gpu_model < 0)
        return gs_sc_err(c, p, "missing required key 'gpu'");
    if (pl->mig_profile[0] && pl->tp != 1)
        return gs_sc_err(c, p, "a replica on a MIG profile has tp 1");
    if (pl->min_replicas > pl->max_replicas)
        return gs_sc_err(c, p, "min_replicas %d is above max_replicas %d",
                         pl->min_replicas, pl->max_replicas);
    if (pl->replicas < pl->min_replicas)
        pl->replicas = pl->min_replicas;
    if (pl->replicas > pl->max_replicas)
        pl->replicas = pl->max_replicas;
    return 0;
}

static const struct gs_kt_key k_disagg[] = {
    GS_K_OBJ("prefill", &t_svcpool, GS_KF_REQ, "the prefill pool"),
    GS_K_OBJ("decode", &t_svcpool, GS_KF_REQ, "the decode pool"),
    GS_K_NUM("kv_link_gbs", 1e-3, 1e6, 0, "GB/s", "KV-cache transfer "
             "bandwidth per GPU (default 50)"),
    GS_K_DUR("kv_link_latency", 0, "KV-cache transfer latency"),
    GS_K_END
};

static const struct gs_kt_obj t_disagg = {
    .id = "disaggregated", .desc = "prefill and decode on separate pools",
    .keys = k_disagg
};

/* The prefill and decode pools of a disaggregated service. */
static int parse_disagg(struct gs_sc *c, const cJSON *o, const char *p,
                        const cJSON *dg, struct gs_svccfg *sv)
{
    const struct gs_kt_obj *t = &t_disagg;
    struct gs_svcpool top = { .gpu_model = -1, .tp = 1, .replicas = 1,
                              .min_replicas = 1, .max_replicas = 100 };
    gs_svcscale_cfg_default(&top.as);
    GS_JSON_PATH(pp);
    int rc;
    /* Only the GPU keys are shared defaults; counts and scalers are each
     * half's own. */
    static const char *const own[] = { "replicas", "min_replicas",
                                       "max_replicas", "autoscaler", NULL };
    for (int k = 0; own[k]; k++)
        if (cJSON_GetObjectItemCaseSensitive(o, own[k])) {
            gs_json_path_key(&pp, p, own[k]);
            return gs_sc_err(c, pp, "with \"disaggregated\", give it in its "
                             "\"prefill\" and \"decode\" objects");
        }
    char gpu[GS_MODEL_NAME] = "";
    long tp = 1;
    if ((rc = gs_sc_str(c, o, p, &t_svcpool, "gpu", gpu, sizeof gpu)) < 0 ||
        (rc = gs_sc_str(c, o, p, &t_svcpool, "mig_profile", top.mig_profile,
                        sizeof top.mig_profile)) < 0 ||
        (rc = gs_sc_int(c, o, p, &t_svcpool, "tp", &tp)) < 0)
        return rc;
    top.tp = (int)tp;
    if (gpu[0] && (top.gpu_model = gs_catalog_find(&c->s->cat, gpu)) < 0) {
        gs_json_path_key(&pp, p, "gpu");
        return gs_sc_err(c, pp, "unknown GPU model '%s'", gpu);
    }
    gs_json_path_key(&pp, p, "disaggregated");
    sv->disagg = 1;
    sv->npools = 2;
    sv->kv_link_gbs = 50;           /* 400 Gb/s InfiniBand per GPU */
    gs_time lat = 0;
    if ((rc = gs_sc_keys(c, dg, pp, t)) < 0 ||
        (rc = gs_sc_num(c, dg, pp, t, "kv_link_gbs", &sv->kv_link_gbs)) < 0 ||
        (rc = gs_sc_time(c, dg, pp, t, "kv_link_latency", &lat)) < 0)
        return rc;
    sv->kv_link_lat_s = (double)lat / 1000.0;
    static const char *const half[2] = { "prefill", "decode" };
    for (int i = 0; i < 2; i++) {
        GS_JSON_PATH(hp);
        gs_json_path_key(&hp, pp, half[i]);
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(dg, half[i]);
        if (h == NULL)
            return gs_sc_err(c, pp, "missing required key '%s'", half[i]);
        if ((rc = gs_sc_keys(c, h, hp, &t_svcpool)) < 0)
            return rc;
        sv->pool[i] = top;
        if ((rc = parse_svcpool(c, h, hp, &sv->pool[i])) < 0)
            return rc;
    }
    return 0;
}

/* A service's replica pools: one, or a prefill and a decode pool
 * ("disaggregated"). */
static int parse_svc_pools(struct gs_sc *c, const cJSON *o, const char *p,
                           struct gs_svccfg *sv)
{
    const cJSON *dg = cJSON_GetObjectItemCaseSensitive(o, "disaggregated");
    if (dg)
        return parse_disagg(c, o, p, dg, sv);
    /* The pool keys at the top level make the one pool. */
    struct gs_svcpool top = { .gpu_model = -1, .tp = 1, .replicas = 1,
                              .min_replicas = 1, .max_replicas = 100 };
    gs_svcscale_cfg_default(&top.as);
    int rc = parse_svcpool(c, o, p, &top);
    if (rc < 0)
        return rc;
    sv->npools = 1;
    sv->pool[0] = top;
    return 0;
}

/* --- requests ------------------------------------------------------------ */

static const struct gs_kt_key k_route[] = {
    GS_K_INT("min_total_tokens", 0, 1000000000L, 0, "tokens", "the "
             "shortest request taken (input + output)"),
    GS_K_INT("max_total_tokens", 1, 1000000000L, 0, "tokens", "the longest "
             "request taken"),
    GS_K_END
};

static const struct gs_kt_rule r_route[] = {
    { .cond = GS_KC_ALWAYS, .any = "min_total_tokens max_total_tokens" },
    { 0 }
};

static const struct gs_kt_obj t_route = {
    .id = "route", .desc = "the requests of the stream this service takes, "
    "by length", .keys = k_route, .rules = r_route
};

/* requests.stream and requests.route of a service (svcgen.h): the stream
 * it shares with other pools and the totals it takes. */
static int parse_stream_route(struct gs_sc *c, const cJSON *rq, const char *p,
                              const struct gs_kt_obj *tr, struct gs_svccfg *sv)
{
    int rc;
    if ((rc = gs_sc_str(c, rq, p, tr, "stream", sv->stream,
                        sizeof sv->stream)) < 0)
        return rc;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(rq, "route");
    if (r == NULL)
        return 0;
    GS_JSON_PATH(rp);
    gs_json_path_key(&rp, p, "route");
    long lo = 0, hi = -1;           /* -1: no upper bound */
    if ((rc = gs_sc_keys(c, r, rp, &t_route)) < 0 ||
        (rc = gs_sc_int(c, r, rp, &t_route, "min_total_tokens", &lo)) < 0 ||
        (rc = gs_sc_int(c, r, rp, &t_route, "max_total_tokens", &hi)) < 0)
        return rc;
    if (lo == 0 && hi < 0)
        return gs_sc_err(c, rp, "give \"min_total_tokens\", "
                         "\"max_total_tokens\" or both");
    if (hi < 0)
        hi = LONG_MAX;
    if (hi < lo)
        return gs_sc_err(c, rp, "max_total_tokens %ld is below "
                         "min_total_tokens %ld", hi, lo);
    sv->route = (struct gs_lenroute){ .on = 1, .lo = lo, .hi = hi };
    return 0;
}

/* [[tokens, p], ...] or {"cdf": [...]} into a CDF. */
static int cdf_points(struct gs_sc *c, const cJSON *v, const char *p,
                      struct gs_tokcdf *t)
{
    const cJSON *l = cJSON_IsObject(v)
                     ? cJSON_GetObjectItemCaseSensitive(v, "cdf") : v;
    if (!cJSON_IsArray(l))
        return gs_sc_err(c, p, "expected a list of [tokens, cumulative "
                         "probability] pairs (or {\"cdf\": [...]})");
    int n = 0;
    for (const cJSON *it = l->child; it; it = it->next, n++) {
        GS_JSON_PATH(ip);
        gs_json_path_at(&ip, p, n);
        if (n >= GS_TOKCDF_MAX)
            return gs_sc_err(c, p, "more than %d points", GS_TOKCDF_MAX);
        if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2 ||
            !cJSON_IsNumber(it->child) || !cJSON_IsNumber(it->child->next))
            return gs_sc_err(c, ip, "expected [tokens, cumulative "
                             "probability]");
        t->x[n] = it->child->valuedouble;
        t->p[n] = it->child->next->valuedouble;
    }
    t->n = n;
    return 0;
}

static const char *const cdf_only[] = { "cdf", NULL };

#define CDF_STR_(x) #x
#define CDF_STR(x) CDF_STR_(x)
#define CDF_MAX CDF_STR(GS_TOKCDF_MAX)

static const struct gs_kt_key k_total[] = {
    { .name = "dist", .type = GS_KT_STR, .flags = GS_KF_REQ, .maxlen = 15,
      .names = cdf_only, .desc = "an empirical CDF" },
    /* [tokens, p] pairs: tokens a whole number in [1, 1e9], p in [0, 1]
     * (their order and the last p = 1 are checked by gs_tokcdf_check) */
    { .name = "points", .type = GS_KT_ARR, .schema =
      "\"type\": \"array\", \"minItems\": 1, \"maxItems\": "
      CDF_MAX ", \"items\": {\"type\": \"array\", \"prefixItems\": "
      "[{\"type\": \"integer\", \"minimum\": 1, \"maximum\": 1e9}, "
      "{\"type\": \"number\", \"minimum\": 0, \"maximum\": 1}], "
      "\"minItems\": 2, \"maxItems\": 2}",
      .desc = "[[tokens, cumulative probability], ...]" },
    GS_K_STR("file", 0, 0, "a JSON file of the points"),
    GS_K_END
};

static const struct gs_kt_rule r_total[] = {
    { .cond = GS_KC_ALWAYS, .one = "points file" },
    { 0 }
};

static const struct gs_kt_obj t_total = {
    .id = "total_tokens", .desc = "total tokens (input + output) from an "
    "empirical CDF", .keys = k_total, .rules = r_total
};

/* A CDF file's points into t: a regular file under 1 MiB holding
 * [[tokens, p], ...] or {"cdf": [...]}. */
static int cdf_file(struct gs_sc *c, const char *path, struct gs_tokcdf *t)
{
    char *text = NULL;
    struct stat st;
    int rc;
    /* A CDF is a few hundred points: refuse what no CDF file is (a
     * device, a huge file) before reading it. */
    if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) ||
                                 st.st_size > (1 << 20)))
        return gs_diag_set(c->d, GS_EINVAL, path, "not a CDF file: "
                           "expected a regular file under 1 MiB");
    if ((rc = gs_sc_read_text(path, &text, NULL, c->d)) < 0)
        return rc;
    const char *end = NULL;
    int oom = 0;
    cJSON *doc = gs_json_parse_raw(text, &end, &oom);
    free(text);
    if (doc == NULL)
        return oom ? gs_diag_set(c->d, GS_ENOMEM, path, "out of memory")
                   : gs_diag_set(c->d, GS_EPARSE, path, "not valid JSON "
                                 "(a CDF file holds [[tokens, p], ...] "
                                 "or {\"cdf\": [...]})");
    struct gs_sc fc = *c;
    fc.file = path;
    rc = cdf_points(&fc, doc, "$", t);
    cJSON_Delete(doc);
    return rc;
}

/* generate.total_tokens: {"dist": "cdf", "points": [...]} or {"dist":
 * "cdf", "file": PATH}, split by generate.input_share (0.8).  The input
 * and output laws then hold the means as constants (for capacity
 * estimates); the draws come from the CDF (svcgen.h). */
static int parse_total_tokens(struct gs_sc *c, const cJSON *gn, const char *q,
                              const struct gs_kt_obj *tg, struct gs_svcgen *g)
{
    const cJSON *tt = cJSON_GetObjectItemCaseSensitive(gn, "total_tokens");
    int rc;
    if (tt == NULL) {
        if (cJSON_GetObjectItemCaseSensitive(gn, "input_share")) {
            GS_JSON_PATH(sp);
            gs_json_path_key(&sp, q, "input_share");
            return gs_sc_err(c, sp, "input_share splits \"total_tokens\", "
                             "which is not given");
        }
        return 0;
    }
    GS_JSON_PATH(tp);
    gs_json_path_key(&tp, q, "total_tokens");
    if (cJSON_GetObjectItemCaseSensitive(gn, "input_tokens") ||
        cJSON_GetObjectItemCaseSensitive(gn, "output_tokens"))
        return gs_sc_err(c, q, "give either \"total_tokens\" (with "
                         "input_share) or \"input_tokens\" and "
                         "\"output_tokens\"");
    char dist[16] = "", *path = NULL;
    g->total.in_share = 0.8;
    if ((rc = gs_sc_keys(c, tt, tp, &t_total)) < 0 ||
        (rc = gs_sc_str(c, tt, tp, &t_total, "dist", dist, sizeof dist)) < 0 ||
        (rc = gs_sc_num(c, gn, q, tg, "input_share", &g->total.in_share)) < 0 ||
        (rc = gs_sc_file_path(c, tt, tp, "file", &path)) < 0)
        return rc;
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(tt, "points");
    GS_JSON_PATH(pp);
    if (strcmp(dist, "cdf") != 0) {
        gs_json_path_key(&pp, tp, "dist");
        rc = gs_sc_err(c, pp, "total_tokens takes dist \"cdf\" (an "
                       "empirical CDF); for other laws give input_tokens "
                       "and output_tokens");
    } else if ((pts == NULL) == (path == NULL)) {
        rc = gs_sc_err(c, tp, "give exactly one of \"points\" and "
                       "\"file\"");
    } else if (pts) {
        gs_json_path_key(&pp, tp, "points");
        rc = cdf_points(c, pts, pp, &g->total);
    } else {
        rc = cdf_file(c, path, &g->total);
    }
    free(path);
    if (rc < 0)
        return rc;
    char *where = gs_strf("%s: %s", c->file, pts ? pp : tp);
    if (where == NULL)
        return gs_sc_oom(c);
    rc = gs_tokcdf_check(&g->total, where, c->d);
    free(where);
    if (rc < 0)
        return rc;
    double m = gs_tokcdf_mean(&g->total);
    g->input = (struct gs_distspec){ .kind = GS_DIST_CONSTANT,
                                     .a = m * g->total.in_share };
    g->output = (struct gs_distspec){ .kind = GS_DIST_CONSTANT,
                                      .a = m * (1 - g->total.in_share) };
    return 0;
}

/* A token-count law: the keys of a duration law, numbers read as counts.
 * gs_sc_parse_dist reads numbers as seconds (x 1000 ms), so every value is
 * scaled back by 1/1000 (the lognormal's mu by -ln 1000). */
static int parse_tokens(struct gs_sc *c, const cJSON *o, const char *path,
                        struct gs_distspec *d)
{
    /* a count is a number: the duration reader would take "5m" for 300 s */
    for (const cJSON *k = cJSON_IsObject(o) ? o->child : NULL; k; k = k->next) {
        int bad = cJSON_IsString(k) && strcmp(k->string, "dist") != 0;
        for (const cJSON *e = cJSON_IsArray(k) ? k->child : NULL; e && !bad;
             e = e->next)
            bad = cJSON_IsString(e);
        if (bad) {
            GS_JSON_PATH(p);
            gs_json_path_key(&p, path, k->string);
            return gs_sc_err(c, p, "expected a number of tokens (a count, not "
                             "a duration or a string)");
        }
    }
    int rc = gs_sc_parse_dist(c, o, path, d);
    if (rc < 0)
        return rc;
    const double k = 1e-3;
    d->max *= k;
    switch (d->kind) {
    case GS_DIST_LOGNORMAL:
        d->a += log(k);
        break;
    case GS_DIST_PARETO:
    case GS_DIST_WEIBULL:
        d->a *= k;
        break;
    case GS_DIST_EMPIRICAL:
        for (int i = 0; i < d->npoints; i++)
            d->pts[i] *= k;
        break;
    default:
        d->a *= k;
        d->b *= k;
        break;
    }
    return 0;
}

static const struct gs_kt_key k_req_trace[] = {
    { .name = "format", .type = GS_KT_STR, .flags = GS_KF_REQ, .maxlen = 31,
      .src = GS_KS_REQ_FORMAT, .desc = "the request trace's format" },
    GS_K_STR("path", 0, GS_KF_REQ, "the trace, relative to the "
             "scenario's folder"),
    GS_K_END
};

static const struct gs_kt_obj t_req_trace = {
    .id = "request_trace", .desc = "a request trace", .keys = k_req_trace
};

static const struct gs_kt_key k_svcgen[] = {
    GS_K_INT("requests", 0, 4000000000L, 0, NULL, "how many requests"),
    GS_K_DUR("until", 0, "arrivals stop at this time after the start"),
    GS_K_NUM("rate_per_hour", 1e-9, 1e15, 0, "1/h", "mean arrival rate"),
    GS_K_NUM("rate_per_second", 1e-12, 1e12, 0, "1/s", "mean arrival rate"),
    GS_K_NUM("diurnal_amplitude", 0, 1, 0, NULL, "daily swing of the rate"),
    GS_K_NUM("peak_hour", 0, 24, 0, "h", "hour of the daily peak (default "
             "14)"),
    GS_K_NUM("weekend_dip", 0, 1, 0, NULL, "share of the rate lost on days "
             "5 and 6"),
    GS_K_OBJ("input_tokens", &gs_sc_t_counts, 0, "prompt length law"),
    GS_K_OBJ("output_tokens", &gs_sc_t_counts, 0, "output length law"),
    GS_K_OBJ("total_tokens", &t_total, 0, "total length CDF (instead of "
             "input_tokens and output_tokens)"),
    GS_K_NUM("input_share", 1e-6, 1 - 1e-6, 0, NULL, "the input's share of "
             "total_tokens (default 0.8)"),
    GS_K_END
};

static const struct gs_kt_rule r_svcgen[] = {
    { .cond = GS_KC_ALWAYS, .any = "rate_per_second rate_per_hour" },
    { .cond = GS_KC_ALWAYS, .any = "requests until" },
    { .cond = GS_KC_HAS, .key = "total_tokens",
      .forbid = "input_tokens output_tokens" },
    { .cond = GS_KC_LACKS, .key = "total_tokens",
      .need = "input_tokens output_tokens", .forbid = "input_share" },
    { 0 }
};

static const struct gs_kt_obj t_svcgen = {
    .id = "request_generator", .desc = "generated requests: Poisson with a "
    "daily cycle, token lengths from laws", .keys = k_svcgen,
    .rules = r_svcgen
};

static const struct gs_kt_key k_requests[] = {
    GS_K_OBJ("trace", &t_req_trace, 0, "replay a request trace"),
    GS_K_OBJ("generate", &t_svcgen, 0, "generate requests"),
    GS_K_STR("stream", 63, 0, "the stream it shares with other services "
             "(default: its name)"),
    GS_K_OBJ("route", &t_route, 0, "take the stream's requests of these "
             "lengths"),
    GS_K_END
};

static const struct gs_kt_rule r_requests[] = {
    { .cond = GS_KC_ALWAYS, .one = "trace generate" },
    { 0 }
};

static const struct gs_kt_obj t_requests = {
    .id = "requests", .desc = "the service's requests", .keys = k_requests,
    .rules = r_requests
};

/* requests.trace tr at q. */
static int svc_trace(struct gs_sc *c, const cJSON *tr, const char *q,
                     struct gs_svccfg *sv)
{
    int rc;
    sv->src = GS_SVCSRC_TRACE;
    if ((rc = gs_sc_keys(c, tr, q, &t_req_trace)) < 0 ||
        (rc = gs_sc_str(c, tr, q, &t_req_trace, "format", sv->format,
                        sizeof sv->format)) < 0 ||
        (rc = gs_sc_file_path(c, tr, q, "path", &sv->path)) < 0)
        return rc;
    if (sv->path == NULL)
        return gs_sc_err(c, q, "missing required key 'path'");
    if (!gs_request_format_known(sv->format)) {
        GS_JSON_PATH(fq);
        gs_json_path_key(&fq, q, "format");
        return gs_sc_err(c, fq, "unknown request trace format '%s' (known: "
                         "azure-llm, mooncake, splitwise, requests)",
                         sv->format);
    }
    return 0;
}

/* requests.generate gn at q. */
static int svc_generate(struct gs_sc *c, const cJSON *gn, const char *q,
                        struct gs_svccfg *sv)
{
    const struct gs_kt_obj *t = &t_svcgen;
    struct gs_svcgen *g = &sv->gen;
    int rc;
    sv->src = GS_SVCSRC_GENERATE;
    g->rate.peak_hour = 14;
    double rps = 0;
    if ((rc = gs_sc_keys(c, gn, q, t)) < 0 ||
        (rc = gs_sc_int(c, gn, q, t, "requests", &g->requests)) < 0 ||
        (rc = gs_sc_time(c, gn, q, t, "until", &g->until)) < 0 ||
        (rc = gs_sc_num(c, gn, q, t, "rate_per_hour",
                        &g->rate.rate_per_hour)) < 0 ||
        (rc = gs_sc_num(c, gn, q, t, "rate_per_second", &rps)) < 0 ||
        (rc = gs_sc_num(c, gn, q, t, "diurnal_amplitude",
                        &g->rate.diurnal)) < 0 ||
        (rc = gs_sc_num(c, gn, q, t, "peak_hour", &g->rate.peak_hour)) < 0 ||
        (rc = gs_sc_num(c, gn, q, t, "weekend_dip", &g->rate.weekly)) < 0)
        return rc;
    if (rps > 0)
        g->rate.rate_per_hour = rps * 3600.0;
    if (g->rate.rate_per_hour <= 0)
        return gs_sc_err(c, q, "give \"rate_per_second\" or "
                         "\"rate_per_hour\"");
    if (g->requests == 0 && g->until == 0)
        return gs_sc_err(c, q, "give \"requests\" (how many) or \"until\" (a "
                         "duration), or both");
    static const char *const law[2] = { "input_tokens", "output_tokens" };
    struct gs_distspec *ds[2] = { &g->input, &g->output };
    if ((rc = parse_total_tokens(c, gn, q, t, g)) < 0)
        return rc;
    for (int i = 0; i < 2 && g->total.n == 0; i++) {
        GS_JSON_PATH(lq);
        gs_json_path_key(&lq, q, law[i]);
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(gn, law[i]);
        if (l == NULL)
            return gs_sc_err(c, q, "missing required key '%s'", law[i]);
        if ((rc = parse_tokens(c, l, lq, ds[i])) < 0)
            return rc;
    }
    return 0;
}

/* A service's "requests": a trace, or a generator. */
static int parse_svc_requests(struct gs_sc *c, const cJSON *o, const char *p,
                              struct gs_svccfg *sv)
{
    const struct gs_kt_obj *t = &t_requests;
    int rc;
    GS_JSON_PATH(pp);
    const cJSON *rq = cJSON_GetObjectItemCaseSensitive(o, "requests");
    gs_json_path_key(&pp, p, "requests");
    if (rq == NULL)
        return gs_sc_err(c, p, "missing required key 'requests'");
    if ((rc = gs_sc_keys(c, rq, pp, t)) < 0 ||
        (rc = parse_stream_route(c, rq, pp, t, sv)) < 0)
        return rc;
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(rq, "trace");
    const cJSON *gn = cJSON_GetObjectItemCaseSensitive(rq, "generate");
    if ((tr == NULL) == (gn == NULL))
        return gs_sc_err(c, pp, "give exactly one of \"trace\" and "
                         "\"generate\"");
    GS_JSON_PATH(q);
    gs_json_path_key(&q, pp, tr ? "trace" : "generate");
    return tr ? svc_trace(c, tr, q, sv) : svc_generate(c, gn, q, sv);
}

/* --- the SLA and the service --------------------------------------------- */

static const struct gs_kt_key k_sla[] = {
    GS_K_DUR("ttft", 0, "time to first token target"),
    GS_K_DUR("itl", 0, "inter-token latency target"),
    GS_K_DUR("e2e", 0, "end-to-end latency target"),
    GS_K_NUM("percentile", 1, 100, 0, NULL, "percentile of every target "
             "(default 99)"),
    GS_K_NUM("ttft_percentile", 1, 100, 0, NULL, "TTFT's own percentile"),
    GS_K_NUM("itl_percentile", 1, 100, 0, NULL, "ITL's own percentile"),
    GS_K_END
};

static const struct gs_kt_obj t_sla = {
    .id = "sla", .desc = "latency targets and their percentiles",
    .keys = k_sla
};

/* A service's "sla": latency targets and their percentiles. */
static int parse_svc_sla(struct gs_sc *c, const cJSON *o, const char *p,
                         struct gs_svccfg *sv)
{
    const struct gs_kt_obj *t = &t_sla;
    int rc;
    GS_JSON_PATH(pp);
    const cJSON *sla = cJSON_GetObjectItemCaseSensitive(o, "sla");
    if (sla == NULL)
        return 0;
    gs_time ttft = 0, itl = 0, e2e = 0;
    double pct = 99;
    gs_json_path_key(&pp, p, "sla");
    if ((rc = gs_sc_keys(c, sla, pp, t)) < 0 ||
        (rc = gs_sc_time(c, sla, pp, t, "ttft", &ttft)) < 0 ||
        (rc = gs_sc_time(c, sla, pp, t, "itl", &itl)) < 0 ||
        (rc = gs_sc_time(c, sla, pp, t, "e2e", &e2e)) < 0 ||
        (rc = gs_sc_num(c, sla, pp, t, "percentile", &pct)) < 0)
        return rc;
    sv->ttft_pct = sv->itl_pct = pct;
    if ((rc = gs_sc_num(c, sla, pp, t, "ttft_percentile",
                        &sv->ttft_pct)) < 0 ||
        (rc = gs_sc_num(c, sla, pp, t, "itl_percentile", &sv->itl_pct)) < 0)
        return rc;
    sv->ttft_s = (double)ttft / 1000.0;
    sv->itl_s = (double)itl / 1000.0;
    sv->e2e_s = (double)e2e / 1000.0;
    return 0;
}

static const struct gs_kt_key k_service[] = {
    GS_K_STR("name", 63, GS_KF_REQ, "the service's name (not '.', no '/')"),
    { .name = "model", .type = GS_KT_STR | GS_KT_OBJ, .flags = GS_KF_REQ |
      GS_KF_CI, .src = GS_KS_LLM, .obj = &t_arch, .desc = "the LLM: a "
      "built-in name or a declared architecture" },
    GS_K_OBJ("engine", &t_engine, 0, "the serving engine's limits"),
    { .name = "router", .type = GS_KT_STR, .maxlen = 31, .src = GS_KS_ROUTER,
      .desc = "how requests are spread over replicas (default "
      "least-outstanding)" },
    GS_K_OBJ("requests", &t_requests, GS_KF_REQ, "the request stream"),
    { .name = "tier", .type = GS_KT_STR, .maxlen = 31,
      .names = gs_sc_tier_names, .desc = "the replicas' tier (default "
      "inference)" },
    GS_K_STR("tenant", 47, 0, "the replicas' tenant (default: the name)"),
    GS_K_OBJ("sla", &t_sla, 0, "latency targets"),
    GS_K_NUM("load_bandwidth_gbs", 1e-3, 1e6, 0, "GB/s", "how fast a replica "
             "loads its weights (default 2)"),
    GS_K_DUR("start", 0, "when the service starts"),
    GS_K_OBJ("disaggregated", &t_disagg, 0, "prefill and decode on separate "
             "pools"),
    GS_K_END
};

static const struct gs_kt_rule r_service[] = {
    { .cond = GS_KC_LACKS, .key = "disaggregated", .need = "gpu" },
    { .cond = GS_KC_HAS, .key = "disaggregated",
      .forbid = "replicas min_replicas max_replicas autoscaler" },
    { 0 }
};

static const struct gs_kt_obj t_service = {
    .id = "service", .desc = "an inference service: replicas of an LLM fed "
    "by a request stream (docs/inference.md)", .keys = k_service,
    .more = k_svcpool, .rules = r_service
};

/* A service's name may not be one of the result file's tables, nor one
 * HDF5 cannot use as a group's name. */
static int check_name(struct gs_sc *c, const char *p, const char *name)
{
    GS_JSON_PATH(pp);
    static const char *const reserved[] = { GS_SVC_RESERVED_NAMES };
    gs_json_path_key(&pp, p, "name");
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcmp(name, reserved[i]) == 0)
            return gs_sc_err(c, pp, "'%s' is the name of a table in the "
                             "result file's /services; give the service "
                             "another name", name);
    if (strchr(name, '/') || strcmp(name, ".") == 0)
        return gs_sc_err(c, pp, "'%s': a service's name may not contain '/' "
                         "or be '.' (it names a group of the result file)",
                         name);
    return 0;
}

static int parse_service(struct gs_sc *c, const cJSON *o, const char *p,
                         struct gs_svccfg *sv)
{
    const struct gs_kt_obj *t = &t_service;
    int rc;
    char tier[32] = "inference", router[32] = "least-outstanding";
    GS_JSON_PATH(pp);
    if ((rc = gs_sc_keys(c, o, p, t)) < 0)
        return rc;
    memset(sv, 0, sizeof *sv);
    gs_llm_engine_cfg_default(&sv->eng);
    sv->load_gbs = 2.0;
    sv->ttft_pct = sv->itl_pct = 99;
    if ((rc = gs_sc_str(c, o, p, t, "name", sv->name, sizeof sv->name)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "tier", tier, sizeof tier)) < 0 ||
        (rc = gs_sc_str(c, o, p, t, "router", router, sizeof router)) < 0 ||
        (rc = gs_sc_num(c, o, p, t, "load_bandwidth_gbs", &sv->load_gbs)) < 0 ||
        (rc = gs_sc_time(c, o, p, t, "start", &sv->start)) < 0 ||
        (rc = check_name(c, p, sv->name)) < 0)
        return rc;
    /* the default tenant is the name; one past 47 bytes keeps its start
     * and a hash of the whole (cut, two services became one tenant) */
    gs_json_path_key(&pp, p, "name");
    char *w = gs_strf("%s: %s", c->file, pp);
    gs_tenant_name(sv->tenant, sv->name, c->file, w ? w : pp);
    free(w);
    if ((rc = gs_sc_str(c, o, p, t, "tenant", sv->tenant,
                        sizeof sv->tenant)) < 0)
        return rc;
    if ((sv->tier = gs_tier_parse(tier)) < 0) {
        gs_json_path_key(&pp, p, "tier");
        return gs_sc_err(c, pp, "unknown tier '%s'", tier);
    }
    if ((sv->router = gs_router_parse(router)) < 0) {
        gs_json_path_key(&pp, p, "router");
        return gs_sc_err(c, pp, "unknown router '%s' (known: round-robin, "
                         "least-outstanding, least-kv, prefix-affinity)",
                         router);
    }
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "model");
    gs_json_path_key(&pp, p, "model");
    if (m == NULL)
        return gs_sc_err(c, p, "missing required key 'model'");
    if ((rc = parse_arch(c, m, pp, &sv->eng.arch)) < 0 ||
        (rc = parse_svc_engine(c, o, p, sv)) < 0 ||
        (rc = parse_svc_pools(c, o, p, sv)) < 0 ||
        (rc = parse_svc_requests(c, o, p, sv)) < 0 ||
        (rc = parse_svc_sla(c, o, p, sv)) < 0)
        return rc;
    return 0;
}

static int parse_services(struct gs_sc *c, const struct gs_json *v)
{
    const cJSON *a = (const cJSON *)(const void *)v;
    int n = cJSON_GetArraySize(a);
    if (!cJSON_IsArray(a) || n > GS_SVC_MAX)
        return gs_sc_err(c, "$.services", "expected an array of at most %d "
                         "services", GS_SVC_MAX);
    struct gs_scenario *s = c->s;
    if (n == 0)
        return 0;
    if ((s->svcs = calloc((size_t)n, sizeof *s->svcs)) == NULL)
        return gs_sc_oom(c);
    for (int i = 0; i < n; i++) {
        GS_JSON_PATH(p);
        gs_json_path_at(&p, "$.services", i);
        s->nsvcs = i + 1;       /* counted first: a half-read one is freed */
        int rc = parse_service(c, cJSON_GetArrayItem(a, i), p, &s->svcs[i]);
        if (rc < 0)
            return rc;
        for (int k = 0; k < i; k++)
            if (strcmp(s->svcs[k].name, s->svcs[i].name) == 0) {
                return gs_sc_err(c, gs_json_path_key(&p, p, "name"),
                                 "service '%s' is already declared",
                                 s->svcs[i].name);
            }
    }
    return gs_svc_streams_check(s->svcs, n, c->file, c->d);
}

static void free_services(struct gs_scenario *s)
{
    for (int i = 0; s->svcs && i < s->nsvcs; i++)
        free(s->svcs[i].path);
    free(s->svcs);
    s->svcs = NULL;
    s->nsvcs = 0;
}

/* The names the schema lists for the section's keys. */
static void section_names(struct gs_kt_names *names)
{
    names->src[GS_KS_ROUTER] = gs_router_names();
    names->src[GS_KS_LLM] = gs_llm_arch_names();
    names->src[GS_KS_REQ_FORMAT] = gs_request_formats;
}

const struct gs_sc_section gs_svc_section = {
    .key = "services", .table = &t_service, .max_items = GS_SVC_MAX,
    .parse = parse_services, .free = free_services, .names = section_names,
};
