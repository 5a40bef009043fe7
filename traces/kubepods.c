/* kubepods.c -- Kubernetes pods as a workload: `kubectl get pods -A -o
 * json` snapshots ("k8s-pods") and kube-state-metrics series through
 * Prometheus ("k8s-ksm").
 *
 * Sources: the Kubernetes API reference (Pod; "Resource Management for
 * Pods and Containers" for how requests default to limits and how init
 * containers and overhead count), the coscheduling plug-in's, Volcano's and
 * Kueue's PodGroup labels, and kube-state-metrics' pod metrics.  The
 * mapping rules follow (and docs/import.md). */
#include "kube.h"
#include "kubeint.h"
#include "cimport.h"
#include "tread.h"

#include "../sim/io/jsonio.h"
#include "../sim/spec/scenario.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Trace format "k8s-pods": `kubectl get pods -A -o json` snapshots.  The
 * option path is one file, or a folder whose *.json and *.json.gz files
 * are snapshots read in name order; pods are merged by metadata.uid (the
 * snapshot where the pod got furthest -- Succeeded or Failed, then
 * Running, then Pending -- wins; a later file wins a tie), since finished
 * pods are garbage-collected and one snapshot is not a history.  A job per
 * pod (or per gang, below):
 *   arrival   metadata.creationTimestamp (ms after the earliest kept one)
 *   start     the PodScheduled condition's lastTransitionTime (when the
 *             scheduler bound the pod and its GPUs were taken), else
 *             status.startTime (when the kubelet acknowledged it); the
 *             recorded wait is start - arrival, and the start-up after it
 *             (image pulls, init containers) is part of the run
 *             (pods_basis)
 *   end       the latest state.terminated.finishedAt of its containers;
 *             a Running pod ends at the export time (option export_time,
 *             else the latest timestamp in its snapshot) or, with option
 *             running "drop", is left out
 *   work      end - start
 *   asks      the pod's effective request per resource, as the scheduler
 *             counts it: the larger of the containers' sum and the largest
 *             init container, plus spec.overhead; a container's request
 *             is its limit when it states none.  nvidia.com/gpu whole GPUs
 *             (one replica each on a time-sliced node), one
 *             nvidia.com/mig-<profile> instance, cpu (milli-cores) and
 *             memory (MiB)
 *   tenant    the namespace, or the label named by option tenant_label
 *             (the namespace when a pod lacks it)
 *   tier      spec.priorityClassName through option tiers ("class=tier,
 *             ..."), else by name: one containing "infer", "serv",
 *             "online" or "realtime" is inference, "interactive",
 *             "notebook" or "dev" interactive, "batch-cpu", "data" or "etl"
 *             data; anything else (and none) training
 *   estimate  spec.activeDeadlineSeconds when set
 *   tolerates spec.tolerations matched against the scenario's taints
 *             (sim/cluster/taint.h): the job may use only pools whose
 *             every taint it tolerates (a gang: all its pods do)
 *   family    with option nodes (a k8s-nodes file), the model of the node
 *             the pod ran on (spec.nodeName), which is also the job's
 *             reference model (its time was measured there), and on a MIG
 *             single-strategy node nvidia.com/gpu: 1 is that node's MIG
 *             profile; else a nodeSelector on nvidia.com/gpu.product
 *   MIG       a pod on an instance of profile Ng.* ran at N/7 of the GPU's
 *             compute, so its full-speed work is its time x N/7
 *   gang      pods of one PodGroup (label scheduling.x-k8s.io/pod-group,
 *             pod-group.scheduling.sigs.k8s.io, kueue.x-k8s.io/
 *             pod-group-name, or annotation scheduling.k8s.io/group-name)
 *             are one job: GPUs, CPU and memory summed, arrival the first
 *             creation, start the last start (a gang runs when all its
 *             pods do), end the last end.  Option gang_from "job" makes
 *             the pods of one owner Job a gang too; "none" no gangs.
 * Left out, by reason, and reported: Pending pods (never started), pods
 * that failed before starting, pods asking no GPU (unless option cpu_pods
 * is true), DaemonSet pods, pods asking several MIG instances, Running
 * pods with running "drop".  A malformed pod is an error naming the file,
 * the pod and the field (skip_bad_rows: counted and left out). */

enum { PH_PENDING, PH_RUNNING, PH_DONE, PH_UNKNOWN };

struct kfact;

struct kpod {
    char uid[64];
    char obj[200];              /* "Pod ns/name", as the reader's k->obj */
    char tenant[GS_TENANT_NAME];
    char gang[200];             /* "" none */
    char node[GS_NAME];
    char family[GS_GPU_FAMILY_NAME];
    char mig[GS_MIG_PROFILE_NAME];
    int phase, tier, file, gpus, migs, daemon;
    int64_t created, start, end;
    int64_t sched;              /* PodScheduled's time, -1 none */
    int64_t run;                /* first container's start, -1 none */
    int64_t estimate;
    uint64_t tolerates;         /* the scenario's taints it tolerates */
    double cpu, mem;            /* cores, bytes */
};

struct kpods {
    struct gs_cimp_hist h;      /* first: gs_cimp_hist_next reads it */
    const struct gs_scenario *sc;
    int gang_job, gang_none;
    int64_t export_ms;          /* option, -1 none */
    char tenant_label[128];
    struct gs_catalog cat;      /* the scenario's, plus nodes' models */
    struct gs_knode *nodes;        /* option nodes: name -> model, MIG */
    int nnodes;
    struct kpod *v;
    long n, cap;
    struct kfact *f;            /* k8s-ksm: the series' last values */
    long nf, fcap;
    int64_t latest;             /* k8s-ksm: the latest sample */
    long bad;
};


/* A timestamp member: 0 with *ms (-1 when absent), or the error. */
static int ktime(const struct gs_kctx *k, const struct gs_json *o,
                 const char *field, const char *key, int64_t *ms)
{
    *ms = -1;
    const struct gs_json *v = gs_kube_get(o, key);
    if (v == NULL)
        return 0;
    char f[160];
    snprintf(f, sizeof f, "%s%s%s", field, field[0] ? "." : "", key);
    const char *s = gs_json_string(v);
    if (s == NULL) {
        char *t = gs_json_print(v);
        int null = t && strcmp(t, "null") == 0;
        free(t);
        return null ? 0 : gs_kube_fail(k, f, "not a string");
    }
    if (gs_cimp_rfc3339(s, ms) < 0)
        return gs_kube_fail(k, f, "'%s' is not an RFC 3339 time "
                     "(\"2024-05-01T12:00:00Z\")", s);
    return 0;
}

/* One container list's resources folded in: sum (init 0) or max (1). */
struct kres {
    double cpu, mem, gpu;
    char mig[GS_MIG_PROFILE_NAME];
    double migs;
};

static int container_res(const struct gs_kctx *k, const struct gs_json *c,
                         const char *field, struct kres *r)
{
    memset(r, 0, sizeof *r);
    const struct gs_json *res = gs_kube_get(c, "resources");
    const struct gs_json *req = gs_kube_get(res, "requests");
    const struct gs_json *lim = gs_kube_get(res, "limits");
    static const char *const keys[] = { "cpu", "memory", "nvidia.com/gpu" };
    double *dst[] = { &r->cpu, &r->mem, &r->gpu };
    char f[200];
    int rc;
    for (int i = 0; i < 3; i++) {
        int in_req = gs_kube_get(req, keys[i]) != NULL;
        snprintf(f, sizeof f, "%s.resources.%s", field,
                 in_req ? "requests" : "limits");
        if ((rc = gs_kube_qty(k, in_req ? req : lim, f, keys[i], dst[i])) < 0)
            return rc;
    }
    for (int pass = 0; pass < 2; pass++) {
        const struct gs_json *l = pass ? lim : req;
        for (const struct gs_json *e = gs_json_first(l); e;
             e = gs_json_next(e)) {
            const char *key = gs_json_key(e);
            if (strncmp(key, "nvidia.com/mig-", 15) != 0 ||
                (pass && gs_kube_get(req, key)))
                continue;
            double v;
            snprintf(f, sizeof f, "%s.resources.%s", field,
                     pass ? "limits" : "requests");
            if ((rc = gs_kube_qty(k, l, f, key, &v)) < 0)
                return rc;
            if (v > 0 && r->mig[0] && strcmp(r->mig, key + 15) != 0)
                r->migs += 1000;    /* two profiles: never one instance */
            if (v > 0 && strlen(key + 15) < sizeof r->mig)
                snprintf(r->mig, sizeof r->mig, "%s", key + 15);
            r->migs += v;
        }
    }
    return 0;
}

/* The pod's effective request (the scheduler's rule). */
static int pod_res(const struct gs_kctx *k, const struct gs_json *spec,
                   struct kres *out)
{
    struct kres sum = { 0 }, imax = { 0 }, r;
    int rc, i = 0;
    char f[64];
    for (const struct gs_json *c = gs_json_first(gs_kube_get(spec, "containers"));
         c; c = gs_json_next(c), i++) {
        snprintf(f, sizeof f, "spec.containers[%d]", i);
        if ((rc = container_res(k, c, f, &r)) < 0)
            return rc;
        sum.cpu += r.cpu;
        sum.mem += r.mem;
        sum.gpu += r.gpu;
        if (r.migs > 0 && sum.mig[0] && strcmp(sum.mig, r.mig) != 0)
            sum.migs += 1000;
        if (r.migs > 0)
            memcpy(sum.mig, r.mig, sizeof sum.mig);
        sum.migs += r.migs;
    }
    if (i == 0)
        return gs_kube_fail(k, "spec.containers", "missing or empty");
    i = 0;
    for (const struct gs_json *c = gs_json_first(gs_kube_get(spec,
                                                      "initContainers"));
         c; c = gs_json_next(c), i++) {
        snprintf(f, sizeof f, "spec.initContainers[%d]", i);
        if ((rc = container_res(k, c, f, &r)) < 0)
            return rc;
        imax.cpu = fmax(imax.cpu, r.cpu);
        imax.mem = fmax(imax.mem, r.mem);
        imax.gpu = fmax(imax.gpu, r.gpu);
    }
    double ocpu, omem;
    if ((rc = gs_kube_qty(k, gs_kube_get(spec, "overhead"), "spec.overhead", "cpu",
                  &ocpu)) < 0 ||
        (rc = gs_kube_qty(k, gs_kube_get(spec, "overhead"), "spec.overhead", "memory",
                  &omem)) < 0)
        return rc;
    *out = sum;
    out->cpu = fmax(sum.cpu, imax.cpu) + ocpu;
    out->mem = fmax(sum.mem, imax.mem) + omem;
    out->gpu = fmax(sum.gpu, imax.gpu);
    if (out->gpu != floor(out->gpu) || out->gpu > 1e6 ||
        out->cpu * 1000 > 2.0e9 || out->mem / 1048576.0 > 2.0e9)
        return gs_kube_fail(k, "spec.containers", "asks cpu %g, memory %g, "
                     "nvidia.com/gpu %g: out of range", out->cpu, out->mem,
                     out->gpu);
    return 0;
}

static const char *pod_gang(const struct kpods *s, const struct gs_json *meta,
                            char *buf, size_t n)
{
    static const char *const labels[] = {
        "scheduling.x-k8s.io/pod-group", "pod-group.scheduling.sigs.k8s.io",
        "kueue.x-k8s.io/pod-group-name",
    };
    const char *ns = gs_kube_str(meta, "namespace");
    buf[0] = '\0';
    if (s->gang_none)
        return buf;
    for (size_t i = 0; i < 3; i++)
        if (gs_kube_label(meta, labels[i])) {
            snprintf(buf, n, "PodGroup %s/%s", ns, gs_kube_label(meta, labels[i]));
            return buf;
        }
    const char *ann = gs_kube_str(gs_kube_get(meta, "annotations"),
                           "scheduling.k8s.io/group-name");
    if (ann) {
        snprintf(buf, n, "PodGroup %s/%s", ns, ann);
        return buf;
    }
    if (s->gang_job)
        for (const struct gs_json *o = gs_json_first(gs_kube_get(meta,
                                                          "ownerReferences"));
             o; o = gs_json_next(o))
            if (gs_kube_str(o, "kind") && strcmp(gs_kube_str(o, "kind"), "Job") == 0 &&
                gs_kube_str(o, "uid")) {
                snprintf(buf, n, "Job %s/%s", ns, gs_kube_str(o, "uid"));
                return buf;
            }
    buf[0] = '\0';
    return buf;
}

static int is_daemon(const struct gs_json *meta)
{
    for (const struct gs_json *o = gs_json_first(gs_kube_get(meta,
                                                      "ownerReferences"));
         o; o = gs_json_next(o))
        if (gs_kube_str(o, "kind") && strcmp(gs_kube_str(o, "kind"), "DaemonSet") == 0)
            return 1;
    return 0;
}

/* The latest finishedAt (and, for the export time, the latest of any
 * timestamp) of a status's containers. */
static int pod_times(const struct gs_kctx *k, const struct gs_json *st,
                     struct kpod *p, int64_t *latest)
{
    static const char *const lists[] = { "containerStatuses",
                                         "initContainerStatuses" };
    int rc;
    p->end = p->run = -1;
    for (int l = 0; l < 2; l++) {
        int i = 0;
        for (const struct gs_json *c = gs_json_first(gs_kube_get(st, lists[l])); c;
             c = gs_json_next(c), i++) {
            char f[160];
            int64_t fin, sta;
            snprintf(f, sizeof f, "status.%s[%d].state.terminated", lists[l],
                     i);
            const struct gs_json *term = gs_kube_get(gs_kube_get(c, "state"), "terminated");
            if ((rc = ktime(k, term, f, "finishedAt", &fin)) < 0 ||
                (rc = ktime(k, term, f, "startedAt", &sta)) < 0)
                return rc;
            if (l == 0 && fin > p->end)
                p->end = fin;
            if (l == 0 && sta >= 0 && (p->run < 0 || sta < p->run))
                p->run = sta;
            if (fin > *latest)
                *latest = fin;
            if (sta > *latest)
                *latest = sta;
            snprintf(f, sizeof f, "status.%s[%d].state.running", lists[l], i);
            if ((rc = ktime(k, gs_kube_get(gs_kube_get(c, "state"), "running"), f,
                            "startedAt", &sta)) < 0)
                return rc;
            if (l == 0 && sta >= 0 && (p->run < 0 || sta < p->run))
                p->run = sta;
            if (sta > *latest)
                *latest = sta;
        }
    }
    return 0;
}

static int pod_phase(const struct gs_kctx *k, const struct gs_json *st, int *ph)
{
    const char *s = gs_kube_str(st, "phase");
    if (s == NULL)
        return gs_kube_fail(k, "status.phase", "missing");
    *ph = strcmp(s, "Pending") == 0 ? PH_PENDING
          : strcmp(s, "Running") == 0 ? PH_RUNNING
          : strcmp(s, "Succeeded") == 0 || strcmp(s, "Failed") == 0 ? PH_DONE
          : strcmp(s, "Unknown") == 0 ? PH_UNKNOWN : -1;
    if (*ph < 0)
        return gs_kube_fail(k, "status.phase", "'%s' is not a pod phase (Pending, "
                     "Running, Succeeded, Failed, Unknown)", s);
    return 0;
}

/* The time the scheduler bound the pod: status.conditions' PodScheduled
 * with status "True", its lastTransitionTime (-1 when absent). */
static int pod_scheduled(const struct gs_kctx *k, const struct gs_json *st,
                         int64_t *ms)
{
    *ms = -1;
    int i = 0;
    for (const struct gs_json *c = gs_json_first(gs_kube_get(st,
                                                            "conditions"));
         c; c = gs_json_next(c), i++) {
        const char *ty = gs_kube_str(c, "type"), *v = gs_kube_str(c, "status");
        if (ty == NULL || strcmp(ty, "PodScheduled") != 0 || v == NULL ||
            strcmp(v, "True") != 0)
            continue;
        char f[48];
        snprintf(f, sizeof f, "status.conditions[%d]", i);
        return ktime(k, c, f, "lastTransitionTime", ms);
    }
    return 0;
}

/* spec.tolerations against the scenario's taints (taint.h): the mask of
 * those tolerated into *mask, or the error naming the toleration. */
static int pod_tolerations(const struct kpods *s, const struct gs_kctx *k,
                           const struct gs_json *spec, uint64_t *mask)
{
    struct gs_toleration tol[64];
    int n = 0, i = 0;
    char f[48];
    *mask = 0;
    for (const struct gs_json *t = gs_json_first(gs_kube_get(spec,
                                                             "tolerations"));
         t; t = gs_json_next(t), i++) {
        snprintf(f, sizeof f, "spec.tolerations[%d]", i);
        const char *op = gs_kube_str(t, "operator");
        const char *eff = gs_kube_str(t, "effect");
        const char *key = gs_kube_str(t, "key");
        if (op && strcmp(op, "Exists") != 0 && strcmp(op, "Equal") != 0)
            return gs_kube_fail(k, f, "operator '%s' is not Exists or Equal",
                                op);
        if (eff && eff[0] && strcmp(eff, "NoSchedule") != 0 &&
            strcmp(eff, "PreferNoSchedule") != 0 &&
            strcmp(eff, "NoExecute") != 0)
            return gs_kube_fail(k, f, "effect '%s' is not NoSchedule, "
                                "PreferNoSchedule or NoExecute", eff);
        int exists = op && strcmp(op, "Exists") == 0;
        if ((key == NULL || key[0] == '\0') && !exists)
            return gs_kube_fail(k, f, "an empty key needs operator Exists");
        if (n == 64)
            return gs_kube_fail(k, "spec.tolerations", "more than 64");
        tol[n++] = (struct gs_toleration){ .key = key, .exists = exists,
                                           .value = gs_kube_str(t, "value"),
                                           .effect = eff };
    }
    *mask = gs_taints_tolerated(&s->sc->cat.taints, tol, n);
    return 0;
}

/* Read one Pod into p. */
static int pod_read(const struct kpods *s, const struct gs_kctx *k,
                    const struct gs_json *it, struct kpod *p,
                    int64_t *latest)
{
    memset(p, 0, sizeof *p);
    const struct gs_json *meta = gs_kube_get(it, "metadata");
    const struct gs_json *spec = gs_kube_get(it, "spec");
    const struct gs_json *st = gs_kube_get(it, "status");
    const char *uid = gs_kube_str(meta, "uid"), *ns = gs_kube_str(meta, "namespace");
    int rc;
    if (uid == NULL || strlen(uid) >= sizeof p->uid)
        return gs_kube_fail(k, "metadata.uid", uid ? "longer than %d characters" :
                     "missing", (int)sizeof p->uid - 1);
    if (ns == NULL)
        return gs_kube_fail(k, "metadata.namespace", "missing");
    snprintf(p->uid, sizeof p->uid, "%s", uid);
    snprintf(p->obj, sizeof p->obj, "%s", k->obj);
    if ((rc = ktime(k, meta, "metadata", "creationTimestamp",
                    &p->created)) < 0 ||
        (rc = ktime(k, st, "status", "startTime", &p->start)) < 0 ||
        (rc = pod_phase(k, st, &p->phase)) < 0 ||
        (rc = pod_times(k, st, p, latest)) < 0 ||
        (rc = pod_scheduled(k, st, &p->sched)) < 0)
        return rc;
    if (p->created < 0)
        return gs_kube_fail(k, "metadata.creationTimestamp", "missing");
    *latest = p->created > *latest ? p->created : *latest;
    *latest = p->start > *latest ? p->start : *latest;
    struct kres r;
    if ((rc = pod_res(k, spec, &r)) < 0 ||
        (rc = pod_tolerations(s, k, spec, &p->tolerates)) < 0)
        return rc;
    p->cpu = r.cpu;
    p->mem = r.mem;
    p->gpus = (int)r.gpu;
    p->migs = (int)r.migs;
    snprintf(p->mig, sizeof p->mig, "%s", r.mig);
    const char *tl = s->tenant_label[0] ? gs_kube_label(meta, s->tenant_label) : NULL;
    gs_tenant_name(p->tenant, tl ? tl : ns, k->file, k->obj);
    p->tier = gs_cimp_tier(&s->h.tiers, gs_kube_str(spec, "priorityClassName"));
    pod_gang(s, meta, p->gang, sizeof p->gang);
    p->daemon = is_daemon(meta);
    const char *node = gs_kube_str(spec, "nodeName");
    snprintf(p->node, sizeof p->node, "%s", node ? node : "");
    const char *sel = gs_kube_str(gs_kube_get(spec, "nodeSelector"),
                           "nvidia.com/gpu.product");
    snprintf(p->family, sizeof p->family, "%s", sel ? sel : "");
    double ad = gs_json_number(gs_kube_get(spec, "activeDeadlineSeconds"));
    p->estimate = ad > 0 && ad < 1e10 ? (int64_t)llround(ad * 1000) : 0;
    return 0;
}

/* Read one snapshot file (index fi) into s->v. */
static int pods_file(struct kpods *s, const char *path, int fi,
                     struct gs_diag *d)
{
    struct gs_json *root = NULL;
    const struct gs_json *it;
    int rc = gs_kube_load_json(path, &root, d);
    if (rc == 0)
        rc = gs_kube_items(root, path, "Pod", &it, d);
    int64_t latest = -1;
    long first = s->n;
    for (int idx = 0; rc == 0 && it;
         it = it == root ? NULL : gs_json_next(it), idx++) {
        struct gs_kctx k = { .file = path, .d = d };
        const struct gs_json *meta = gs_kube_get(it, "metadata");
        snprintf(k.obj, sizeof k.obj, "items[%d] (Pod %s/%s)", idx,
                 gs_kube_str(meta, "namespace") ? gs_kube_str(meta, "namespace") : "?",
                 gs_kube_str(meta, "name") ? gs_kube_str(meta, "name") : "?");
        if ((rc = gs_cimp_grow_counted(&s->v, &s->cap, s->n, sizeof *s->v,
                                       gs_cimp_job_bytes(sizeof *s->v),
                                       "pods", path, d)) < 0)
            break;
        rc = pod_read(s, &k, it, &s->v[s->n], &latest);
        if (rc == GS_EPARSE && s->h.skip && d) {
            const char *field = strrchr(gs_diag_where(d), ':');
            char why[112], ex[160];
            snprintf(why, sizeof why, "malformed, field%.70s (skip_bad_rows)",
                     field ? field + 1 : " ?");
            snprintf(ex, sizeof ex, "%.60s: %.90s", k.obj, gs_diag_what(d));
            gs_diag_free(d);
            gs_cimp_leave(&s->h.left, why, ex);
            s->bad++;
            rc = 0;
            continue;
        }
        if (rc == 0) {
            const char *base = strrchr(path, '/');
            snprintf(s->v[s->n].obj, sizeof s->v[0].obj, "%.40s %.110s",
                     base ? base + 1 : path, k.obj);
            s->v[s->n].file = fi;
            s->n++;
        }
    }
    /* Running pods of this snapshot end at its export time. */
    int64_t exp = s->export_ms >= 0 ? s->export_ms : latest;
    for (long i = first; rc == 0 && i < s->n; i++)
        if (s->v[i].phase == PH_RUNNING)
            s->v[i].end = exp;
    gs_json_free(root);
    return rc;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The snapshot files: path itself, or a folder's *.json[.gz] by name. */
static int pods_paths(const char *path, char ***out, int *n,
                      struct gs_diag *d)
{
    struct stat st;
    *out = NULL;
    *n = 0;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        char **v = malloc(sizeof *v);
        if (v == NULL || (v[0] = strdup(path)) == NULL) {
            free(v);
            return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
        }
        *out = v;
        *n = 1;
        return 0;
    }
    DIR *dir = opendir(path);
    if (dir == NULL)
        return gs_diag_set(d, GS_EIO, path, "cannot read the folder");
    char **v = NULL;
    int cap = 0, rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(dir)) != NULL;) {
        size_t l = strlen(e->d_name);
        if (!(l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) &&
            !(l > 8 && strcmp(e->d_name + l - 8, ".json.gz") == 0))
            continue;
        if (*n == 100000) {
            rc = gs_diag_set(d, GS_ERANGE, path, "more than 100000 snapshot "
                             "files");
            break;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            char **nv = realloc(v, (size_t)cap * sizeof *nv);
            if (nv == NULL) {
                rc = GS_ENOMEM;
                break;
            }
            v = nv;
        }
        size_t pl = strlen(path) + l + 2;
        if ((v[*n] = malloc(pl)) == NULL) {
            rc = GS_ENOMEM;
            break;
        }
        snprintf(v[*n], pl, "%s/%s", path, e->d_name);
        (*n)++;
    }
    closedir(dir);
    if (rc == GS_ENOMEM)
        gs_diag_set(d, rc, path, "out of memory");
    if (rc == 0 && *n == 0)
        rc = gs_diag_set(d, GS_EIO, path, "no *.json or *.json.gz snapshot "
                         "in the folder");
    if (rc == 0)
        qsort(v, (size_t)*n, sizeof *v, str_cmp);
    *out = v;
    return rc;
}

/* Order for merging: uid, then how far the pod got, then the file. */
static int by_uid(const void *a, const void *b)
{
    const struct kpod *x = a, *y = b;
    int c = strcmp(x->uid, y->uid);
    if (c)
        return c;
    int rx = x->phase == PH_UNKNOWN ? -1 : x->phase;
    int ry = y->phase == PH_UNKNOWN ? -1 : y->phase;
    if (rx != ry)
        return rx - ry;
    return x->file - y->file;
}

/* Keep the last record of each uid. */
static void merge_uids(struct kpods *s)
{
    if (s->n == 0)
        return;
    if (s->n > 1)      /* qsort's base may not be NULL, even for 0 */
        qsort(s->v, (size_t)s->n, sizeof *s->v, by_uid);
    long w = 0;
    for (long i = 0; i < s->n; i++) {
        if (i + 1 < s->n && strcmp(s->v[i].uid, s->v[i + 1].uid) == 0)
            continue;
        s->v[w++] = s->v[i];
    }
    s->n = w;
}

/* Why pod p is left out, or NULL. */
static const char *pod_why(const struct kpods *s, const struct kpod *p)
{
    if (p->daemon)
        return "owned by a DaemonSet (a per-node agent, not a workload)";
    if (p->phase == PH_PENDING)
        return "Pending when last seen (never started)";
    if (p->phase == PH_UNKNOWN)
        return "phase Unknown (the node stopped reporting)";
    if (p->start < 0)
        return "finished without starting (no status.startTime)";
    if (p->phase == PH_RUNNING && s->h.running_drop)
        return "Running at the export (option running \"drop\")";
    if (p->end < 0)
        return "finished, but no container's terminated.finishedAt";
    if (p->migs > 1)
        return "asks for more than one MIG instance (a job takes one)";
    if (p->migs == 1 && p->gpus > 0)
        return "asks for a MIG instance and whole GPUs";
    if (p->gpus == 0 && p->migs == 0 && !s->h.keep_cpu)
        return "asks for no GPU (option cpu_pods)";
    return NULL;
}

/* The node-derived parts: family and MIG single strategy. */
static void pod_node(const struct kpods *s, struct kpod *p,
                     struct gs_jobspec *j)
{
    for (int i = 0; i < s->nnodes; i++)
        if (strcmp(s->nodes[i].name, p->node) == 0) {
            int m = s->nodes[i].model;
            int sm = gs_catalog_find(&s->sc->cat, s->cat.m[m].name);
            if (sm >= 0) {
                snprintf(j->gpu_family, sizeof j->gpu_family, "%s",
                         s->cat.m[m].name);
                j->ref_model = sm;  /* the time was measured there */
            }
            if (s->nodes[i].mig[0] && p->gpus == 1 && p->migs == 0) {
                snprintf(j->mig_profile, sizeof j->mig_profile, "%s",
                         s->nodes[i].mig);
            }
            return;
        }
    if (p->family[0]) {
        struct gs_catalog c = s->sc->cat;
        int w = 0, m = gs_cimp_gpu_model(&c, p->family, 0, &w);
        if (m >= 0 && !w)
            snprintf(j->gpu_family, sizeof j->gpu_family, "%s", c.m[m].name);
    }
}

/* Turn pods [a, b) -- one pod, or one gang -- into a job. */
static int pods_job(struct kpods *s, long a, long b, int64_t origin,
                    int64_t id)
{
    struct gs_jobspec j;
    gs_jobspec_init(&j);
    int64_t created = INT64_MAX, start = -1, end = -1;
    double cpu = 0, mem = 0;
    int gpus = 0;
    uint64_t tol = ~0ULL;
    for (long i = a; i < b; i++) {
        struct kpod *p = &s->v[i];
        tol &= p->tolerates;    /* a gang goes where all its pods may */
        int64_t st = p->sched >= 0 ? p->sched : p->start;
        created = p->created < created ? p->created : created;
        start = st > start ? st : start;
        end = p->end > end ? p->end : end;
        cpu += p->cpu;
        mem += p->mem;
        gpus += p->gpus + p->migs;
    }
    struct kpod *p0 = &s->v[a];
    if (b - a > 1 && s->v[a].migs > 0) {
        gs_cimp_leave(&s->h.left, "a gang of MIG pods (a job takes one "
                      "instance)", p0->gang);
        return 0;
    }
    j.id = id;
    j.arrival = created - origin;
    j.work = end > start ? (double)(end - start) : 1.0;
    j.gpus = gpus;
    j.tier = p0->tier;
    j.tolerates = tol;
    j.estimate = p0->estimate;
    snprintf(j.tenant, sizeof j.tenant, "%s", p0->tenant);
    j.cpu_milli = (int32_t)fmin(llround(cpu * 1000), 2.0e9);
    j.mem_mib = (int32_t)fmin(mem / 1048576.0, 2.0e9);
    if (p0->migs == 1)
        snprintf(j.mig_profile, sizeof j.mig_profile, "%s", p0->mig);
    pod_node(s, p0, &j);
    if (j.mig_profile[0]) {
        /* The recorded time ran on the instance's Ng of the 7 compute
         * slices; the simulator runs a job there at N/7 of full speed, so
         * its full-speed work is the time times N/7. */
        j.gpus = 1;
        int slices = j.mig_profile[0] - '0';
        if (slices >= 1 && slices <= 7 && j.mig_profile[1] == 'g')
            j.work = fmax(1.0, j.work * slices / 7.0);
    }
    return gs_jlist_add(&s->h.jobs, &j, start - origin) < 0 ? GS_ENOMEM : 1;
}

static int by_gang(const void *a, const void *b)
{
    const struct kpod *x = a, *y = b;
    int c = strcmp(x->gang, y->gang);
    if (c)
        return c;
    if (x->created != y->created)
        return x->created < y->created ? -1 : 1;
    return strcmp(x->uid, y->uid);
}

/* What the recorded waits measure (logged, and said by replay-check):
 * creation to the PodScheduled condition (the scheduler's binding: the
 * wait a simulator's queue models) where the pod has it, else to
 * status.startTime (the kubelet's acknowledgement, a moment later); and
 * the start-up after it -- to the first container's start: image pulls
 * and init containers -- which is part of the run, not of the wait. */
static void pods_basis(const struct kpods *s, char *buf, size_t n)
{
    long sched = 0, runs = 0;
    double up = 0;
    for (long i = 0; i < s->n; i++) {
        const struct kpod *p = &s->v[i];
        int64_t st = p->sched >= 0 ? p->sched : p->start;
        sched += p->sched >= 0;
        if (p->run >= st) {
            up += (double)(p->run - st) / 1000.0;
            runs++;
        }
    }
    snprintf(buf, n, "pod creation to the PodScheduled condition (%ld of %ld "
             "pods) or, without it, to status.startTime; the start-up after "
             "it (image pulls, init containers: mean %.1f s to the first "
             "container's start over %ld pods) is in the run, as the pod "
             "held its GPUs", sched, s->n, runs ? up / (double)runs : 0.0,
             runs);
    if (gs_trace_log())
        fprintf(gs_trace_log(), "gpusim: recorded waits: %s\n", buf);
}

/* Pods (merged) into the job list. */
static int pods_build(struct kpods *s, const char *path, struct gs_diag *d)
{
    long w = 0;
    for (long i = 0; i < s->n; i++) {
        const char *why = pod_why(s, &s->v[i]);
        if (why)
            gs_cimp_leave(&s->h.left, why, s->v[i].obj);
        else
            s->v[w++] = s->v[i];
    }
    s->n = w;
    if (s->n == 0)
        return gs_diag_set(d, GS_EPARSE, path, "no pod to replay (%ld left "
                           "out)", s->h.left.n);
    /* Gangs together (pods without one each alone), by creation. */
    if (s->n > 1)      /* qsort's base may not be NULL, even for 0 */
        qsort(s->v, (size_t)s->n, sizeof *s->v, by_gang);
    int64_t origin = INT64_MAX;
    for (long i = 0; i < s->n; i++)
        origin = s->v[i].created < origin ? s->v[i].created : origin;
    for (long a = 0, b; a < s->n; a = b) {
        b = a + 1;
        if (s->v[a].gang[0])
            while (b < s->n && strcmp(s->v[b].gang, s->v[a].gang) == 0)
                b++;
        int rc = pods_job(s, a, b, origin, 0);
        if (rc < 0)
            return gs_diag_set(d, rc, path, "out of memory");
    }
    char basis[320], detail[48];
    pods_basis(s, basis, sizeof basis);
    snprintf(detail, sizeof detail, " from %ld pods", s->n);
    return gs_cimp_hist_finish(&s->h, path, "pods", origin, detail, basis, d);
}

static void pods_close(void *st)
{
    struct kpods *s = st;
    if (s == NULL)
        return;
    free(s->v);
    free(s->f);
    free(s->nodes);
    gs_cimp_hist_free(&s->h);
    free(s);
}

static int pods_options(struct kpods *s, const struct gs_scenario *sc,
                        struct gs_params *o, char **nodes,
                        struct gs_diag *d)
{
    const char *gang = NULL, *exp = NULL, *tl = NULL;
    int rc;
    if ((rc = gs_cimp_hist_options(&s->h, sc, o, "cpu_pods",
                                   "priorityClassName", nodes, d)) < 0 ||
        (rc = gs_params_str(o, "gang_from", &gang, d)) < 0 ||
        (rc = gs_params_str(o, "export_time", &exp, d)) < 0 ||
        (rc = gs_params_str(o, "tenant_label", &tl, d)) < 0)
        return rc;
    if (gang && strcmp(gang, "podgroup") != 0) {
        if (strcmp(gang, "job") != 0 && strcmp(gang, "none") != 0)
            return gs_cimp_opt_fail(o, "gang_from", d, "expected \"podgroup\", "
                           "\"job\" or \"none\"");
        s->gang_job = strcmp(gang, "job") == 0;
        s->gang_none = strcmp(gang, "none") == 0;
    }
    s->export_ms = -1;
    if (exp && gs_cimp_rfc3339(exp, &s->export_ms) < 0)
        return gs_cimp_opt_fail(o, "export_time", d, "expected an RFC 3339 time, "
                       "\"2024-05-01T12:00:00Z\"");
    if (tl && (tl[0] == '\0' || strlen(tl) >= sizeof s->tenant_label))
        return gs_cimp_opt_fail(o, "tenant_label", d, "expected a label key");
    snprintf(s->tenant_label, sizeof s->tenant_label, "%s", tl ? tl : "");
    return 0;
}

static int ksm_file(struct kpods *s, const char *path, struct gs_diag *d);
static int ksm_fold(struct kpods *s, const char *path, struct gs_diag *d);

static int pods_open_any(const struct gs_scenario *sc, struct gs_params *o,
                         void **state, struct gs_diag *d, int ksm)
{
    *state = NULL;
    struct kpods *s = calloc(1, sizeof *s);
    if (s == NULL)
        return gs_diag_set(d, GS_ENOMEM, "", "out of memory");
    s->sc = sc;
    s->cat = sc->cat;
    char *path = NULL, *nodes = NULL;   /* gs_topt_path: in memory */
    char **files = NULL;
    int nfiles = 0, rc;
    if ((rc = gs_topt_path(sc, o, "path", 1, &path, NULL, d)) < 0 ||
        (rc = pods_options(s, sc, o, &nodes, d)) < 0)
        goto out;
    if (nodes) {
        struct gs_cimp_left left = { 0 };
        FILE *log = gs_trace_log();
        gs_trace_set_log(NULL);     /* the fleet reports its own */
        rc = gs_kube_nodes_load(nodes, &s->cat, &s->nodes, &s->nnodes, &left, d);
        gs_trace_set_log(log);
        if (rc < 0)
            goto out;
    }
    if ((rc = pods_paths(path, &files, &nfiles, d)) < 0)
        goto out;
    for (int i = 0; i < nfiles && rc == 0; i++)
        rc = ksm ? ksm_file(s, files[i], d) : pods_file(s, files[i], i, d);
    if (rc == 0 && ksm)
        rc = ksm_fold(s, path, d);
    if (rc == 0) {
        merge_uids(s);
        rc = pods_build(s, path, d);
    }
out:
    for (int i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    free(path);
    free(nodes);
    free(s->v);
    s->v = NULL;
    if (rc < 0) {
        pods_close(s);
        return rc;
    }
    *state = s;
    return 0;
}

static int pods_open(const struct gs_scenario *sc, struct gs_params *o,
                     void **state, struct gs_diag *d)
{
    return pods_open_any(sc, o, state, d, 0);
}

static int ksm_open(const struct gs_scenario *sc, struct gs_params *o,
                    void **state, struct gs_diag *d)
{
    return pods_open_any(sc, o, state, d, 1);
}

const struct gs_trace_format gs_kube_pods_format = {
    .name = "k8s-pods",
    .summary = "kubectl get pods -A -o json snapshots (a file or a folder), "
               "merged by uid",
    .open = pods_open,
    .next = gs_cimp_hist_next,
    .close = pods_close,
};

const struct gs_trace_format gs_kube_ksm_format = {
    .name = "k8s-ksm",
    .summary = "kube-state-metrics pod series from Prometheus range queries "
               "(a file or a folder)",
    .open = ksm_open,
    .next = gs_cimp_hist_next,
    .close = pods_close,
};

/* --- kube-state-metrics ----------------------------------------------------------
 *
 * Trace format "k8s-ksm": the same history from kube-state-metrics through
 * Prometheus range queries (one file or a folder of *.json exports) of
 *   kube_pod_created, kube_pod_start_time, kube_pod_completion_time,
 *   kube_pod_status_scheduled_time (value: unix seconds; the last is
 *                                   the PodScheduled condition's time)
 *   kube_pod_container_resource_requests{resource, container}
 *                                  (nvidia_com_gpu, nvidia_com_mig_<profile>,
 *                                   cpu in cores, memory in bytes)
 *   kube_pod_info{priority_class, created_by_kind}, and for option
 *   tenant_label kube_pod_labels{label_<key>} (keys as KSM writes them:
 *   every character not a letter or digit made '_')
 * keyed by the uid label (else namespace/pod).  A series' last sample is
 * its value (a series split over files is merged); a pod's requests are
 * its containers' summed (KSM reports init containers apart; they are not
 * read).  A pod with a start and no completion is Running and ends at
 * option export_time, else the latest sample in the exports; one without
 * a start is Pending.  Then the rules of k8s-pods apply (no gangs: KSM
 * carries no PodGroup). */

enum { F_CREATED, F_START, F_DONE, F_REQ, F_INFO, F_LABEL, F_SCHED, NF };

struct kfact {
    char uid[64], ns[64], pod[96];
    char s[96];                 /* F_REQ: container/resource; F_INFO:
                                   priority class; F_LABEL: the value */
    int kind, daemon;
    int64_t t;
    double v;
};

static const char *ksm_label(const struct gs_json *m, const char *k)
{
    const char *v = gs_json_string(gs_json_get(m, k));
    return v ? v : "";
}

/* The label key KSM makes of a pod label: non-alphanumerics to '_'. */
static void ksm_key(const char *label, char *out, size_t n)
{
    size_t k = (size_t)snprintf(out, n, "label_");
    for (const char *c = label; *c && k + 1 < n; c++)
        out[k++] = isalnum((unsigned char)*c) ? *c : '_';
    out[k < n ? k : n - 1] = '\0';
}

static int ksm_series(void *ctx, const char *file, int i,
                      const struct gs_json *m, const struct gs_json *vals,
                      struct gs_diag *d)
{
    struct kpods *s = ctx;
    static const char *const names[] = {
        "kube_pod_created", "kube_pod_start_time", "kube_pod_completion_time",
        "kube_pod_container_resource_requests", "kube_pod_info",
        "kube_pod_labels", "kube_pod_status_scheduled_time",
    };
    const char *name = ksm_label(m, "__name__");
    int kind = 0;
    while (kind < NF && strcmp(names[kind], name) != 0)
        kind++;
    if (kind == NF)
        return 0;           /* other series */
    struct kfact f = { .kind = kind, .t = -1 };
    snprintf(f.uid, sizeof f.uid, "%s", ksm_label(m, "uid"));
    snprintf(f.ns, sizeof f.ns, "%s", ksm_label(m, "namespace"));
    snprintf(f.pod, sizeof f.pod, "%s", ksm_label(m, "pod"));
    if (f.ns[0] == '\0' || f.pod[0] == '\0') {
        char *where;
        where = gs_strf("%s: $.data.result[%d].metric", file, i);
        return gs_diag_set_at(d, GS_EPARSE, where, "a %s series without its "
                              "namespace and pod labels", name);
    }
    if (f.uid[0] == '\0')
        snprintf(f.uid, sizeof f.uid, "%.30s/%.30s", f.ns, f.pod);
    if (kind == F_REQ)
        snprintf(f.s, sizeof f.s, "%.40s/%.50s", ksm_label(m, "container"),
                 ksm_label(m, "resource"));
    else if (kind == F_INFO) {
        snprintf(f.s, sizeof f.s, "%s", ksm_label(m, "priority_class"));
        f.daemon = strcmp(ksm_label(m, "created_by_kind"), "DaemonSet") == 0;
    } else if (kind == F_LABEL) {
        char key[160];
        if (s->tenant_label[0] == '\0')
            return 0;
        ksm_key(s->tenant_label, key, sizeof key);
        snprintf(f.s, sizeof f.s, "%s", ksm_label(m, key));
    }
    char path[96];
    snprintf(path, sizeof path, "$.data.result[%d].values", i);
    int k = 0;
    for (const struct gs_json *p = gs_json_first(vals); p;
         p = gs_json_next(p), k++) {
        int64_t t;
        double v;
        int rc = gs_cimp_prom_sample(file, path, p, k, &t, &v, d);
        if (rc < 0)
            return rc;
        if (rc == 1 && t >= f.t) {
            f.t = t;
            f.v = v;
        }
        if (rc == 1 && t > s->latest)
            s->latest = t;
    }
    if (f.t < 0)
        return 0;
    int rc = gs_cimp_grow_counted(&s->f, &s->fcap, s->nf, sizeof *s->f,
                                  sizeof *s->f, "series", file, d);
    if (rc < 0)
        return rc;
    s->f[s->nf++] = f;
    return 0;
}

static int ksm_file(struct kpods *s, const char *path, struct gs_diag *d)
{
    return gs_cimp_prom_file(path, ksm_series, s, d);
}

static int by_fact(const void *a, const void *b)
{
    const struct kfact *x = a, *y = b;
    int c = strcmp(x->uid, y->uid);
    if (c == 0)
        c = x->kind - y->kind;
    if (c == 0)
        c = strcmp(x->s, y->s);
    if (c == 0)
        c = (x->t > y->t) - (x->t < y->t);
    return c;
}

/* A request fact into p: its resource ("nvidia_com_gpu", "cpu", ...). */
static void ksm_request(struct kpod *p, const struct kfact *f)
{
    const char *res = strchr(f->s, '/');
    char r[64];
    size_t k = 0;
    for (res = res ? res + 1 : f->s; *res && k + 1 < sizeof r; res++)
        r[k++] = *res == '.' || *res == '/' || *res == '-' ? '_' : *res;
    r[k] = '\0';
    if (strcmp(r, "cpu") == 0)
        p->cpu += f->v;
    else if (strcmp(r, "memory") == 0)
        p->mem += f->v;
    else if (strcmp(r, "nvidia_com_gpu") == 0)
        p->gpus += (int)f->v;
    else if (strncmp(r, "nvidia_com_mig_", 15) == 0 && f->v > 0) {
        if (p->mig[0] && strncmp(p->mig, r + 15, 2) != 0)
            p->migs += 1000;
        snprintf(p->mig, sizeof p->mig, "%.23s", r + 15);
        char *u = strchr(p->mig, '_');
        if (u)
            *u = '.';
        p->migs += (int)f->v;
    }
}

/* The facts of one uid [a, b) into a pod. */
static void ksm_pod(struct kpods *s, long a, long b, struct kpod *p)
{
    memset(p, 0, sizeof *p);
    const struct kfact *f0 = &s->f[a];
    snprintf(p->uid, sizeof p->uid, "%s", f0->uid);
    snprintf(p->obj, sizeof p->obj, "Pod %.60s/%.90s", f0->ns, f0->pod);
    gs_tenant_name(p->tenant, f0->ns, "k8s-ksm", p->obj);
    p->created = p->start = p->end = p->sched = p->run = -1;
    p->tier = gs_cimp_tier(&s->h.tiers, NULL);
    for (long i = a; i < b; i++) {
        const struct kfact *f = &s->f[i];
        int64_t ms = (int64_t)llround(f->v * 1000.0);
        int last = i + 1 == b || f->kind != s->f[i + 1].kind ||
                   strcmp(f->s, s->f[i + 1].s) != 0;
        if (!last)
            continue;       /* the same series in an earlier file */
        switch (f->kind) {
        case F_CREATED: p->created = ms; break;
        case F_START: p->start = ms; break;
        case F_DONE: p->end = ms; break;
        case F_REQ: ksm_request(p, f); break;
        case F_SCHED: p->sched = ms; break;
        case F_INFO:
            p->tier = gs_cimp_tier(&s->h.tiers, f->s[0] ? f->s : NULL);
            p->daemon = f->daemon;
            break;
        case F_LABEL:
            if (f->s[0])
                gs_tenant_name(p->tenant, f->s, "k8s-ksm", p->obj);
            break;
        default:
            break;
        }
    }
    int64_t exp = s->export_ms >= 0 ? s->export_ms : s->latest;
    p->phase = p->end >= 0 ? PH_DONE : p->start >= 0 ? PH_RUNNING
               : PH_PENDING;
    if (p->phase == PH_RUNNING)
        p->end = exp;
}

static int ksm_fold(struct kpods *s, const char *path, struct gs_diag *d)
{
    if (s->nf > 1)      /* qsort's base may not be NULL, even for 0 */
        qsort(s->f, (size_t)s->nf, sizeof *s->f, by_fact);
    for (long a = 0, b; a < s->nf; a = b) {
        b = a + 1;
        while (b < s->nf && strcmp(s->f[b].uid, s->f[a].uid) == 0)
            b++;
        int rc = gs_cimp_grow_counted(&s->v, &s->cap, s->n, sizeof *s->v,
                                      gs_cimp_job_bytes(sizeof *s->v),
                                      "pods", path, d);
        if (rc < 0)
            return rc;
        ksm_pod(s, a, b, &s->v[s->n]);
        if (s->v[s->n].created < 0)
            gs_cimp_leave(&s->h.left, "no kube_pod_created sample",
                          s->v[s->n].obj);
        else
            s->n++;
    }
    free(s->f);
    s->f = NULL;
    s->nf = 0;
    return 0;
}

