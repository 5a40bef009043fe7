/* look.c -- the counted containers' out-of-line parts (look.h). */
#include "look.h"

#include <stdlib.h>

struct lwalk {
    int (*visit)(struct gs_hnode *node, void *arg);
    void *arg;
    uint64_t *work;
};

static int lwalk_visit(struct gs_hnode *node, void *arg)
{
    struct lwalk *w = arg;
    ++*w->work;
    return w->visit(node, w->arg);
}

int gs_lheap_walk(const struct gs_lheap *q,
                  int (*visit)(struct gs_hnode *node, void *arg), void *arg)
{
    struct lwalk w = { visit, arg, q->work };
    return gs_heap_walk(&q->h, lwalk_visit, &w);
}

void gs_lvec_free(struct gs_lvec *v)
{
    if (v == NULL)
        return;
    free(v->a);
    v->a = NULL;
    v->n = v->cap = 0;
}

void gs_lvec_reserve(struct gs_lvec *v, long n)
{
    if (n <= v->cap)
        return;
    long cap = v->cap > 0 ? v->cap : 16;
    while (cap < n)
        cap *= 2;
    char *a = realloc(v->a, (size_t)cap * v->size);
    GS_OOM_IF(a == NULL);
    memset(a + (size_t)v->cap * v->size, 0,
           (size_t)(cap - v->cap) * v->size);
    v->a = a;
    v->cap = cap;
}

void gs_llist_init_apart(struct gs_llist *l, struct gs_sim *sim, uint64_t id)
{
    *l = (struct gs_llist){ .head = -1, .tail = -1, .free = -1,
                            .base = id << 40,
                            .work = gs_sim_look_counter(sim) };
}

void gs_llist_free(struct gs_llist *l)
{
    if (l == NULL)
        return;
    for (long i = l->head; i >= 0; i = l->a[i].next)
        l->a[i].node->seq = 0;
    free(l->a);
    l->a = NULL;
    l->cap = l->n = 0;
    l->head = l->tail = l->free = -1;
}

/* Room for one more entry: 0, or GS_ENOMEM. */
static int llist_room(struct gs_llist *l)
{
    if (l->free >= 0)
        return 0;
    long cap = l->cap > 0 ? 2 * l->cap : 64;
    struct gs_lslot *a = realloc(l->a, (size_t)cap * sizeof *a);
    if (a == NULL)
        return GS_ENOMEM;
    for (long i = cap - 1; i >= l->cap; i--) {
        a[i] = (struct gs_lslot){ NULL, -1, l->free };
        l->free = i;
    }
    l->a = a;
    l->cap = cap;
    return 0;
}

int gs_llist_insert(struct gs_llist *l, struct gs_hnode *node, gs_time time)
{
    if (llist_room(l) < 0)
        return GS_ENOMEM;
    long i = l->free;
    l->free = l->a[i].next;
    long p = l->tail;               /* after every entry of no greater key */
    while (p >= 0 && l->a[p].node->time > time)
        p = l->a[p].prev;
    long nx = p >= 0 ? l->a[p].next : l->head;
    l->a[i] = (struct gs_lslot){ node, p, nx };
    if (p >= 0)
        l->a[p].next = i;
    else
        l->head = i;
    if (nx >= 0)
        l->a[nx].prev = i;
    else
        l->tail = i;
    node->time = time;
    node->seq = l->base + (uint64_t)i + 1;
    l->n++;
    return 0;
}

void gs_llist_remove(struct gs_llist *l, struct gs_hnode *node)
{
    long i = (long)(node->seq - l->base - 1);
    struct gs_lslot *s = &l->a[i];
    if (s->prev >= 0)
        l->a[s->prev].next = s->next;
    else
        l->head = s->next;
    if (s->next >= 0)
        l->a[s->next].prev = s->prev;
    else
        l->tail = s->prev;
    *s = (struct gs_lslot){ NULL, -1, l->free };
    l->free = i;
    node->seq = 0;
    l->n--;
}

int gs_llist_walk(const struct gs_llist *l,
                  int (*visit)(struct gs_hnode *node, void *arg), void *arg)
{
    for (long i = l->head; i >= 0; i = l->a[i].next) {
        ++*l->work;
        int rc = visit(l->a[i].node, arg);
        if (rc)
            return rc;
    }
    return 0;
}

int gs_lheap_move_below(struct gs_lheap *q, gs_time t, struct gs_llist *l)
{
    gs_time k;
    while ((k = gs_heap_top_time(&q->h)) < t) {
        if (llist_room(l) < 0)
            return GS_ENOMEM;       /* before the pop: nothing is lost */
        GS_ASSERT(gs_llist_insert(l, gs_heap_pop(&q->h), k) == 0);
    }
    return 0;
}
