/* model.c -- the table of models the simulation calls (model.h).
 *
 * Order matters where two models touch the same job: the cloud sees a job
 * start before the sharing model does, because sharing reads back the rate
 * the failure model may have lowered for a degraded GPU (share.c) and
 * composes its own factor with it. */
#include "model.h"
#include "../cloud/cloud.h"
#include "../inference/service.h"
#include "../cluster/share.h"

#include <stddef.h>

const struct gs_model_ops *const gs_models[] = {
    &gs_cloud_model,
    &gs_share_model,
    &gs_service_model,
    NULL,
};
