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
 * configuration as a fraction of the board limit; `gpusim trace
 * calibrate`, docs/inference.md, under the catalog's A100 model) -- and every other GPU takes the same
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
 * memory-bound terms keep their speed.  No capped GPU was measured in
 * what the project holds: Splitwise's "h100-80gb-pcap" rows
 * (perf_model.csv) are its H100 rows with every prompt time x 1.30 and
 * the token and end-to-end times copied, the cap unstated -- a rule, not
 * a measurement.  They do show the split this model makes: under this
 * rule 1.30x is a cap of 0.296 + 0.704 x 1.3^-3 = 62% of the limit, and at
 * that cap the shipped H100 model's prompt slowdowns are within 13.6%
 * (median; 23.1% at most) of the listed 1.30 and every token slowdown
 * within 0.0%, where no slowdown, a whole-iteration slowdown or a clock
 * linear in power miss one of them by 23-46% (tests/test_energy.c,
 * docs/energy.md).  Memory-bound decode barely draws enough for a cap
 * to bite (Ma et al., "The illusion of power capping in LLM decode",
 * arXiv 2605.11999, 2026).  Assumptions, said so in docs/energy.md: the
 * rule is for the top of the range (the cube law flattens near the
 * lowest voltage).
 *
 * Hosts.  The rest of a GPU node -- CPUs, host memory, NICs, NVSwitches,
 * fans, power-supply losses -- draws power too.  Its busy draw is the
 * published system maximum less its GPU boards at their limit:
 *     DGX A100 (8 x A100 SXM, 400 W):  6.5 kW max  -> host 3,300 W
 *     DGX H100 / H200 (8 x 700 W):    10.2 kW max  -> host 4,600 W
 *     DGX B200 (8 x 1,000 W):         14.3 kW max  -> host 6,300 W
 *     DGX-1 V100 (8 x 300 W):          3.5 kW max  -> host 1,100 W
 *     DGX-1 P100 (8 x 300 W):          3.2 kW max  -> host   800 W
 * (NVIDIA's DGX A100, DGX H100/H200, DGX B200 and DGX-1 user guides and
 * datasheets, "system power usage ... max"); the HGX servers of the same
 * boards (A800, H800) take their DGX's.  A GPU with no published system
 * (T4, A10, A10G, A40, L40S, K80, the undisclosed and custom models) is
 * taken to sit in a two-socket PCIe server whose host draws what the
 * DGX-1 V100's does, 1,100 W per 8 GPUs: an assumption.  A node of gpn
 * GPUs draws gpn / 8 of its system's host.  The maximum is an upper
 * bound of the busy draw (all fans and NICs at full), so hosts here err
 * high when busy.  Idle, a host draws GS_HOST_IDLE_SHARE (40%) of that
 * ($.energy.host_idle_share sets another share; no DGX or HGX idle draw is
 * published -- docs/energy.md says what was searched):
 * servers that are not energy-proportional idle at about half their peak
 * (Barroso and Hoelzle, "The case for energy-proportional computing",
 * IEEE Computer 2007), newer ones at 20-30% (SPECpower_ssj2008 results);
 * 40% is an assumption between them, and every figure is a pool's
 * host_idle_w / host_busy_w in the scenario.  The host's busy part
 * scales with the share of the node's GPUs allocated to jobs: the CPUs,
 * memory and NICs work for the GPUs that run. */
#include "power.h"
#include "fleet.h"
#include "gpu.h"

#include <math.h>
#include <strings.h>

/* Host busy draw of an 8-GPU system, W: its published maximum less its 8
 * boards (see above). */
static const struct {
    const char *gpu;
    double host_w;
} host8[] = {
    { "A100-40GB", 6500 - 8 * 400 }, { "A100-80GB", 6500 - 8 * 400 },
    { "A800-80GB", 6500 - 8 * 400 }, { "H100-80GB", 10200 - 8 * 700 },
    { "H800-80GB", 10200 - 8 * 700 }, { "H200-141GB", 10200 - 8 * 700 },
    { "B200-180GB", 14300 - 8 * 1000 }, { "V100-16GB", 3500 - 8 * 300 },
    { "V100-32GB", 3500 - 8 * 300 }, { "P100-16GB", 3200 - 8 * 300 },
};
#define HOST8_PCIE (3500.0 - 8 * 300)   /* the DGX-1 V100's host */

/* Fitted on Splitwise's A100-80GB rows by `gpusim trace calibrate`. */
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

struct gs_host_power gs_host_power_default(const char *gpu_name, int gpn)
{
    double h = HOST8_PCIE;
    for (size_t i = 0; gpu_name && i < sizeof host8 / sizeof host8[0]; i++)
        if (strcasecmp(host8[i].gpu, gpu_name) == 0)
            h = host8[i].host_w;
    double busy = gpn > 0 ? h * gpn / 8.0 : 0;
    return (struct gs_host_power){ busy * GS_HOST_IDLE_SHARE, busy };
}

struct gs_slot_power gs_power_slot(const struct gs_gpu_model *m,
                                   const struct gs_pool_spec *ps)
{
    struct gs_slot_power o = { 0, 0, 0 };
    if (ps->gpn <= 0)
        return o;
    struct gs_host_power h = gs_host_power_default(m->name, ps->gpn);
    if (ps->host_given) {
        h.idle_w = ps->host_idle_w;
        h.busy_w = ps->host_busy_w;
    }
    o.board_idle_w = m->power_w * gs_power_default.idle;
    o.host_idle_w = h.idle_w / ps->gpn;
    o.host_dyn_w = (h.busy_w - h.idle_w) / ps->gpn;
    return o;
}
