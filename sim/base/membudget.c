/* membudget.c -- the memory budget of a simulation (membudget.h). */
#include "membudget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t given;          /* --max-memory, 0 = default */
static int workers = 1;

void gs_mem_set_budget(uint64_t bytes)
{
    given = bytes;
}

void gs_mem_set_workers(int n)
{
    workers = n > 1 ? n : 1;
}

/* The number in a one-line file, or 0 ("max", missing, unreadable). */
static uint64_t read_limit(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        return 0;
    unsigned long long v = 0;
    if (fscanf(fp, "%llu", &v) != 1)
        v = 0;
    fclose(fp);
    return v;
}

uint64_t gs_mem_budget(const char **from)
{
    uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) *
                    (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t b = given, cg = read_limit("/sys/fs/cgroup/memory.max");
    const char *why = "--max-memory";
    if (cg == 0)
        cg = read_limit("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    if (b == 0 && cg > 0 && cg < phys) {    /* v1 says 2^63 for none */
        b = cg;
        why = "the cgroup's memory limit";
    } else if (b == 0) {
        b = phys;
        why = "physical memory";
    }
    if (from)
        *from = why;
    return b / (uint64_t)workers;
}

/* "1.5 GiB", or "40 MiB" below a GiB, into buf. */
static const char *human(double b, char *buf, size_t n)
{
    if (b >= (double)(1ull << 30))
        snprintf(buf, n, "%.1f GiB", b / (double)(1ull << 30));
    else
        snprintf(buf, n, "%.0f MiB", b / (double)(1ull << 20));
    return buf;
}

/* What the last gs_mem_check found the scenario needs (its fleet, its
 * generated jobs, the base), to which a trace's rows are added. */
static double reserved = (double)GS_MEM_BASE;

int gs_mem_check(uint64_t nodes, uint64_t gpus, uint64_t jobs,
                 const char *where, struct gs_diag *d)
{
    const char *from;
    uint64_t budget = gs_mem_budget(&from);
    /* in double: counts from a scenario may be huge */
    double need = (double)GS_MEM_BASE + (double)nodes * GS_MEM_PER_NODE +
                  (double)gpus * GS_MEM_PER_GPU + (double)jobs * GS_MEM_PER_JOB;
    if (need <= (double)budget) {
        reserved = need;
        return 0;
    }
    char share[64] = "";
    if (workers > 1)
        snprintf(share, sizeof share, ", shared among %d workers", workers);
    char h1[32], h2[32];
    return gs_diag_set(d, GS_EINVAL, where, "this simulation would need about "
                       "%s (%llu nodes, %llu GPUs, %llu generated jobs), more "
                       "than its memory budget of %s (%s%s); give a larger "
                       "--max-memory if the machine has it",
                       human(need, h1, sizeof h1), (unsigned long long)nodes,
                       (unsigned long long)gpus, (unsigned long long)jobs,
                       human((double)budget, h2, sizeof h2), from, share);
}

int gs_mem_check_items(uint64_t n, uint64_t each, const char *what,
                       const char *where, struct gs_diag *d)
{
    const char *from;
    uint64_t budget = gs_mem_budget(&from);
    double need = reserved + (double)n * (double)each;
    if (need <= (double)budget)
        return 0;
    char share[64] = "";
    if (workers > 1)
        snprintf(share, sizeof share, ", shared among %d workers", workers);
    char h1[32], h2[32], h3[32];
    return gs_diag_set(d, GS_EINVAL, where, "this simulation would need about "
                       "%s (%llu %s at about %llu bytes each, and %s for the "
                       "rest), more than its memory budget of %s (%s%s); give "
                       "a larger --max-memory if the machine has it, or a "
                       "shorter trace", human(need, h1, sizeof h1),
                       (unsigned long long)n, what, (unsigned long long)each,
                       human(reserved, h3, sizeof h3),
                       human((double)budget, h2, sizeof h2), from, share);
}

int gs_mem_parse(const char *s, uint64_t *bytes)
{
    char *end;
    if (!(s[0] >= '0' && s[0] <= '9'))
        return GS_EINVAL;
    double v = strtod(s, &end);
    if ((size_t)(end - s) != strspn(s, "0123456789."))     /* no 0x10 */
        return GS_EINVAL;
    static const char *const unit[] = { "", "K", "M", "G", "T" };
    for (int u = 0; u < 5; u++) {
        size_t n = strlen(unit[u]);
        if (strncmp(end, unit[u], n) == 0 &&
            (end[n] == '\0' || strcmp(end + n, "B") == 0 ||
             (u > 0 && strcmp(end + n, "iB") == 0))) {
            double b = v * pow(1024.0, u);
            if (!isfinite(b) || b < 1 || b > 1.8e19)
                return GS_EINVAL;
            *bytes = (uint64_t)b;
            return 0;
        }
    }
    return GS_EINVAL;
}
