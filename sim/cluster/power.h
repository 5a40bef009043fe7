/* power.h -- a GPU's board power from its compute and memory utilization, capped.
 *
 * See power.c for the model and where its shape comes from. */
#ifndef GS_POWER_H
#define GS_POWER_H

/* The shape of the power curve, one for every GPU (fitted on the A100,
 * scaled by each GPU's board limit): at compute utilization uc and memory
 * utilization um in [0, 1],
 *     P = limit x (idle + (1 - idle) x min(1, a uc + b um)),
 * then capped at the power cap (<= limit). */
struct gs_power_shape {
    double idle;            /* idle power / board limit */
    double a, b;            /* weight of compute and memory utilization */
};

/* The shape shipped with the catalog (power.c): what `gpusim trace
 * calibrate ../shared/traces/splitwise/perf_model.csv` fits on the A100's
 * rows under the catalog's A100 model, pasted from its output.
 * tests/test_llmcalib.c holds them to that fit (idle within 0.001, a and b
 * within 0.2%): a change to the A100's factors refits these too. */
#define GS_POWER_IDLE 0.2473
#define GS_POWER_A 2.9619
#define GS_POWER_B 1.0854
extern const struct gs_power_shape gs_power_default;

/* Watts of a board with limit limit_w at (uc, um), capped at cap_w
 * (cap_w <= 0 or above the limit: the limit). */
double gs_power_watts(const struct gs_power_shape *s, double limit_w,
                      double uc, double um, double cap_w);

/* The compute clock, as a fraction of its top, of a board with limit
 * limit_w held to cap_w (power.c: dynamic power as the cube of the
 * clock); 1 when cap_w <= 0 or cap_w >= limit_w, never below
 * GS_POWER_MIN_SPEED. */
#define GS_POWER_MIN_SPEED 0.05
double gs_power_cap_speed(const struct gs_power_shape *s, double limit_w,
                          double cap_w);

/* A node's host: everything but its GPU boards (CPUs, memory, NICs,
 * NVSwitches, fans, power supplies), W per node.  It draws idle_w while
 * up and idle_w + (busy_w - idle_w) x the share of its GPUs allocated to
 * jobs (power.c has the figures and their sources). */
struct gs_host_power {
    double idle_w, busy_w;
};
/* Host idle power as a share of host busy power (power.c: an assumption
 * between the published ends). */
#define GS_HOST_IDLE_SHARE 0.40
/* The default host of a node of gpn GPUs of catalog model gpu_name (any
 * name: a model without a published system takes the PCIe-server rule):
 * the published 8-GPU system's maximum less its 8 boards, x gpn / 8. */
struct gs_host_power gs_host_power_default(const char *gpu_name, int gpn);

/* What one GPU slot of a pool draws apart from its board's dynamic
 * power, W: its board's idle power, its 1/gpn share of its node's host
 * idle power (while the node is up), and its share of the host's busy
 * power above idle (while the slot is allocated).  The pool's own
 * host_idle_w / host_busy_w where given, else gs_host_power_default. */
struct gs_slot_power {
    double board_idle_w, host_idle_w, host_dyn_w;
};
struct gs_gpu_model;
struct gs_pool_spec;
struct gs_slot_power gs_power_slot(const struct gs_gpu_model *m,
                                   const struct gs_pool_spec *ps);

#endif
