/* rllite.h -- the rl-lite policy's feature set, shared with `gpusim train`.
 *
 * The policy scores each pending job by a linear model over these features
 * (rllite.c says how each is computed); the weights come from a JSON file
 * (policy parameter "weights"), from inline parameters "w_FEATURE", or from
 * the built-in defaults trained on the quickstart scenario. */
#ifndef GS_RLLITE_H
#define GS_RLLITE_H

#define GS_RLLITE_NF 8

extern const char *const gs_rllite_features[GS_RLLITE_NF];
/* The built-in weights (what the policy uses when given none). */
extern const double gs_rllite_default_weights[GS_RLLITE_NF];

#endif
