/* still.c -- still moves: the integrals over time left waiting while only
 * events that leave the cluster still fire (simint.h, sim.h).
 *
 * An integral over time (the metrics' GPU-hours and cost, the energy
 * model's joules, dollars and grams, the cloud's node-hours) adds one term
 * a piece, rate x length, and its pieces were the intervals between
 * wake-ups.  An inference service wakes the simulation about three times
 * a request, a millisecond at a time, while what those integrals
 * integrate -- jobs, nodes, prices -- stays the same: its iterations
 * change nothing the cluster sees.  Such an event is still
 * (gs_sim_still_event): a move of the clock for it alone moves the clock
 * and advances the models that integrate per-event quantities of their
 * own (the service's series: their advance has no still hook), and leaves
 * the metrics and the still models (model.h's still hook: energy, and the
 * cloud when its prices are flat) waiting at their last cut.  They are
 * cut at the clock (gs_sim_settle) before anything else happens: a
 * move for any other event, an event that is not still, an arrival, a
 * scheduling pass, a job started, stopped, requeued, killed, completed or
 * re-rated, the run's end.  So each integral's pieces end where the
 * cluster changed or a sample fell, wherever the services' milliseconds
 * fell -- the same
 * pieces whether a service moved the clock itself (gs_sim_move_clock) or
 * through the event queue, and the same whatever the order of events in a
 * millisecond.  The values are those of fewer, longer pieces: the same
 * integrals to rounding (the last bits of service runs' cost, energy and
 * utilization moved once, when this came in; runs without a service did
 * not move).  The energy model keeps the iterations' booked energy apart
 * from its integrals until the run closes (energy.c), so a cut before or
 * after an iteration's booking adds the same terms in the same order. */
#include "simint.h"

#include <stdlib.h>

int gs_sim_is_still(const struct gs_sim *s, const struct gs_event *ev)
{
    for (int i = 0; i < s->nstill; i++)
        if (s->still[i] == ev)
            return 1;
    return 0;
}

void gs_sim_settle(struct gs_sim *s)
{
    if (!s->waiting)
        return;
    s->waiting = 0;
    for (int i = 0; i < s->nlazy; i++)
        s->lazy[i].ops->advance(s->lazy[i].st, s->eng.now);
    if (gs_metrics_advance(&s->m, s->fleet, s->npending, s->nrun,
                           s->eng.now) < 0)
        gs_sim_fail(s, GS_ENOMEM, "", "out of memory");
}

int gs_sim_still_event(struct gs_sim *s, struct gs_event *ev)
{
    if (gs_sim_is_still(s, ev))
        return 0;
    if (s->nstill == s->capstill) {
        int cap = s->capstill ? 2 * s->capstill : 4;
        struct gs_event **a = realloc(s->still, (size_t)cap * sizeof *a);
        if (a == NULL)
            return GS_ENOMEM;
        s->still = a;
        s->capstill = cap;
    }
    s->still[s->nstill++] = ev;
    return 0;
}
