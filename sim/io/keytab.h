/* keytab.h -- key tables: each JSON object a scenario holds, described once.
 *
 * A table lists the keys of one JSON object: the key's name, the JSON forms
 * its value may take (a string, a number, an integer, true/false, a
 * duration, an object described by another table, an array), whether it
 * is required, its numeric range, the longest string, the names it may
 * take (a fixed list, or a registry: policies, GPU models, trace
 * formats...), its unit and a one-line description.  Rules tie keys
 * together where one key's value decides another's presence ("a spot pool
 * needs spot", "give exactly one of trace and generate").
 *
 * The scenario parser reads through the tables: gs_kt_keys refuses a key
 * the table does not list (with "did you mean"), and gs_kt_num, gs_kt_int,
 * gs_kt_str, gs_kt_bool and gs_kt_time take the key's range, requiredness
 * and length from its entry, so the messages are jsonio.h's and a range is
 * written in one place.  Checks no table can say (a partition's pool
 * exists, quantiles do not decrease) stay in the parser's code.
 *
 * The same tables make the JSON Schema (draft 2020-12) that `gpusim
 * scenario --schema` prints: every table a "$defs" entry, closed
 * ("additionalProperties": false) unless the object takes free parameters,
 * ranges as minimum/maximum, names as enums, rules as if/then.  Registries
 * above this layer (policies, placers, trace formats) are named by a
 * source id; whoever prints the schema says what each holds. */
#ifndef GS_KEYTAB_H
#define GS_KEYTAB_H

#include "../core/engine.h"
#include "jsonio.h"

#include <stddef.h>
#include <stdio.h>

/* The JSON forms a value may take (a bit mask). */
enum gs_kt_type {
    GS_KT_STR = 1,
    GS_KT_NUM = 2,
    GS_KT_INT = 4,          /* a whole number */
    GS_KT_BOOL = 8,
    GS_KT_DUR = 16,         /* seconds (>= 0) or "250ms", "30s", "5m", ... */
    GS_KT_OBJ = 32,         /* the object .obj describes */
    GS_KT_ARR = 64,         /* elements of the forms in .items */
};

/* Flags of a key. */
#define GS_KF_REQ 1         /* required (and a required string not empty) */
#define GS_KF_CI 2          /* names compared without regard to case */
#define GS_KF_NONEMPTY 4    /* a string not empty (required where a rule
                               requires it; read after gs_kt_need) */

/* Where a key's names come from, when not a fixed list. */
enum gs_kt_src {
    GS_KS_NONE,
    GS_KS_POLICY,           /* the policy registry (policies/) */
    GS_KS_PLACER,           /* the placement registry */
    GS_KS_TRACE_FORMAT,     /* trace formats */
    GS_KS_NODE_FORMAT,      /* node-list formats */
    GS_KS_QUEUE_FORMAT,     /* queue-list formats (tenants) */
    GS_KS_REQ_FORMAT,       /* request trace formats */
    GS_KS_GPU,              /* the built-in GPU catalog (and gpu_models) */
    GS_KS_LLM,              /* built-in LLM architectures */
    GS_KS_ROUTER,           /* request routers */
    GS_KS_N
};

struct gs_kt_obj;

struct gs_kt_key {
    const char *name;
    unsigned type;                  /* enum gs_kt_type mask */
    unsigned flags;                 /* GS_KF_* */
    double lo, hi;                  /* a number's range (or an array's
                                       numbers'); lo == hi: none */
    int maxlen;                     /* a string's longest; 0: none */
    const char *const *names;       /* a string's names (NULL-terminated) */
    int src;                        /* or enum gs_kt_src */
    const struct gs_kt_obj *obj;    /* GS_KT_OBJ's (or the elements') */
    unsigned items;                 /* GS_KT_ARR: the elements' forms */
    int min_items, max_items;       /* 0: no bound */
    const char *schema;             /* raw JSON Schema for a shape the
                                       fields cannot say; replaces them */
    const char *unit;               /* "s", "GB", "$/h", ...; NULL: none */
    const char *desc;
};

/* A rule: when the condition holds, the object must (need) have all keys
 * of a space-separated list, (any) at least one of them, (one) exactly
 * one of them, (only) no keys but these, (forbid) none of these. */
enum gs_kt_cond {
    GS_KC_ALWAYS,
    GS_KC_HAS,              /* key present */
    GS_KC_LACKS,            /* key absent */
    GS_KC_IS,               /* key present with string value val */
    GS_KC_ISNT,             /* key absent or not string val */
    GS_KC_ZERO,             /* key present and the number 0 */
    GS_KC_NONZERO,          /* key absent or not 0 */
};

struct gs_kt_rule {
    int cond;
    const char *key, *val;
    int cond2;                      /* a second condition, ANDed (0: none) */
    const char *key2, *val2;
    const char *need, *any, *one, *only, *forbid, *excl;  /* excl: not all */
};

struct gs_kt_obj {
    const char *id;                 /* its "$defs" name */
    const char *desc;
    const struct gs_kt_key *keys;   /* ends with a NULL name */
    const struct gs_kt_key *more;   /* keys shared with other tables, after
                                       keys (NULL: none) */
    const struct gs_kt_key *more2;  /* and after those */
    int open;                       /* 1: other keys are free parameters
                                       (numbers, booleans, strings) */
    const struct gs_kt_rule *rules; /* ends with need == any == ... NULL
                                       and cond 0; NULL: none */
    const struct gs_kt_obj *map;    /* a map: any key, each value this
                                       table's object (keys unused) */
};

/* The entry of key in t, or NULL. */
const struct gs_kt_key *gs_kt_find(const struct gs_kt_obj *t,
                                   const char *key);

/* o must be an object with only t's keys (gs_json_keys' messages). */
int gs_kt_keys(const struct gs_jin *c, const struct gs_json *o,
               const char *path, const struct gs_kt_obj *t);

/* The same with the allowed keys the space-separated only (each one of
 * t's), in that order: the keys of one variant of t (a sharing mode). */
int gs_kt_keys_only(const struct gs_jin *c, const struct gs_json *o,
                    const char *path, const struct gs_kt_obj *t,
                    const char *only);
/* "missing required key" when o lacks key (a key a rule requires). */
int gs_kt_need(const struct gs_jin *c, const struct gs_json *o,
               const char *path, const char *key);

/* Read o[key] (o at path) as t's entry for key says: its range, whether it
 * is required, its longest string.  Absent and optional: *out unchanged.
 * The entry must exist and take the form asked for (GS_ASSERT). */
int gs_kt_num(const struct gs_jin *c, const struct gs_json *o,
              const char *path, const struct gs_kt_obj *t, const char *key,
              double *out);
int gs_kt_int(const struct gs_jin *c, const struct gs_json *o,
              const char *path, const struct gs_kt_obj *t, const char *key,
              long *out);
/* out has room for the entry's maxlen characters and the NUL. */
int gs_kt_str(const struct gs_jin *c, const struct gs_json *o,
              const char *path, const struct gs_kt_obj *t, const char *key,
              char *out, size_t n);
int gs_kt_bool(const struct gs_jin *c, const struct gs_json *o,
               const char *path, const struct gs_kt_obj *t, const char *key,
               int *out);
int gs_kt_time(const struct gs_jin *c, const struct gs_json *o,
               const char *path, const struct gs_kt_obj *t, const char *key,
               gs_time *out);

/* The names each source holds, for the schema (NULL-terminated lists;
 * a NULL list prints the key as a plain string). */
struct gs_kt_names {
    const char *const *src[GS_KS_N];
    /* Where the root lacks key strict_unless (gpu_models), the names of
     * source strict_src (GS_KS_GPU) must be that source's own; elsewhere
     * they are suggestions (a scenario may declare more).  0: none. */
    int strict_src;
    const char *strict_unless;
};

/* Write the JSON Schema of root (and every table it reaches) to fp:
 * id is its "$id", title its title.  0, or GS_EIO. */
int gs_kt_schema(FILE *fp, const struct gs_kt_obj *root, const char *id,
                 const char *title, const struct gs_kt_names *names);

#endif
