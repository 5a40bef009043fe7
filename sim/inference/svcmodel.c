/* svcmodel.c -- the service model's table of hooks (model.h): the one
 * place that names every part of the model, so none of them names another
 * in a circle.  service.c runs the services (build, start, the cluster's
 * job events, advance, close); svcsum.c summarizes them; svcout.c gives
 * the summary's fields, the report's tables, --json, CSV, the HDF5 groups
 * and the planner's targets; svcquest.c answers the question's
 * (io/question.h); svcghost.c stands in for service.c's job hooks while a
 * run replays a tape of its services.  setup/setup.c lists
 * gs_service_model among the built-in models. */
#include "svcint.h"

/* While the model replays a tape (svcghost.c), its job hooks are the
 * ghost's. */
static void m_job_started(void *st, struct gs_job *j)
{
    struct svmodel *m = st;
    if (m->ghost)
        gs_svc_ghost_started(m, j);
    else
        gs_svc_job_started_hook(st, j);
}

static void m_job_ended(void *st, struct gs_job *j, int why)
{
    struct svmodel *m = st;
    if (m->ghost)
        gs_svc_ghost_ended(m, j, why);
    else
        gs_svc_job_ended_hook(st, j, why);
}

static int m_alive(const void *st)
{
    const struct svmodel *m = st;
    return m->ghost ? gs_svc_ghost_alive(m) : gs_svc_alive_hook(st);
}

static void m_free(void *st)
{
    if (st)
        gs_svc_ghost_free(st);
    gs_svc_free_hook(st);
}

static void m_values(const void *st, double *v)
{
    gs_svc_infsum_values(&((const struct svmodel *)st)->all, v);
}

const struct gs_model_ops gs_service_model = {
    .name = GS_SVC_MODEL,
    .build = gs_svc_build_hook,
    .free = m_free,
    .start = gs_svc_start_hook,
    .job_started = m_job_started,
    .job_ended = m_job_ended,
    .advance = gs_svc_advance_hook,
    .close = gs_svc_close_hook,
    .summarize = gs_svc_summarize_hook,
    .alive = m_alive,
    .rank = 30,
    .fields = gs_svc_fields,
    .nfields = GS_SVC_NFIELDS,
    .values = m_values,
    .report_tables = gs_svc_report,
    .json = gs_svc_json,
    .csv = gs_svc_csv,
    .h5 = gs_svc_h5,
    .ntargets = gs_svc_ntargets,
    .target_name = gs_svc_target_name,
    .target_values = gs_svc_target_values,
    .target_check = gs_svc_target_check,
    .plan_report = gs_svc_plan_report,
    .arrivals = gs_svc_arrivals_hook,
    .length = gs_svc_length_hook,
    .set_length = gs_svc_set_length_hook,
    .nseries = gs_svc_nseries_hook,
    .series_name = gs_svc_series_name_hook,
    .series = gs_svc_series_hook,
};
