/* report.h -- the run summary as an aligned table, JSON or CSV.
 *
 * All three are printed from the same field tables (GS_TSTATS_FIELDS and the
 * scalar list in report.c), so they cannot disagree.  Output depends only on
 * the summary, never on wall time: the same scenario and seed print
 * byte-identical text. */
#ifndef GS_REPORT_H
#define GS_REPORT_H

#include "../core/sim.h"

#include <stdio.h>

/* The per-tier statistics, in print order: X(field, label, unit). */
#define GS_TSTATS_FIELDS(X)                     \
    X(jobs, "jobs", "")                         \
    X(started, "started", "")                   \
    X(done, "done", "")                         \
    X(killed, "killed", "")                     \
    X(unfinished, "unfinished", "")             \
    X(wait_mean, "wait_mean_s", "s")            \
    X(wait_p50, "wait_p50_s", "s")              \
    X(wait_p95, "wait_p95_s", "s")              \
    X(wait_p99, "wait_p99_s", "s")              \
    X(wait_max, "wait_max_s", "s")              \
    X(jct_mean, "jct_mean_s", "s")              \
    X(jct_p50, "jct_p50_s", "s")                \
    X(jct_p95, "jct_p95_s", "s")                \
    X(jct_p99, "jct_p99_s", "s")                \
    X(sla_wait, "sla_wait_violations", "")      \
    X(sla_deadline, "deadline_misses", "")

/* Units and a one-line description of a result field or dataset column by
 * its name (a summary scalar, a per-tier statistic, a /jobs column, a
 * /timeseries series...): what the HDF5 file's "units" and "description"
 * attributes say.  Units follow UDUNITS spelling ("s", "h", "USD", "1" for
 * a dimensionless ratio or count).  0 when the name is known; -1 with
 * units derived from the name's suffix and a generic description
 * otherwise (never NULL). */
int gs_report_meta(const char *name, const char **units, const char **desc);

/* s as a JSON string, quoted and escaped (for a model's json hook). */
void gs_report_json_str(FILE *fp, const char *s);

/* v as a JSON number printed with fmt (one double: "%.6f", "%.10g"...), or
 * null when v is NaN or infinite: JSON has no such numbers (RFC 8259,
 * section 6), and printf's "nan", "-nan" or "inf" would make the whole
 * document unreadable to every parser.  Every --json writer (the summary,
 * the models' json hooks) prints its numbers through it. */
void gs_report_json_num(FILE *fp, const char *fmt, double v);

/* The summary as a table or JSON, ending with the question the run
 * answers (io/question.h; left out when its analysis runs out of memory).
 * The _q forms take that analysis made beforehand (q may be NULL), so a
 * caller can fail cleanly before it writes anything. */
struct gs_question;
void gs_report_table(FILE *fp, const struct gs_sim *s);
void gs_report_json(FILE *fp, const struct gs_sim *s);
void gs_report_table_q(FILE *fp, const struct gs_sim *s,
                       const struct gs_question *q);
void gs_report_json_q(FILE *fp, const struct gs_sim *s,
                      const struct gs_question *q);
void gs_report_csv(FILE *fp, const struct gs_sim *s);

#endif
