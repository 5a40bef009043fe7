/* test_jsoncheck.c -- text that is not UTF-8, too many values, duplicate
 * keys and comments in JSON are errors that say where (sim/io/jsoncheck.c),
 * on their own and through the scenario and generator-spec parsers;
 * anything else malformed is left to the parser. */
#include "cutest.h"
#include "../sim/io/jsoncheck.h"
#include "../sim/setup/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Check text: expect code and, when code < 0, "where: what" to hold both
 * fragments. */
static void chk(const char *text, int code, const char *where,
                const char *what)
{
    struct gs_diag d = { 0 };
    int rc = gs_jsoncheck(text, "f.json", &d);
    char msg[1200];
    gs_test_diag_text(&d, msg, sizeof msg);
    int ok = rc == code && (code == 0 || (strstr(msg, where) &&
                                          strstr(msg, what)));
    if (!ok)
        printf("\n    %.200s\n    got rc=%d: %s", text, rc, msg);
    CU_ASSERT_TRUE(ok);
    gs_diag_free(&d);
}

static void test_duplicates(void)
{
    chk("{\"a\": 1, \"b\": 2}", 0, "", "");
    chk("{\"a\": 1, \"a\": 2}", GS_EPARSE, "f.json:1:10",
        "duplicate key 'a' in $ (first at line 1, column 2)");
    /* Escapes are decoded before comparing: \u0061 is a. */
    chk("{\"a\": 1, \"\\u0061\": 2}", GS_EPARSE, "f.json:1:10",
        "duplicate key 'a'");
    /* A surrogate pair and its UTF-8 spelling are the same key. */
    chk("{\"\\ud83d\\ude00\": 1, \"\xF0\x9F\x98\x80\": 2}", GS_EPARSE,
        "f.json:1:21", "duplicate key");
    chk("{\"a\\n\": 1, \"a\\u000a\": 2, \"a\\\\n\": 3}", GS_EPARSE,
        "f.json:1:12", "first at line 1, column 2");
    /* The same key in different objects, or as a value, is fine. */
    chk("{\"a\": {\"a\": \"a\"}, \"b\": [{\"a\": 1}, {\"a\": 2}]}", 0, "", "");
    /* The path names the object; lines and columns count from 1. */
    chk("{\n  \"fleet\": [\n    {\"gpu\": \"A\"},\n"
        "    {\"gpu\": \"A\", \"nodes\": 2,\n     \"nodes\": 3}\n  ]\n}",
        GS_EPARSE, "f.json:5:6", "in $.fleet[1] (first at line 4, column 18)");
    /* The first in the text is reported, inner or outer. */
    chk("{\"x\": 1, \"x\": {\"y\": 1, \"y\": 2}}", GS_EPARSE, "f.json:1:10",
        "duplicate key 'x' in $ ");
    chk("{\"x\": {\"y\": 1, \"y\": 2}, \"x\": 1}", GS_EPARSE, "f.json:1:16",
        "duplicate key 'y' in $.x ");
    /* Three times: the second place is reported. */
    chk("{\"k\":1,\"k\":2,\"k\":3}", GS_EPARSE, "f.json:1:8", "'k'");
    /* A long key is named whole, the check is on the whole key. */
    char big[400], key[160];
    snprintf(big, sizeof big, "{\"%0100d\": 1, \"%0100d\": 2, \"%099d1\": 3}",
             0, 0, 0);
    snprintf(key, sizeof key, "duplicate key '%0100d' in $ (first", 0);
    chk(big, GS_EPARSE, "f.json:1:109", key);
    /* Many keys: found whatever their order. */
    size_t cap = 1 << 20;
    char *t = malloc(cap);
    size_t n = 0;
    n += (size_t)snprintf(t + n, cap - n, "{");
    for (int i = 0; i < 20000; i++)
        n += (size_t)snprintf(t + n, cap - n, "\"k%d\": %d, ", (i * 7919) % 20000, i);
    snprintf(t + n, cap - n, "\"k4321\": 0}");
    chk(t, GS_EPARSE, "f.json:1:", "duplicate key 'k4321'");
    t[n] = '\0';
    snprintf(t + n, cap - n, "\"z\": 0}");
    chk(t, 0, "", "");
    free(t);
}

static void test_comments(void)
{
    chk("{\"a\": 1 // one\n}", GS_EPARSE, "f.json:1:9", "JSON has no comments");
    chk("{\n  /* fleet */ \"a\": 1}", GS_EPARSE, "f.json:2:3", "no comments");
    chk("# a scenario\n{}", GS_EPARSE, "f.json:1:1", "no comments");
    chk("[1, 2, # three\n 3]", GS_EPARSE, "f.json:1:8", "no comments");
    /* In a string it is text. */
    chk("{\"url\": \"http://x/*y*/ # z\"}", 0, "", "");
    /* A comment before a duplicate: the comment is reported. */
    chk("{\"a\": 1, // x\n \"a\": 2}", GS_EPARSE, "f.json:1:10", "comments");
    chk("{\"a\": 1, \"a\": 2 // x\n}", GS_EPARSE, "f.json:1:10", "duplicate");
}

static void test_left_to_parser(void)
{
    /* Malformed otherwise: nothing reported here, the parser says where. */
    chk("{\"a\": }", 0, "", "");
    chk("{\"a\" 1, \"a\": 2}", 0, "", "");
    chk("{\"a\": \"\\q\", \"a\": 1}", 0, "", "");
    chk("{\"a\": \"unterminated", 0, "", "");
    chk("", 0, "", "");
    chk("/", 0, "", "");
    /* Text that is not UTF-8 (RFC 3629), refused at its first bad byte: a
     * BOM cut short, a stray continuation byte, an overlong form, a
     * surrogate, a code point past U+10FFFF, a sequence cut by the end. */
    chk("\xEF", GS_EPARSE, "f.json:1:1", "not UTF-8 (byte 0xEF)");
    chk("\xEF\xBB", GS_EPARSE, "f.json:1:1", "not UTF-8");
    chk("{\"a\":\n \"x\x80\"}", GS_EPARSE, "f.json:2:4", "byte 0x80");
    chk("{\"a\": \"\xC0\xAF\"}", GS_EPARSE, "f.json:1:8", "byte 0xC0");
    chk("{\"a\": \"\xE0\x80\xAF\"}", GS_EPARSE, "f.json:1:8", "0xE0");
    chk("{\"a\": \"\xED\xA0\x80\"}", GS_EPARSE, "f.json:1:8", "0xED");
    chk("{\"a\": \"\xF4\x90\x80\x80\"}", GS_EPARSE, "f.json:1:8", "0xF4");
    chk("{\"a\": \"\xF5\x80\x80\x80\"}", GS_EPARSE, "f.json:1:8", "0xF5");
    chk("\"\xE2\x82", GS_EPARSE, "f.json:1:2", "0xE2");
    /* and what is: 2-, 3- and 4-byte forms at their bounds */
    chk("{\"\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF\xF0\x90\x80\x80"
        "\xF4\x8F\xBF\xBF\": 1}", 0, "", "");
    /* More values than GS_JSON_MAX_VALUES: refused where the count passed
     * the limit, before anything is parsed. */
    {
        size_t nv = GS_JSON_MAX_VALUES + 5;
        char *big = malloc(2 * nv + 3);
        CU_ASSERT_PTR_NOT_NULL_FATAL(big);
        big[0] = '[';
        for (size_t i = 0; i < nv; i++) {
            big[1 + 2 * i] = '0';
            big[2 + 2 * i] = i + 1 < nv ? ',' : ']';
        }
        big[2 * nv + 1] = '\0';
        /* the array is value 1, its k-th element value k + 1 */
        char at[64];
        snprintf(at, sizeof at, "f.json:1:%d", 2 * (GS_JSON_MAX_VALUES - 1) + 2);
        chk(big, GS_EINVAL, at, "more than 2000000 JSON values");
        big[2 * (GS_JSON_MAX_VALUES - 1)] = ']';     /* exactly the limit */
        big[2 * (GS_JSON_MAX_VALUES - 1) + 1] = '\0';
        chk(big, 0, "", "");
        free(big);
    }
    /* A BOM is skipped, as cJSON does. */
    chk("\xEF\xBB\xBF{\"a\":1,\"a\":2}", GS_EPARSE, "f.json:1:11", "'a'");
    /* Deep nesting: no crash; beyond the depth limit it is left alone. */
    size_t n = 200000;
    char *t = malloc(2 * n + 1);
    memset(t, '[', n);
    memset(t + n, ']', n);
    t[2 * n] = '\0';
    chk(t, 0, "", "");
    free(t);
    CU_ASSERT_EQUAL(gs_jsoncheck(NULL, "x", NULL), 0);
}

/* Through the parsers: a scenario and a generator spec. */
static void test_parsers(void)
{
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    const char *s =
        "{\"name\": \"a\",\n"
        " \"fleet\": [{\"gpu\": \"H100-80GB\", \"nodes\": 2, \"nodes\": 3}],\n"
        " \"workload\": {\"generate\": {\"jobs\": 3, \"rate_per_hour\": 5,\n"
        "   \"classes\": [{\"duration\": {\"dist\": \"constant\", \"value\": 1}}]}}}";
    CU_ASSERT_EQUAL(gs_scenario_parse(s, "s.json", ".", &sc, &d), GS_EPARSE);
    CU_ASSERT_PTR_NULL(sc);
    CU_ASSERT_STRING_EQUAL(d.where, "s.json:2:45");
    CU_ASSERT_PTR_NOT_NULL(strstr(d.what, "'nodes' in $.fleet[0]"));

    char path[] = "/tmp/gs_jcXXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_TRUE(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs("{\"jobs\": 3, \"rate_per_hour\": 5,\n \"jobs\": 4,\n"
          " \"classes\": [{\"duration\": {\"dist\": \"constant\", "
          "\"value\": 1}}]}", fp);
    fclose(fp);
    struct gs_catalog cat;
    gs_catalog_init(&cat);
    struct gs_genspec spec;
    uint64_t seed;
    struct gs_diag d2 = { 0 };
    CU_ASSERT_EQUAL(gs_genspec_load(path, &cat, &spec, &seed, &d2), GS_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(d2.where, ":2:2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d2.what, "duplicate key 'jobs'"));
    unlink(path);
    gs_diag_free(&d);
    gs_diag_free(&d2);
}

/* The message for text t: "where: what" (caller frees). */
static char *message(const char *t)
{
    struct gs_diag d = { 0 };
    CU_ASSERT_EQUAL(gs_jsoncheck(t, "f.json", &d), GS_EPARSE);
    char *m = gs_diag_message(&d);
    gs_diag_free(&d);
    return m ? m : strdup("");
}

/* want is in the message of t */
static void names(const char *t, const char *want)
{
    char *m = message(t);
    int ok = strstr(m, want) != NULL;
    if (!ok)
        printf("\n    want: %.300s\n    got:  %.300s (%zu bytes)", want, m,
               strlen(m));
    CU_ASSERT_TRUE(ok);
    free(m);
}

/* A duplicate deep in nesting, or under long keys, is named at its exact
 * JSON path: no segment of it dropped or cut (the path was built in 400
 * bytes with each key cut to 120, so a longer path lost segments and read
 * as another place). */
static void test_deep_and_long_paths(void)
{
    size_t cap = 1 << 16;
    char *t = malloc(cap), *want = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(want);
    /* four keys of 150 characters, then a short one */
    size_t n = 0, w = 0;
    w += (size_t)snprintf(want + w, cap - w, "'x' in $");
    for (int k = 0; k < 4; k++) {
        char seg[151];
        memset(seg, 'a' + k, 150);
        seg[150] = '\0';
        n += (size_t)snprintf(t + n, cap - n, "{\"%s\": ", seg);
        w += (size_t)snprintf(want + w, cap - w, ".%s", seg);
    }
    n += (size_t)snprintf(t + n, cap - n, "{\"y\": {\"x\": 1, \"x\": 2}}}}}}");
    snprintf(want + w, cap - w, ".y (first at line 1, column ");
    names(t, want);
    /* 300 objects deep and 150 arrays deep */
    n = w = 0;
    w += (size_t)snprintf(want + w, cap - w, "'k' in $");
    for (int k = 0; k < 300; k++) {
        n += (size_t)snprintf(t + n, cap - n, "{\"k%d\": ", k);
        w += (size_t)snprintf(want + w, cap - w, ".k%d", k);
    }
    for (int k = 0; k < 150; k++) {
        n += (size_t)snprintf(t + n, cap - n, "[0, ");
        w += (size_t)snprintf(want + w, cap - w, "[1]");
    }
    n += (size_t)snprintf(t + n, cap - n, "{\"k\": 1, \"k\": 2}");
    for (int k = 0; k < 150; k++)
        n += (size_t)snprintf(t + n, cap - n, "]");
    for (int k = 0; k < 300; k++)
        n += (size_t)snprintf(t + n, cap - n, "}");
    snprintf(want + w, cap - w, " (first at line 1, column ");
    names(t, want);
    /* keys that would read as other places: a dot, a bracket, a quote, a
     * newline, a NUL, an empty key, a space -- said as ["..."] (JSON
     * string escapes); plain keys keep the dot form */
    names("{\"a.b\": {\"c\": 1, \"c\": 2}}", "'c' in $[\"a.b\"] (first");
    names("{\"a\": {\"b\": {\"c\": 1, \"c\": 2}}}", "'c' in $.a.b (first");
    names("{\"x[0]\": [{\"c\": 1, \"c\": 2}]}", "in $[\"x[0]\"][0] (first");
    names("{\"q\\\"\": {\"\\n\": {\"c\": 1, \"c\": 2}}}",
          "in $[\"q\\\"\"][\"\\n\"] (first");
    names("{\"\": {\" \": {\"c\": 1, \"c\": 2}}}", "in $[\"\"][\" \"] (first");
    names("{\"r\\u00e9\\u0000\": {\"c\": 1, \"c\": 2}}",
          "in $[\"r\xC3\xA9\\u0000\"] (first");
    names("{\"caf\xC3\xA9\": {\"c\": 1, \"c\": 2}}", "in $.caf\xC3\xA9 (first");
    /* the key itself: whole, NUL and control bytes escaped */
    names("{\"a\\u0000b\": 1, \"a\\u0000b\": 2}", "duplicate key 'a\\u0000b' in $ ");
    names("{\"a\\n\": 1, \"a\\n\": 2}", "duplicate key 'a\\n' in $ ");
    /* a lone surrogate escape stays an escape (its bytes are not UTF-8) */
    names("{\"\\ud800\": 1, \"\\ud800\": 2}", "duplicate key '\\uD800' in $ ");
    /* a key of 100,000 characters under a key of 50,000: both whole */
    size_t big = 300000;
    char *b = malloc(big), *bw = malloc(big);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bw);
    char *p = malloc(50001), *q = malloc(100001);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    memset(p, 'p', 50000);
    p[50000] = '\0';
    memset(q, 'q', 100000);
    q[100000] = '\0';
    snprintf(b, big, "{\"%s\": {\"%s\": 1, \"%s\": 2}}", p, q, q);
    snprintf(bw, big, "duplicate key '%s' in $.%s (first at line 1, "
             "column 50007)", q, p);
    names(b, bw);
    free(p);
    free(q);
    free(b);
    free(bw);
    free(t);
    free(want);
}

/* The scenario text with an instance type named key under $.prices whose
 * "spot" price is a string (an error there), the rest valid (caller
 * frees). */
static char *prices_scenario(const char *key)
{
    char *t = NULL;
    CU_ASSERT_FATAL(asprintf(&t, "{\"name\": \"a\", \"prices\": {\"%s\": "
                             "{\"spot\": \"cheap\"}},\n \"fleet\": [{\"gpu\": "
                             "\"H100-80GB\", \"nodes\": 2}],\n \"workload\": "
                             "{\"generate\": {\"jobs\": 3, \"rate_per_hour\": "
                             "5,\n   \"classes\": [{\"duration\": {\"dist\": "
                             "\"constant\", \"value\": 1}}]}}}", key) > 0);
    return t;
}

/* The place the scenario parser names for text's first error (caller
 * frees), or NULL when it parses. */
static char *parser_where(const char *text)
{
    struct gs_scenario *sc = NULL;
    struct gs_diag d = { 0 };
    char *w = NULL;
    if (gs_scenario_parse(text, "s.json", ".", &sc, &d) == GS_EINVAL)
        w = strdup(gs_diag_where(&d));
    else
        gs_scenario_free(sc);
    gs_diag_free(&d);
    return w;
}

/* The scenario parser's paths are held in memory (jsonio.h:
 * GS_JSON_PATH), so a key of the user's of any length is named whole with
 * the keys inside it: with the old fixed buffers a 700-character instance
 * type under $.prices was cut ("$.prices.ppp...[... cut ...]ppp.spot";
 * before that "$.prices.ppp...p.", the key "spot" gone). */
static void test_parser_long_key(void)
{
    const size_t lens[] = { 700, 5000, 100000 };
    for (int i = 0; i < 3; i++) {
        char *k = malloc(lens[i] + 1), *want = NULL;
        CU_ASSERT_PTR_NOT_NULL_FATAL(k);
        memset(k, 'p', lens[i]);
        k[lens[i]] = '\0';
        char *t = prices_scenario(k);
        char *w = parser_where(t);
        CU_ASSERT_FATAL(asprintf(&want, "s.json: $.prices.%s.spot", k) > 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        if (strcmp(w, want) != 0)
            printf("\n    %zu-character key: %zu bytes: %.60s ... %.40s",
                   lens[i], strlen(w), w,
                   w + strlen(w) - (strlen(w) > 40 ? 40 : 0));
        CU_ASSERT_STRING_EQUAL(w, want);
        free(w);
        free(want);
        free(t);
        free(k);
    }
}

/* A key that would not read as itself after a dot is spelled ["KEY"] by
 * the parser as by the duplicate-key check (gs_json_path_join): the
 * parser's place for an error under the key begins with the check's place
 * for a duplicate in the same object.  The old parser wrote .KEY always
 * ("$.prices.my.type.spot", a place that reads as four keys). */
static void test_parser_odd_keys(void)
{
    static const char *const keys[] = {
        "my.type", "a[0]", "q\\\"x", "sp ace", "", "tab\\t", "plain-key_1",
        "caf\xC3\xA9",
    };
    static const char *const spelled[] = {
        "[\"my.type\"]", "[\"a[0]\"]", "[\"q\\\"x\"]", "[\"sp ace\"]",
        "[\"\"]", "[\"tab\\t\"]", ".plain-key_1", ".caf\xC3\xA9",
    };
    for (int i = 0; i < (int)(sizeof keys / sizeof keys[0]); i++) {
        char *t = prices_scenario(keys[i]);
        char *w = parser_where(t), *want = NULL;
        CU_ASSERT_FATAL(asprintf(&want, "s.json: $.prices%s.spot",
                                 spelled[i]) > 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        if (strcmp(w, want) != 0)
            printf("\n    key %d: %s, want %s", i, w, want);
        CU_ASSERT_STRING_EQUAL(w, want);
        /* the duplicate-key check names the same object alike */
        char *dup = NULL, msg[512];
        CU_ASSERT_FATAL(asprintf(&dup, "{\"prices\": {\"%s\": {\"spot\": 1, "
                                 "\"spot\": 2}}}", keys[i]) > 0);
        struct gs_diag d = { 0 };
        CU_ASSERT_EQUAL(gs_jsoncheck(dup, "f.json", &d), GS_EPARSE);
        gs_test_diag_text(&d, msg, sizeof msg);
        char *in = NULL;
        CU_ASSERT_FATAL(asprintf(&in, "'spot' in $.prices%s (first",
                                 spelled[i]) > 0);
        if (strstr(msg, in) == NULL)
            printf("\n    key %d: %s, want %s", i, msg, in);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, in));
        gs_diag_free(&d);
        free(in);
        free(dup);
        free(want);
        free(w);
        free(t);
    }
}

/* An unknown key is quoted as the duplicate-key check quotes a key: a
 * control byte, a quote or a newline written with JSON's escapes, never
 * raw to the terminal (gs_json_keys printed it raw: 'w^Gx'). */
static void test_unknown_key_escaped(void)
{
    static const char *const keys[] = { "w\\u0007x", "q\\\"x", "nl\\n",
                                        "esc\\u001b[2J" };
    static const char *const spelled[] = { "w\\u0007x", "q\\\"x", "nl\\n",
                                           "esc\\u001B[2J" };
    for (int i = 0; i < (int)(sizeof keys / sizeof keys[0]); i++) {
        char *t = NULL, *want = NULL, *dup = NULL, msg[512];
        CU_ASSERT_FATAL(asprintf(&t, "{\"%s\": 1, \"fleet\": [{\"gpu\": "
                                 "\"H100-80GB\", \"nodes\": 2}]}",
                                 keys[i]) > 0);
        struct gs_scenario *sc = NULL;
        struct gs_diag d = { 0 };
        CU_ASSERT_EQUAL(gs_scenario_parse(t, "s.json", ".", &sc, &d),
                        GS_EINVAL);
        gs_scenario_free(sc);
        CU_ASSERT_FATAL(asprintf(&want, "unknown key '%s' (", spelled[i]) > 0);
        gs_test_diag_text(&d, msg, sizeof msg);
        if (strstr(msg, want) == NULL)
            printf("\n    key %d: %s, want %s", i, msg, want);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
        gs_diag_free(&d);
        free(want);
        /* the duplicate-key check spells it alike */
        CU_ASSERT_FATAL(asprintf(&dup, "{\"%s\": 1, \"%s\": 2}", keys[i],
                                 keys[i]) > 0);
        CU_ASSERT_EQUAL(gs_jsoncheck(dup, "f.json", &d), GS_EPARSE);
        gs_test_diag_text(&d, msg, sizeof msg);
        CU_ASSERT_FATAL(asprintf(&want, "duplicate key '%s' in $", spelled[i])
                        > 0);
        if (strstr(msg, want) == NULL)
            printf("\n    dup %d: %s, want %s", i, msg, want);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
        gs_diag_free(&d);
        free(want);
        free(dup);
        free(t);
    }
}

static CU_TestInfo tests[] = {
    { "duplicate keys: where, both places, decoded", test_duplicates },
    { "comments: JSON has none", test_comments },
    { "other malformed text is the parser's", test_left_to_parser },
    { "scenario and generator spec parsers call it", test_parsers },
    { "deep and long paths named exactly", test_deep_and_long_paths },
    { "the parser's long keys: named whole", test_parser_long_key },
    { "the parser spells odd keys as the check does", test_parser_odd_keys },
    { "unknown keys quoted with escapes, as duplicates are",
      test_unknown_key_escaped },
    CU_TEST_INFO_NULL,
};

GS_TEST_MAIN("jsoncheck", tests)
