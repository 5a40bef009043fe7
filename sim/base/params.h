/* params.h -- flat key/value parameters handed to plug-ins from the scenario.
 *
 * A policy or placer's scenario object ({"name": "priority", "preempt": true})
 * becomes a gs_params list.  A plug-in reads what it understands with the
 * getters below, which mark each key used and report a wrong type with the
 * key's JSON path; afterwards gs_params_check_used() turns any key nobody
 * read into an "unknown key" error, so a typo is never silently ignored. */
#ifndef GS_PARAMS_H
#define GS_PARAMS_H

#include "err.h"
#include "simtime.h"

struct gs_param {
    char *key;              /* owned */
    char *str;              /* a string value (owned; a scenario's trace
                               path can be PATH_MAX long), or "" for
                               numbers (not owned) */
    double num;             /* numeric value (booleans: 0/1) */
    int is_num;
    int used;
};

struct gs_params {
    char *where;            /* "file: $.policy", for messages (owned,
                               as long as the file's name; "" when
                               memory ran out) */
    int n;
    struct gs_param *v;
};

/* An empty list whose messages name where (copied); gs_params_free
 * releases it, and a list that is freed is initialised again to reuse. */
void gs_params_init(struct gs_params *p, const char *where);
void gs_params_free(struct gs_params *p);
/* Add a key (copied).  0 or GS_ENOMEM. */
int gs_params_add_num(struct gs_params *p, const char *key, double v);
int gs_params_add_str(struct gs_params *p, const char *key, const char *v);

/* Each getter leaves *out alone when the key is absent and returns 0;
 * returns GS_EINVAL (and fills d) when the value has the wrong type or is
 * outside [lo, hi]. */
int gs_params_num(struct gs_params *p, const char *key, double lo, double hi,
                  double *out, struct gs_diag *d);
int gs_params_int(struct gs_params *p, const char *key, long lo, long hi,
                  long *out, struct gs_diag *d);
int gs_params_bool(struct gs_params *p, const char *key, int *out,
                   struct gs_diag *d);
int gs_params_str(struct gs_params *p, const char *key, const char **out,
                  struct gs_diag *d);
/* A duration: a number of seconds or a string "250ms", "30s", "5m", "2h",
 * "3d".  Result in ms. */
int gs_params_time(struct gs_params *p, const char *key, gs_time *out,
                   struct gs_diag *d);
int gs_params_check_used(const struct gs_params *p, struct gs_diag *d);

/* Join the names of a NULL-terminated registry table into buf, separated
 * by ", ", for "unknown X (known: ...)" messages.  Each entry is a pointer
 * to a struct with a `const char *` name at byte offset name_off. */
void gs_names_join(char *buf, size_t len, const void *const *table,
                   size_t name_off);

/* " (did you mean 'X'?)" for word among the names of table (as above,
 * suggest.h's rule), or "" into buf; returns buf. */
char *gs_names_suggest(const char *word, const void *const *table,
                       size_t name_off, char *buf, size_t len);

/* The length of the decimal number s starts with: an optional '-', digits
 * with at most one '.', at least one digit, an optional exponent (e or E,
 * optional sign, digits); 0 when s does not start with one.  strtod also
 * reads "0x10", "+3", " 3", "inf" and "nan", which a user never means in a
 * trace or a duration: every number gpusim reads from text passes here
 * first. */
size_t gs_decimal_len(const char *s);

/* Parse a duration string as above (also a bare number = seconds; the
 * number decimal, gs_decimal_len).  0 or GS_EINVAL. */
int gs_parse_time(const char *s, gs_time *out);

#endif
