/* misbehave.c -- a policy plug-in that misbehaves by the seed, for
 * test_workers: it schedules pending jobs in arrival order, except
 *   seed 44: its first scheduling pass loops forever (--task-timeout must
 *            end it and name the task);
 *   seed 45: it ignores SIGTERM, then loops forever (an interrupted
 *            gpusim must SIGKILL it after the grace and exit at once);
 *   seed 46: it writes junk into every descriptor it inherited from 3 to
 *            63, then goes on (its task must fail with a message: the
 *            parent reads the junk from the worker's socket). */
#include "../../policies/policy.h"
#include "../../sim/sim.h"

#include <signal.h>
#include <unistd.h>

static void misbehave_schedule(void *state, struct gs_sim *sim)
{
    (void)state;
    unsigned long long seed = gs_sim_seed(sim);
    if (seed == 45)
        signal(SIGTERM, SIG_IGN);
    if (seed == 44 || seed == 45)
        for (volatile int spin = 1; spin;)
            ;
    static int wrote;
    if (seed == 46 && !wrote) {
        static const char junk[64] = "junk from a plug-in";
        for (int fd = 3; fd < 64; fd++)
            if (write(fd, junk, sizeof junk) < 0)
                continue;
        wrote = 1;
    }
    for (struct gs_job *j = gs_sim_pending_head(sim); j; j = j->next)
        gs_sim_try_start(sim, j, NULL, 0);
}

const struct gs_policy_ops gs_policy_plugin = {
    .abi = GS_POLICY_ABI,
    .name = "misbehave",
    .summary = "test plug-in: hangs, ignores SIGTERM or writes junk by seed",
    .schedule = misbehave_schedule,
};
