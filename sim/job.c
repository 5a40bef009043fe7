/* job.c -- tier names, job-state names and job-spec defaults. */
#include "job.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

static const char *const tier_names[GS_NTIERS] = {
    "inference", "training", "interactive", "data"
};

int gs_tier_parse(const char *name)
{
    for (int i = 0; i < GS_NTIERS; i++)
        if (strcasecmp(name, tier_names[i]) == 0)
            return i;
    return -1;
}

const char *gs_tier_name(int tier)
{
    return tier >= 0 && tier < GS_NTIERS ? tier_names[tier] : "?";
}

const char *gs_jstate_name(int state)
{
    static const char *const names[] = { "pending", "running", "done",
                                         "killed", "unfinished" };
    return state >= 0 && state <= GS_JOB_UNFINISHED ? names[state] : "?";
}

void gs_jobspec_init(struct gs_jobspec *s)
{
    memset(s, 0, sizeof *s);
    strcpy(s->tenant, "default");
    s->tier = GS_TIER_TRAINING;
    s->ref_model = -1;
    s->cb = 0.5;
    s->priority = INT_MIN;
    s->preemptible = -1;
    s->max_wait = -1;
}
