/* market.c -- prices, billing sessions and the ledger of the cloud models.
 *
 * Markets (docs/cloud.md has the defaults and their sources):
 *   on-demand   paid per billing session: from the launch of a node to its
 *               termination, rounded up to the billing granularity and at
 *               least the billing minimum (AWS bills Linux instances per
 *               second with a 60-second minimum);
 *   spot        the same, at the spot price, which may vary in time (a
 *               price file: "time_s,price" rows, piecewise constant);
 *   reserved    every node of the pool, for the whole run, used or not;
 *   capacity-block  every node of the pool for the whole block window,
 *               paid once the window has begun (even if the run ends
 *               before the window does).
 * A session still open when the run ends is charged for the time so far,
 * unrounded: the run is a window on a bill that goes on.
 *
 * With a time-varying price, a session is charged the integral of the
 * price over [launch, launch + billed length), and a job the integral over
 * the time it ran, so the ledger stays exact: paid = jobs + idle.
 *
 * The price and hazard files share one reader (gs_pwc_*): rows
 * "time_s,value" (comma or blanks), times in seconds after the run's start,
 * strictly increasing, '#' comments, one optional header line, lines of
 * any length (the trace readers' line reader, up to 16 MiB), plain or
 * gzip.  A bad row is reported as file:line. */
#include "cloudint.h"
#include "../../traces/tread.h"
#include "../base/path.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- piecewise-constant series ------------------------------------------ */

void gs_pwc_free(struct gs_pwc *s)
{
    free(s->t);
    free(s->v);
    s->t = NULL;
    s->v = NULL;
    s->n = 0;
}

/* One row "time_s,value" (line ln of path, leading blanks gone) into
 * *t and *v.  0, 1 for a header (the first row with content, when it is
 * no number), or GS_EPARSE. */
static int pwc_row(char *p, int content, const char *path, long ln,
                   double lo, double hi, double *t, double *v,
                   struct gs_diag *d)
{
    char *end;
    errno = 0;
    *t = strtod(p, &end);
    if (end == p) {
        if (content == 1)
            return 1;           /* a header */
        return gs_diag_set_line(d, GS_EPARSE, path, ln, "expected "
                                "\"time_s,value\"");
    }
    p = end;
    while (*p == ' ' || *p == '\t' || *p == ',')
        p++;
    *v = strtod(p, &end);
    char *q = end;
    while (*q == ' ' || *q == '\t')
        q++;
    if (end == p || *q != '\0' || errno == ERANGE || !isfinite(*t) ||
        !isfinite(*v))
        return gs_diag_set_line(d, GS_EPARSE, path, ln, "expected "
                                "\"time_s,value\" (two numbers)");
    if (*t < 0 || *t > 9.0e12)
        return gs_diag_set_line(d, GS_EPARSE, path, ln, "time %g s is "
                                "outside [0, 9e12]", *t);
    if (!(*v >= lo && *v <= hi))
        return gs_diag_set_line(d, GS_EPARSE, path, ln, "value %g is "
                                "outside the allowed range [%g, %g]", *v, lo,
                                hi);
    return 0;
}

/* The lines come from the trace readers' line reader (traces/tread.h):
 * any length up to its 16 MiB, numbered as the file numbers them, plain
 * or gzip, a device, FIFO or NUL byte refused. */
int gs_pwc_load(struct gs_pwc *s, const char *path, double lo, double hi,
                struct gs_diag *d)
{
    memset(s, 0, sizeof *s);
    /* a device or FIFO refused in these words, not called a trace */
    struct gs_tread *tr;
    int rc = gs_tread_open_as(path, "a price or hazard file", &tr, d);
    if (rc < 0)
        return rc;
    long cap = 0;
    int content = 0;
    char *line;
    while ((rc = gs_tread_line(tr, &line, d)) > 0) {
        long ln = gs_tread_lineno(tr);
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\0')
            continue;
        content++;
        double t = 0, v = 0;
        if ((rc = pwc_row(p, content, path, ln, lo, hi, &t, &v, d)) < 0)
            break;
        if (rc == 1)
            continue;
        gs_time tm = (gs_time)llround(t * 1000.0);
        if (s->n > 0 && tm <= s->t[s->n - 1]) {
            rc = gs_diag_set_line(d, GS_EPARSE, path, ln, "times must "
                                  "increase (%g s is not after the previous "
                                  "row)", t);
            break;
        }
        if (s->n == cap) {
            cap = cap ? cap * 2 : 64;
            gs_time *nt = realloc(s->t, (size_t)cap * sizeof *nt);
            double *nv = nt ? realloc(s->v, (size_t)cap * sizeof *nv) : NULL;
            if (nt)
                s->t = nt;
            if (nv == NULL) {
                rc = gs_diag_set(d, GS_ENOMEM, path, "out of memory");
                break;
            }
            s->v = nv;
        }
        s->t[s->n] = tm;
        s->v[s->n] = v;
        s->n++;
    }
    if (rc == 0 && s->n == 0)
        rc = gs_diag_set(d, GS_EPARSE, path, "no \"time_s,value\" rows");
    gs_tread_close(tr);
    if (rc < 0)
        gs_pwc_free(s);
    return rc < 0 ? rc : 0;
}

/* Index of the segment holding t: the last row at or before t, or 0. */
static long seg(const struct gs_pwc *s, gs_time t)
{
    long lo = 0, hi = s->n - 1;
    if (t < s->t[0])
        return 0;
    while (lo < hi) {
        long mid = (lo + hi + 1) / 2;
        if (s->t[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

double gs_pwc_at(const struct gs_pwc *s, gs_time t)
{
    return s->v[seg(s, t)];
}

/* Integral of the series over [a, b), value x ms. */
double gs_pwc_integral(const struct gs_pwc *s, gs_time a, gs_time b)
{
    double sum = 0;
    long i = seg(s, a);
    while (a < b) {
        gs_time e = i + 1 < s->n ? s->t[i + 1] : GS_TIME_MAX;
        if (e > b)
            e = b;
        sum += s->v[i] * (double)(e - a);
        a = e;
        i++;
    }
    return sum;
}

/* The first time b >= a with integral(a, b) >= target (value x ms), or
 * GS_TIME_MAX if the series never gets there. */
gs_time gs_pwc_invert(const struct gs_pwc *s, gs_time a, double target)
{
    long i = seg(s, a);
    double acc = 0;
    for (;;) {
        gs_time e = i + 1 < s->n ? s->t[i + 1] : GS_TIME_MAX;
        double v = s->v[i];
        if (v > 0) {
            double need = (target - acc) / v;
            if (e == GS_TIME_MAX || need <= (double)(e - a)) {
                double b = ceil((double)a + need);
                return b > 9.0e15 ? GS_TIME_MAX : (gs_time)b;
            }
        }
        if (e == GS_TIME_MAX)
            return GS_TIME_MAX;
        acc += v * (double)(e - a);
        a = e;
        i++;
    }
}

/* --- prices --------------------------------------------------------------- */

int gs_market_init(struct gs_cloud *c, struct gs_diag *d)
{
    for (int i = 0; i < c->f->npools; i++) {
        struct gs_cpool *p = &c->pool[i];
        if (p->cfg->price_file) {
            int rc = gs_pwc_load(&p->price, p->cfg->price_file, 0, 1e7, d);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

double gs_market_price(const struct gs_cloud *c, int pool, gs_time t)
{
    const struct gs_cpool *p = &c->pool[pool];
    return p->price.n ? gs_pwc_at(&p->price, t - c->t0) : p->spec->price_hour;
}

double gs_market_charge(const struct gs_cloud *c, int pool, gs_time a,
                        gs_time b)
{
    const struct gs_cpool *p = &c->pool[pool];
    if (b <= a)
        return 0;
    if (p->price.n)
        return gs_pwc_integral(&p->price, a - c->t0, b - c->t0) / GS_HOUR;
    return p->spec->price_hour * (double)(b - a) / GS_HOUR;
}

double gs_market_rate(const struct gs_cloud *c, gs_time t)
{
    double r = 0;
    for (int i = 0; i < c->f->npools; i++)
        if (c->pool[i].billed)
            r += c->pool[i].billed * gs_market_price(c, i, t);
    return r;
}

/* --- sessions and the bill ------------------------------------------------ */

static int metered(const struct gs_cpool *p)
{
    return p->market == GS_MKT_ONDEMAND || p->market == GS_MKT_SPOT;
}

void gs_market_session_open(struct gs_cloud *c, int node)
{
    struct gs_cpool *p = &c->pool[c->f->nodes[node].pool];
    if (metered(p) && c->started)
        c->node[node].sess = gs_cloud_now(c);
}

void gs_market_session_close(struct gs_cloud *c, int node, int final)
{
    struct gs_cnode *n = &c->node[node];
    int pool = c->f->nodes[node].pool;
    struct gs_cpool *p = &c->pool[pool];
    if (!metered(p) || n->sess < 0)
        return;
    gs_time len = gs_cloud_now(c) - n->sess;
    if (!final) {
        gs_time g = p->cfg->gran > 0 ? p->cfg->gran : 1;
        len = (len + g - 1) / g * g;
        if (len < p->cfg->minimum)
            len = p->cfg->minimum;
    }
    p->paid += gs_market_charge(c, pool, n->sess, n->sess + len);
    p->od_equiv += p->cfg->od_price * (double)len / GS_HOUR;
    n->sess = -1;
}

void gs_market_close(struct gs_cloud *c, gs_time end)
{
    for (int node = 0; node < c->f->nnodes; node++)
        gs_market_session_close(c, node, 1);
    for (int i = 0; i < c->f->npools; i++) {
        struct gs_cpool *p = &c->pool[i];
        double slots = p->spec->nodes;
        gs_time a = c->t0, b = end;
        if (p->market == GS_MKT_BLOCK) {
            a = c->t0 + p->cfg->block_start;
            b = c->t0 + p->cfg->block_end;
            if (a > end)
                continue;           /* the window never began */
        } else if (p->market != GS_MKT_RESERVED) {
            continue;
        }
        p->paid += slots * gs_market_charge(c, i, a, b);
        p->od_equiv += slots * p->cfg->od_price * (double)(b - a) / GS_HOUR;
    }
}
