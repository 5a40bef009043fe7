/* h5in.h -- read any gpusim result file back: the reader side of h5out.
 *
 * `gpusim report` reads what run, compare and plan wrote without knowing
 * the writer's structs: datasets and attributes by path, numbers as
 * doubles whatever their stored type (HDF5 converts f8, i4, i8, u8 alike),
 * strings fixed-length or variable-length, compound tables one column at
 * a time by the column's name, and the children of a group by name (the
 * order HDF5's name index gives, so the same file reads the same way every
 * time).  Nothing here writes; every call on a missing object fails
 * quietly (HDF5's own error printing is off), so a reader asks for what a
 * kind of file may hold and shows what is there.  hid_t stays inside
 * h5in.c (STYLE.md: library types inside the one file that wraps them).
 *
 * Ownership: every array and string returned is malloc'ed and the
 * caller's; string arrays are freed with gs_h5in_strs_free. */
#ifndef GS_H5IN_H
#define GS_H5IN_H

#include "../base/err.h"

#include <stddef.h>
#include <stdint.h>

struct gs_h5in;

/* Open path read-only.  0, or GS_EIO (cannot be opened: missing,
 * unreadable) or GS_EPARSE (not an HDF5 file) with d naming path. */
int gs_h5in_open(const char *path, struct gs_h5in **out, struct gs_diag *d);
void gs_h5in_close(struct gs_h5in *r);

/* 1 when the object at path exists (every link on the way), else 0. */
int gs_h5in_has(const struct gs_h5in *r, const char *path);

/* The string attribute name of object obj, or NULL (absent, not one
 * string, out of memory). */
char *gs_h5in_attr_str(const struct gs_h5in *r, const char *obj,
                       const char *name);
/* A numeric scalar attribute into *out: 0, or GS_ENOTFOUND. */
int gs_h5in_attr_num(const struct gs_h5in *r, const char *obj,
                     const char *name, double *out);

/* A numeric dataset of rank 1 to 3 as doubles (row-major) with its
 * dims (unused ones 1): its rank, or a negative code. */
int gs_h5in_doubles(const struct gs_h5in *r, const char *path, double **v,
                    size_t dims[3]);
/* A 1-D (or scalar) dataset of strings: 0 or a negative code. */
int gs_h5in_strings(const struct gs_h5in *r, const char *path, char ***v,
                    size_t *n);
/* Column col of the compound table at path, as doubles or strings. */
int gs_h5in_column(const struct gs_h5in *r, const char *path,
                   const char *col, double **v, size_t *n);
int gs_h5in_column_strs(const struct gs_h5in *r, const char *path,
                        const char *col, char ***v, size_t *n);

/* The column names of the compound table at path, in the file's order:
 * 0 or a negative code. */
int gs_h5in_columns(const struct gs_h5in *r, const char *path, char ***names,
                    size_t *n);

/* The names of group's children, in name order: 0 or a negative code. */
int gs_h5in_children(const struct gs_h5in *r, const char *group,
                     char ***names, size_t *n);

/* The strings of attribute name of obj, any rank: 0 (free them with
 * gs_h5in_strs_free), GS_ENOTFOUND, or GS_EPARSE (not text). */
int gs_h5in_attr_strs(const struct gs_h5in *r, const char *obj,
                      const char *name, char ***v, size_t *n);

void gs_h5in_strs_free(char **v, size_t n);

/* --- one-shot readers -----------------------------------------------------
 * Each opens path, reads one thing with the calls above and closes it:
 * what tests and compare ask of a file written a moment before.  The
 * arrays are malloc'ed (the caller frees them); 0, or a negative code
 * with d naming path and what is missing. */

/* One row of /jobs, as read back. */
struct gs_h5_job {
    int64_t id;
    int32_t tenant, tier, state, kill, model, preemptions;
    double arrival_s, start_s, end_s, wait_s, gpus, work_s, gpu_hours;
    int8_t sla_wait, sla_deadline;
    double cost_usd, lost_gpu_hours;
    int32_t cpu_milli, mem_mib;     /* host CPU and memory asked */
};


/* Read /jobs back, column by column by name; *out is malloc'ed (caller
 * frees).  0 or a negative code with d filled. */
int gs_h5_read_jobs(const char *path, struct gs_h5_job **out, long *n,
                    struct gs_diag *d);
/* Read a numeric attribute of /summary. */
int gs_h5_read_summary(const char *path, const char *name, double *out,
                       struct gs_diag *d);
/* Read a 1-D dataset of doubles (e.g. "/timeseries/allocated_gpus"). */
int gs_h5_read_series(const char *path, const char *dset, double **out,
                      long *n, struct gs_diag *d);

/* Read one numeric column of a 1-D table (a compound dataset such as
 * "/requests", column "ttft_s") as doubles; *out is malloc'ed (caller
 * frees).  0, or a negative code with d filled (no such table or column). */
int gs_h5_read_column(const char *path, const char *table,
                      const char *column, double **out, long *n,
                      struct gs_diag *d);

/* Read the string attribute name of object obj ("/", "/jobs") into buf.
 * 0, or a negative code with d filled. */
int gs_h5_read_attr_str(const char *path, const char *obj, const char *name,
                        char *buf, size_t n, struct gs_diag *d);

/* Read the numeric (scalar) attribute name of object obj into *out.  0,
 * or a negative code with d filled. */
int gs_h5_read_attr_num(const char *path, const char *obj, const char *name,
                        double *out, struct gs_diag *d);

/* Datasets of the file at path that do not describe themselves: a
 * "units" or "description" attribute missing, an empty description, a
 * compound without "column_units" and "column_descriptions" or with an
 * empty column description, or a placeholder pointing elsewhere ("see the
 * README's ...") in any of them: their count (the first one's path in first[n]), or a
 * negative code when the file cannot be read. */
long gs_h5_undescribed(const char *path, char *first, size_t n);


#endif
