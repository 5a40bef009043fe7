/* crash.c -- a policy plug-in that crashes, for the tests: with seed 43 its
 * first scheduling pass writes through a null pointer; with any other seed
 * it starts pending jobs in arrival order.  `gpusim compare` must survive
 * it in both --jobs modes and name the task that died (policy crash, seed
 * 43). */
#include "../../policies/policy.h"
#include "../../sim/sim.h"

static void crash_schedule(void *state, struct gs_sim *sim)
{
    (void)state;
    if (gs_sim_seed(sim) == 43)
        *(volatile int *)0 = 1;
    for (struct gs_job *j = gs_sim_pending_head(sim); j; j = j->next)
        gs_sim_try_start(sim, j, NULL, 0);
}

const struct gs_policy_ops gs_policy_plugin = {
    .abi = GS_POLICY_ABI,
    .name = "crash",
    .summary = "test plug-in: crashes with seed 43",
    .schedule = crash_schedule,
};
