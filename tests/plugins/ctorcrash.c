/* ctorcrash.c -- a policy plug-in whose constructor crashes as it is
 * loaded, for test_workers: gpusim must probe it in a child process and
 * exit 2 naming it, never die of the crash itself. */
#include "../../policies/policy.h"

#include <signal.h>

void ctorcrash_init(void) __attribute__((constructor));
void ctorcrash_init(void)
{
    raise(SIGSEGV);
}

const struct gs_policy_ops gs_policy_plugin = {
    .abi = GS_POLICY_ABI,
    .name = "ctorcrash",
    .summary = "test plug-in: its constructor crashes",
};
