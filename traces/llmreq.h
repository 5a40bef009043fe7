/* llmreq.h -- LLM inference request streams: the request table.
 *
 * Inference traces list requests, not jobs: when a request arrives, how
 * many prompt (input) tokens it brings and how many tokens it generates,
 * and -- in Mooncake's traces -- which 512-token prefix blocks its prompt is
 * made of, so that KV-cache reuse between requests can be modeled.  A
 * request table holds a whole trace in arrival order; the inference model
 * consumes it.
 *
 * Formats (gs_request_formats):
 *   azure-llm   Azure LLM inference trace 2023: TIMESTAMP,ContextTokens,
 *               GeneratedTokens (TIMESTAMP "YYYY-MM-DD HH:MM:SS.fffffff")
 *   mooncake    Mooncake JSON Lines: {"timestamp": ms, "input_length": n,
 *               "output_length": n, "hash_ids": [block ids]}
 *   splitwise   splitwise-sim request CSV: request_id,request_type,
 *               application_id,arrival_timestamp (s),batch_size,
 *               prompt_size,token_size
 *   requests    gpusim's own request CSV, what `trace convert` writes:
 *               id,arrival (s, ms precision),input_tokens,output_tokens,
 *               prefix_blocks (ids separated by '|', empty = none)
 * Arrivals are in ms after the trace's origin: the earliest request (its
 * wall-clock time is kept in origin_ms when the trace has one). */
#ifndef GS_LLMREQ_H
#define GS_LLMREQ_H

#include "../sim/core/engine.h"
#include "../sim/base/err.h"
#include "tread.h"

#include <stdint.h>
#include <stdio.h>

/* Tokens per prefix block in Mooncake's traces. */
#define GS_PREFIX_BLOCK_TOKENS 512

struct gs_request {
    int64_t id;
    gs_time arrival;            /* ms after the table's origin */
    int32_t input_tokens;       /* prompt (context) tokens */
    int32_t output_tokens;      /* generated tokens */
    uint32_t nblocks;           /* prefix blocks of the prompt */
    uint64_t block0;            /* index of the first in the table's blocks */
    long line;                  /* trace line it came from */
};

struct gs_reqtable {
    char *path;                 /* owned */
    char format[32];
    long n;
    struct gs_request *r;       /* n requests, sorted by arrival (stable) */
    uint64_t nblocks;
    int64_t *blocks;            /* every request's block ids, in order */
    int64_t origin_ms;          /* wall clock of arrival 0 (ms since 1970
                                   UTC), 0 when the trace has none */
    struct gs_treport rep;      /* rows, skipped, sorted */
    long cap;
    uint64_t capb;
};

/* NULL-terminated names of the request formats. */
extern const char *const gs_request_formats[];
int gs_request_format_known(const char *name);

/* Load a whole request trace.  With skip_bad 0 the first bad row is the
 * error; with 1 bad rows are skipped and counted in rep.  Unsorted input is
 * sorted stably and reported on gs_trace_log().  On success *out is a new
 * table (gs_reqtable_free).  0 or a negative code with d filled
 * ("FILE:LINE: field 'input_length'"). */
int gs_reqtable_load(const char *format, const char *path, int skip_bad,
                     struct gs_reqtable **out, struct gs_diag *d);
void gs_reqtable_free(struct gs_reqtable *t);

/* The prefix block ids of request r of table t (r->nblocks of them). */
static inline const int64_t *gs_request_blocks(const struct gs_reqtable *t,
                                               const struct gs_request *r)
{
    return t->blocks + r->block0;
}

/* Write t as a "requests" CSV (header and one row a request); reading it
 * back gives the same requests. */
void gs_reqtable_write(FILE *fp, const struct gs_reqtable *t);

/* Seconds since 1970-01-01 UTC of "YYYY-MM-DD HH:MM:SS[.fraction]" in
 * milliseconds; 0 or -1 when s is not such a time. */
int gs_parse_datetime_ms(const char *s, int64_t *ms);

#endif
