/* service.c -- inference services on the cluster (service.h).
 *
 * Clocks.  The simulation's clock counts whole milliseconds; an LLM engine
 * iteration lasts 5 to 100 ms and ITL targets are tens of ms, so rounding
 * every iteration to the millisecond would bias ITL by up to 20%.  Each
 * service therefore keeps exact times (double seconds) for its own
 * happenings -- iteration ends, weight loads, KV transfers, arrivals of
 * generated requests -- in a small queue ordered by (time, sequence)
 * (svcqueue.h), and holds one event in the simulation's queue at the
 * ceiling millisecond of the earliest of them.  When that event fires at
 * T it runs, in exact order, every happening at or before T: iteration
 * ends before arrivals at the same instant, as the simulation does.  Each
 * engine iteration is thus one event of the service's queue, each started
 * at the exact end of the one before, and the simulation sees the service
 * only at the instants something happens.  While nothing else in the
 * simulation comes first, the event moves the clock to the service's next
 * millisecond itself (gs_sim_move_clock: the same integrals, to the bit)
 * instead of a round trip through the event queue.  The cluster (replica
 * jobs starting and stopping, the policy's passes) stays on the
 * millisecond clock.
 *
 * Replicas.  A replica's life:
 *
 *   WAIT --job started--> LOAD --weights in--> UP --drained--> GONE
 *     ^                     |                   |
 *     +--- preempted, spot, failure ------------+   (requests rerouted)
 *
 * WAIT is a pending cluster job (the policy has not placed it, or the node
 * autoscaler is booting a node for it); LOAD lasts weights / tp / load
 * bandwidth; UP serves.  A replica the autoscaler no longer wants is
 * withdrawn while WAIT, released while LOAD, and drained while UP: the
 * router sends it nothing more and its job completes when its last request
 * finishes.  A replica that loses its GPUs (the simulation requeues or
 * kills its job) hands every unfinished request back to the router, which
 * restarts it from its prompt on another replica (the client's retry: the
 * tokens already streamed are regenerated; TTFT keeps the first token the
 * user saw).
 *
 * Measures (docs/inference.md gives the definitions and their sources):
 *   TTFT   first token - arrival;
 *   ITL    every gap between consecutive tokens of a request: an iteration
 *          of d seconds gives each of its decode tokens a gap of d, so the
 *          ITL percentiles are token-weighted over iterations (as vLLM's
 *          benchmark computes them over all token gaps); a request's own
 *          ITL is its mean gap (end - first) / (out - 1);
 *   queue  TTFT less the prefill time the request would take alone on an
 *          idle replica (its chunks at the token budget): waiting at the
 *          router and in the engine, and the slowdown of sharing
 *          iterations; exactly 0 for a request alone;
 *   goodput  requests that meet every SLA target per second (DistServe,
 *          Zhong et al., OSDI 2024).
 * Every request is accounted for: arrived = finished + dropped (its prompt
 * and output can never fit the KV cache) + in flight at the end.
 *
 * Energy per request.  A replica's energy is what the energy model books
 * to its job (sim/cloud/energy.c): its allocation's static power --
 * its GPUs' idle power and their share of their hosts' power, x PUE
 * (power.h's gs_power_slot) -- from the instant it holds GPUs, plus each
 * iteration's board power above idle, x PUE.  An iteration's energy, its
 * dynamic part and its static power over its duration, goes to the
 * requests on the replica when it ends, by token: the decode tokens'
 * share (decode / (prefill + decode) of it) in equal parts to the
 * requests past their first token (each decodes one token an
 * iteration), the prefill share in equal parts to those awaiting it (the
 * engine's own batch is not exposed: requests queued in the engine share
 * the prefill share with those it prefills).  A group that is empty
 * passes its share to the other.  What no request gets is the service's
 * idle energy: static power outside iterations (loading weights, idle
 * between iterations) and iterations with no request left on the
 * replica.  So the requests' energies plus the idle energy are the
 * service's energy (tests/test_energy.c checks it against the energy
 * model's records).  Equal parts are kept in O(1) an iteration: each
 * group keeps its running share per request (acc), and a request holds
 * its energy less acc while it is in the group.
 *
 * Files.  This one runs the services; svcseries.c integrates them between
 * the clock's moves and samples (and names) their series; svcsum.c
 * computes the measures at the end; svcout.c writes them out; svcmodel.c
 * holds the model's table of hooks; svcint.h is the state they share. */
#include "svcint.h"
#include "../../traces/llmreq.h"
#include "../base/bigmem.h"
#include "../cluster/mig.h"
#include "../cluster/power.h"
#include "../base/order.h"
#include "../base/rng.h"
#include "router.h"
#include "../spec/scenario.h"
#include "../core/sim.h"
#include "svcgen.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const rq_states[GS_NREQSTATES] = {
    "waiting", "running", "transfer", "done", "dropped"
};

const char *gs_reqstate_name(int st)
{
    return st >= 0 && st < GS_NREQSTATES ? rq_states[st] : "?";
}

/* Every change of a replica's state goes through here (the counts of
 * serving replicas and GPUs the integrals read). */
static void set_state(struct svc *sv, struct rep *r, int st)
{
    sv->pool[r->pool].cdirty = 1;
    double idle = r->limit_w * gs_power_default.idle * r->gpus;
    if (r->state == RS_UP) {
        sv->up_n--;
        sv->up_gpus -= r->gpus;
        sv->idle_w -= idle;
    }
    r->state = st;
    if (st == RS_UP) {
        sv->up_n++;
        sv->up_gpus += r->gpus;
        sv->idle_w += idle;
    }
}

/* The ceiling millisecond of t s (a hair below counts as at it).  The
 * ceiling by truncation, without a libm call per happening: for the
 * times there are (x >= -1e-6) it is ceil's value, but for the sign of a
 * zero the integer does not keep. */
static gs_time ceil_ms(double t)
{
    double x = t * 1000.0 - 1e-6;
    if (!(x <= 9.0e15))
        return GS_TIME_MAX / 2;
    gs_time ms = (gs_time)x;
    return (double)ms < x ? ms + 1 : ms;
}

/* The millisecond of the service's earliest happening (or autoscaler
 * evaluation), now at the soonest; GS_TIME_MAX when there is none. */
static gs_time wake_at(struct svc *sv)
{
    /* the ceiling is monotone: the earlier time's is the least */
    double th = gs_svcq_top(&sv->q);
    gs_time at = th < sv->next_arrival ? ceil_ms(th) : sv->ta_ms;
    for (int p = 0; p < sv->npools; p++)
        if (sv->pool[p].as && !sv->done) {
            gs_time a = gs_svcscale_next(sv->pool[p].as);
            if (a < at)
                at = a;
        }
    gs_time now = gs_sim_now(sv->m->s);
    return sv->kicked || at < now ? now : at;
}

/* Hold the simulation's event at time at (wake_at's). */
static void wake_arm(struct svc *sv, gs_time at)
{
    if (at == GS_TIME_MAX)
        gs_sim_cancel(sv->m->s, &sv->ev);
    else
        GS_OOM_IF(gs_sim_at(sv->m->s, &sv->ev, at) < 0);
}

/* --- request records --------------------------------------------------- */

/* p (bytes long) back to old bytes, freed when old is 0. */
static void *req_shrink(void *p, size_t bytes, size_t old)
{
    if (old == 0) {
        gs_big_free(p, bytes);
        return NULL;
    }
    void *q = gs_big_realloc(p, bytes, old);
    GS_OOM_IF(q == NULL);
    return q;
}

/* Room for cap requests (the stream's length when it is known): both
 * arrays or neither.  When the second cannot grow, the first goes back to
 * the old capacity, so capreq stays the size of both (it is what they are
 * unmapped with); a mapping shrinks in place, which cannot fail for want
 * of memory. */
static int req_reserve(struct svc *sv, long cap)
{
    size_t old = (size_t)sv->capreq, n = (size_t)cap;
    struct gs_reqrec *r = gs_big_realloc(sv->req, old * sizeof *r,
                                         n * sizeof *r);
    if (r == NULL)
        return GS_ENOMEM;
    sv->req = r;
    struct rhash *h = sv->lkh ? gs_big_realloc(sv->lkh, old * sizeof *h,
                                               n * sizeof *h) : NULL;
    if (sv->lkh == NULL || h != NULL) {
        if (h)
            sv->lkh = h;
        sv->capreq = cap;
        return 0;
    }
    sv->req = req_shrink(sv->req, n * sizeof *r, old * sizeof *r);
    return GS_ENOMEM;
}

/* Request q's links (q from lk0). */
static struct rlink *lk(struct svc *sv, int32_t q)
{
    return &sv->lk[q & (sv->caplk - 1)];
}

/* A place in the ring of links for request nreq: lk0 moves past the
 * requests that are over (each is passed once), and the ring doubles when
 * the live ones still fill it -- at most the requests in the system at
 * once, a few thousand where the request records are a million. */
static int lk_room(struct svc *sv)
{
    long i = sv->nreq;
    while (sv->lk0 < i && (sv->req[sv->lk0].state == GS_REQ_DONE ||
                           sv->req[sv->lk0].state == GS_REQ_DROPPED))
        sv->lk0++;
    if (i - sv->lk0 < sv->caplk)
        return 0;
    long cap = sv->caplk ? sv->caplk * 2 : 1024;
    struct rlink *l = malloc((size_t)cap * sizeof *l);
    if (l == NULL)
        return GS_ENOMEM;
    for (long q = sv->lk0; q < i; q++)
        l[q & (cap - 1)] = sv->lk[q & (sv->caplk - 1)];
    free(sv->lk);
    sv->lk = l;
    sv->caplk = cap;
    return 0;
}

/* Request q's hash ids (NULL, 0 when it has none). */
static const uint64_t *req_hash(const struct svc *sv, int32_t q, int *n)
{
    *n = sv->lkh ? sv->lkh[q].nhash : 0;
    return sv->lkh ? sv->lkh[q].hash : NULL;
}

static int req_new(struct svc *sv, double t, int in, int out,
                   const uint64_t *hash, int nhash)
{
    if (sv->nreq == sv->capreq &&
        req_reserve(sv, sv->capreq ? sv->capreq * 2 : 1024) < 0)
        return GS_ENOMEM;
    if (lk_room(sv) < 0)
        return GS_ENOMEM;
    if (nhash > 0 && sv->lkh == NULL) {
        sv->lkh = gs_big_realloc(NULL, 0, (size_t)sv->capreq *
                                          sizeof *sv->lkh);
        if (sv->lkh == NULL)
            return GS_ENOMEM;
        memset(sv->lkh, 0, (size_t)sv->nreq * sizeof *sv->lkh);
    }
    long i = sv->nreq++;
    sv->req[i] = (struct gs_reqrec){ .arrival = t, .first = -1, .end = -1,
                                     .in = in, .out = out, .replica = -1,
                                     .state = GS_REQ_WAITING };
    *lk(sv, (int32_t)i) = (struct rlink){ -1, -1 };
    if (sv->lkh)
        sv->lkh[i] = (struct rhash){ hash, nhash };
    return (int)i;
}

/* Unlink request q from replica r's list. */
/* Request q joins energy group g of r (1 prefill, 2 decode), or leaves
 * its group (g 0). */
static void egroup(struct rep *r, struct gs_reqrec *q, int g)
{
    if (q->egrp) {
        q->energy_j += r->acc[q->egrp];
        r->ngrp[q->egrp]--;
    }
    q->egrp = (int8_t)g;
    if (g) {
        q->energy_j -= r->acc[g];
        r->ngrp[g]++;
    }
}

static void rep_unlink(struct svc *sv, struct rep *r, int32_t q)
{
    egroup(r, &sv->req[q], 0);
    struct rlink *l = lk(sv, q);
    if (l->prev >= 0)
        lk(sv, l->prev)->next = l->next;
    else
        r->head = l->next;
    if (l->next >= 0)
        lk(sv, l->next)->prev = l->prev;
    l->next = l->prev = -1;
    r->nout--;
    if (r->cpos >= 0)
        sv->pool[r->pool].cin[r->cpos].outstanding = r->nout;
}

static void rep_link(struct svc *sv, struct rep *r, int32_t q)
{
    egroup(r, &sv->req[q], sv->req[q].first >= 0 ? 2 : 1);
    struct rlink *l = lk(sv, q);
    l->prev = -1;
    l->next = r->head;
    if (r->head >= 0)
        lk(sv, r->head)->prev = q;
    r->head = q;
    r->nout++;
    if (r->cpos >= 0)
        sv->pool[r->pool].cin[r->cpos].outstanding = r->nout;
}

/* Router queue of pool p: FIFO through lk.next; front for restarts. */
static void queue_push(struct svc *sv, int p, int32_t q, int front)
{
    struct spool *pl = &sv->pool[p];
    sv->req[q].state = GS_REQ_WAITING;
    lk(sv, q)->prev = -1;
    if (front) {
        lk(sv, q)->next = pl->qhead;
        pl->qhead = q;
        if (pl->qtail < 0)
            pl->qtail = q;
    } else {
        lk(sv, q)->next = -1;
        if (pl->qtail >= 0)
            lk(sv, pl->qtail)->next = q;
        else
            pl->qhead = q;
        pl->qtail = q;
    }
    pl->qlen++;
}

static int32_t queue_pop(struct svc *sv, int p)
{
    struct spool *pl = &sv->pool[p];
    int32_t q = pl->qhead;
    if (q < 0)
        return -1;
    pl->qhead = lk(sv, q)->next;
    if (pl->qhead < 0)
        pl->qtail = -1;
    lk(sv, q)->next = -1;
    pl->qlen--;
    return q;
}

/* --- engines ------------------------------------------------------------ */

static int iter_sample(struct svc *sv, double d, int w)
{
    if (sv->nitl == sv->capitl) {
        long cap = sv->capitl ? sv->capitl * 2 : 1024;
        double *a = gs_big_realloc(sv->itl_d, (size_t)sv->capitl * sizeof *a,
                                   (size_t)cap * sizeof *a);
        GS_OOM_IF(a == NULL);
        sv->itl_d = a;
        float *b = gs_big_realloc(sv->itl_w, (size_t)sv->capitl * sizeof *b,
                                  (size_t)cap * sizeof *b);
        GS_OOM_IF(b == NULL);
        sv->itl_w = b;
        sv->capitl = cap;
    }
    sv->itl_d[sv->nitl] = d;
    sv->itl_w[sv->nitl++] = (float)w;
    return 0;
}

/* r's iteration of d s started at exact time t: its end in the queue. */
static void started(struct svc *sv, struct rep *r, double t, double d)
{
    r->busy = 1;
    gs_svcq_push(&sv->q, t + d, H_ITER, r->id, r->gen);
    /* what its end will read of a request it finishes: in a busy
     * simulation, out of the cache by then */
    int64_t q = gs_llm_engine_next_done(r->e);
    if (q >= 0 && q < sv->nreq) {
        __builtin_prefetch(&sv->req[q]);
        __builtin_prefetch((const char *)&sv->req[q] + sizeof *sv->req - 1);
        __builtin_prefetch(lk(sv, (int32_t)q));
    }
}

/* Start r's next iteration at exact time t if it is idle and has work. */
static void kick(struct svc *sv, struct rep *r, double t)
{
    if (r->state != RS_UP || r->e == NULL || r->busy)
        return;
    double d = gs_llm_engine_step(r->e, t);
    if (d > 0)
        started(sv, r, t, d);
}

/* The prefill time of a prompt of `in` tokens alone on an idle replica of
 * pool p: its chunks at the token budget, one iteration each. */
static double unloaded_prefill(struct spool *pl, int in)
{
    if (!pl->have_perf)
        return 0;
    int slot = in & (GS_UNL_MEMO - 1);
    if (pl->unl_in[slot] == in)
        return pl->unl_t[slot];
    int budget = pl->ecfg.chunked_prefill ? pl->ecfg.max_batched_tokens : in;
    if (budget < 1)
        budget = in;
    double t = 0, k = 0;
    for (int left = in; left > 0;) {
        double c = left < budget ? left : budget;
        struct gs_llm_batch b = { .prefill_tokens = c,
                                  .prefill_attn = c * (k + (c + 1) / 2),
                                  .prefill_ctx = k + c,
                                  .sampled = left - c <= 0 ? 1 : 0,
                                  .seqs = 1 };
        double uc, um;      /* gs_llm_perf_time's doubles, memoized */
        t += gs_llm_perf_step(&pl->perf, pl->memo, &b, &uc, &um);
        k += c;
        left -= (int)c;
    }
    pl->unl_in[slot] = in;
    pl->unl_t[slot] = t;
    return t;
}

static void route(struct svc *sv, int p, int32_t q, double t);

struct cbctx {
    struct svc *sv;
    struct rep *r;
};

static void cb_first(void *ctx, uint64_t id, double t)
{
    struct cbctx *c = ctx;
    struct svc *sv = c->sv;
    struct gs_reqrec *q = &sv->req[id];
    if (q->first >= 0)
        return;
    if (q->egrp == 1)
        egroup(c->r, q, 2);
    q->first = t;
    double ttft = t - q->arrival;
    double qd = ttft - unloaded_prefill(&sv->pool[c->r->pool], q->in);
    q->queue = (float)(qd > 0 ? qd : 0);
    if (sv->pool[0].as || (sv->npools > 1 && sv->pool[1].as)) {
        if (sv->nrt == sv->caprt) {
            long cap = sv->caprt ? sv->caprt * 2 : 256;
            double *a = realloc(sv->rt_t, (size_t)cap * sizeof *a);
            GS_OOM_IF(a == NULL);
            sv->rt_t = a;
            double *b = realloc(sv->rt_v, (size_t)cap * sizeof *b);
            GS_OOM_IF(b == NULL);
            sv->rt_v = b;
            sv->caprt = cap;
        }
        sv->rt_t[sv->nrt] = t;
        sv->rt_v[sv->nrt++] = ttft;
    }
}

static void req_done(struct svc *sv, struct gs_reqrec *q, double t)
{
    q->end = t;
    q->state = GS_REQ_DONE;
    sv->finished++;
    sv->tok_in += q->in;
    sv->tok_out += q->out;
}

static void cb_finished(void *ctx, uint64_t id, double t, int cached,
                        int preempted)
{
    struct cbctx *c = ctx;
    struct svc *sv = c->sv;
    struct rep *r = c->r;
    struct gs_reqrec *q = &sv->req[id];
    rep_unlink(sv, r, (int32_t)id);
    q->cached += cached;
    sv->eng_preempt += preempted;
    if (sv->cfg->disagg && r->pool == 0 && q->out >= 2) {
        /* Prefill done: the KV cache goes to a decode replica (a request
         * of one output token is done with its first). */
        double x = gs_llm_kv_transfer_time(&sv->cfg->eng.arch, q->in,
                                           sv->cfg->kv_link_gbs,
                                           sv->cfg->kv_link_lat_s);
        q->state = GS_REQ_TRANSFER;
        gs_svcq_push(&sv->q, t + x, H_XFER, (int)id, 0);
        return;
    }
    req_done(sv, q, t);
}

static const struct gs_llm_cb callbacks = { cb_first, cb_finished, NULL };

/* Hand q to a replica of pool p at time t, or queue it at the router. */
static void assign(struct svc *sv, struct rep *r, int32_t q, double t)
{
    struct gs_reqrec *rq = &sv->req[q];
    int nh;
    const uint64_t *hash = req_hash(sv, q, &nh);
    struct gs_llm_req er = { .id = (uint64_t)q, .arrival = rq->arrival,
                             .prompt = rq->in, .output = rq->out,
                             .hash_ids = hash, .n_hash = nh,
                             .kv_ready = sv->cfg->disagg && r->pool == 1 };
    int rc = gs_llm_engine_add(r->e, &er);
    GS_OOM_IF(rc == GS_ENOMEM);
    if (rc < 0) {
        rq->state = GS_REQ_DROPPED;
        rq->end = t;
        sv->dropped++;
        return;
    }
    if (rc == GS_LLM_DONE) {    /* nothing left for this replica to do */
        req_done(sv, rq, t);
        return;
    }
    rq->state = GS_REQ_RUNNING;
    rq->replica = r->id;
    rep_link(sv, r, q);
    kick(sv, r, t);
}

/* Pool p's routable replicas, in index order (the router's tie order),
 * with their router inputs. */
static const int *route_cands(struct svc *sv, int p, int *n)
{
    struct spool *pl = &sv->pool[p];
    if (pl->cdirty || pl->cand == NULL) {
        if (pl->capcand < sv->nrep) {
            int *c = realloc(pl->cand, (size_t)sv->caprep * sizeof *c);
            GS_OOM_IF(c == NULL);
            pl->cand = c;
            struct gs_route_cand *ci =
                realloc(pl->cin, (size_t)sv->caprep * sizeof *ci);
            GS_OOM_IF(ci == NULL);
            pl->cin = ci;
            pl->capcand = sv->caprep;
        }
        pl->ncand = 0;
        for (int i = 0; i < sv->nrep; i++) {
            struct rep *r = sv->rep[i];
            if (r->pool != p)
                continue;
            r->cpos = -1;
            if (r->state == RS_UP && !r->draining) {
                r->cpos = pl->ncand;
                pl->cin[pl->ncand] = (struct gs_route_cand){ r->id, r->nout,
                                                             0 };
                pl->cand[pl->ncand++] = i;
            }
        }
        pl->cdirty = 0;
    }
    *n = pl->ncand;
    return pl->cand;
}

static void route(struct svc *sv, int p, int32_t q, double t)
{
    struct spool *pl = &sv->pool[p];
    int n;
    const int *ix = route_cands(sv, p, &n);
    if (n > 256)
        n = 256;
    if (n == 0) {
        queue_push(sv, p, q, 0);
        return;
    }
    if (sv->cfg->router == GS_ROUTE_KV)
        for (int k = 0; k < n; k++) {
            struct gs_llm_stats st;
            gs_llm_engine_stats(sv->rep[ix[k]]->e, &st);
            pl->cin[k].kv = st.blocks_total > 0 ? (double)st.blocks_used /
                                                  (double)st.blocks_total : 0;
        }
    int nh;
    const uint64_t *hash = req_hash(sv, q, &nh);
    int k = gs_router_pick(sv->cfg->router, pl->cin, n, nh > 0 ? hash[0] : 0,
                           nh > 0, &pl->rr);
    assign(sv, sv->rep[ix[k]], q, t);
}

/* The router's queue of pool p drains into its serving replicas. */
static void drain_queue(struct svc *sv, int p, double t)
{
    for (;;) {
        int any;
        route_cands(sv, p, &any);
        if (!any)
            return;
        int32_t q = queue_pop(sv, p);
        if (q < 0)
            return;
        route(sv, p, q, t);
    }
}

/* --- replicas as cluster jobs ------------------------------------------ */

/* The cluster job that holds replica `id` of service sv on pool config
 * pc, submitted now: it runs until the service releases it (svcghost.c
 * submits its taped replicas with the same spec). */
void gs_svc_replica_spec(const struct svc *sv, const struct gs_svcpool *pc,
                         int id, struct gs_jobspec *sp)
{
    gs_jobspec_init(sp);
    sp->id = -(int64_t)(sv->idx * 1000000 + id + 1);
    snprintf(sp->tenant, sizeof sp->tenant, "%s", sv->cfg->tenant);
    sp->tier = sv->cfg->tier;
    sp->arrival = gs_sim_now(sv->m->s);
    sp->gpus = pc->tp;
    sp->work = 9.0e15;
    sp->ref_model = -1;
    sp->allowed = 1ULL << pc->gpu_model;
    if (pc->mig_profile[0])
        snprintf(sp->mig_profile, sizeof sp->mig_profile, "%s",
                 pc->mig_profile);
}

static int rep_submit(struct svc *sv, int p)
{
    if (sv->nrep == sv->caprep) {
        int cap = sv->caprep ? sv->caprep * 2 : 8;
        struct rep **a = realloc(sv->rep, (size_t)cap * sizeof *a);
        GS_OOM_IF(a == NULL);
        sv->rep = a;
        sv->caprep = cap;
    }
    struct rep *r = calloc(1, sizeof *r);
    GS_OOM_IF(r == NULL);
    const struct gs_svcpool *pc = &sv->pool[p].cfg;
    r->m = sv->m;
    r->sv = sv;
    r->pool = p;
    r->id = sv->nrep;
    r->head = -1;
    r->t_alloc = -1;
    r->cpos = -1;
    r->state = RS_WAIT;
    struct gs_jobspec sp;
    gs_svc_replica_spec(sv, pc, r->id, &sp);
    int rc = gs_sim_submit(sv->m->s, &sp, r, &r->job);
    GS_OOM_IF(rc == GS_ENOMEM);
    if (rc < 0) {
        free(r);
        return rc;
    }
    r->rec = (long)r->job->rec;
    sv->rep[sv->nrep++] = r;
    sv->nlive++;
    return 0;
}

/* r gives its requests back to the router (it lost its GPUs, or they
 * were taken back before it finished them). */
static void rep_lose(struct svc *sv, struct rep *r, double t)
{
    r->gen++;
    int32_t q = r->head;
    /* Back to the front of the router's queue: they arrived first. */
    while (q >= 0) {
        int32_t nx = lk(sv, q)->next;
        rep_unlink(sv, r, q);
        struct gs_reqrec *rq = &sv->req[q];
        rq->restarts++;
        rq->replica = -1;
        sv->restarted++;
        queue_push(sv, r->pool, q, 1);
        q = nx;
    }
    gs_llm_engine_free(r->e);
    r->e = NULL;
    r->busy = 0;
    (void)t;
}

static int live(const struct rep *r)
{
    return r->state != RS_GONE && !r->draining;
}

/* r no longer holds GPUs from time now_s: its static power since it got
 * them is the service's. */
static void static_close(struct svc *sv, struct rep *r, double now_s)
{
    if (r->t_alloc < 0)
        return;
    sv->static_j += r->static_w * (now_s - r->t_alloc);
    r->t_alloc = -1;
}

/* End r for good (it is no longer wanted). */
static void rep_end(struct svc *sv, struct rep *r)
{
    struct gs_job *j = r->job;
    static_close(sv, r, (double)gs_sim_now(sv->m->s) / 1000.0);
    set_state(sv, r, RS_GONE);
    r->job = NULL;
    sv->nlive--;
    gs_llm_engine_free(r->e);
    r->e = NULL;
    r->busy = 0;
    r->gen++;
    if (j)
        gs_sim_complete(sv->m->s, j);
}

/* Bring pool p's replicas to its desired count. */
static void reconcile(struct svc *sv, int p, double t)
{
    struct spool *pl = &sv->pool[p];
    int want = sv->done ? 0 : pl->desired;
    int n = 0;
    for (int i = 0; i < sv->nrep; i++)
        if (sv->rep[i]->pool == p && live(sv->rep[i]))
            n++;
    /* Too few: take back draining replicas, then ask for new ones. */
    for (int i = 0; i < sv->nrep && n < want; i++) {
        struct rep *r = sv->rep[i];
        if (r->pool == p && r->state != RS_GONE && r->draining) {
            r->draining = 0;
            pl->cdirty = 1;
            n++;
        }
    }
    while (n < want && rep_submit(sv, p) == 0)
        n++;
    /* Too many: the newest waiting first, then loading, then the serving
     * replica with the fewest requests drains. */
    for (int pass = RS_WAIT; pass <= RS_UP && n > want; pass++)
        for (int i = sv->nrep - 1; i >= 0 && n > want; i--) {
            struct rep *r = sv->rep[i];
            if (r->pool != p || !live(r) || r->state != pass ||
                pass == RS_UP)
                continue;
            rep_end(sv, r);
            n--;
        }
    while (n > want) {
        struct rep *best = NULL;
        for (int i = 0; i < sv->nrep; i++) {
            struct rep *r = sv->rep[i];
            if (r->pool == p && live(r) && r->state == RS_UP &&
                (best == NULL || r->nout < best->nout))
                best = r;
        }
        if (best == NULL)
            break;
        best->draining = 1;
        pl->cdirty = 1;
        n--;
        if (best->nout == 0)
            rep_end(sv, best);
    }
    (void)t;
}

/* --- the autoscaler ----------------------------------------------------- */

static double ttft_p95(struct svc *sv, double now, double window)
{
    while (sv->rt0 < sv->nrt && sv->rt_t[sv->rt0] < now - window)
        sv->rt0++;
    long n = sv->nrt - sv->rt0;
    if (n <= 0)
        return NAN;
    double *v = malloc((size_t)n * sizeof *v);
    GS_OOM_IF(v == NULL);
    memcpy(v, sv->rt_v + sv->rt0, (size_t)n * sizeof *v);
    gsl_sort(v, 1, (size_t)n);
    double q = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)n, 0.95);
    free(v);
    /* Compact the buffer now and then. */
    if (sv->rt0 > 4096 && sv->rt0 * 2 > sv->nrt) {
        memmove(sv->rt_t, sv->rt_t + sv->rt0, (size_t)n * sizeof *sv->rt_t);
        memmove(sv->rt_v, sv->rt_v + sv->rt0, (size_t)n * sizeof *sv->rt_v);
        sv->nrt = n;
        sv->rt0 = 0;
    }
    return q;
}

static void scale(struct svc *sv, int p, gs_time now)
{
    struct spool *pl = &sv->pool[p];
    if (pl->as == NULL || sv->done || gs_svcscale_next(pl->as) > now)
        return;
    struct gs_svcscale_sample smp = { 0 };
    double kv = 0, busy = 0;
    int up = 0;
    for (int i = 0; i < sv->nrep; i++) {
        struct rep *r = sv->rep[i];
        if (r->pool != p || !live(r))
            continue;
        if (r->state == RS_UP) {
            struct gs_llm_stats st;
            gs_llm_engine_stats(r->e, &st);
            kv += st.blocks_total > 0 ? (double)st.blocks_used /
                                        (double)st.blocks_total : 0;
            smp.waiting += st.waiting;
            busy += r->busy_s;
            up++;
        } else {
            smp.starting++;
        }
    }
    smp.ready = up;
    smp.waiting += (double)pl->qlen;
    smp.kv_cache = up ? kv / up : NAN;
    /* Utilization over the last sync period, from the busy integral. */
    double period = (double)pl->cfg.as.sync_period / 1000.0;
    double dbusy = busy - pl->as_busy;
    smp.gpu_util = up && period > 0 ? fmin(100.0, 100.0 * dbusy /
                                           (period * up)) : NAN;
    if (smp.gpu_util < 0)
        smp.gpu_util = 0;
    pl->as_busy = busy;
    gs_time win = gs_svcscale_ttft_window(&pl->cfg.as);
    smp.ttft_p95 = win > 0 ? ttft_p95(sv, (double)now / 1000.0,
                                      (double)win / 1000.0) : NAN;
    smp.arrivals = (double)sv->nreq;
    int want = gs_svcscale_observe(pl->as, now, &smp, NULL);
    if (want != pl->desired) {
        pl->desired = want;
        reconcile(sv, p, (double)now / 1000.0);
    }
}

/* --- the request source ------------------------------------------------- */

static void draw_arrival(struct svc *sv)
{
    if (sv->tab) {
        sv->next_arrival = sv->tnext < sv->tab->n
                           ? sv->start_s + (double)sv->tab->r[sv->tnext].arrival /
                                           1000.0
                           : INFINITY;
        return;
    }
    const struct gs_svcgen *g = &sv->cfg->gen;
    if (g->requests > 0 && sv->gcount >= g->requests) {
        sv->next_arrival = INFINITY;
        return;
    }
    /* Thinning (Lewis and Shedler 1979) under the cycle's peak rate. */
    double peak = g->rate.rate_per_hour * (1.0 + g->rate.diurnal) / 3600.0;
    double t = sv->gnext;
    if (sv->flat < 0) {
        int flat = g->rate.diurnal == 0 && g->rate.weekly == 0;
        for (int h = 0; h < 24 && flat; h++)
            flat = g->rate.hourly[h] == 0;
        sv->flat = flat;
    }
    if (sv->flat) {
        t += gsl_ran_exponential(sv->r_arr, 1.0 / peak);
        if (g->until > 0 && (gs_time)((t - sv->start_s) * 1000.0) >= g->until)
            t = INFINITY;
        sv->gnext = t;
        sv->next_arrival = t;
        return;
    }
    for (;;) {
        t += gsl_ran_exponential(sv->r_arr, 1.0 / peak);
        gs_time tm = (gs_time)((t - sv->start_s) * 1000.0);
        if (g->until > 0 && tm >= g->until) {
            t = INFINITY;
            break;
        }
        double r = gs_gen_rate(&g->rate, tm) / 3600.0;
        if (gsl_rng_uniform(sv->r_arr) * peak < r)
            break;
    }
    sv->gnext = t;
    sv->next_arrival = t;
}

/* The next request's arrival (s, INFINITY when the stream is over) and
 * its millisecond, the event's wake for it (ceil_ms: GS_TIME_MAX when
 * none), worked out once per request. */
static void next_arrival(struct svc *sv)
{
    draw_arrival(sv);
    sv->ta_ms = sv->next_arrival < INFINITY ? ceil_ms(sv->next_arrival)
                                            : GS_TIME_MAX;
}

static void arrive(struct svc *sv, double t)
{
    int in, out, nh = 0;
    const uint64_t *hash = NULL;
    if (sv->tab) {
        const struct gs_request *q = &sv->tab->r[sv->tnext++];
        in = q->input_tokens > 0 ? q->input_tokens : 1;
        out = q->output_tokens > 0 ? q->output_tokens : 1;
        if (q->nblocks > 0) {
            hash = (const uint64_t *)gs_request_blocks(sv->tab, q);
            nh = (int)q->nblocks;
        }
    } else {
        gs_svcgen_tokens(&sv->cfg->gen, sv->r_tok, &in, &out);
        sv->gcount++;
    }
    /* A pool of a length-routed stream keeps only its own requests. */
    if (!gs_router_length_takes(&sv->cfg->route, (long)in + out)) {
        next_arrival(sv);
        return;
    }
    int q = req_new(sv, t, in, out, hash, nh);
    GS_OOM_IF(q < 0);       /* a request lost would be a different run */
    route(sv, 0, q, t);
    next_arrival(sv);
}

/* --- the service's event ------------------------------------------------ */

static int all_done(const struct svc *sv)
{
    return sv->next_arrival == INFINITY &&
           sv->finished + sv->dropped == sv->nreq;
}

/* An iteration's facility energy j (J) to the requests on r, by token
 * (the essay's "Energy per request"). */
static void iter_energy(struct svc *sv, struct rep *r, double j,
                        const struct gs_llm_iter *it)
{
    double tok = (double)it->prefill_tokens + it->decode_tokens;
    /* a decode step's j * 0 / tok is j * 0, to the bit (tok > 0), without
     * a division in the iteration's chain */
    double jp = it->prefill_tokens == 0 && tok > 0 ? j * 0.0
                : tok > 0 ? j * it->prefill_tokens / tok : 0;
    double jd = j - jp;
    if (r->ngrp[2] == 0) {
        jp += jd;
        jd = 0;
    }
    if (r->ngrp[1] == 0) {
        jd += jp;
        jp = 0;
    }
    if (r->ngrp[1] == 0 && r->ngrp[2] == 0)
        sv->lost_j += j;
    if (r->ngrp[1])
        r->acc[1] += jp / r->ngrp[1];
    if (r->ngrp[2])
        r->acc[2] += jd / r->ngrp[2];
}

static void finish_iter(struct svc *sv, struct rep *r, double t)
{
    struct cbctx c = { sv, r };
    const struct gs_llm_iter *it = gs_llm_engine_last(r->e);
    double dur = it->duration;
    int dec = it->decode_tokens;
    /* the iteration's power above idle (idle is integrated over UP time) */
    double w = gs_power_watts(&gs_power_default, r->limit_w, it->compute_util,
                              it->mem_util, r->cap_w);
    double dj = (w - r->limit_w * gs_power_default.idle) * dur * r->gpus;
    iter_energy(sv, r, dj * r->pue + r->static_w * dur, it);
    sv->iter_static_j += r->static_w * dur;
    /* its end and, unless the replica drains its last request now, the
     * next iteration's forming (kick's, at the same instant t) */
    double d = 0;
    int done;
    if (!r->draining)
        d = gs_llm_engine_next(r->e, &callbacks, &c, &done);
    else
        gs_llm_engine_finish_iteration(r->e, &callbacks, &c);
    r->busy = 0;
    r->busy_s += dur;
    gs_svc_series_iter(sv, t - dur, t, dur * r->gpus, dj);
    r->dyn_j += dj;
    gs_sim_job_energy(sv->m->s, r->job, dj, t - dur, t);
    if (dec > 0)
        iter_sample(sv, dur, dec);
    if (r->draining) {
        if (r->nout == 0)
            rep_end(sv, r);
        else
            kick(sv, r, t);
        return;
    }
    if (d > 0)
        started(sv, r, t, d);
}

/* Run every happening due by millisecond now, in exact order. */
static void run_due(struct svc *sv, gs_time now)
{
    double lim = (double)now / 1000.0 + 1e-9;
    for (;;) {
        double th = gs_svcq_top(&sv->q);
        double ta = sv->next_arrival;
        /* due by lim, or put at now by wake's rounding (else an end a
         * hair past lim was left for an event at now, set again at now) */
        if (th > lim && ceil_ms(th) > now && ta > lim && sv->ta_ms > now)
            break;
        if (th <= ta) {
            struct hent e = gs_svcq_peek(&sv->q);
            if (e.kind == H_XFER) {
                route(sv, 1, e.idx, e.t);
                continue;
            }
            struct rep *r = sv->rep[e.idx];
            if (e.gen != r->gen || r->state == RS_GONE)
                continue;       /* it lost its GPUs meanwhile */
            if (e.kind == H_LOAD) {
                set_state(sv, r, RS_UP);
                gs_svc_series_up(sv, e.t, r->gpus, r->limit_w *
                                 gs_power_default.idle * r->gpus);
                drain_queue(sv, r->pool, e.t);
                if (r->draining && r->nout == 0)
                    rep_end(sv, r);
            } else {
                finish_iter(sv, r, e.t);
            }
        } else {
            arrive(sv, ta);
        }
    }
    for (int p = 0; p < sv->npools; p++)
        scale(sv, p, now);
    if (!sv->done && all_done(sv)) {
        sv->done = 1;
        sv->done_s = (double)now / 1000.0;
        for (int p = 0; p < sv->npools; p++)
            reconcile(sv, p, (double)now / 1000.0);
    }
}

/* The service's event: what is due now, then at each of its next
 * milliseconds while nothing else in the simulation comes first
 * (gs_sim_move_clock moves the clock there as the loop would), then the
 * event is held at the next one. */
static void on_wake(struct gs_event *ev, void *ctx)
{
    struct svc *sv = (struct svc *)ev;
    (void)ctx;
    struct gs_sim *s = sv->m->s;
    gs_time now = gs_sim_now(s);
    if (sv->kicked || !sv->opened) {
        /* Opening, or a replica lost its GPUs: replace what is missing and
         * hand its requests to the others. */
        sv->opened = 1;
        sv->kicked = 0;
        for (int p = 0; p < sv->npools; p++) {
            reconcile(sv, p, (double)now / 1000.0);
            drain_queue(sv, p, (double)now / 1000.0);
        }
    }
    for (;;) {
        run_due(sv, now);
        gs_time at = wake_at(sv);
        if (at == now || at == GS_TIME_MAX || !gs_sim_move_clock(s, at)) {
            wake_arm(sv, at);
            return;
        }
        now = at;
    }
}

/* --- model hooks --------------------------------------------------------- */

static struct rep *mine(const struct svmodel *m, const struct gs_job *j)
{
    struct rep *r = j->owner;
    return r && r->m == m ? r : NULL;
}

void gs_svc_job_started_hook(void *st, struct gs_job *j)
{
    struct svmodel *m = st;
    struct rep *r = mine(m, j);
    if (r == NULL || r->state != RS_WAIT)
        return;
    struct svc *sv = r->sv;
    struct spool *pl = &sv->pool[r->pool];
    const struct gs_scenario *sc = m->sc;
    struct gs_llm_engine_cfg ec = pl->ecfg;
    gs_llm_hw_from_catalog(&sc->cat, j->model, &ec.hw);
    if (pl->cfg.mig_profile[0]) {
        const struct gs_mig_gpu *g = gs_mig_gpu_find(sc->cat.m[j->model].name);
        const struct gs_mig_profile *pf =
            g ? gs_mig_profile_find(g, pl->cfg.mig_profile) : NULL;
        if (pf)
            gs_llm_hw_share(&ec.hw, (double)pf->compute_slices /
                                    GS_MIG_COMPUTE_SLICES, pf->mem_gb);
    }
    /* a power cap slows the compute clock (power.h): the compute-bound
     * terms of every iteration; the board (its MIG share) draws at most
     * the cap */
    const struct gs_gpu_model *gm = &sc->cat.m[j->model];
    double share = ec.hw.tflops / gm->tflops;
    const struct gs_pool_spec *ps = &sc->pools[j->alloc.pool];
    double cap = ps->power_cap_w;
    struct gs_slot_power slot = gs_power_slot(&sc->cat.m[ps->model], ps);
    r->pue = sc->energy.region[ps->region].pue;
    r->static_w = (double)gs_alloc_milli(&j->alloc) / 1000.0 * r->pue *
                  (slot.board_idle_w + slot.host_idle_w + slot.host_dyn_w);
    r->t_alloc = (double)gs_sim_now(m->s) / 1000.0;
    r->limit_w = gm->power_w * ec.hw.tflops / gm->tflops;
    r->cap_w = cap > 0 ? cap * share : 0;
    ec.hw.tflops *= gs_power_cap_speed(&gs_power_default, gm->power_w, cap);
    /* replicas of like GPUs share one memo of iteration costs: the
     * pool's (made for its GPU model as built) or a replica's of the same
     * figures (a power cap); the engine takes it only if it was made for
     * its very figures */
    ec.memo = pl->memo;
    for (int i = sv->nrep - 1; i >= 0; i--) {
        const struct rep *o = sv->rep[i];
        if (o->e && o->pool == r->pool &&
            memcmp(&gs_llm_engine_perf(o->e)->hw, &ec.hw, sizeof ec.hw) == 0) {
            ec.memo = gs_llm_engine_memo(o->e);
            break;
        }
    }
    struct gs_diag d = { 0 };
    if (gs_llm_engine_new(&ec, &r->e, &d) < 0) {
        GS_OOM_IF(d.code == GS_ENOMEM);
        gs_diag_free(&d);
        /* The weights do not fit: checked when the model was built, so
         * only a different GPU than planned gets here. */
        rep_end(sv, r);
        return;
    }
    if (!pl->have_perf) {
        pl->perf = *gs_llm_engine_perf(r->e);
        pl->have_perf = 1;
        pl->memo = gs_llm_memo_get(gs_llm_engine_memo(r->e), &pl->perf,
                                   ec.max_batched_tokens, ec.max_seqs);
        GS_OOM_IF(pl->memo == NULL);
    }

    r->gpus = pl->cfg.tp;
    double wgpu = gs_llm_arch_weight_bytes(&ec.arch) / pl->cfg.tp;
    r->fb_base_mib = wgpu / (1024.0 * 1024.0);
    double load = wgpu / (sv->cfg->load_gbs * 1e9);
    double now = (double)gs_sim_now(m->s) / 1000.0;
    set_state(sv, r, RS_LOAD);
    sv->starts++;
    gs_svcq_push(&sv->q, now + load, H_LOAD, r->id, r->gen);
    wake_arm(sv, wake_at(sv));
}

void gs_svc_job_ended_hook(void *st, struct gs_job *j, int why)
{
    struct svmodel *m = st;
    struct rep *r = mine(m, j);
    if (r == NULL)
        return;
    struct svc *sv = r->sv;
    double now = (double)gs_sim_now(m->s) / 1000.0;
    static_close(sv, r, now);
    if (r->state == RS_GONE)
        return;                 /* we ended it ourselves */
    if (r->state != RS_WAIT)
        sv->losses++;
    rep_lose(sv, r, now);
    if (why == GS_STOP_KILLED || why == GS_STOP_DONE) {
        set_state(sv, r, RS_GONE);
        r->job = NULL;
        sv->nlive--;
    } else {
        set_state(sv, r, RS_WAIT);      /* requeued by the simulation */
    }
    sv->kicked = 1;             /* reroute and reconcile in our own event */
    wake_arm(sv, wake_at(sv));
}

int gs_svc_alive_hook(const void *st)
{
    const struct svmodel *m = st;
    for (int i = 0; i < m->n; i++)
        if (!m->sv[i].done)
            return 1;
    return 0;
}

/* --- building ------------------------------------------------------------ */

/* "FILE: $.services[i]" and the part of a disaggregated service pool p is,
 * in memory the caller frees (gs_diag_set_at). */
static char *pool_where(const struct gs_scenario *sc, int i, int p)
{
    return gs_strf("%s: $.services[%d]%s", sc->file, i, !sc->svcs[i].disagg
                   ? "" : p == 0 ? ".disaggregated.prefill"
                                 : ".disaggregated.decode");
}

static int svc_build(struct svmodel *m, int i, struct gs_diag *d)
{
    const struct gs_scenario *sc = m->sc;
    const struct gs_svccfg *c = &sc->svcs[i];
    struct svc *sv = &m->sv[i];
    gs_event_init(&sv->ev, on_wake);
    /* its iterations change nothing the cluster integrates: a move for
     * it alone leaves the integrals waiting (still.c) */
    if (gs_sim_still_event(m->s, &sv->ev) < 0)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    sv->m = m;
    sv->idx = i;
    sv->cfg = c;
    sv->npools = c->npools;
    sv->step = sc->step;
    sv->start_s = (double)c->start / 1000.0;
    sv->next_sample = c->start;
    sv->last_adv = c->start;
    sv->ser_last_s = -INFINITY;
    for (int p = 0; p < c->npools; p++) {
        struct spool *pl = &sv->pool[p];
        pl->cfg = c->pool[p];
        pl->ecfg = c->eng;
        pl->ecfg.tp = pl->cfg.tp;
        pl->ecfg.role = c->disagg ? (p == 0 ? GS_LLM_PREFILL : GS_LLM_DECODE)
                                  : GS_LLM_BOTH;
        pl->desired = pl->cfg.replicas;
        pl->qhead = pl->qtail = -1;
        for (int k = 0; k < GS_UNL_MEMO; k++)
            pl->unl_in[k] = -1;
        /* A replica must fit some pool and its engine its GPUs. */
        struct gs_need need = { .gpus = pl->cfg.tp,
                                .allowed = 1ULL << pl->cfg.gpu_model,
                                .profile = pl->cfg.mig_profile[0]
                                               ? pl->cfg.mig_profile : NULL };
        const struct gs_fleet *f = gs_sim_fleet(m->s);
        int ok = 0;
        for (int k = 0; k < f->npools && !ok; k++)
            ok = gs_fleet_pool_eligible(f, k, &need);
        if (!ok)
            return gs_diag_set_at(d, GS_EINVAL, pool_where(sc, i, p), "no "
                                  "pool of the fleet can hold a replica: %d x "
                                  "%s%s%s", pl->cfg.tp,
                                  sc->cat.m[pl->cfg.gpu_model].name,
                                  pl->cfg.mig_profile[0] ? " MIG " : "",
                                  pl->cfg.mig_profile);
        struct gs_llm_engine_cfg ec = pl->ecfg;
        gs_llm_hw_from_catalog(&sc->cat, pl->cfg.gpu_model, &ec.hw);
        if (pl->cfg.mig_profile[0]) {
            const struct gs_mig_gpu *g =
                gs_mig_gpu_find(sc->cat.m[pl->cfg.gpu_model].name);
            const struct gs_mig_profile *pf =
                g ? gs_mig_profile_find(g, pl->cfg.mig_profile) : NULL;
            if (pf)
                gs_llm_hw_share(&ec.hw, (double)pf->compute_slices /
                                        GS_MIG_COMPUTE_SLICES, pf->mem_gb);
        }
        struct gs_llm_engine *probe = NULL;
        struct gs_diag ed = { 0 };
        int rc = gs_llm_engine_new(&ec, &probe, &ed);
        if (rc < 0) {
            rc = gs_diag_set_at(d, rc == GS_ENOMEM ? GS_ENOMEM : GS_EINVAL,
                                pool_where(sc, i, p), "%s", gs_diag_what(&ed));
            gs_diag_free(&ed);
            return rc;
        }
        pl->perf = *gs_llm_engine_perf(probe);
        pl->have_perf = 1;
        pl->memo = gs_llm_memo_get(gs_llm_engine_memo(probe), &pl->perf,
                                   ec.max_batched_tokens, ec.max_seqs);
        gs_llm_engine_free(probe);
        if (pl->memo == NULL)
            return gs_diag_set_at(d, GS_ENOMEM, pool_where(sc, i, p), "out of "
                                  "memory");
        if (pl->cfg.autoscale) {
            struct gs_svcscale_cfg ac = pl->cfg.as;
            if (ac.predict.on && ac.predict.capacity <= 0) {
                /* Requests/s one replica sustains at its KV-bound batch:
                 * from the engine's own roofline and mean lengths. */
                double in = 512, out = 256;
                if (c->src == GS_SVCSRC_GENERATE) {
                    in = gs_dist_mean(&c->gen.input);
                    out = gs_dist_mean(&c->gen.output);
                }
                double b = ec.max_seqs;
                double step = gs_llm_perf_decode(&pl->perf, b, in + out / 2);
                double pre = gs_llm_perf_prefill(&pl->perf, 1, in);
                ac.predict.capacity = 1.0 / (out * step / b + pre);
            }
            if ((rc = gs_svcscale_new(&ac, c->start, pl->cfg.replicas,
                                      &pl->as, d)) < 0)
                return rc;
        }
    }
    if (c->src == GS_SVCSRC_TRACE) {
        int rc = gs_reqtable_load(c->format, c->path, 0, &sv->tab, d);
        if (rc < 0)
            return rc;
    } else {
        char name[96];
        const char *stream = c->stream[0] ? c->stream : c->name;
        snprintf(name, sizeof name, "service.%s.arrivals", stream);
        sv->r_arr = gs_rng_stream(m->seed, name);
        snprintf(name, sizeof name, "service.%s.tokens", stream);
        sv->r_tok = gs_rng_stream(m->seed, name);
        if (sv->r_arr == NULL || sv->r_tok == NULL)
            return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
        sv->gnext = sv->start_s;
        sv->flat = -1;
    }
    long expect = sv->tab ? sv->tab->n : c->gen.requests;
    if (expect > 0 && expect < (1L << 28) && req_reserve(sv, expect) < 0)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    next_arrival(sv);
    snprintf(sv->sum.name, sizeof sv->sum.name, "%s", c->name);
    return 0;
}

void gs_svc_free_hook(void *st)
{
    struct svmodel *m = st;
    if (m == NULL)
        return;
    for (int i = 0; i < m->n; i++) {
        struct svc *sv = &m->sv[i];
        for (int k = 0; k < sv->nrep; k++) {
            gs_llm_engine_free(sv->rep[k]->e);
            free(sv->rep[k]);
        }
        for (int p = 0; p < 2; p++) {
            gs_svcscale_free(sv->pool[p].as);
            gs_llm_memo_free(sv->pool[p].memo);
            free(sv->pool[p].cand);
            free(sv->pool[p].cin);
        }
        free(sv->rep);
        free(sv->q.h);
        gs_reqtable_free(sv->tab);
        if (sv->r_arr)
            gsl_rng_free(sv->r_arr);
        if (sv->r_tok)
            gsl_rng_free(sv->r_tok);
        gs_big_free(sv->req, (size_t)sv->capreq * sizeof *sv->req);
        free(sv->lk);
        gs_big_free(sv->lkh, (size_t)sv->capreq * sizeof *sv->lkh);
        gs_big_free(sv->itl_d, (size_t)sv->capitl * sizeof *sv->itl_d);
        gs_big_free(sv->itl_w, (size_t)sv->capitl * sizeof *sv->itl_w);
        free(sv->rt_t);
        free(sv->rt_v);
        free(sv->ser_t);
        free(sv->ser);
        free(sv->ser_acc);
    }
    free(m->sv);
    free(m);
}

int gs_svc_build_hook(struct gs_sim *s, const struct gs_scenario *sc,
                      struct gs_fleet *f, struct gs_metrics *mt,
                      uint64_t seed, void **st, struct gs_diag *d)
{
    (void)f;
    (void)mt;
    *st = NULL;
    if (sc->nsvcs == 0)
        return 0;
    struct svmodel *m = calloc(1, sizeof *m);
    if (m == NULL || (m->sv = calloc((size_t)sc->nsvcs, sizeof *m->sv)) == NULL) {
        free(m);
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    m->s = s;
    m->sc = sc;
    m->seed = seed;
    m->n = sc->nsvcs;
    *st = m;
    for (int i = 0; i < m->n; i++) {
        int rc = svc_build(m, i, d);
        if (rc < 0)
            return rc;
    }
    /* The first replicas are asked for, and the first arrival awaited, at
     * each service's start. */
    for (int i = 0; i < m->n; i++) {
        m->sv[i].kicked = 0;
        if (gs_sim_at(s, &m->sv[i].ev, sc->svcs[i].start) < 0)
            return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    }
    return 0;
}

/* The first event of each service asks for its replicas. */
int gs_svc_start_hook(void *st, gs_time t0)
{
    (void)st;
    (void)t0;
    return 0;
}

/* The books close at end: requests still on replicas take their shares so
 * far, replicas still holding GPUs their static power until end. */
void gs_svc_close_hook(void *st, gs_time end)
{
    struct svmodel *m = st;
    for (int i = 0; i < m->n; i++) {
        struct svc *sv = &m->sv[i];
        gs_sim_cancel(m->s, &sv->ev);
        for (int k = 0; k < sv->nrep; k++) {
            struct rep *r = sv->rep[k];
            for (int32_t q = r->head; q >= 0; q = lk(sv, q)->next)
                egroup(r, &sv->req[q], 0);
            static_close(sv, r, (double)end / 1000.0);
        }
    }
}

const struct gs_infsum *gs_sim_services_all(const struct gs_sim *s)
{
    static const struct gs_infsum none;
    const struct svmodel *m = gs_sim_model_named(s, GS_SVC_MODEL);
    return m ? &m->all : &none;
}

int gs_sim_nservices(const struct gs_sim *s)
{
    const struct svmodel *m = gs_sim_model_named(s, GS_SVC_MODEL);
    return m ? m->n : 0;
}

const struct gs_svcsum *gs_sim_service(const struct gs_sim *s, int i)
{
    const struct svmodel *m = gs_sim_model_named(s, GS_SVC_MODEL);
    return m && i >= 0 && i < m->n ? &m->sv[i].sum : NULL;
}

const struct gs_reqrec *gs_sim_service_requests(const struct gs_sim *s, int i,
                                                long *n)
{
    const struct svmodel *m = gs_sim_model_named(s, GS_SVC_MODEL);
    *n = 0;
    if (m == NULL || i < 0 || i >= m->n)
        return NULL;
    *n = m->sv[i].nreq;
    return m->sv[i].req;
}

const double *gs_sim_service_series(const struct gs_sim *s, int i, long *n,
                                    const double **t)
{
    const struct svmodel *m = gs_sim_model_named(s, GS_SVC_MODEL);
    *n = 0;
    *t = NULL;
    if (m == NULL || i < 0 || i >= m->n)
        return NULL;
    *n = m->sv[i].nser;
    *t = m->sv[i].ser_t;
    return m->sv[i].ser;
}
