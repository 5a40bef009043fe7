/* svcghost.h -- a run's services recorded as their replica jobs, and
 * replayed from that record without their requests (svcghost.c).
 *
 * A question that runs one scenario on many fleets (`gpusim plan`) runs
 * the same services in each: when nothing in a fleet touches a service --
 * its replicas start at the same millisecond on the same kind of GPU,
 * are never preempted, requeued or killed, and end when the service
 * ends them -- the service does exactly what it did on any other such
 * fleet, request for request.  The tape holds what the rest of the run
 * sees of it: each replica job's times, GPU model, power figures, record
 * (GPU-hours, cost, energy) and the energy above idle its iterations
 * booked.  A ghost run replays only that: the replica jobs are submitted,
 * start where the policy puts them, and end at the taped millisecond; no
 * request is simulated.  It checks every taped fact as the run goes and
 * at its end, and says whether they all held (gs_svc_ghost_matched): if
 * they did, the services' own figures are the taped run's, and the run's
 * other figures are those of the full run but for the last bits of
 * integrals the services' iterations split (svcghost.c says which). */
#ifndef GS_SVCGHOST_H
#define GS_SVCGHOST_H

struct gs_sim;
struct gs_scenario;

/* Doubles a tape of sc's services needs; 0 when they cannot be taped
 * (none, an autoscaled or MIG pool, a price or carbon series that is not
 * flat). */
long gs_svc_tape_size(const struct gs_scenario *sc);
/* After gs_sim_run: the run's services as a tape of n doubles
 * (gs_svc_tape_size).  1 when it can be replayed (every service done,
 * no replica lost or added, every replica ended), else 0 (tape[0] = 0). */
int gs_svc_tape_get(const struct gs_sim *s, double *tape, long n);
/* Before gs_sim_run: replay s's services from tape (kept by the caller
 * until gs_sim_free).  0 attached; 1 when the tape does not fit s's
 * scenario (not replayable, another number of services or replicas, or
 * gs_svc_tape_size 0): the run is then a full one. */
int gs_svc_ghost(struct gs_sim *s, const double *tape);
/* After gs_sim_run of a ghost: 1 when every taped fact held, so the
 * services' figures are the tape's run's; 0 when the run diverged and
 * must be run in full. */
int gs_svc_ghost_matched(const struct gs_sim *s);

#endif
