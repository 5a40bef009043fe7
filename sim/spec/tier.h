/* tier.h -- the tiers of service and the name lengths a job and a
 * scenario share (core/job.h's jobs, spec/scenario.h's tiers and tenants,
 * spec/genspec.h's job classes). */
#ifndef GS_TIER_H
#define GS_TIER_H

#define GS_MIG_PROFILE_NAME 24
#define GS_GPU_FAMILY_NAME 48
#define GS_TENANT_NAME 48

enum gs_tier { GS_TIER_INFERENCE, GS_TIER_TRAINING, GS_TIER_INTERACTIVE,
               GS_TIER_DATA, GS_NTIERS };

#endif
