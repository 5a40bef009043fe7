/* err.c -- error messages, diagnostics and assertion failures.
 *
 * The message table is generated from the GS_ERRORS X-macro in err.h.  A
 * diagnostic's where and what are allocated to their length (gs_strf), so
 * a place is never cut however long its file's path; when memory runs out
 * while one is recorded, it says so (GS_ENOMEM) and points at a static
 * empty string that gs_diag_free leaves alone. */
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

/* where and what once memory ran out: never freed */
static char gs_diag_none[1];

char *gs_vstrf(const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (s != NULL)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *gs_strf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = gs_vstrf(fmt, ap);
    va_end(ap);
    return s;
}

const char *gs_diag_where(const struct gs_diag *d)
{
    return d && d->where ? d->where : "";
}

const char *gs_diag_what(const struct gs_diag *d)
{
    return d && d->what ? d->what : "";
}

static void drop(char *s)
{
    if (s != gs_diag_none)
        free(s);
}

/* Fill an empty d; takes where (NULL: no place). */
static int record(struct gs_diag *d, int code, char *where, const char *fmt,
                  va_list ap)
{
    char *what = gs_vstrf(fmt, ap);
    if (what == NULL) {             /* say what is known: memory ran out */
        free(where);
        where = NULL;
        code = GS_ENOMEM;
    }
    d->code = code;
    d->where = where ? where : gs_diag_none;
    d->what = what ? what : gs_diag_none;
    return code;
}

int gs_diag_set(struct gs_diag *d, int code, const char *where,
                const char *fmt, ...)
{
    if (d == NULL || d->code != 0)
        return code;
    char *w = NULL;
    if (where != NULL && where[0] && (w = strdup(where)) == NULL)
        return gs_diag_set_at(d, GS_ENOMEM, NULL, "%s", "");
    va_list ap;
    va_start(ap, fmt);
    int rc = record(d, code, w, fmt, ap);
    va_end(ap);
    return rc;
}

int gs_diag_vset_at(struct gs_diag *d, int code, char *where,
                    const char *fmt, va_list ap)
{
    if (d == NULL || d->code != 0) {
        free(where);
        return code;
    }
    return record(d, code, where, fmt, ap);
}

int gs_diag_set_at(struct gs_diag *d, int code, char *where,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = gs_diag_vset_at(d, code, where, fmt, ap);
    va_end(ap);
    return rc;
}

void gs_diag_prefix(struct gs_diag *d, const char *prefix)
{
    if (d == NULL || d->code == 0)
        return;
    gs_diag_reword(d, d->where[0] ? gs_strf("%s: %s", prefix, d->where)
                                  : gs_strf("%s", prefix), NULL);
}

int gs_diag_set_line(struct gs_diag *d, int code, const char *file, long line,
                     const char *fmt, ...)
{
    if (d == NULL || d->code != 0)
        return code;
    va_list ap;
    va_start(ap, fmt);
    int rc = gs_diag_vset_at(d, code, gs_strf("%s:%ld", file, line), fmt, ap);
    va_end(ap);
    return rc;
}

void gs_diag_reword(struct gs_diag *d, char *where, char *what)
{
    if (d == NULL || d->code == 0) {
        free(where);
        free(what);
        return;
    }
    if (where != NULL) {
        drop(d->where);
        d->where = where;
    }
    if (what != NULL) {
        drop(d->what);
        d->what = what;
    }
}

void gs_diag_move(struct gs_diag *dst, struct gs_diag *src)
{
    if (src == NULL)
        return;
    if (dst != NULL && dst->code == 0 && src->code != 0) {
        *dst = *src;
        *src = (struct gs_diag){ 0 };
    }
    gs_diag_free(src);
}

void gs_diag_free(struct gs_diag *d)
{
    if (d == NULL)
        return;
    drop(d->where);
    drop(d->what);
    *d = (struct gs_diag){ 0 };
}

char *gs_diag_message(const struct gs_diag *d)
{
    if (d == NULL || d->code == 0)
        return gs_strf("%s", gs_strerror(0));
    const char *what = d->what[0] ? d->what : gs_strerror(d->code);
    return d->where[0] ? gs_strf("%s: %s", d->where, what)
                       : gs_strf("%s", what);
}

void gs_diag_print(FILE *fp, const char *prefix, const struct gs_diag *d)
{
    char *m = gs_diag_message(d);
    fprintf(fp, "%s%s\n", prefix, m ? m : gs_strerror(GS_ENOMEM));
    free(m);
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
