/* planjson.h -- the JSON side of planning: edit a scenario's JSON text by
 * key path, and read a scenario's `plan` section.
 *
 * planjson.c reads JSON only through jsonio.h's opaque gs_json calls (cJSON
 * stays in jsonio.c and scenario.c); what comes out is plain C data and
 * edited JSON text.  `gpusim sweep --set` and
 * every candidate `gpusim plan` tries are made the same way: the scenario's
 * text is edited (gs_json_edit) and parsed again by gs_scenario_parse, so a
 * key path that names no scenario key is refused by the scenario's own
 * validation, with its JSON path.
 *
 * Key paths: `fleet[0].nodes`, `policy.name`, `$.workload.generate.
 * rate_per_hour` (the leading `$.` is optional).  Objects on the way that
 * do not exist are created (the scenario parser then judges the key); an
 * index past the end of an array, or a key into something that is neither
 * an object nor absent, is an error naming the path.  Setting a key under
 * a string (`policy.name` where "policy": "fair") turns the string into
 * {"name": "fair"} first, the object form every plug-in key accepts.
 * Values are JSON (`4`, `true`, `{"mode": "mig"}`, `"x"`); anything that
 * does not parse as JSON is taken as a string (`fair`). */
#ifndef GS_PLANJSON_H
#define GS_PLANJSON_H

#include "../base/err.h"
#include "../io/jsonio.h"     /* gs_edit, gs_json_edit: the key-path edits */

struct gs_scenario;


/* --- the plan section ----------------------------------------------------- */

#define GS_PLAN_MAX_TARGETS 64
#define GS_PLAN_MAX_AXES    16
#define GS_PLAN_NAME        96

/* A target: the plan metric `metric` (plan.h lists them) must be <= limit
 * (upper = 1) or >= limit (upper = 0) at the chosen end of its confidence
 * interval. */
struct gs_plan_target {
    char metric[GS_PLAN_NAME];
    double limit;
    int upper;
    char *path;                 /* JSON path, for messages (whole; the
                                   configuration owns it) */
};

/* A discrete choice of the search space: nvalues alternatives, each a list
 * of edits of the scenario. */
struct gs_plan_axis {
    char *label;                /* "policy", "h100.gpu", a choice's key
                                   path whole, ... */
    char *path;                 /* its JSON path, for messages (whole) */
    int nvalues;
    int spot_pool;              /* a spot-share axis: the pool it splits
                                   (index in $.fleet), else -1 */
    double *share;              /* [nvalues] spot shares (spot axes) */
    double spot_discount;       /* spot price = (1 - this) x the pool's */
    char spot_key[32];          /* the pool's own price key, "" if none */
    char *spot_cfg;             /* the spot pool's "spot" object (JSON) */
    char (*names)[GS_PLAN_NAME];/* [nvalues] what each value is called */
    int *nedits;                /* [nvalues] */
    struct gs_edit **edits;     /* [nvalues][nedits[v]]: their paths and
                                   values owned by the configuration */
};

/* A pool whose node count, or a service whose replica count, is
 * searched. */
struct gs_plan_count {
    int pool;                   /* index in $.fleet, -1 for a service */
    char key[64];               /* "fleet[2].nodes", "services[0].replicas" */
    char name[GS_PLAN_NAME];
    int lo, hi, step;
    int floor;                  /* the least a widened range may reach: 0
                                   nodes, 1 replica */
    int cap;                    /* the most (plan.search...cap; default
                                   4 x hi) */
};

struct gs_plancfg {
    int ntargets;
    struct gs_plan_target t[GS_PLAN_MAX_TARGETS];
    int naxes;
    struct gs_plan_axis ax[GS_PLAN_MAX_AXES];
    int ncounts;
    struct gs_plan_count *counts;
    int objective;              /* 0: cost per month, 1: cost per million
                                   output tokens, 2: facility kWh per
                                   month, 3: kg CO2e per month, 4: energy
                                   cost per month (energy.h) */
    int seeds, min_seeds;       /* seeds every verdict needs; seeds run
                                   before a clear miss stops a candidate */
    int max_seeds;              /* the cap: a candidate whose interval
                                   straddles a target runs more seeds, up to
                                   this (0: 2 x seeds, resolved by plan.c
                                   after --seeds) */
    double indifference;        /* a target's indifference zone, a share of
                                   its limit (0.01): an interval inside
                                   limit +- this is "undecided", not run
                                   further */
    int futility;               /* stop a straddling candidate, undecided,
                                   when the cap's seeds would not decide
                                   it (plansearch.c, default 1) */
    double precision;           /* steady state: the relative half-width
                                   asked of each target's interval (0.05) */
    int max_length;             /* steady state: the cap on a candidate's
                                   run length, a factor of the scenario's
                                   (8): runs double up to it while the
                                   transient is not over or the interval
                                   is wider than plan.precision */
    double hours_per_month;     /* 730 */
    int ngrowth;
    double growth[16];
};

/* Read the `plan` object o of the scenario being parsed (its fleet already
 * read into s).  *out receives a new configuration (free with
 * gs_plancfg_free).  0 or GS_EINVAL with d filled (file: $.plan...). */
int gs_plancfg_parse(const struct gs_json *o, const struct gs_json *root,
                     const char *file, const struct gs_scenario *s,
                     struct gs_plancfg **out, struct gs_diag *d);
void gs_plancfg_free(struct gs_plancfg *p);
/* The plan section of scenario s (read from its text, s->text, after the
 * scenario itself: the parser leaves $.plan to this tool).  0 with *out
 * the configuration, or NULL when s has no plan; or GS_EINVAL with d
 * filled (file: $.plan...). */
int gs_plancfg_load(const struct gs_scenario *s, struct gs_plancfg **out,
                    struct gs_diag *d);

/* $.plan as a section of the scenario (scenario.h): its key table, for
 * `gpusim scenario --schema`, and its check, for `gpusim scenario --check`
 * -- the section read as `gpusim plan` reads it, and every value of every
 * choice applied to the scenario and validated, as the search does before
 * its first run.  The CLI hands it to both. */
extern const struct gs_sc_section gs_plan_section;

#endif
