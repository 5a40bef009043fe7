/* svcint.h -- what the files of the service model share: its state
 * (struct svmodel: the services, their replicas, queues, requests and
 * series) and the calls between them.  service.c runs the services;
 * svcseries.c keeps their integrals and time series; svcsum.c summarizes
 * them at the end; svcghost.c tapes and replays their replica jobs
 * (svcghost.h); svcmodel.c is the model's table of hooks (model.h),
 * naming service.c's, svcseries.c's, svcsum.c's and svcout.c's.  Nothing
 * outside sim/inference/ includes it; service.h is the public door and
 * service.c's essay explains the model. */
#ifndef GS_SVCINT_H
#define GS_SVCINT_H

#include "service.h"
#include "router.h"
#include "svcqueue.h"
#include "../../traces/llmreq.h"
#include "../core/sim.h"

#include <gsl/gsl_rng.h>
#include <stdint.h>

/* The model's name in the table and in the run (gs_sim_model_named): the
 * accessors of service.c find the model's state by it. */
#define GS_SVC_MODEL "services"

enum { RS_WAIT, RS_LOAD, RS_UP, RS_GONE };
enum { GS_UNL_MEMO = 1024 };   /* unloaded prefill times remembered */
enum { H_ITER, H_LOAD, H_XFER };

struct svmodel;
struct svc;

struct rep {
    struct svmodel *m;          /* first: job->owner points here */
    struct svc *sv;
    int pool, id;
    int state, draining;
    int busy;                   /* an iteration is in flight */
    unsigned gen;               /* bumped when the replica loses its GPUs */
    struct gs_job *job;
    struct gs_llm_engine *e;
    long nout;                  /* requests assigned and not finished */
    int cpos;                   /* its place in the pool's router inputs */
    int32_t head;               /* its requests, a list through req.next */
    double busy_s;              /* iteration time so far */
    double fb_base_mib;         /* weights per GPU */
    int gpus;
    double limit_w;             /* board power limit of one of its GPUs
                                 * (a MIG slice: its share) */
    double cap_w;               /* its power cap (the same share), 0 none */
    long rec;                   /* its job's record (gs_sim_records) */
    /* energy (service.c, "Energy per request"): its allocation's static
     * power (boards idle, hosts, x PUE) and its PUE; since when it holds
     * GPUs (s, -1 not); per energy group (1 prefill, 2 decode) the
     * requests in it and the running share per request, facility J */
    double static_w, pue, t_alloc;
    double dyn_j;               /* energy above idle its iterations booked
                                   (svcghost.c's tape) */
    int ngrp[3];
    double acc[3];
};

/* A request's live links (kept apart from the record written out). */
struct rlink {
    int32_t next, prev;
};

/* A request's prefix-block hash ids (the trace's; kept only for streams
 * that have them). */
struct rhash {
    const uint64_t *hash;
    int32_t nhash;
};

struct spool {
    struct gs_svcpool cfg;
    struct gs_llm_engine_cfg ecfg;
    int desired;
    int32_t qhead, qtail;       /* router queue: requests with no replica */
    long qlen;
    unsigned long rr;
    struct gs_svcscale *as;
    double as_busy, as_up;      /* util at the last evaluation */
    /* memo of unloaded prefill times, direct-mapped by prompt length */
    int unl_in[GS_UNL_MEMO];
    double unl_t[GS_UNL_MEMO];
    struct gs_llm_perf perf;
    int have_perf;
    struct gs_llm_memo *memo;   /* iteration costs of perf, shared with the
                                 * replicas' engines of the same figures */
    /* replicas the router may choose (serving, not draining), by index,
     * and their router inputs, kept current (outstanding counts as they
     * change); rebuilt when a replica's state or draining flag changed */
    int *cand, ncand, capcand, cdirty;
    struct gs_route_cand *cin;
};

struct svc {
    struct gs_event ev;         /* first: the simulation's wake-up */
    struct svmodel *m;
    int idx;
    const struct gs_svccfg *cfg;
    struct spool pool[2];
    int npools;
    struct rep **rep;
    int nrep, caprep;
    int nlive;                  /* replicas not GONE */
    struct svcq q;              /* its own exact-time happenings */
    /* the request source */
    struct gs_reqtable *tab;
    long tnext;
    gsl_rng *r_arr, *r_tok;
    double gnext;               /* next generated arrival, s; INFINITY at end */
    int flat;                   /* the generator's rate has no cycle (-1: not
                                 * yet known) */
    long gcount;
    double start_s, next_arrival;
    gs_time ta_ms;              /* next_arrival's millisecond (service.c) */
    /* requests */
    struct gs_reqrec *req;
    /* the live requests' links, a ring: request q's at lk[q % caplk]
     * (caplk a power of two), for q from lk0 -- every request before lk0
     * is done or dropped, no longer linked -- to nreq (service.c) */
    struct rlink *lk;
    long lk0, caplk;
    struct rhash *lkh;          /* NULL until a request has hash ids */
    long nreq, capreq;
    long finished, dropped, restarted, eng_preempt;
    long starts, losses;
    double tok_in, tok_out;
    /* token-weighted ITL samples: iteration durations and their weights */
    double *itl_d;
    float *itl_w;
    long nitl, capitl;
    /* the ITL samples' memory once the summary spent it (svcsum.c):
     * touched pages, scratch for what reads the records after the run */
    unsigned char *spent;
    size_t nspent;
    /* recent first tokens, for the autoscaler's ttft_p95 */
    double *rt_t, *rt_v;
    long nrt, caprt, rt0;
    /* time series */
    double *ser_t, *ser;
    double *ser_acc;            /* per row: GPU-s up, GPU-s busy, board J
                                   over its step (svcseries.c) */
    double ser_last_s;          /* the last row's time, s (-inf: none) */
    long nser, capser;
    gs_time step, next_sample;
    /* what the step in progress integrated: GPU-s busy and up, J (the
     * next row's; svcseries.c) */
    double busy_total, up_total;
    double idle_w;                      /* idle W of the UP replicas' GPUs */
    double energy_j;                    /* board energy of UP replicas, J */
    double static_j, iter_static_j;     /* facility J: replicas' static
                                           power while allocated, and of
                                           it during iterations */
    double lost_j;                      /* iteration energy with no
                                           request on its replica */
    long last_arrived;
    double rep_ms, rep_max;             /* replicas x ms, the largest */
    int up_n, up_gpus;                  /* replicas UP, their GPUs */
    gs_time last_adv;
    int done;                   /* stream over and every request ended */
    int kicked;                 /* a replica was lost: reconcile */
    int opened;                 /* the first event has run */
    double done_s;              /* when done was set */
    long good;                  /* requests meeting every target */
    struct gs_svcsum sum;
};

struct svmodel {
    struct gs_sim *s;
    const struct gs_scenario *sc;
    uint64_t seed;
    struct svc *sv;
    int n;
    gs_time t0;
    int started;
    struct gs_infsum all;       /* all services together, at the end */
    struct svghost *ghost;      /* replayed from a tape (svcghost.c), or
                                   NULL */
};

/* service.c: the model's hooks (model.h) that run the services
 * (svcseries.c: gs_svc_advance_hook, the integrals and time series). */
int gs_svc_build_hook(struct gs_sim *s, const struct gs_scenario *sc,
                      struct gs_fleet *f, struct gs_metrics *mt,
                      uint64_t seed, void **st, struct gs_diag *d);
void gs_svc_free_hook(void *st);
int gs_svc_start_hook(void *st, gs_time t0);
void gs_svc_job_started_hook(void *st, struct gs_job *j);
void gs_svc_job_ended_hook(void *st, struct gs_job *j, int why);
void gs_svc_advance_hook(void *st, gs_time t);
/* Book what ran over [a, b] (exact seconds, b at or before the clock):
 * busy GPU-s and board energy j (J) drawn evenly over it, to the steps of
 * the /services series it falls in -- a step already sampled is
 * amended (gs_svc_series_split) -- and to the integrals the next sample
 * reads (svcseries.c). */
void gs_svc_series_split(struct svc *sv, double a, double b, double up,
                         double busy, double j);
static inline void gs_svc_series_iter(struct svc *sv, double a, double b,
                                      double busy, double j)
{
    if (a >= sv->ser_last_s) {          /* all after the last sample */
        sv->busy_total += busy;
        sv->energy_j += j;
    } else {
        gs_svc_series_split(sv, a, b, 0, busy, j);
    }
}
/* A replica of gpus GPUs drawing idle_w W (all of them) went UP at exact
 * time t, before the integrals' last cut: the part of [t, cut] it was up
 * but not yet counted. */
void gs_svc_series_up(struct svc *sv, double t, int gpus, double idle_w);
void gs_svc_close_hook(void *st, gs_time end);
int gs_svc_alive_hook(const void *st);
void gs_svc_replica_spec(const struct svc *sv, const struct gs_svcpool *pc,
                         int id, struct gs_jobspec *sp);

/* svcghost.c: the model's job hooks while it replays a tape (svcmodel.c
 * calls them in place of service.c's when m->ghost is set). */
void gs_svc_ghost_started(struct svmodel *m, struct gs_job *j);
void gs_svc_ghost_ended(struct svmodel *m, struct gs_job *j, int why);
int gs_svc_ghost_alive(const struct svmodel *m);
void gs_svc_ghost_free(struct svmodel *m);

/* svcsum.c: every service's summary (struct gs_svcsum) and all of them
 * together (struct gs_infsum), at the run's end. */
void gs_svc_summarize_hook(void *st, struct gs_summary *su);

/* svcquest.c: the model's part of the question (io/question.h): its
 * request streams and each service's TTFT series. */
int gs_svc_arrivals_hook(const struct gs_scenario *sc, const char **why);
long gs_svc_length_hook(const struct gs_scenario *sc);
void gs_svc_set_length_hook(struct gs_scenario *sc, double f);
int gs_svc_nseries_hook(const struct gs_scenario *sc);
void gs_svc_series_name_hook(const struct gs_scenario *sc, int i, char *buf,
                             size_t n);
int gs_svc_series_hook(const struct gs_sim *s, const void *st, int i,
                       double **x, long *nx);

#endif
