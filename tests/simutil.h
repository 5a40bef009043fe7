/* simutil.h -- helpers for tests that run whole simulations: write a native
 * trace to a temporary file, build a scenario around it, run it. */
#ifndef GS_SIMUTIL_H
#define GS_SIMUTIL_H

#include "../sim/setup/scenario.h"
#include "../sim/setup/setup.h"
#include "../sim/io/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct run {
    struct gs_scenario *sc;
    struct gs_sim *sim;
    char trace[64];
    struct gs_diag d;
    int rc;
};

/* Write csv to a temporary file; its path goes to path (>= 64 bytes). */
static inline void write_temp(const char *csv, char *path)
{
    snprintf(path, 64, "/tmp/gs-test-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        abort();
    FILE *fp = fdopen(fd, "w");
    fputs(csv, fp);
    fclose(fp);
}

/* Run scenario JSON text whose "%s" (if any) is replaced by the path of a
 * temporary native trace holding csv.  r->rc is the first failure. */
static inline void run_text(struct run *r, const char *json, const char *csv)
{
    memset(r, 0, sizeof *r);
    char text[8192];
    if (csv) {
        write_temp(csv, r->trace);
        snprintf(text, sizeof text, json, r->trace);
    } else {
        snprintf(text, sizeof text, "%s", json);
    }
    r->rc = gs_scenario_parse(text, "test.json", "/", &r->sc, &r->d);
    if (r->rc == 0)
        r->rc = gs_sim_new(r->sc, NULL, &r->sim, &r->d);
    if (r->rc == 0)
        r->rc = gs_sim_run(r->sim, &r->d);
}

static inline void run_free(struct run *r)
{
    gs_sim_free(r->sim);
    gs_scenario_free(r->sc);
    gs_diag_free(&r->d);
    if (r->trace[0])
        unlink(r->trace);
}

/* The record of the job with this id. */
static inline const struct gs_jobrec *rec_of(const struct run *r, int64_t id)
{
    long n;
    const struct gs_jobrec *rec = gs_sim_records(r->sim, &n);
    for (long i = 0; i < n; i++)
        if (rec[i].id == id)
            return &rec[i];
    return NULL;
}

/* What the record of the job with this id keeps apart (sim.h). */
static inline double lost_of(const struct run *r, int64_t id)
{
    long n;
    const struct gs_jobrec *rec = gs_sim_records(r->sim, &n);
    const struct gs_jobrec *j = rec_of(r, id);
    return j ? gs_sim_record_lost(r->sim, j - rec) : -1;
}

static inline int preempts_of(const struct run *r, int64_t id)
{
    long n;
    const struct gs_jobrec *rec = gs_sim_records(r->sim, &n);
    const struct gs_jobrec *j = rec_of(r, id);
    return j ? gs_sim_record_preemptions(r->sim, j - rec) : -1;
}

#endif
