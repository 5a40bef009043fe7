/* fifo.c -- first come, first served with head-of-line blocking.
 *
 * Jobs start strictly in arrival order: when the oldest pending job does not
 * fit, nothing behind it starts, even if it would fit.  The baseline every
 * other policy is measured against, and the textbook M/M/c queue when every
 * job wants one GPU (tests/test_queueing.c checks it against Erlang C). */
#include "policy.h"
#include "../sim/core/sim.h"

static void fifo_schedule(void *st, struct gs_sim *sim)
{
    (void)st;
    struct gs_job *j;
    while ((j = gs_sim_pending_head(sim)) != NULL)
        if (gs_sim_try_start(sim, j, NULL, 0) < 0)
            break;
}

const struct gs_policy_ops gs_policy_fifo = {
    .abi = GS_POLICY_ABI,
    .name = "fifo",
    .summary = "strict arrival order; the head blocks everyone behind it",
    .schedule = fifo_schedule,
};
