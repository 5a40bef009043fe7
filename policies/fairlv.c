/* fairlv.c -- fair's reclaim index: nodes by fully free GPUs, witnesses.
 *
 * See fairlv.h. */
#include "fairlv.h"
#include "jobgroup.h"

#include <stdlib.h>
#include <string.h>

int gs_fairlv_init(struct gs_fairlv *x, struct gs_sim *sim, int nnodes,
                   int maxgpn)
{
    memset(x, 0, sizeof *x);
    x->nlv = maxgpn;
    x->lv = calloc((size_t)maxgpn + 1, sizeof *x->lv);
    x->lvf = calloc((size_t)maxgpn + 1, sizeof *x->lvf);
    x->lvu = calloc((size_t)maxgpn + 1, sizeof *x->lvu);
    x->lvl = malloc((size_t)nnodes + 1);
    x->lvfull = calloc((size_t)nnodes + 1, 1);
    x->wnext = malloc(((size_t)nnodes + 1) * sizeof *x->wnext);
    x->wprev = malloc(((size_t)nnodes + 1) * sizeof *x->wprev);
    gs_lvec_init(&x->wit, sim, sizeof(int));
    /* a node's sum is at most its GPUs */
    while (maxgpn >> x->nbit)
        x->nbit++;
    x->nw = (nnodes + 63) / 64 + 1;
    x->vp = calloc((size_t)(maxgpn + 1) * (size_t)x->nbit * (size_t)x->nw,
                   sizeof *x->vp);
    int ok = x->lv && x->lvf && x->lvu && x->lvl && x->lvfull && x->wnext &&
             x->wprev && x->vp;
    for (int v = 0; ok && v < maxgpn; v++)
        ok = gs_bitidx_init(&x->lv[v], nnodes) == 0 &&
             gs_bitidx_init(&x->lvf[v], nnodes) == 0 &&
             gs_bitidx_init(&x->lvu[v], nnodes) == 0;
    if (!ok) {
        gs_fairlv_free(x);
        return GS_ENOMEM;
    }
    memset(x->lvl, -1, (size_t)nnodes + 1);
    gs_lvec_setn(&x->wit, nnodes);
    return 0;
}

void gs_fairlv_free(struct gs_fairlv *x)
{
    if (x == NULL)
        return;
    for (int v = 0; v < x->nlv && x->lv && x->lvf && x->lvu; v++) {
        gs_bitidx_free(&x->lv[v]);
        gs_bitidx_free(&x->lvf[v]);
        gs_bitidx_free(&x->lvu[v]);
    }
    free(x->lv);
    free(x->lvf);
    free(x->lvu);
    free(x->lvl);
    free(x->lvfull);
    free(x->wnext);
    free(x->wprev);
    free(x->whead);
    free(x->vp);
    gs_lvec_free(&x->wit);
    memset(x, 0, sizeof *x);
}

void gs_fairlv_tenants(struct gs_fairlv *x, int nt)
{
    if ((long)nt * 64 <= x->capwhead)
        return;
    long cap = x->capwhead;
    x->whead = gs_grow(x->whead, &x->capwhead, (long)nt * 64,
                       sizeof *x->whead);
    for (long i = cap; i < x->capwhead; i++)
        x->whead[i] = -1;
}

void gs_fairlv_fix(struct gs_fairlv *x, const struct gs_fleet *f, int n,
                   int nvic, int rv)
{
    const struct gs_node *nd = &f->nodes[n];
    int gpn = f->pools[nd->pool].s.gpn;
    int v = nvic > 0 && nd->nfull < gpn ? nd->nfull : -1;
    int full = v >= 0 && v + rv >= gpn;
    int ov = x->lvl[n], ofull = x->lvfull[n];
    if (v == ov && full == ofull)
        return;
    if (ov >= 0)
        gs_bitidx_clear(&x->lv[ov], n);
    if (ofull) {
        gs_bitidx_clear(&x->lvf[ov], n);
        gs_bitidx_clear(&x->lvu[ov], n);
    }
    if (v >= 0)
        gs_bitidx_set(&x->lv[v], n);
    if (full) {
        gs_bitidx_set(&x->lvf[v], n);
        if (*(int *)gs_lvec_upd(&x->wit, n) == 0)
            gs_bitidx_set(&x->lvu[v], n);
    }
    x->lvl[n] = (int8_t)v;
    x->lvfull[n] = (int8_t)full;
}

void gs_fairlv_wit_set(struct gs_fairlv *x, int n, int k)
{
    *(int *)gs_lvec_upd(&x->wit, n) = k + 1;
    int *h = &x->whead[(k >> 8) * 64 + (k & 0xff)];
    x->wprev[n] = -1;
    x->wnext[n] = *h;
    if (*h >= 0)
        x->wprev[*h] = n;
    *h = n;
    if (x->lvfull[n])
        gs_bitidx_clear(&x->lvu[x->lvl[n]], n);
}

void gs_fairlv_wit_drop(struct gs_fairlv *x, int n)
{
    int *w = gs_lvec_upd(&x->wit, n);
    if (*w == 0)
        return;
    int k = *w - 1;
    *w = 0;
    if (x->wprev[n] >= 0)
        x->wnext[x->wprev[n]] = x->wnext[n];
    else
        x->whead[(k >> 8) * 64 + (k & 0xff)] = x->wnext[n];
    if (x->wnext[n] >= 0)
        x->wprev[x->wnext[n]] = x->wprev[n];
    if (x->lvfull[n])
        gs_bitidx_set(&x->lvu[x->lvl[n]], n);
}

void gs_fairlv_margin(struct gs_fairlv *x, int t, int m0, int m1)
{
    for (int g = m0 + 1; g <= m1 && g < 64; g++) {
        int *h = &x->whead[t * 64 + g];
        while (*h >= 0)
            gs_fairlv_wit_drop(x, *h);
    }
}
