/* power.c -- a GPU's board power from its compute and memory utilization, capped.
 *
 * A GPU draws its idle power plus a dynamic part that grows with how busy
 * its tensor cores and its memory are (the utilization-based models of
 * Kansal et al., "Virtual machine power metering and provisioning", SoCC
 * 2010, and of NVIDIA's DCGM power readings under load):
 *
 *     P = limit x (idle + (1 - idle) x min(1, a uc + b um)),  P <= cap,
 *
 * uc the achieved share of the peak FLOP/s and um of the peak bandwidth
 * over the interval (sim/inference/llmperf.c, gs_llm_perf_util), limit the
 * board's power limit (the catalog's power_w, the datasheet TDP).  The
 * shape (idle, a, b) is fitted once, on the A100 -- the only GPU whose
 * measured power Splitwise published (peak and average power of each
 * configuration as a fraction of the board limit; `gpusim llm calibrate
 * --splitwise`, docs/inference.md) -- and every other GPU takes the same
 * shape scaled by its own limit: an assumption (the idle share and the
 * weight of memory traffic differ between generations), said so in the
 * docs.  The min(1, ...) is the board limit the power management holds. */
#include "power.h"

/* Fitted on Splitwise's A100-80GB rows by `gpusim llm calibrate`. */
const struct gs_power_shape gs_power_default = {
    .idle = GS_POWER_IDLE, .a = GS_POWER_A, .b = GS_POWER_B,
};

double gs_power_watts(const struct gs_power_shape *s, double limit_w,
                      double uc, double um, double cap_w)
{
    if (uc < 0)
        uc = 0;
    if (um < 0)
        um = 0;
    double dyn = s->a * uc + s->b * um;
    if (dyn > 1)
        dyn = 1;
    double p = limit_w * (s->idle + (1 - s->idle) * dyn);
    if (cap_w > 0 && p > cap_w)
        p = cap_w;
    return p;
}
