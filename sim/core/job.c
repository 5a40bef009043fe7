/* job.c -- tier names, job-state names, job-spec defaults, and GPU
 * requests by attribute.
 *
 * Attributes follow Kubernetes Dynamic Resource Allocation: a
 * ResourceClaim's device selectors are CEL expressions over a device's
 * attributes (NVIDIA's DRA driver publishes productName, architecture,
 * memory capacity, MIG profile...).  gpusim takes the two selectors that
 * decide placement -- a family of models and a least memory -- and turns
 * them into the model mask every placer and the core's fit check already
 * honour, plus a least device memory that MIG instances must meet
 * (fleet.h, gs_need.dev_gb). */
#include "job.h"
#include "../cluster/gpu.h"

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
    s->comm_share = -1;
}

/* 1 if model name n belongs to family f (length fl). */
static int family_match(const char *n, const char *f, size_t fl)
{
    if (fl >= 7 && strncasecmp(f, "NVIDIA ", 7) == 0) {
        f += 7;
        fl -= 7;
    }
    if (fl == 0 || strncasecmp(n, f, fl) != 0)
        return 0;
    char c = n[fl];
    return c == '\0' || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9'));
}

uint64_t gs_jobspec_attr_models(const struct gs_catalog *cat,
                                const char *family, double mem_min)
{
    uint64_t m = 0;
    for (int i = 0; i < cat->n; i++) {
        if (mem_min > 0 && cat->m[i].mem_gb < mem_min)
            continue;
        int ok = family == NULL || family[0] == '\0';
        for (const char *f = family; !ok && f && *f;) {
            size_t fl = strcspn(f, "|");
            ok = family_match(cat->m[i].name, f, fl);
            f += fl;
            if (*f == '|')
                f++;
        }
        if (ok)
            m |= 1ULL << i;
    }
    return m;
}

int gs_gpu_family_known(const struct gs_catalog *cat, const char *family)
{
    for (const char *f = family; f && *f;) {
        size_t fl = strcspn(f, "|");
        int any = 0;
        for (int i = 0; i < cat->n && !any; i++)
            any = family_match(cat->m[i].name, f, fl);
        if (!any)
            return 0;
        f += fl;
        if (*f == '|')
            f++;
    }
    return 1;
}
