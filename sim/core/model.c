/* model.c -- the models the simulation calls (model.h), and the summary's
 * scalars they add.
 *
 * The core names no model: the table of built-in ones is handed to it from
 * the layer above the models (sim/setup/setup.c's gs_builtin_models,
 * installed by gs_sim_build or gs_builtin_install), and models from outside
 * the tree join with gs_model_register.  Calls go in table order, then the
 * registered ones; outputs follow each model's rank instead, so that a
 * model's place in a report does not constrain its place in the loop. */
#include "model.h"

#include <stddef.h>

/* --- the built-in models, installed from above, and registered ones ----- */

#define MAXBUILTIN 8
#define MAXEXTRA 8
static const struct gs_model_ops *const *builtin;
static int nbuiltin;
static const struct gs_model_ops *extra[MAXEXTRA];
static int nextra;

int gs_models_install(const struct gs_model_ops *const *table)
{
    if (table == builtin)
        return 0;
    if (builtin != NULL || table == NULL)
        return GS_EINVAL;
    int n = 0;
    while (table[n])
        n++;
    if (n > MAXBUILTIN)
        return GS_EINVAL;
    builtin = table;
    nbuiltin = n;
    return 0;
}

int gs_model_register(const struct gs_model_ops *ops)
{
    if (ops == NULL || nextra == MAXEXTRA)
        return GS_EINVAL;
    for (int i = 0; i < nbuiltin; i++)
        if (builtin[i] == ops)
            return GS_EINVAL;
    for (int i = 0; i < nextra; i++)
        if (extra[i] == ops)
            return GS_EINVAL;
    extra[nextra++] = ops;
    return 0;
}

int gs_models_joined(void)
{
    return nbuiltin + nextra;
}

const struct gs_model_ops *gs_model_at(int i)
{
    /* An output asked before the built-in models were installed would
     * silently lack their columns. */
    GS_ASSERT(builtin != NULL);
    if (i < 0)
        return NULL;
    if (i < nbuiltin)
        return builtin[i];
    return i - nbuiltin < nextra ? extra[i - nbuiltin] : NULL;
}

/* Model i by rank, ties in table order: the i-th of a stable selection
 * (a handful of models, asked once per output). */
const struct gs_model_ops *gs_model_out(int i)
{
    int n = 0;
    while (gs_model_at(n))
        n++;
    if (i < 0 || i >= n)
        return NULL;
    int done[MAXBUILTIN + MAXEXTRA] = { 0 };
    const struct gs_model_ops *pick = NULL;
    for (int k = 0; k <= i; k++) {
        int b = -1;
        for (int j = 0; j < n; j++)
            if (!done[j] && (b < 0 || gs_model_at(j)->rank <
                                          gs_model_at(b)->rank))
                b = j;
        done[b] = 1;
        pick = gs_model_at(b);
    }
    return pick;
}

/* --- the summary's scalars ---------------------------------------------- */

#define NAME_OF(expr, name, fmt) name,
static const char *const core_names[] = { GS_SUMMARY_FIELDS(NAME_OF) };
#undef NAME_OF
#define FMT_OF(expr, name, fmt) fmt,
static const char *const core_fmts[] = { GS_SUMMARY_FIELDS(FMT_OF) };
#undef FMT_OF
#define NCORE ((int)(sizeof core_names / sizeof core_names[0]))

int gs_summary_nfields(void)
{
    int n = NCORE;
    for (int i = 0; gs_model_at(i); i++)
        n += gs_model_at(i)->nfields;
    GS_ASSERT(n - NCORE <= GS_SUMMARY_MX && n <= GS_SUMMARY_NMAX);
    return n;
}

/* Field i's model and its index there; NULL for a core field. */
static const struct gs_field *field(int i)
{
    if (i < NCORE)
        return NULL;
    i -= NCORE;
    for (int k = 0; gs_model_out(k); k++) {
        const struct gs_model_ops *mo = gs_model_out(k);
        if (i < mo->nfields)
            return &mo->fields[i];
        i -= mo->nfields;
    }
    GS_ASSERT(0);
    return NULL;
}

const char *gs_summary_field_name(int i)
{
    return i < NCORE ? core_names[i] : field(i)->name;
}

const char *gs_summary_field_fmt(int i)
{
    return i < NCORE ? core_fmts[i] : field(i)->fmt;
}

void gs_summary_field_meta(int i, const char **units, const char **desc)
{
    const struct gs_field *f = i < NCORE ? NULL : field(i);
    *units = f ? f->units : NULL;
    *desc = f ? f->desc : NULL;
}

int gs_summary_model_base(const struct gs_model_ops *ops)
{
    int base = 0;
    for (int k = 0; gs_model_out(k); k++) {
        if (gs_model_out(k) == ops)
            return base;
        base += gs_model_out(k)->nfields;
    }
    GS_ASSERT(0);
    return -1;
}

void gs_summary_values(const struct gs_summary *su, double *v)
{
    int i = 0;
#define VAL(expr, name, fmt) v[i++] = (double)(expr);
    GS_SUMMARY_FIELDS(VAL)
#undef VAL
    int n = gs_summary_nfields() - NCORE;
    for (int k = 0; k < n; k++)
        v[i++] = su->mx[k];
}
