/* membudget.h -- how much memory a simulation may take, checked before it
 * is built.
 *
 * A scenario is small text that can describe an enormous fleet (10,000,000
 * nodes of 63 GPUs in one line) or workload; building it would grow until
 * the machine or its cgroup kills gpusim, with no message.  So the size of
 * what a scenario asks for is estimated from its counts before anything is
 * allocated, and refused when it exceeds the budget: --max-memory when
 * given, else the memory limit of gpusim's cgroup (v2 memory.max, or v1
 * memory.limit_in_bytes) where there is one, else the machine's physical
 * memory.  Parallel workers share it: each gets budget / workers.
 *
 * The estimate is linear in the counts, with coefficients measured on this
 * code (`gpusim run` of one-pool fleets, peak RSS, 2026-11-27: 100,000
 * nodes of 8 GPUs 87.5 MiB, of 1 GPU 51.4 MiB, 10,000 of 8 19.5 MiB):
 * about 400 bytes a node, 60 a GPU, 100 a generated job, plus 32 MiB.  A
 * trace's jobs count as generated ones (and an unsorted trace's rows are
 * held whole while sorted: 352 bytes more each); a request of a service's
 * trace about 600 bytes with its row (a 16-replica llama2-7b service on a
 * requests trace, peak RSS 72.7 MB at 100,000 rows, 305.1 MB at 500,000,
 * 2026-11-27).  It is meant to catch orders of magnitude, not to predict a
 * peak. */
#ifndef GS_MEMBUDGET_H
#define GS_MEMBUDGET_H

#include "err.h"

#include <stdint.h>

#define GS_MEM_BASE (32ull << 20)
#define GS_MEM_PER_NODE 400ull
#define GS_MEM_PER_GPU 60ull
#define GS_MEM_PER_JOB 100ull
#define GS_MEM_PER_REQUEST 550ull  /* the service's own, beside the trace's
                                      48-byte table row */

/* --max-memory: the whole budget in bytes (0: the default above). */
void gs_mem_set_budget(uint64_t bytes);
/* The parallel workers that share the budget (1 when not called). */
void gs_mem_set_workers(int n);
/* The budget of one worker in bytes, and *from what it came ("--max-memory",
 * "the cgroup's memory limit", "physical memory"). */
uint64_t gs_mem_budget(const char **from);

/* 0 when a simulation of nodes, gpus and jobs fits the budget, else
 * GS_EINVAL with d (where: where) saying how much it would need, the
 * budget and where that came from. */
int gs_mem_check(uint64_t nodes, uint64_t gpus, uint64_t jobs,
                 const char *where, struct gs_diag *d);

/* The same for what a trace brings: n items (jobs, requests) of about
 * `each` bytes, on top of what the last gs_mem_check found the scenario
 * needs; called when a trace's rows are counted (before they are loaded or
 * replayed) or as a table of them grows.  0, or GS_EINVAL with d (where:
 * where) saying how much it would need. */
int gs_mem_check_items(uint64_t n, uint64_t each, const char *what,
                       const char *where, struct gs_diag *d);

/* A size like "8G", "512M", "2GiB", "1.5T" or a number of bytes; 0 or
 * GS_EINVAL. */
int gs_mem_parse(const char *s, uint64_t *bytes);

#endif
