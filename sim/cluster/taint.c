/* taint.c -- node taints and job tolerations (the rules are in taint.h).
 *
 * A taint's name is its identity: two nodes carry the same taint when
 * key, value and effect are equal, so the names are interned once per
 * scenario (in its catalog) and pools and jobs speak of them by bit. */
#include "taint.h"
#include "../base/err.h"

#include <stdio.h>
#include <string.h>

int gs_taints_add(struct gs_taints *t, const char *key, const char *value,
                  const char *effect)
{
    if (key == NULL || key[0] == '\0' || effect == NULL ||
        (strcmp(effect, "NoSchedule") != 0 && strcmp(effect, "NoExecute") != 0))
        return GS_EINVAL;
    char name[GS_TAINT_NAME];
    int len = value && value[0]
                  ? snprintf(name, sizeof name, "%s=%s:%s", key, value, effect)
                  : snprintf(name, sizeof name, "%s:%s", key, effect);
    if (len < 0 || len >= (int)sizeof name)
        return GS_EINVAL;
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->name[i], name) == 0)
            return i;
    if (t->n == GS_MAX_TAINTS)
        return GS_ERANGE;
    memcpy(t->name[t->n], name, (size_t)len + 1);
    return t->n++;
}

int gs_toleration_matches(const struct gs_toleration *tol, const char *name)
{
    const char *colon = strrchr(name, ':');
    if (colon == NULL)
        return 0;
    const char *eq = memchr(name, '=', (size_t)(colon - name));
    size_t klen = (size_t)((eq ? eq : colon) - name);
    const char *val = eq ? eq + 1 : colon;
    size_t vlen = (size_t)(colon - val);
    if (tol->effect && tol->effect[0] && strcmp(tol->effect, colon + 1) != 0)
        return 0;
    const char *k = tol->key ? tol->key : "";
    if (tol->exists && k[0] == '\0')
        return 1;               /* an empty key with Exists: every taint */
    if (strlen(k) != klen || strncmp(k, name, klen) != 0)
        return 0;
    if (tol->exists)
        return 1;
    const char *v = tol->value ? tol->value : "";
    return strlen(v) == vlen && strncmp(v, val, vlen) == 0;
}

uint64_t gs_taints_tolerated(const struct gs_taints *t,
                             const struct gs_toleration *tol, int n)
{
    uint64_t m = 0;
    for (int i = 0; i < t->n; i++)
        for (int k = 0; k < n; k++)
            if (gs_toleration_matches(&tol[k], t->name[i])) {
                m |= 1ULL << i;
                break;
            }
    return m;
}

void gs_taints_format(const struct gs_taints *t, uint64_t mask, char *buf,
                      int n)
{
    int w = 0;
    if (n > 0)
        buf[0] = '\0';
    for (int i = 0; i < t->n && w < n; i++)
        if (mask >> i & 1) {
            int k = snprintf(buf + w, (size_t)(n - w), "%s%s", w ? ", " : "",
                             t->name[i]);
            if (k < 0)
                break;
            w += k;
        }
}
