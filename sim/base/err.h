/* err.h -- error codes, diagnostics and the assertion macro shared by all of gpusim.
 *
 * Every fallible function returns 0 or a negative GS_E* code.  The codes and
 * their messages are defined once, in the GS_ERRORS X-macro table, so that a
 * code can never lack a message.  Parsers additionally fill a struct gs_diag
 * that says where (file, line, column or JSON path) and what went wrong; the
 * CLI prints it as "gpusim: WHERE: WHAT" and exits with status 2.
 *
 * Broken invariants (bugs, never bad input) abort through GS_ASSERT, which
 * names the file and line. */
#ifndef GS_ERR_H
#define GS_ERR_H

#include <stddef.h>

#define GS_ERRORS(X)                                              \
    X(OK,       0,  "success")                                    \
    X(NOMEM,   -1,  "out of memory")                              \
    X(IO,      -2,  "cannot read or write file")                  \
    X(PARSE,   -3,  "malformed input")                            \
    X(INVAL,   -4,  "invalid value")                              \
    X(NOTFOUND,-5,  "unknown name")                               \
    X(RANGE,   -6,  "value out of range")                         \
    X(NOFIT,   -7,  "does not fit")                               \
    X(ABI,     -8,  "plug-in ABI version mismatch")               \
    X(STATE,   -9,  "operation not allowed in this state")        \
    X(USAGE,   -10, "bad command-line usage")

enum gs_err {
#define GS_ERR_ENUM(name, code, msg) GS_E##name = code,
    GS_ERRORS(GS_ERR_ENUM)
#undef GS_ERR_ENUM
};

/* Message for an error code; never NULL. */
const char *gs_strerror(int code);

/* Where and what: filled by parsers and validators. */
struct gs_diag {
    int code;           /* the GS_E* code, 0 while nothing failed */
    char where[512];    /* "file:line:col", "file: $.fleet.pools[2].gpus", ... */
    char what[512];     /* human-readable problem */
};

/* Record a failure in d (which may be NULL) and return code, so callers can
 * write `return gs_diag_set(d, GS_EINVAL, where, "gpus must be > 0");`.
 * The first failure recorded wins: later calls do not overwrite it. */
int gs_diag_set(struct gs_diag *d, int code, const char *where,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Put "PREFIX: " before d's where (the option that named it, "--out");
 * nothing when d holds no failure. */
void gs_diag_prefix(struct gs_diag *d, const char *prefix);

/* Format "WHERE: WHAT" (or the bare code message) into buf. */
void gs_diag_format(const struct gs_diag *d, char *buf, size_t len);

void gs_assert_fail(const char *expr, const char *file, int line)
    __attribute__((noreturn));

#define GS_ASSERT(e) ((e) ? (void)0 : gs_assert_fail(#e, __FILE__, __LINE__))

/* Out of memory where a simulation cannot step back (an event bucket half
 * moved, a class table half updated): say so, naming file and line, and
 * exit with status 1 -- a clear error, never an abort, and nothing has
 * been written yet (results are written after the simulation). */
void gs_oom_fail(const char *file, int line) __attribute__((noreturn));
#define GS_OOM_IF(e) ((e) ? gs_oom_fail(__FILE__, __LINE__) : (void)0)

#endif
