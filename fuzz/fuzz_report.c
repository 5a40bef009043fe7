/* fuzz_report.c -- the writers that carry a user's names out: the run
 * summary as a table, JSON and CSV (report.c), and the paths handed to
 * gnuplot (io/gnuplot.h).
 *
 * The input is up to four names, one a line: the scenario's, a pool's, a
 * job class's and a tenant prefix's (any bytes: quotes, backslashes,
 * control characters, bytes that are not UTF-8).  They are put into a
 * tiny scenario (JSON-escaped as a user would write them, other bytes
 * raw), which is parsed; when it is accepted, it is simulated and each
 * writer prints it into memory.  The JSON must then parse (cJSON) and be
 * valid UTF-8, and a name made a gnuplot path must come out absolute,
 * never starting with '<' or '|'; anything else aborts, which libFuzzer
 * reports. */
#include "fuzz.h"
#include "../sim/setup/setup.h"
#include "../sim/io/gnuplot.h"
#include "../sim/io/report.h"
#include "../sim/setup/scenario.h"

#include <cJSON.h>

/* 1 when s[0..n) is UTF-8 (RFC 3629: no overlong forms, no surrogates,
 * nothing past U+10FFFF). */
static int fz_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2
                   : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (len == 0 || i + len > n || (len == 2 && c < 0xC2) ||
            (len == 4 && c > 0xF4))
            return 0;
        for (size_t k = 1; k < len; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
        if (len == 3 && ((c == 0xE0 && s[i + 1] < 0xA0) ||
                         (c == 0xED && s[i + 1] >= 0xA0)))
            return 0;
        if (len == 4 && ((c == 0xF0 && s[i + 1] < 0x90) ||
                         (c == 0xF4 && s[i + 1] >= 0x90)))
            return 0;
        i += len;
    }
    return 1;
}

static void fz_escape(FILE *fp, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c < 0x20)
            fprintf(fp, "\\u%04x", c);
        else
            fputc(c, fp);
    }
}

static void fz_check_json(const char *buf, size_t len)
{
    if (!fz_utf8((const unsigned char *)buf, len))
        abort();
    cJSON *j = cJSON_ParseWithLength(buf, len);
    if (j == NULL)
        abort();
    cJSON_Delete(j);
}

static void fz_check_path(const char *name)
{
    char *p = gs_gnuplot_path(name);
    if (p == NULL)
        return;
    if (p[0] != '/')
        abort();
    size_t lp = strlen(p), ln = strlen(name);
    if (ln > 0 && strcmp(name, ".") != 0 && strncmp(name, "./", 2) != 0 &&
        (lp < ln || strcmp(p + lp - ln, name) != 0))
        abort();
    free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1024)
        return 0;
    char *text = fz_text(data, size);
    const char *name[4] = { "t", "gpu", "j", "team" };
    char *p = text;
    for (int i = 0; i < 4 && p; i++) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        name[i] = p;
        p = nl ? nl + 1 : NULL;
    }
    for (int i = 0; i < 4; i++)
        fz_check_path(name[i]);
    char *json = NULL;
    size_t jlen = 0;
    FILE *fp = open_memstream(&json, &jlen);
    if (fp == NULL)
        abort();
    fputs("{\"name\": \"", fp);
    fz_escape(fp, name[0]);
    fputs("\", \"seed\": 1, \"fleet\": [{\"name\": \"", fp);
    fz_escape(fp, name[1]);
    fputs("\", \"gpu\": \"A100-80GB\", \"nodes\": 2, \"gpus_per_node\": 1, "
          "\"price_per_gpu_hour\": 2}], \"policy\": \"fair\", \"workload\": "
          "{\"generate\": {\"jobs\": 12, \"rate_per_hour\": 4, "
          "\"reference_gpu\": \"A100-80GB\", \"classes\": [{\"name\": \"", fp);
    fz_escape(fp, name[2]);
    fputs("\", \"tier\": \"training\", \"weight\": 1, \"tenants\": [\"", fp);
    fz_escape(fp, name[3]);
    fputs("\", \"b\"], \"gpus\": 1, \"duration\": {\"dist\": \"exponential\", "
          "\"mean\": \"1h\"}}]}}}\n", fp);
    fclose(fp);
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    if (gs_scenario_parse(json, "<fuzz>", "/nonexistent-gpusim-fuzz", &sc,
                          &d) == 0) {
        struct gs_sim *s = NULL;
        struct gs_sim_opts o = { 0 };
        if (gs_sim_new(sc, &o, &s, &d) == 0 && gs_sim_run(s, &d) == 0) {
            char *out = NULL;
            size_t olen = 0;
            FILE *mf = open_memstream(&out, &olen);
            gs_report_json(mf, s);
            fclose(mf);
            fz_check_json(out, olen);
            free(out);
            mf = open_memstream(&out, &olen);
            gs_report_table(mf, s);
            gs_report_csv(mf, s);
            fclose(mf);
            free(out);
        }
        gs_sim_free(s);
        gs_scenario_free(sc);
    }
    free(json);
    free(text);
    gs_diag_free(&d);
    return 0;
}
