/* suggest.c -- the closest name to a misspelling (suggest.h). */
#include "suggest.h"
#include "path.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Optimal string alignment distance, case-insensitive; names over 63
 * characters are not compared (returns a large distance). */
static int osa(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63)
        return 1000;
    int d[64][64];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int ca = tolower((unsigned char)a[i - 1]);
            int cb = tolower((unsigned char)b[j - 1]);
            int cost = ca != cb;
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 &&
                ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

const char *gs_suggest(const char *word, const char *const *cands)
{
    if (word == NULL || cands == NULL)
        return NULL;
    size_t len = strlen(word);
    if (len == 0)
        return NULL;
    int limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    const char *best = NULL;
    int bestd = limit + 1;
    for (int i = 0; cands[i]; i++) {
        int dist = osa(word, cands[i]);
        if (dist >= (int)len)
            continue;
        if (len >= 3 && strncmp(cands[i], word, len) == 0 && dist > limit)
            dist = limit;       /* an abbreviation */
        if (dist < bestd) {
            best = cands[i];
            bestd = dist;
        }
    }
    return best;
}

char *gs_suggest_fmt(const char *word, const char *const *cands, char *buf,
                     unsigned long n)
{
    const char *s = gs_suggest(word, cands);
    if (s)
        snprintf(buf, n, " (did you mean '%s'?)", s);
    else if (n)
        buf[0] = '\0';
    return buf;
}

int gs_suggest_bad_option(const char *cmd, const struct option *opts,
                          int argc, char **argv, int c)
{
    const char *a = optind >= 1 && optind - 1 < argc ? argv[optind - 1] : "";
    char word[64], hint[128] = "";
    snprintf(word, sizeof word, "%.*s", (int)strcspn(a, "="), a);
    if (c == ':') {
        fprintf(stderr, "gpusim: %s: %s needs a value\n", cmd,
                a[1] == '-' ? word : (char[]){ '-', (char)optopt, 0 });
    } else if (a[0] == '-' && a[1] == '-') {
        const char *names[64];
        char dashed[64][40];
        int n = 0;
        for (; opts[n].name && n < 63; n++) {
            snprintf(dashed[n], sizeof dashed[n], "--%s", opts[n].name);
            names[n] = dashed[n];
        }
        names[n] = NULL;
        gs_suggest_fmt(word, names, hint, sizeof hint);
        fprintf(stderr, "gpusim: %s: unknown option '%s'%s\n", cmd, word,
                hint);
    } else {
        fprintf(stderr, "gpusim: %s: unknown option '-%c'\n", cmd,
                optopt ? optopt : '?');
    }
    fprintf(stderr, "(see 'gpusim help %s')\n", cmd);
    return 2;
}

int gs_cli_named(const char *name, int argc, char **argv,
                 int (*fn)(int argc, char **argv))
{
    char **av = malloc(((size_t)argc + 2) * sizeof *av);
    if (av == NULL) {
        fprintf(stderr, "gpusim: out of memory\n");
        return 2;
    }
    av[0] = (char *)name;
    memcpy(av + 1, argv, (size_t)argc * sizeof *av);
    av[argc + 1] = NULL;
    int rc = fn(argc + 1, av);
    free(av);
    return rc;
}

int gs_cli_getopt(int argc, char **argv, const char *shortopts,
                  const struct option *opts, const char **file)
{
    if (optind == 0)            /* a command starts: its own inputs */
        gs_input_reset();
    for (;;) {
        int ch = getopt_long(argc, argv, shortopts, opts, NULL);
        if (ch != -1 || optind >= argc)
            return ch;
        int ended = strcmp(argv[optind - 1], "--") == 0;
        if (*file != NULL || (ended && optind + 1 < argc)) {
            optarg = argv[*file ? optind : optind + 1];
            return GS_CLI_EXTRA;
        }
        *file = argv[optind++];
        if (ended)
            return -1;
    }
}
