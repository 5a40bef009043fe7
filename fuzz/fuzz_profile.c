/* fuzz_profile.c -- the kernel profile readers of `gpusim llm validate` and
 * `gpusim llm calibrate`: Vidur's mlp.csv layout (gs_llm_prof_read, then
 * the validation over every row it accepts) and all_reduce.csv
 * (gs_llm_ar_read); the serving times `gpusim trace calibrate` reads,
 * Splitwise's perf_model.csv (gs_llm_calib_read); and Vidur's
 * send_recv.csv (gs_llm_p2p_read, `llm calibrate --send-recv`).  The
 * first byte picks the format.  A refused file must say where: the
 * diagnostic names the file (and for a row, its line); a bandwidth read
 * must be a positive number. */
#include "fuzz.h"

#include <math.h>
#include "../sim/inference/llmprof.h"
#include "../sim/inference/llmcalib.h"

static const uint8_t *text;
static size_t text_n;

static void located(const struct gs_diag *d, const char *path)
{
    if (d->code >= 0 || strncmp(d->where, path, strlen(path)) != 0
        || d->what[0] == 0)
        abort();
    fz_check_line(d, path, text, text_n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_SIZE)
        return 0;
    int k = fz_pick(&data, &size, 4);
    if (k < 0)
        return 0;
    const char *path = fz_file(data, size);
    text = data;
    text_n = size;
    struct gs_diag d = { 0 };
    if (k == 3) {
        double gbs = -1;
        if (gs_llm_p2p_read(path, &gbs, &d) < 0)
            located(&d, path);
        else if (!(gbs > 0 && gbs < INFINITY))
            abort();            /* a bandwidth that is not one */
        gs_diag_free(&d);
        return 0;
    }
    if (k == 2) {
        struct gs_llm_calib c;
        if (gs_llm_calib_read(path, &c, &d) < 0)
            located(&d, path);
        else
            gs_llm_calib_free(&c);
        gs_diag_free(&d);
        return 0;
    }
    if (k == 1) {
        struct gs_ar_curve c;
        memset(&c, 0, sizeof c);
        if (gs_llm_ar_read(path, &c, &d) < 0)
            located(&d, path);
        gs_diag_free(&d);
        return 0;
    }
    struct gs_llm_prof p = { 0 };
    if (gs_llm_prof_read(path, &p, &d) < 0) {
        located(&d, path);
    } else {
        static struct gs_catalog cat;
        static int ready;
        if (!ready) {
            gs_catalog_init(&cat);
            ready = 1;
        }
        struct gs_llm_hw hw;
        gs_llm_hw_from_catalog(&cat, gs_catalog_find(&cat, "A100-80GB"), &hw);
        struct gs_llm_validation v;
        gs_llm_prof_groups(&p);
        if (gs_llm_prof_validate(&p, -1, &hw, &v, NULL) == 0)
            for (int o = 0; o < GS_OP_N; o++)
                if (v.op[o].n > 0 && !(v.op[o].median >= 0))
                    abort();        /* an error that is not a number */
    }
    gs_llm_prof_free(&p);
    gs_diag_free(&d);
    return 0;
}
