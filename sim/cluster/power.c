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
 * docs.  The min(1, ...) is the board limit the power management holds.
 *
 * A power cap (nvidia-smi -pl, a pool's power_cap_w) below the limit makes
 * the power management lower the SM clock until the board draws no more
 * than the cap.  Dynamic power is C V^2 f, and near the top of the DVFS
 * range the voltage scales with the frequency, so dynamic power goes as
 * f^3 (the cube law of DVFS: Weiser et al., "Scheduling for reduced CPU
 * energy", OSDI 1994; Le Sueur and Heiser, "Dynamic voltage and frequency
 * scaling: the laws of diminishing returns", HotPower 2010).  A board that
 * draws its limit at full clock (a compute-bound kernel: the curve above
 * saturates) therefore runs under a cap at
 *
 *     f / f_max = ((cap - idle) / (limit - idle))^(1/3),
 *
 * idle = limit x the shape's idle share (static power does not scale).
 * Only the compute clock moves: HBM runs at its own fixed clock, so the
 * memory-bound terms keep their speed.  That is what Splitwise's capped
 * H100 rows show (perf_model.csv, "h100-80gb-pcap": every prompt time
 * exactly 1.30x the uncapped one, every token time 1.00x); the cap value
 * of those rows is not stated, and under this rule 1.30x is a cap of
 * 0.25 + 0.75 x 1.3^-3 = 59% of the limit.  An assumption, said so in
 * docs/energy.md: the rule is for the top of the range (the cube law
 * flattens near the lowest voltage). */
#include "power.h"

#include <math.h>

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

double gs_power_cap_speed(const struct gs_power_shape *s, double limit_w,
                          double cap_w)
{
    if (cap_w <= 0 || cap_w >= limit_w || limit_w <= 0)
        return 1.0;
    double idle = limit_w * s->idle;
    double x = (cap_w - idle) / (limit_w - idle);
    double f = x > 0 ? cbrt(x) : 0;
    return f < GS_POWER_MIN_SPEED ? GS_POWER_MIN_SPEED : f;
}
