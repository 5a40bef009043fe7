/* svccfg.h -- an inference service as the scenario declares it ($.services).
 *
 * Plain data, filled by svcparse.c and read by the service model
 * (service.h).  docs/inference.md is the reference for every key; the
 * defaults below are vLLM's where vLLM has one. */
#ifndef GS_SVCCFG_H
#define GS_SVCCFG_H

#include "../core/engine.h"
#include "../io/gen.h"
#include "llm.h"
#include "svcscale.h"

#define GS_SVC_MAX 16

enum gs_router { GS_ROUTE_RR, GS_ROUTE_LOR, GS_ROUTE_KV, GS_ROUTE_PREFIX,
                 GS_NROUTERS };
/* "round-robin", "least-outstanding", "least-kv", "prefix-affinity". */
const char *gs_router_name(int r);
int gs_router_parse(const char *name);
/* Every router's name, NULL-terminated (for the schema). */
const char *const *gs_router_names(void);

enum gs_svcsrc { GS_SVCSRC_TRACE, GS_SVCSRC_GENERATE };

/* Total tokens (input + output) from an empirical CDF given as points
 * (tokens, cumulative probability), split by a fixed input share, as
 * inference-fleet-sim's CdfWorkload does (svcgen.h draws from it). */
#define GS_TOKCDF_MAX 256
struct gs_tokcdf {
    int n;                      /* points; 0: not used */
    double x[GS_TOKCDF_MAX];    /* tokens, increasing */
    double p[GS_TOKCDF_MAX];    /* cumulative probability, nondecreasing,
                                   the last 1 */
    double in_share;            /* input = max(1, floor(total x share)) */
};

/* Length routing: a service takes the requests of its stream whose total
 * tokens lie in [lo, hi] (svcgen.h). */
struct gs_lenroute {
    int on;
    long lo, hi;                /* hi = LONG_MAX: no upper bound */
};

/* A generated request stream: Poisson arrivals whose rate follows the
 * workload generator's daily and weekly cycle (gen.h: rate_per_hour,
 * diurnal, peak_hour, weekly, hourly), token counts drawn from laws whose
 * values are tokens (as `trace fit` writes them for a request trace). */
struct gs_svcgen {
    struct gs_genspec rate;     /* only the rate fields are used */
    long requests;              /* stop after this many (0: no limit) */
    gs_time until;              /* or at this time after the start */
    struct gs_distspec input, output;   /* tokens */
    struct gs_tokcdf total;     /* when total.n > 0: total tokens from this
                                   CDF, split by its share (input and output
                                   then hold the means, as constants) */
};

/* One pool of replicas: the whole service, or its prefill or decode half
 * when serving is disaggregated. */
struct gs_svcpool {
    int gpu_model;              /* catalog index */
    char mig_profile[24];       /* a MIG profile per replica, or "" */
    int tp;                     /* GPUs per replica (tensor parallel) */
    int replicas;               /* at the start */
    int min_replicas, max_replicas;
    int autoscale;              /* the autoscaler below decides the count */
    struct gs_svcscale_cfg as;
};

/* The datasets /services of a result file holds beside one group per
 * service, named after it (h5out.c's write_services): a service may not
 * take one of these names, nor one HDF5 cannot use as a link name (with a
 * '/', or "."). */
#define GS_SVC_RESERVED_NAMES \
    "names", "request_states", "summary", "summary_columns", "summary_units"

struct gs_svccfg {
    char name[64];
    char tenant[48];
    int tier;
    struct gs_llm_engine_cfg eng;   /* arch and limits; hw comes per pool */
    int router;
    double load_gbs;            /* weight loading bandwidth per GPU, GB/s */
    gs_time start;              /* when the service opens (the stream's 0) */
    int src;                    /* enum gs_svcsrc */
    char format[32];            /* trace: azure-llm, mooncake, splitwise,
                                   requests */
    char *path;                 /* resolved against the scenario's folder
                                   (NULL unless a trace); owned by the
                                   scenario */
    struct gs_svcgen gen;
    /* Services naming the same stream draw the same request sequence (the
     * random streams are named after it) and split it by length. */
    char stream[64];            /* default: the service's name */
    struct gs_lenroute route;
    /* SLA targets, seconds; 0 = none.  A request meets its targets when its
     * TTFT, mean ITL and end-to-end time are within them; the service meets
     * its SLA when the pct percentile of TTFT and of ITL are. */
    double ttft_s, itl_s, e2e_s;
    double ttft_pct, itl_pct;
    int disagg;                 /* 1: pool[0] prefills, pool[1] decodes */
    double kv_link_gbs, kv_link_lat_s;  /* KV transfer between the pools */
    int npools;
    struct gs_svcpool pool[2];
};

#endif
