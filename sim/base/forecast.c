/* forecast.c -- Holt-Winters seasonal forecasting (see forecast.h).
 *
 * The model, for the t-th value y (t counted from 0, i = t mod m):
 *   additive:        L' = a (y - S[i]) + (1 - a)(L + T)
 *                    T' = b (L' - L)   + (1 - b) T
 *                    S[i] = g (y - L') + (1 - g) S[i]
 *                    forecast(h) = L + h T + S[(t_last + h) mod m]
 *   multiplicative:  y / S[i] and y / L' in place of the differences, and
 *                    forecast(h) = (L + h T) S[(t_last + h) mod m].
 * Hyndman & Athanasopoulos (FPP3, 8.3) write the seasonal update against
 * L_{t-1} + T_{t-1}; this is Winters' original form against the new level,
 * which R's HoltWinters() also uses.  Both reproduce a strictly periodic
 * series exactly.
 *
 * Initialization (the classical one, e.g. R's HoltWinters with start.periods
 * = 1 season): the first m values are only stored; when the m-th arrives,
 * L = their mean, T = 0, S[i] = y_i - L (additive) or y_i / L
 * (multiplicative; all 1 when the mean is not positive).  Updates start with
 * value m.  With T = 0 and no trend learned (b = 0, the default), the model
 * cannot run away on a rate that drifts for a while, which matters more
 * for capacity than catching a slow growth a few percent sooner.
 *
 * Multiplicative seasons need positive values: a seasonal factor or level
 * that is not positive makes the matching term of that update fall back to
 * the prediction (so a zero rate at night does not produce infinities). */
#include "forecast.h"

#include <math.h>
#include <stdlib.h>

struct gs_hw {
    struct gs_hw_cfg c;
    long n;             /* values fed */
    double level, trend;
    double *s;          /* m seasonal terms; the first m values until ready */
};

void gs_hw_cfg_default(struct gs_hw_cfg *c)
{
    c->kind = GS_HW_ADDITIVE;
    c->season = 0;
    c->alpha = 0.2;
    c->beta = 0.0;
    c->gamma = 0.3;
}

struct gs_hw *gs_hw_new(const struct gs_hw_cfg *cfg)
{
    if (cfg->season < 2 || !(cfg->alpha > 0 && cfg->alpha <= 1) ||
        !(cfg->beta >= 0 && cfg->beta <= 1) ||
        !(cfg->gamma >= 0 && cfg->gamma <= 1) ||
        (cfg->kind != GS_HW_ADDITIVE && cfg->kind != GS_HW_MULTIPLICATIVE))
        return NULL;
    struct gs_hw *hw = calloc(1, sizeof *hw);
    double *s = calloc((size_t)cfg->season, sizeof *s);
    if (hw == NULL || s == NULL) {
        free(hw);
        free(s);
        return NULL;
    }
    hw->c = *cfg;
    hw->s = s;
    return hw;
}

void gs_hw_free(struct gs_hw *hw)
{
    if (hw == NULL)
        return;
    free(hw->s);
    free(hw);
}

static void init_from_first_season(struct gs_hw *hw)
{
    int m = hw->c.season;
    double sum = 0;
    for (int i = 0; i < m; i++)
        sum += hw->s[i];
    double mean = sum / m;
    hw->level = mean;
    hw->trend = 0;
    for (int i = 0; i < m; i++) {
        if (hw->c.kind == GS_HW_ADDITIVE)
            hw->s[i] -= mean;
        else
            hw->s[i] = mean > 0 ? hw->s[i] / mean : 1.0;
    }
}

void gs_hw_feed(struct gs_hw *hw, double y)
{
    int m = hw->c.season;
    int i = (int)(hw->n % m);
    if (hw->n < m) {
        hw->s[i] = y;
        if (++hw->n == m)
            init_from_first_season(hw);
        return;
    }
    double a = hw->c.alpha, b = hw->c.beta, g = hw->c.gamma;
    double pred = hw->level + hw->trend, lv;
    if (hw->c.kind == GS_HW_ADDITIVE) {
        lv = a * (y - hw->s[i]) + (1 - a) * pred;
        hw->s[i] = g * (y - lv) + (1 - g) * hw->s[i];
    } else {
        lv = hw->s[i] > 0 ? a * (y / hw->s[i]) + (1 - a) * pred : pred;
        if (lv > 0)
            hw->s[i] = g * (y / lv) + (1 - g) * hw->s[i];
    }
    hw->trend = b * (lv - hw->level) + (1 - b) * hw->trend;
    hw->level = lv;
    hw->n++;
}

long gs_hw_count(const struct gs_hw *hw)
{
    return hw->n;
}

int gs_hw_ready(const struct gs_hw *hw)
{
    return hw->n >= hw->c.season;
}

double gs_hw_forecast(const struct gs_hw *hw, long h)
{
    if (!gs_hw_ready(hw) || h < 1)
        return NAN;
    int i = (int)((hw->n - 1 + h) % hw->c.season);
    double base = hw->level + (double)h * hw->trend;
    return hw->c.kind == GS_HW_ADDITIVE ? base + hw->s[i] : base * hw->s[i];
}

/* Sum of squared one-step errors of cfg over y[m..n-1], in a model whose
 * seasonal buffer is s (m values). */
static double sse_of(const double *y, long n, const struct gs_hw_cfg *cfg,
                     double *s)
{
    struct gs_hw hw = { .c = *cfg, .s = s };
    double sum = 0;
    for (long t = 0; t < n; t++) {
        if (t >= cfg->season) {
            double e = y[t] - gs_hw_forecast(&hw, 1);
            sum += e * e;
        }
        gs_hw_feed(&hw, y[t]);
    }
    return sum;
}

int gs_hw_fit(const double *y, long n, struct gs_hw_cfg *c, double *sse)
{
    static const double A[] = { 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9 };
    static const double B[] = { 0, 0.02, 0.1 };
    static const double G[] = { 0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8 };
    if (c->season < 2 || n < 2L * c->season)
        return -1;
    double *s = malloc((size_t)c->season * sizeof *s);
    if (s == NULL)
        return -1;
    struct gs_hw_cfg best = *c, t = *c;
    double least = INFINITY;
    for (size_t i = 0; i < sizeof A / sizeof *A; i++)
        for (size_t j = 0; j < sizeof B / sizeof *B; j++)
            for (size_t k = 0; k < sizeof G / sizeof *G; k++) {
                t.alpha = A[i];
                t.beta = B[j];
                t.gamma = G[k];
                double e = sse_of(y, n, &t, s);
                if (e < least) {
                    least = e;
                    best = t;
                }
            }
    free(s);
    *c = best;
    if (sse)
        *sse = least;
    return 0;
}
