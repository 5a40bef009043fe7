/* forecast.h -- Holt-Winters seasonal forecasting of an evenly spaced series
 * (the request rate of an inference service, one value per bucket).
 *
 * Triple exponential smoothing (Holt 1957, Winters 1960; the formulation of
 * Hyndman & Athanasopoulos, "Forecasting: Principles and Practice", 3rd ed.,
 * section 8.3): a level L, a trend T and m seasonal terms S, additive
 * (y = L + T + S) or multiplicative (y = (L + T) * S).  The first season of
 * values initializes the model (L = its mean, T = 0, S = each value's
 * deviation from, or ratio to, the mean); from then on every value updates
 * it and forecasts are available.  A series that repeats exactly with
 * period m is then forecast exactly (up to rounding), whatever alpha, beta
 * and gamma are: every update reproduces the same state. */
#ifndef GS_FORECAST_H
#define GS_FORECAST_H

enum gs_hw_kind { GS_HW_ADDITIVE, GS_HW_MULTIPLICATIVE };

struct gs_hw_cfg {
    int kind;           /* enum gs_hw_kind */
    int season;         /* m >= 2 values per season */
    double alpha;       /* level smoothing, (0, 1] */
    double beta;        /* trend smoothing, [0, 1] (0: no trend is learned) */
    double gamma;       /* seasonal smoothing, [0, 1] */
};

/* Defaults: additive, alpha 0.2, beta 0, gamma 0.3 (season left 0). */
void gs_hw_cfg_default(struct gs_hw_cfg *c);

struct gs_hw;

/* A model for cfg (copied).  NULL when out of memory or cfg is invalid
 * (season < 2, a smoothing factor outside its range). */
struct gs_hw *gs_hw_new(const struct gs_hw_cfg *cfg);
void gs_hw_free(struct gs_hw *hw);

/* Append the next value of the series. */
void gs_hw_feed(struct gs_hw *hw, double y);
/* Values fed so far. */
long gs_hw_count(const struct gs_hw *hw);
/* 1 once a full season has been fed. */
int gs_hw_ready(const struct gs_hw *hw);
/* Forecast of the value h >= 1 steps after the last one fed (h = 1: the
 * next); NaN before the model is ready. */
double gs_hw_forecast(const struct gs_hw *hw, long h);

/* Fit alpha, beta and gamma of c (kind and season as given) to y[0..n-1],
 * n >= 2 seasons, by least squares on the one-step forecasts of y[m..n-1]
 * (the criterion of R's HoltWinters() and of statsmodels), searched on a
 * grid: alpha in {0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9}, beta in {0, 0.02,
 * 0.1}, gamma in {0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8}; a tie keeps the first
 * point in that order.  A grid, not a descent: the sum is not convex in the
 * three factors, and the same data always give the same answer.  0, or -1
 * (c unchanged) when n < 2 seasons or out of memory; *sse (may be NULL)
 * gets the winning sum. */
int gs_hw_fit(const double *y, long n, struct gs_hw_cfg *c, double *sse);

#endif
