/* err.c -- error messages, diagnostics and assertion failures.
 *
 * The message table is generated from the GS_ERRORS X-macro in err.h. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gs_strerror(int code)
{
    switch (code) {
#define GS_ERR_CASE(name, c, msg) case c: return msg;
        GS_ERRORS(GS_ERR_CASE)
#undef GS_ERR_CASE
    }
    return "unknown error";
}

int gs_diag_set(struct gs_diag *d, int code, const char *where,
                const char *fmt, ...)
{
    if (d == NULL || d->code != 0)
        return code;
    d->code = code;
    snprintf(d->where, sizeof d->where, "%s", where ? where : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->what, sizeof d->what, fmt, ap);
    va_end(ap);
    return code;
}

void gs_diag_prefix(struct gs_diag *d, const char *prefix)
{
    if (d == NULL || d->code == 0)
        return;
    size_t lp = strlen(prefix), lw = strlen(d->where), sep = lw ? 2 : 0;
    if (lp + sep >= sizeof d->where)
        return;
    if (lp + sep + lw >= sizeof d->where)      /* a message: its end goes */
        lw = sizeof d->where - 1 - lp - sep;
    memmove(d->where + lp + sep, d->where, lw);
    d->where[lp + sep + lw] = '\0';
    memcpy(d->where, prefix, lp);
    if (sep)
        memcpy(d->where + lp, ": ", 2);
}

void gs_diag_format(const struct gs_diag *d, char *buf, size_t len)
{
    if (d == NULL || d->code == 0) {
        snprintf(buf, len, "%s", gs_strerror(0));
    } else if (d->where[0]) {
        snprintf(buf, len, "%s: %s", d->where,
                 d->what[0] ? d->what : gs_strerror(d->code));
    } else {
        snprintf(buf, len, "%s", d->what[0] ? d->what : gs_strerror(d->code));
    }
}

void gs_oom_fail(const char *file, int line)
{
    fprintf(stderr, "gpusim: out of memory in the middle of the simulation "
            "(%s:%d); no result written\n", file, line);
    exit(1);
}

void gs_assert_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "gpusim: internal error: assertion '%s' failed at %s:%d\n",
            expr, file, line);
    abort();
}
