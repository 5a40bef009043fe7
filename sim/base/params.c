/* params.c -- plug-in parameters with used-key tracking (see params.h). */
#include "params.h"
#include "suggest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* where once memory ran out: never freed */
static char no_where[1];

void gs_params_init(struct gs_params *p, const char *where)
{
    p->where = strdup(where ? where : "");
    if (p->where == NULL)
        p->where = no_where;
    p->n = 0;
    p->v = NULL;
}

void gs_params_free(struct gs_params *p)
{
    for (int i = 0; i < p->n; i++) {
        free(p->v[i].key);
        if (!p->v[i].is_num)
            free(p->v[i].str);
    }
    free(p->v);
    p->v = NULL;
    p->n = 0;
    if (p->where != no_where)
        free(p->where);
    p->where = no_where;
}

/* Append key with a string value (copied), or a number when val is NULL;
 * NULL out of memory, p unchanged. */
static struct gs_param *add(struct gs_params *p, const char *key,
                            const char *val)
{
    char *k = strdup(key), *s = val ? strdup(val) : NULL;
    struct gs_param *v = k && (s || !val)
        ? realloc(p->v, (size_t)(p->n + 1) * sizeof *v) : NULL;
    if (v == NULL) {
        free(k);
        free(s);
        return NULL;
    }
    p->v = v;
    struct gs_param *e = &v[p->n++];
    memset(e, 0, sizeof *e);
    e->key = k;
    e->str = s ? s : (char *)"";
    e->is_num = val == NULL;
    return e;
}

int gs_params_add_num(struct gs_params *p, const char *key, double val)
{
    struct gs_param *e = add(p, key, NULL);
    if (e == NULL)
        return GS_ENOMEM;
    e->num = val;
    return 0;
}

int gs_params_add_str(struct gs_params *p, const char *key, const char *val)
{
    return add(p, key, val) ? 0 : GS_ENOMEM;
}

static struct gs_param *get(struct gs_params *p, const char *key)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->v[i].key, key) == 0) {
            p->v[i].used = 1;
            return &p->v[i];
        }
    return NULL;
}

static int fail(const struct gs_params *p, const char *key,
                struct gs_diag *d, const char *what)
{
    char *where;
    where = gs_strf("%s.%s", p->where, key);
    return gs_diag_set_at(d, GS_EINVAL, where, "%s", what);
}

int gs_params_num(struct gs_params *p, const char *key, double lo, double hi,
                  double *out, struct gs_diag *d)
{
    struct gs_param *e = get(p, key);
    if (e == NULL)
        return 0;
    if (!e->is_num)
        return fail(p, key, d, "expected a number");
    if (!(e->num >= lo && e->num <= hi)) {
        char m[128];
        snprintf(m, sizeof m, "%g is outside [%g, %g]", e->num, lo, hi);
        return fail(p, key, d, m);
    }
    *out = e->num;
    return 0;
}

int gs_params_int(struct gs_params *p, const char *key, long lo, long hi,
                  long *out, struct gs_diag *d)
{
    double v = 0;
    struct gs_param *e = get(p, key);
    if (e == NULL)
        return 0;
    e->used = 0;
    int rc = gs_params_num(p, key, (double)lo, (double)hi, &v, d);
    if (rc < 0)
        return rc;
    if (v != floor(v))
        return fail(p, key, d, "expected a whole number");
    *out = (long)v;
    return 0;
}

int gs_params_bool(struct gs_params *p, const char *key, int *out,
                   struct gs_diag *d)
{
    struct gs_param *e = get(p, key);
    if (e == NULL)
        return 0;
    if (!e->is_num || (e->num != 0 && e->num != 1))
        return fail(p, key, d, "expected true or false");
    *out = (int)e->num;
    return 0;
}

int gs_params_str(struct gs_params *p, const char *key, const char **out,
                  struct gs_diag *d)
{
    struct gs_param *e = get(p, key);
    if (e == NULL)
        return 0;
    if (e->is_num)
        return fail(p, key, d, "expected a string");
    *out = e->str;
    return 0;
}

size_t gs_decimal_len(const char *s)
{
    size_t i = s[0] == '-', digits = 0;
    while (s[i] >= '0' && s[i] <= '9')
        i++, digits++;
    if (s[i] == '.')
        for (i++; s[i] >= '0' && s[i] <= '9'; i++)
            digits++;
    if (digits == 0)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1 + (s[i + 1] == '+' || s[i + 1] == '-');
        if (s[j] >= '0' && s[j] <= '9') {
            while (s[j] >= '0' && s[j] <= '9')
                j++;
            i = j;
        }
    }
    return i;
}

int gs_parse_time(const char *s, gs_time *out)
{
    char *end;
    size_t len = gs_decimal_len(s);
    if (len == 0)
        return GS_EINVAL;
    double v = strtod(s, &end);
    if (end != s + len || !isfinite(v) || v < 0)
        return GS_EINVAL;
    double mult = 1000.0;
    if (*end == '\0' || strcmp(end, "s") == 0)
        mult = 1000.0;
    else if (strcmp(end, "ms") == 0)
        mult = 1.0;
    else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        mult = 60000.0;
    else if (strcmp(end, "h") == 0)
        mult = 3600000.0;
    else if (strcmp(end, "d") == 0)
        mult = 86400000.0;
    else if (strcmp(end, "w") == 0)
        mult = 7 * 86400000.0;
    else
        return GS_EINVAL;
    double ms = v * mult;
    if (ms > 9.0e15)
        return GS_EINVAL;
    *out = (gs_time)llround(ms);
    return 0;
}

int gs_params_time(struct gs_params *p, const char *key, gs_time *out,
                   struct gs_diag *d)
{
    struct gs_param *e = get(p, key);
    if (e == NULL)
        return 0;
    if (e->is_num) {
        if (!(e->num >= 0 && e->num < 9.0e12))
            return fail(p, key, d, "expected a non-negative duration");
        *out = (gs_time)llround(e->num * 1000.0);
        return 0;
    }
    if (gs_parse_time(e->str, out) < 0)
        return fail(p, key, d,
                    "expected a duration such as 90, \"30s\", \"5m\", \"2h\"");
    return 0;
}

int gs_params_check_used(const struct gs_params *p, struct gs_diag *d)
{
    for (int i = 0; i < p->n; i++)
        if (!p->v[i].used) {
            char *where;
            where = gs_strf("%s.%s", p->where, p->v[i].key);
            return gs_diag_set_at(d, GS_EINVAL, where, "unknown key '%s'",
                                  p->v[i].key);
        }
    return 0;
}

void gs_names_join(char *buf, size_t len, const void *const *table,
                   size_t name_off)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; table[i] && used + 1 < len; i++) {
        const char *name = *(const char *const *)((const char *)table[i] +
                                                   name_off);
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

char *gs_names_suggest(const char *word, const void *const *table,
                       size_t name_off, char *buf, size_t len)
{
    const char *names[65];
    int n = 0;
    for (int i = 0; table[i] && n < 64; i++)
        names[n++] = *(const char *const *)((const char *)table[i] +
                                            name_off);
    names[n] = NULL;
    return gs_suggest_fmt(word, names, buf, len);
}
