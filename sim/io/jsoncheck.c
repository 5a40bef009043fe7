/* jsoncheck.c -- a pre-pass over JSON text for duplicate keys and comments.
 *
 * See jsoncheck.h for why.  The scanner is a recursive-descent walk of the
 * grammar of RFC 8259 that keeps only what it needs: the offset of every
 * key of the objects still open (decoded into one growing arena, popped
 * when the object closes), and the JSON path to the value being read.  It
 * stops at the first token it does not understand and reports nothing for
 * it -- the parser that runs next reports malformed text with its own line
 * and column -- and it stops at the first comment.  Of the problems found
 * before stopping, the one that comes first in the text is reported, so the
 * message is the same whether a duplicate sits in an inner object (whose
 * keys are checked when it closes) or an outer one.
 *
 * Depth is limited (GS_JC_DEPTH, below cJSON's own nesting limit of 1000);
 * deeper text is left to the parser.  Lines and columns count bytes from 1,
 * as the scenario parser's messages do.
 *
 * The path is held in memory and grows with the nesting, every key whole,
 * so the place a message names is exact however deep or long (it was
 * built in 400 bytes with each key cut to 120: a longer path lost its
 * deeper segments and read as another place).  A key is written .KEY when
 * it cannot be mistaken for anything else, else ["KEY"] with JSON's
 * string escapes (a key holding a dot, a bracket, a quote, a backslash, a
 * space or a control byte, or an empty one); a key in a message is the
 * same escaped text, so a NUL or a newline in it is said, not acted on. */
#include "jsoncheck.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GS_JC_DEPTH 512

struct key {
    size_t at;                  /* offset of the key's opening quote */
    size_t k, n;                /* decoded bytes in the arena */
    const char *p;              /* set just before sorting */
};

/* A growing NUL-terminated string: a JSON path. */
struct pbuf {
    char *s;
    size_t len, cap;
};

struct jc {
    const char *t;
    size_t i;                   /* read position */
    int stop;                   /* malformed or comment: scan no further */
    int oom;
    char *arena;
    size_t an, acap;
    struct key *keys;
    size_t kn, kcap;
    struct pbuf path;           /* the JSON path of the value being read */
    /* The earliest problem found (issue_at == SIZE_MAX: none). */
    size_t issue_at, first_at;
    int comment;
    char *key, *kpath;          /* a duplicate's key (escaped) and path */
    long nvalues;               /* values read so far */
    size_t toomany_at;          /* where the count passed the limit, or
                                   SIZE_MAX */
};

static int path_put(struct jc *c, const char *s, size_t n);
static int path_key(struct jc *c, const char *k, size_t n, int dotted);

static void issue_dup(struct jc *c, const struct key *first,
                      const struct key *second)
{
    if (second->at >= c->issue_at)
        return;
    c->issue_at = second->at;
    c->first_at = first->at;
    c->comment = 0;
    /* the key, escaped, after the path in the same buffer (then cut off) */
    size_t plen = c->path.len;
    char *key = NULL, *kpath = NULL;
    if (path_key(c, second->p, second->n, 0) == 0 &&
        path_put(c, "", 1) == 0 &&
        (key = strdup(c->path.s + plen)) != NULL) {
        c->path.s[plen] = '\0';
        kpath = strdup(c->path.s);
    }
    c->path.len = plen;
    c->path.s[plen] = '\0';
    free(c->key);
    free(c->kpath);
    c->key = key;
    c->kpath = kpath;
    if (key == NULL || kpath == NULL)
        c->oom = c->stop = 1;
}

/* Skip blanks; a comment (//, / *, #) is recorded and stops the scan. */
static void ws(struct jc *c)
{
    for (;;) {
        char ch = c->t[c->i];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
            c->i++;
            continue;
        }
        if ((ch == '/' && (c->t[c->i + 1] == '/' || c->t[c->i + 1] == '*')) ||
            ch == '#') {
            if (c->i < c->issue_at) {
                c->issue_at = c->i;
                c->comment = 1;
            }
            c->stop = 1;
        }
        return;
    }
}

static int put(struct jc *c, const char *s, size_t n)
{
    if (c->an + n > c->acap) {
        size_t cap = c->acap ? c->acap * 2 : 1024;
        while (cap < c->an + n)
            cap *= 2;
        char *na = realloc(c->arena, cap);
        if (na == NULL) {
            c->oom = c->stop = 1;
            return -1;
        }
        c->arena = na;
        c->acap = cap;
    }
    memcpy(c->arena + c->an, s, n);
    c->an += n;
    return 0;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char ch = s[k];
        v <<= 4;
        if (ch >= '0' && ch <= '9')
            v |= (unsigned)(ch - '0');
        else if (ch >= 'a' && ch <= 'f')
            v |= (unsigned)(ch - 'a' + 10);
        else if (ch >= 'A' && ch <= 'F')
            v |= (unsigned)(ch - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static void put_utf8(struct jc *c, unsigned u)
{
    char b[4];
    size_t n;
    if (u < 0x80) {
        b[0] = (char)u;
        n = 1;
    } else if (u < 0x800) {
        b[0] = (char)(0xC0 | (u >> 6));
        b[1] = (char)(0x80 | (u & 0x3F));
        n = 2;
    } else if (u < 0x10000) {
        b[0] = (char)(0xE0 | (u >> 12));
        b[1] = (char)(0x80 | ((u >> 6) & 0x3F));
        b[2] = (char)(0x80 | (u & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (u >> 18));
        b[1] = (char)(0x80 | ((u >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((u >> 6) & 0x3F));
        b[3] = (char)(0x80 | (u & 0x3F));
        n = 4;
    }
    put(c, b, n);
}

/* A string at c->i (its opening quote); decoded into the arena when keep.
 * 0, or -1 (malformed: stop). */
static int string(struct jc *c, int keep)
{
    c->i++;
    for (;;) {
        const char *s = c->t + c->i;
        size_t run = strcspn(s, "\"\\");
        if (keep && run && put(c, s, run) < 0)
            return -1;
        c->i += run;
        char ch = c->t[c->i];
        if (ch == '\0')
            return -1;
        if (ch == '"') {
            c->i++;
            return 0;
        }
        char e = c->t[c->i + 1];
        const char *plain = strchr("\"\\/bfnrt", e);
        if (e != '\0' && plain) {
            static const char val[] = "\"\\/\b\f\n\r\t";
            if (keep && put(c, &val[plain - "\"\\/bfnrt"], 1) < 0)
                return -1;
            c->i += 2;
            continue;
        }
        unsigned u, lo;
        if (e != 'u' || hex4(c->t + c->i + 2, &u) < 0)
            return -1;
        c->i += 6;
        if (u >= 0xD800 && u < 0xDC00 && c->t[c->i] == '\\' &&
            c->t[c->i + 1] == 'u' && hex4(c->t + c->i + 2, &lo) == 0 &&
            lo >= 0xDC00 && lo < 0xE000) {
            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            c->i += 6;
        }
        if (keep)
            put_utf8(c, u);
        if (c->oom)
            return -1;
    }
}

static int key_cmp(const void *a, const void *b)
{
    const struct key *x = a, *y = b;
    size_t n = x->n < y->n ? x->n : y->n;
    int r = memcmp(x->p, y->p, n);
    if (r)
        return r;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Append n bytes to b (kept NUL-terminated); -1 out of memory. */
static int buf_put(struct pbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *np = realloc(b->s, cap);
        if (np == NULL)
            return -1;
        b->s = np;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

/* Whether key k[0..n) reads as itself after a dot: not empty, and no byte
 * that ends a segment or could be taken for one (. [ ] " \ a space or a
 * control byte). */
static int plain_key(const char *k, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char b = (unsigned char)k[i];
        if (b <= 0x20 || b == 0x7F || b == '.' || b == '[' || b == ']' ||
            b == '"' || b == '\\' ||
            (b == 0xED && i + 1 < n && (unsigned char)k[i + 1] >= 0xA0))
            return 0;           /* ... or a lone surrogate's bytes */
    }
    return 1;
}

/* Append decoded key k[0..n): as .KEY or ["KEY"] when dotted (a path's
 * segment), else escaped alone (a message's 'KEY').  The escapes are
 * JSON's; a surrogate that came from a lone \uD800 escape (its bytes are
 * not UTF-8) is written back as that escape. */
static int buf_key(struct pbuf *pb, const char *k, size_t n, int dotted)
{
    int plain = plain_key(k, n);
    if (dotted && buf_put(pb, plain ? "." : "[\"", plain ? 1 : 2) < 0)
        return -1;
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n) {
            unsigned char b = (unsigned char)k[run];
            if (b < 0x20 || b == 0x7F || b == '"' || b == '\\' || b == 0xED)
                break;
            run++;
        }
        if (run > i && buf_put(pb, k + i, run - i) < 0)
            return -1;
        i = run;
        if (i == n)
            break;
        unsigned char b = (unsigned char)k[i];
        char e[8];
        size_t en = 2;
        if (b == 0xED && i + 2 < n && (unsigned char)k[i + 1] >= 0xA0) {
            unsigned u = 0xD000 | ((unsigned)(k[i + 1] & 0x3F) << 6) |
                         (unsigned)(k[i + 2] & 0x3F);
            snprintf(e, sizeof e, "\\u%04X", u);
            en = 6;
            i += 3;
        } else if (b == 0xED) {     /* U+D000..D7FF: UTF-8 as it is */
            e[0] = (char)b;
            en = 1;
            i++;
        } else {
            const char *sh = b == '"' ? "\\\"" : b == '\\' ? "\\\\"
                           : b == '\n' ? "\\n" : b == '\t' ? "\\t"
                           : b == '\r' ? "\\r" : NULL;
            if (sh)
                memcpy(e, sh, 2);
            else {
                snprintf(e, sizeof e, "\\u%04X", b);
                en = 6;
            }
            i++;
        }
        if (buf_put(pb, e, en) < 0)
            return -1;
    }
    if (dotted && !plain && buf_put(pb, "\"]", 2) < 0)
        return -1;
    return 0;
}

/* The scanner's path_put and path_key: out of memory stops the scan. */
static int path_put(struct jc *c, const char *s, size_t n)
{
    if (buf_put(&c->path, s, n) == 0)
        return 0;
    c->oom = c->stop = 1;
    return -1;
}

static int path_key(struct jc *c, const char *k, size_t n, int dotted)
{
    if (buf_key(&c->path, k, n, dotted) == 0)
        return 0;
    c->oom = c->stop = 1;
    return -1;
}

char *gs_json_path_join(const char *path, const char *k, size_t n)
{
    struct pbuf b = { NULL, 0, 0 };
    if (buf_put(&b, path, strlen(path)) < 0 || buf_key(&b, k, n, 1) < 0) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

char *gs_json_key_esc(const char *k, size_t n)
{
    struct pbuf b = { NULL, 0, 0 };
    if (buf_put(&b, "", 0) < 0 || buf_key(&b, k, n, 0) < 0) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* Pop the path back to saved bytes. */
static void path_pop(struct jc *c, size_t saved)
{
    c->path.len = saved;
    c->path.s[saved] = '\0';
}

static void value(struct jc *c, int depth);

static void object(struct jc *c, int depth)
{
    size_t base = c->kn, abase = c->an;
    c->i++;
    ws(c);
    if (c->stop)
        return;
    if (c->t[c->i] == '}') {
        c->i++;
        return;
    }
    for (;;) {
        if (c->t[c->i] != '"') {
            c->stop = 1;
            goto done;
        }
        if (c->kn == c->kcap) {
            size_t cap = c->kcap ? c->kcap * 2 : 64;
            struct key *nk = realloc(c->keys, cap * sizeof *nk);
            if (nk == NULL) {
                c->oom = c->stop = 1;
                goto done;
            }
            c->keys = nk;
            c->kcap = cap;
        }
        struct key *k = &c->keys[c->kn];
        k->at = c->i;
        k->k = c->an;
        if (string(c, 1) < 0) {
            c->stop = 1;
            goto done;
        }
        k->n = c->an - k->k;
        c->kn++;
        ws(c);
        if (c->stop)
            goto done;
        if (c->t[c->i] != ':') {
            c->stop = 1;
            goto done;
        }
        c->i++;
        size_t saved = c->path.len;
        if (path_key(c, c->arena + k->k, k->n, 1) < 0)
            goto done;
        value(c, depth + 1);
        path_pop(c, saved);
        if (c->stop)
            goto done;
        ws(c);
        if (c->stop)
            goto done;
        if (c->t[c->i] == ',') {
            c->i++;
            ws(c);
            if (c->stop)
                goto done;
            continue;
        }
        if (c->t[c->i] != '}') {
            c->stop = 1;
            goto done;
        }
        c->i++;
        break;
    }
done:;
    /* Also when the scan stopped inside: a duplicate before a comment or a
     * fault is still the earliest problem. */
    size_t n = c->kn - base;
    struct key *ks = c->keys + base;
    for (size_t j = 0; j < n; j++)
        ks[j].p = c->arena + ks[j].k;
    if (n > 1)
        qsort(ks, n, sizeof *ks, key_cmp);
    for (size_t j = 0; j + 1 < n; j++)
        if (ks[j].n == ks[j + 1].n && memcmp(ks[j].p, ks[j + 1].p, ks[j].n) == 0)
            issue_dup(c, &ks[j], &ks[j + 1]);
    c->kn = base;
    c->an = abase;
}

static void array(struct jc *c, int depth)
{
    c->i++;
    ws(c);
    if (c->stop)
        return;
    if (c->t[c->i] == ']') {
        c->i++;
        return;
    }
    for (long idx = 0;; idx++) {
        size_t saved = c->path.len;
        char ix[24];
        int in = snprintf(ix, sizeof ix, "[%ld]", idx);
        if (path_put(c, ix, (size_t)in) < 0)
            return;
        value(c, depth + 1);
        path_pop(c, saved);
        if (c->stop)
            return;
        ws(c);
        if (c->stop)
            return;
        if (c->t[c->i] == ',') {
            c->i++;
            continue;
        }
        if (c->t[c->i] != ']')
            c->stop = 1;
        else
            c->i++;
        return;
    }
}

static void value(struct jc *c, int depth)
{
    ws(c);
    if (c->stop)
        return;
    if (depth > GS_JC_DEPTH) {
        c->stop = 1;
        return;
    }
    if (++c->nvalues > GS_JSON_MAX_VALUES) {
        c->toomany_at = c->i;
        c->stop = 1;
        return;
    }
    char ch = c->t[c->i];
    if (ch == '{') {
        object(c, depth);
    } else if (ch == '[') {
        array(c, depth);
    } else if (ch == '"') {
        if (string(c, 0) < 0)
            c->stop = 1;
    } else {
        size_t n = strspn(c->t + c->i, "+-.0123456789eEtruefalsn");
        if (n == 0)
            c->stop = 1;
        c->i += n;
    }
}

static void line_col(const char *t, size_t at, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < at && t[i]; i++) {
        if (t[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

size_t gs_utf8_bad(const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                   : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (len == 0 || i + len > n || (len == 2 && c < 0xC2) ||
            (len == 4 && c > 0xF4))
            return i;
        for (size_t k = 1; k < len; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return i;
        if ((len == 3 && ((c == 0xE0 && s[i + 1] < 0xA0) ||     /* overlong */
                          (c == 0xED && s[i + 1] >= 0xA0))) ||  /* surrogate */
            (len == 4 && ((c == 0xF0 && s[i + 1] < 0x90) ||     /* overlong */
                          (c == 0xF4 && s[i + 1] >= 0x90))))    /* > 10FFFF */
            return i;
        i += len;
    }
    return SIZE_MAX;
}

int gs_jsoncheck(const char *text, const char *file, struct gs_diag *d)
{
    if (text == NULL)
        return 0;
    size_t bad = gs_utf8_bad(text, strlen(text));
    if (bad != SIZE_MAX) {
        int line, col;
        char *where;
        line_col(text, bad, &line, &col);
        where = gs_strf("%s:%d:%d", file, line, col);
        return gs_diag_set_at(d, GS_EPARSE, where, "not UTF-8 (byte 0x%02X): "
                              "JSON text is UTF-8 (RFC 8259); convert the "
                              "file, e.g. iconv -f LATIN1 -t UTF-8",
                              (unsigned char)text[bad]);
    }
    struct jc c = { .t = text, .issue_at = SIZE_MAX, .toomany_at = SIZE_MAX };
    if (strncmp(text, "\xEF\xBB\xBF", 3) == 0)  /* a UTF-8 BOM, as cJSON */
        c.i = 3;
    /* Never NULL, so an empty key's bytes have an address. */
    c.acap = 1024;
    c.kcap = 64;
    c.arena = malloc(c.acap);
    c.keys = malloc(c.kcap * sizeof *c.keys);
    if (c.arena == NULL || c.keys == NULL || path_put(&c, "$", 1) < 0)
        c.oom = 1;
    else
        value(&c, 0);
    free(c.arena);
    free(c.keys);
    free(c.path.s);
    if (c.oom) {
        free(c.key);
        free(c.kpath);
        return gs_diag_set(d, GS_ENOMEM, file, "out of memory");
    }
    int line, col;
    char *where;
    if (c.toomany_at != SIZE_MAX) {
        free(c.key);
        free(c.kpath);
        line_col(text, c.toomany_at, &line, &col);
        where = gs_strf("%s:%d:%d", file, line, col);
        return gs_diag_set_at(d, GS_EINVAL, where, "more than %d JSON values: "
                              "refused before parsing (they would take about "
                              "%d MiB); a large workload or fleet belongs in "
                              "a trace or node-list file", GS_JSON_MAX_VALUES,
                              (int)((GS_JSON_MAX_VALUES * 64.0) / (1 << 20)));
    }
    int rc = 0;
    if (c.issue_at == SIZE_MAX) {
        rc = 0;
    } else if (c.comment) {
        line_col(text, c.issue_at, &line, &col);
        where = gs_strf("%s:%d:%d", file, line, col);
        rc = gs_diag_set_at(d, GS_EPARSE, where, "a comment, but JSON has "
                            "no comments: remove it (a note can go in a "
                            "\"description\" string)");
    } else {
        int l1, c1;
        line_col(text, c.issue_at, &line, &col);
        line_col(text, c.first_at, &l1, &c1);
        where = gs_strf("%s:%d:%d", file, line, col);
        rc = gs_diag_set_at(d, GS_EPARSE, where, "duplicate key '%s' in %s "
                            "(first at line %d, column %d): each key may "
                            "appear once in an object", c.key, c.kpath, l1,
                            c1);
    }
    free(c.key);
    free(c.kpath);
    return rc;
}
