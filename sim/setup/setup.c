/* setup.c -- the built-in tables (setup.h), and gs_sim_new on them.
 *
 * Order matters where two models touch the same job: the cloud sees a job
 * start before the sharing model does, because sharing reads back the rate
 * the failure model may have lowered for a degraded GPU (core/share.c) and
 * composes its own factor with it; the energy model comes last, so that it
 * prices what the others have decided.  Outputs follow each model's rank
 * instead (model.h).
 *
 * The workload reader is the scenario's source (source.h: a trace
 * format or the generator) behind the core's struct gs_workload_ops; its
 * state is a struct gs_source of its own. */
#include "setup.h"
#include "../cloud/cloud.h"
#include "../cloud/energy.h"
#include "../core/share.h"
#include "../inference/service.h"
#include "../setup/scenario.h"
#include "../setup/source.h"
#include "../setup/workshape.h"
#include "../../policies/policy.h"

#include <stdlib.h>

const struct gs_model_ops *const gs_builtin_models[] = {
    &gs_cloud_model,
    &gs_share_model,
    &gs_service_model,
    &gs_energy_model,
    NULL,
};

static int source_open(const struct gs_scenario *sc, uint64_t seed,
                       void **state, struct gs_diag *d)
{
    struct gs_source *src = calloc(1, sizeof *src);
    if (src == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    int rc = gs_source_open(sc, seed, src, d);
    if (rc < 0) {
        gs_source_close(src);
        free(src);
        return rc;
    }
    *state = src;
    return 0;
}

static int source_next(void *state, struct gs_jobspec *out,
                       struct gs_diag *d)
{
    return gs_source_next(state, out, d);
}

static void source_close(void *state)
{
    if (state == NULL)
        return;
    gs_source_close(state);
    free(state);
}

static const struct gs_workload_ops workload = {
    .open = source_open,
    .next = source_next,
    .close = source_close,
    .shapes = gs_workload_shapes,
};

const struct gs_sim_env gs_builtin = {
    .models = gs_builtin_models,
    .policies = gs_policies,
    .placers = gs_placers,
    .workload = &workload,
};

int gs_builtin_install(void)
{
    return gs_models_install(gs_builtin_models);
}

int gs_sim_new(const struct gs_scenario *sc, const struct gs_sim_opts *o,
               struct gs_sim **out, struct gs_diag *d)
{
    *out = NULL;
    int rc = gs_scenario_mem_check(sc, d);      /* before allocating */
    if (rc < 0)
        return rc;
    return gs_sim_build(&gs_builtin, sc, o, out, d);
}
