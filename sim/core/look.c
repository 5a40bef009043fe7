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
