/* llmcli.c -- `gpusim llm validate|calibrate`: the LLM operator model against measured kernels and serving times.
 *
 * validate: the catalog's factors for one GPU against a kernel profile in
 * Vidur's mlp.csv layout (the model built from the file's shape columns
 * alone), or against Splitwise's prompt and token times; per op and per
 * layer, n, median and 90th-percentile absolute relative error.
 *
 * calibrate: a GPU's factors refitted from a user's own files (kernel
 * profiles, an all-reduce curve, serving times), printed as the catalog's
 * C initializers (sim/cluster/gpu.c), with the leave-one-shape-out errors
 * of the kernel fit and the leave-one-LLM-out errors of the serving fit:
 * the figures docs/inference.md reports.  Nothing here is read at run
 * time by a simulation: the catalog carries the constants. */
#include "llmcli.h"
#include "../inference/llmcalib.h"
#include "../inference/llmprof.h"
#include "../io/report.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FILES 64

static const char usage_text[] =
"usage: gpusim llm validate (--profile FILE | --splitwise FILE) --gpu GPU\n"
"                           [--hardware NAME] [--resolution US] [--json]\n"
"       gpusim llm calibrate --gpu GPU --profile FILE [--profile FILE ...]\n"
"                           [--all-reduce FILE] [--send-recv FILE]\n"
"                           [--splitwise FILE] [--hardware NAME]\n"
"                           [--resolution US]\n"
"\n"
"validate: the LLM operator model with the catalog's factors for GPU\n"
"against measured times.  --profile: a kernel profile in Vidur's mlp.csv\n"
"layout (time_stats.OP.median per op, n_head, n_kv_head, n_embd,\n"
"n_expanded_embd, vocab_size, use_gated_mlp, num_tokens,\n"
"num_tensor_parallel_workers); the model is built from the shape columns\n"
"alone.  Prints, per op and for a layer (the sum of the ops the file\n"
"measures), n, the median and the 90th percentile of the absolute\n"
"relative error against the measured median.  --splitwise: Splitwise's\n"
"perf_model.csv, the rows of hardware NAME (default: GPU in lower case);\n"
"prompt and token times of its LLMs.  --resolution US: the profile's\n"
"times are whole multiples of US microseconds (Vidur's: medians of whole\n"
"microseconds, 0.5), so a kernel error counts only beyond US: |model -\n"
"measured| - US, at least 0, over measured (default 0: every bit counts;\n"
"the fit is the same either way).  --json prints\n"
"{\"ops\": {OP: {\"n\", \"median\", \"p90\"}}, \"layer\": {...}} (with\n"
"--splitwise: {\"prompt\": {...}, \"token\": {...}}), errors as fractions.\n"
"\n"
"calibrate: refit GPU's factors: the kernel factors on the profiles, the\n"
"all-reduce curve from Vidur's all_reduce.csv, the machine's 64 MiB\n"
"point-to-point bandwidth from its send_recv.csv (which sets the serving\n"
"stack's big all-reduce pass; the catalog's when not given), the serving\n"
"factors on Splitwise's times; prints them as sim/cluster/gpu.c's\n"
"initializers with the leave-one-shape-out and leave-one-LLM-out errors.\n"
"\n"
"exit status: 0 done, 2 bad input or usage\n";

struct opts {
    const char *cmd, *gpu, *hardware, *splitwise, *allreduce, *sendrecv;
    const char *profile[MAX_FILES];
    int nprofile, json;
    double res_us;          /* --resolution, microseconds */
};

static int usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "gpusim: llm: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see 'gpusim llm --help')\n");
    return 2;
}

static int report(struct gs_diag *d)
{
    gs_diag_print(stderr, "gpusim: ", d);
    gs_diag_free(d);
    return 2;
}

static int parse(int argc, char **argv, struct opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
            continue;
        }
        if (strcmp(a, "--resolution") == 0) {
            char *end;
            const char *v = i + 1 < argc ? argv[++i] : "";
            o->res_us = strtod(v, &end);
            if (end == v || *end || !(o->res_us >= 0 && o->res_us <= 1000))
                return usage("--resolution: '%.40s' is not a number of "
                             "microseconds in 0..1000", v);
            continue;
        }
        const char **slot = strcmp(a, "--gpu") == 0 ? &o->gpu
            : strcmp(a, "--hardware") == 0 ? &o->hardware
            : strcmp(a, "--splitwise") == 0 ? &o->splitwise
            : strcmp(a, "--all-reduce") == 0 ? &o->allreduce
            : strcmp(a, "--send-recv") == 0 ? &o->sendrecv
            : strcmp(a, "--profile") == 0 ? &o->profile[o->nprofile] : NULL;
        if (!slot)
            return usage("unknown option '%.100s'", a);
        if (i + 1 >= argc)
            return usage("%s needs a value", a);
        if (slot == &o->profile[o->nprofile]) {
            if (o->nprofile == MAX_FILES)
                return usage("%s", "more than 64 profiles");
            o->nprofile++;
        }
        *slot = argv[++i];
    }
    if (!o->gpu)
        return usage("%s: --gpu GPU is required", o->cmd);
    return 0;
}

/* The catalog's hardware of GPU; GS_ENOTFOUND with a message. */
static int find_gpu(const char *name, struct gs_llm_hw *hw, struct gs_diag *d)
{
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    int i = gs_catalog_find(&cat, name);
    if (i < 0)
        return gs_diag_set(d, GS_ENOTFOUND, "--gpu", "unknown GPU '%.60s'",
                           name);
    gs_llm_hw_from_catalog(&cat, i, hw);
    return 0;
}

static void json_err(const char *name, const struct gs_llm_err *e, int comma)
{
    printf("\"%s\": {\"n\": %d, \"median\": ", name, e->n);
    gs_report_json_num(stdout, "%.6g", e->median);
    printf(", \"p90\": ");
    gs_report_json_num(stdout, "%.6g", e->p90);
    printf("}%s", comma ? ", " : "");
}

static void text_err(const char *name, const struct gs_llm_err *e)
{
    printf("| %-24s | %6d | %7.1f%% | %7.1f%% |\n", name, e->n,
           100 * e->median, 100 * e->p90);
}

static void print_validation(const struct gs_llm_prof *p,
                             const struct gs_llm_validation *v, int json)
{
    if (json) {
        printf("{\"ops\": {");
        int first = 1;
        for (int k = 0; k < GS_OP_N; k++)
            if (p->has[k]) {
                printf("%s", first ? "" : ", ");
                json_err(gs_llm_op_name(k), &v->op[k], 0);
                first = 0;
            }
        printf("}, ");
        json_err("layer", &v->layer, 0);
        printf("}\n");
        return;
    }
    printf("| op                       |      n |  median |     p90 |\n"
           "|--------------------------|--------|---------|---------|\n");
    for (int k = 0; k < GS_OP_N; k++)
        if (p->has[k])
            text_err(gs_llm_op_name(k), &v->op[k]);
    text_err("layer (sum of the ops)", &v->layer);
}

static void default_hardware(const struct opts *o, char *buf, size_t len)
{
    snprintf(buf, len, "%s", o->hardware ? o->hardware : o->gpu);
    for (char *c = buf; *c; c++)
        *c = (char)tolower((unsigned char)*c);
}

static int validate_splitwise(const struct opts *o,
                              const struct gs_llm_hw *hw, struct gs_diag *d)
{
    struct gs_llm_calib c;
    char hwname[GS_LLM_NAME];
    default_hardware(o, hwname, sizeof hwname);
    int rc = gs_llm_calib_read(o->splitwise, &c, d);
    struct gs_llm_calib_err e;
    if (!rc)
        rc = gs_llm_calib_eval(&c, NULL, hwname, 0, hw, &e, d);
    if (!rc && e.n == 0)
        rc = gs_diag_set(d, GS_ENOTFOUND, o->splitwise, "no rows of "
                         "hardware '%s' (--hardware NAME)", hwname);
    gs_llm_calib_free(&c);
    if (rc)
        return rc;
    struct gs_llm_err pe = { e.n, e.prompt_med, e.prompt_p90 };
    struct gs_llm_err te = { e.n, e.token_med, e.token_p90 };
    if (o->json) {
        printf("{");
        json_err("prompt", &pe, 1);
        json_err("token", &te, 0);
        printf("}\n");
    } else {
        printf("| time                     |      n |  median |     p90 |\n"
               "|--------------------------|--------|---------|---------|\n");
        text_err("prompt (prefill)", &pe);
        text_err("token (decode step)", &te);
    }
    return 0;
}

static int cmd_validate(struct opts *o)
{
    struct gs_diag d = { 0 };
    struct gs_llm_hw hw;
    if ((o->nprofile > 0) == (o->splitwise != NULL) || o->nprofile > 1)
        return usage("%s", "validate takes one --profile FILE or one "
                     "--splitwise FILE");
    if (o->splitwise && o->res_us > 0)
        return usage("%s", "--resolution applies to a kernel --profile");
    if (find_gpu(o->gpu, &hw, &d))
        return report(&d);
    if (o->splitwise)
        return validate_splitwise(o, &hw, &d) ? report(&d) : 0;
    struct gs_llm_prof p = { 0 };
    struct gs_llm_validation v;
    int rc = gs_llm_prof_read(o->profile[0], &p, &d);
    p.res_s = o->res_us * 1e-6;
    if (!rc)
        rc = gs_llm_prof_validate(&p, -1, &hw, &v, &d);
    if (!rc)
        print_validation(&p, &v, o->json);
    gs_llm_prof_free(&p);
    return rc ? report(&d) : 0;
}

/* ---- calibrate ---------------------------------------------------------------- */

static void print_factors(const char *gpu, const struct gs_gpu_llm *e)
{
    printf("Fitted factors of %s (sim/cluster/gpu.c):\n"
           "    .compute_eff = %.4f, .bw_eff = %.4f, .gemm_us = %.3f,\n"
           "    .attn_eff = %.4f, .attn_bw_eff = %.4f, .layer_us = %.2f,\n"
           "    .iter_ms = %.3f, .seq_us = %.3f, .prefill_us = %.3f,\n"
           "    .ar_big_gbs = %.1f,\n    .elem_eff = {", gpu,
           e->compute_eff, e->bw_eff, e->gemm_us, e->attn_eff,
           e->attn_bw_eff, e->layer_us, e->iter_ms, e->seq_us,
           e->prefill_us, e->ar_big_gbs);
    for (int k = 0; k < GS_EK_N; k++)
        printf(" %.4f%s", e->elem_eff[k], k + 1 < GS_EK_N ? "," : " },\n");
    printf("    .elem_us = {");
    for (int k = 0; k < GS_EK_N; k++)
        printf(" %.3f%s", e->elem_us[k], k + 1 < GS_EK_N ? "," : " },\n");
    printf("    .elem_wave_us = %.3f, .sms = %d, .l2_mb = %.1f,\n",
           e->elem_wave_us, e->sms, e->l2_mb);
    if (e->gemm_waves)
        printf("    .gemm_waves = 1, .gemm_k0 = %.1f,\n", e->gemm_k0);
    printf("    .elem_l2 = {");
    for (int k = 0; k < GS_EK_N; k++)
        printf(" %.4f%s", e->elem_l2[k] > 0 ? e->elem_l2[k] : e->elem_eff[k],
               k + 1 < GS_EK_N ? "," : " },\n");
    if (e->ar) {
        printf("All-reduce curve (us at 2^11..2^26 bytes; 2, 4, 8 GPUs):\n");
        for (int w = 0; w < GS_AR_WORKERS; w++) {
            printf("    {");
            for (int i = 0; i < GS_AR_POINTS; i++)
                printf(" %.1f%s", e->ar->us[w][i],
                       i + 1 < GS_AR_POINTS ? "," : " },\n");
        }
        printf("    .p2p_gbs = %.1f (send/receive of 64 MiB, 2 GPUs)\n",
               e->ar->p2p_gbs);
    }
}

static void loso_row(const struct gs_llm_prof *p, const char *name,
                     const struct gs_llm_validation *v)
{
    printf("| %s |", name);
    for (int k = 0; k < GS_OP_N; k++)
        if (p->has[k]) {
            if (v->op[k].n)
                printf(" %.1f%% |", 100 * v->op[k].median);
            else
                printf(" - |");
        }
    printf(" %.1f%% |\n", 100 * v->layer.median);
}

/* Leave-one-shape-out over the profiles' layer shapes: each group's
 * errors with its own kernels out of the fit, then all held-out errors
 * pooled. */
static int loso(struct gs_llm_prof *p, const struct gs_llm_hw *hw,
                struct gs_diag *d)
{
    struct gs_llm_validation pooled, per[16];
    int ng = gs_llm_prof_loso(p, hw, &pooled, per, 16, d);
    if (ng < 0)
        return ng;
    printf("\nLeave-one-shape-out (kernel fit without the shape's rows): "
           "median absolute relative error");
    if (p->res_s > 0)
        printf(" beyond the times' resolution, %g us", p->res_s * 1e6);
    printf("\n\n| shape (heads/kv/d/ffn) |");
    for (int k = 0; k < GS_OP_N; k++)
        if (p->has[k])
            printf(" %s |", gs_llm_op_name(k));
    printf(" layer |\n|---|");
    for (int k = 0; k < GS_OP_N; k++)
        if (p->has[k])
            printf("---|");
    printf("---|\n");
    if (ng < 2) {
        printf("(one shape only: nothing to leave out)\n");
        return 0;
    }
    for (int g = 0; g < ng && g < 16; g++) {
        const struct gs_llm_shape *s = NULL;
        for (int i = 0; i < p->n && !s; i++)
            if (p->r[i].group == g)
                s = &p->r[i].s;
        char name[96];
        snprintf(name, sizeof name, "%d/%d/%d/%d%s", s->heads, s->kv_heads,
                 s->hidden, s->ffn, s->gated ? " gated" : "");
        loso_row(p, name, &per[g]);
    }
    loso_row(p, "all held-out rows", &pooled);
    return 0;
}

/* Splitwise leave-one-LLM-out: the kernel fit without the LLM's layer
 * shape, the serving fit without its rows. */
static int splitwise_cv(const struct opts *o, struct gs_llm_prof *p,
                        const struct gs_llm_hw *hw, struct gs_diag *d)
{
    struct gs_llm_calib c;
    char hwname[GS_LLM_NAME], seen[8][GS_LLM_NAME];
    int ns = 0, rc = gs_llm_calib_read(o->splitwise, &c, d);
    default_hardware(o, hwname, sizeof hwname);
    if (rc)
        return rc;
    printf("\nSplitwise, each LLM left out (its kernels' shape and its "
           "rows): median (p90)\n\n| LLM | n | prompt | token |\n"
           "|---|---|---|---|\n");
    for (int i = 0; !rc && i < c.n; i++) {
        const char *m = c.p[i].model;
        int k = 0;
        while (k < ns && strcmp(seen[k], m))
            k++;
        if (k < ns || strcasecmp(c.p[i].hw, hwname) || ns == 8)
            continue;
        strcpy(seen[ns++], m);
        int others = 0;
        for (int r = 0; r < c.n; r++)
            others |= strcmp(c.p[r].model, m) != 0;
        struct gs_llm_calib_err e = { 0 };
        if (!others)
            printf("| %s | - | (no other LLM to fit on) | |\n", m);
        else if (!(rc = gs_llm_calib_leave_out(&c, p, hwname, m, hw, &e, d)))
            printf("| %s | %d | %.1f%% (%.1f%%) | %.1f%% (%.1f%%) |\n", m,
                   e.n, 100 * e.prompt_med, 100 * e.prompt_p90,
                   100 * e.token_med, 100 * e.token_p90);
    }
    gs_llm_calib_free(&c);
    return rc;
}

/* The power curve's shape on the rows that carry power (Splitwise: the
 * A100's only). */
static int power(const struct opts *o, const struct gs_llm_hw *hw,
                 struct gs_diag *d)
{
    struct gs_llm_calib c;
    char hwname[GS_LLM_NAME];
    default_hardware(o, hwname, sizeof hwname);
    int rc = gs_llm_calib_read(o->splitwise, &c, d);
    if (rc)
        return rc;
    struct gs_power_shape sh;
    struct gs_llm_calib_err e;
    struct gs_diag d2 = { 0 };
    if (gs_llm_power_fit(&c, hwname, hw, &sh, &e, &d2) == 0)
        printf("Power curve (sim/cluster/power.h), fraction of the board "
               "limit:\n    GS_POWER_IDLE %.4f, GS_POWER_A %.4f, "
               "GS_POWER_B %.4f\n    %d configurations: peak median "
               "%.1f%% (p90 %.1f%%), average median %.1f%% (p90 %.1f%%)\n",
               sh.idle, sh.a, sh.b, e.n, 100 * e.prompt_med,
               100 * e.prompt_p90, 100 * e.token_med, 100 * e.token_p90);
    else
        printf("Power curve: no power measured for '%s'\n", hwname);
    gs_diag_free(&d2);
    gs_llm_calib_free(&c);
    return 0;
}

static int calibrate(const struct opts *o, struct gs_llm_hw *hw,
                     struct gs_ar_curve *ar, struct gs_diag *d)
{
    struct gs_llm_prof p = { 0 };
    int rc = 0;
    for (int i = 0; !rc && i < o->nprofile; i++)
        rc = gs_llm_prof_read(o->profile[i], &p, d);
    /* the catalog's point-to-point bandwidth unless a file gives it */
    double p2p = hw->eff.ar ? hw->eff.ar->p2p_gbs : 0;
    if (!rc && o->sendrecv)
        rc = gs_llm_p2p_read(o->sendrecv, &p2p, d);
    if (!rc && o->allreduce && !(rc = gs_llm_ar_read(o->allreduce, ar, d))) {
        ar->name = o->allreduce;
        hw->eff.ar = ar;
    }
    if (!rc && o->sendrecv && !hw->eff.ar)
        rc = gs_diag_set(d, GS_EINVAL, "--send-recv", "needs the machine's "
                         "all-reduce curve (--all-reduce, or a GPU that has "
                         "one)");
    if (!rc && hw->eff.ar && hw->eff.ar != ar) {
        *ar = *hw->eff.ar;      /* a copy the file's bandwidth can go in */
        hw->eff.ar = ar;
    }
    if (!rc && hw->eff.ar)
        ar->p2p_gbs = p2p;
    if (!rc) {
        gs_llm_prof_groups(&p);
        rc = gs_llm_prof_fit(&p, -1, hw, d);
    }
    p.res_s = o->res_us * 1e-6;     /* the errors', never the fit's */
    if (!rc && o->splitwise) {
        struct gs_llm_calib c;
        char hwname[GS_LLM_NAME];
        default_hardware(o, hwname, sizeof hwname);
        rc = gs_llm_calib_read(o->splitwise, &c, d);
        if (!rc)
            rc = gs_llm_calib_fit(&c, hwname, NULL, hw, &hw->eff, d);
        gs_llm_calib_free(&c);
    }
    if (!rc)
        print_factors(o->gpu, &hw->eff);
    if (!rc && o->splitwise)
        rc = power(o, hw, d);
    if (!rc)
        rc = loso(&p, hw, d);
    if (!rc && o->splitwise)
        rc = splitwise_cv(o, &p, hw, d);
    gs_llm_prof_free(&p);
    return rc;
}

static int cmd_calibrate(struct opts *o)
{
    struct gs_diag d = { 0 };
    struct gs_llm_hw hw;
    static struct gs_ar_curve ar;
    if (o->nprofile == 0)
        return usage("%s", "calibrate needs at least one --profile FILE");
    if (find_gpu(o->gpu, &hw, &d))
        return report(&d);
    return calibrate(o, &hw, &ar, &d) ? report(&d) : 0;
}

int gs_llm_main(int argc, char **argv)
{
    if (argc < 1 || strcmp(argv[0], "--help") == 0
        || strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "help") == 0) {
        fputs(usage_text, argc < 1 ? stderr : stdout);
        return argc < 1 ? 2 : 0;
    }
    struct opts o = { .cmd = argv[0] };
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        }
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;
    if (strcmp(o.cmd, "validate") == 0)
        return cmd_validate(&o);
    if (strcmp(o.cmd, "calibrate") == 0)
        return cmd_calibrate(&o);
    return usage("unknown command '%.60s' (validate, calibrate)", o.cmd);
}
