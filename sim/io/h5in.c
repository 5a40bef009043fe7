/* h5in.c -- read any gpusim result file back: the reader side of h5out.
 *
 * See h5in.h.  Each call opens what it reads and closes it before it
 * returns, so no HDF5 id outlives a call.  Numbers are read with the
 * memory type H5T_NATIVE_DOUBLE and HDF5's conversion (integers of any
 * width included); strings are read in the type they were stored in --
 * variable-length ones as char * (reclaimed with H5Dvlen_reclaim), fixed
 * ones as NUL-padded bytes cut at the first NUL -- and copied into
 * memory of the caller's.  A compound column is read through a memory
 * compound of that one member, named as in the file, which is how HDF5
 * picks one field out of a table.
 *
 * The one-shot readers (gs_h5_read_*: open, read one thing, close) and the
 * self-description check (gs_h5_undescribed) are built on the same calls,
 * so there is one reader of gpusim's files, with h5out.c its one writer. */
#include "h5in.h"

#include <errno.h>
#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct gs_h5in {
    hid_t f;
};

int gs_h5in_open(const char *path, struct gs_h5in **out, struct gs_diag *d)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0)
        return gs_diag_set(d, GS_EIO, path, "cannot open it: %s",
                           strerror(errno));
    if (!S_ISREG(st.st_mode))
        return gs_diag_set(d, GS_EIO, path, "not a regular file");
    if (H5Fis_hdf5(path) <= 0)
        return gs_diag_set(d, GS_EPARSE, path, "not an HDF5 file");
    struct gs_h5in *r = malloc(sizeof *r);
    if (r == NULL)
        return gs_diag_set(d, GS_ENOMEM, path, "out of memory");
    r->f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (r->f < 0) {
        free(r);
        return gs_diag_set(d, GS_EIO, path, "cannot open it as HDF5");
    }
    *out = r;
    return 0;
}

void gs_h5in_close(struct gs_h5in *r)
{
    if (r == NULL)
        return;
    H5Fclose(r->f);
    free(r);
}

int gs_h5in_has(const struct gs_h5in *r, const char *path)
{
    if (strcmp(path, "/") == 0)
        return 1;
    /* H5Lexists needs every link before the last to exist: walk them */
    size_t n = strlen(path);
    char *p = malloc(n + 1);
    if (p == NULL)
        return 0;
    memcpy(p, path, n + 1);
    int ok = 1;
    for (size_t i = 1; i <= n && ok; i++) {
        if (p[i] != '/' && p[i] != '\0')
            continue;
        char c = p[i];
        p[i] = '\0';
        ok = H5Lexists(r->f, p, H5P_DEFAULT) > 0 &&
             H5Oexists_by_name(r->f, p, H5P_DEFAULT) > 0;
        p[i] = c;
    }
    free(p);
    return ok;
}

void gs_h5in_strs_free(char **v, size_t n)
{
    if (v == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* n strings of type t (a string type) out of buf into a new array. */
static char **strs_copy(hid_t t, const void *buf, size_t n)
{
    char **v = calloc(n ? n : 1, sizeof *v);
    if (v == NULL)
        return NULL;
    int vl = H5Tis_variable_str(t) > 0;
    size_t w = H5Tget_size(t);
    for (size_t i = 0; i < n; i++) {
        const char *s = vl ? ((char *const *)buf)[i]
                           : (const char *)buf + i * w;
        size_t len = s == NULL ? 0 : vl ? strlen(s) : strnlen(s, w);
        v[i] = malloc(len + 1);
        if (v[i] == NULL) {
            gs_h5in_strs_free(v, n);
            return NULL;
        }
        if (len)
            memcpy(v[i], s, len);
        v[i][len] = '\0';
    }
    return v;
}

/* The strings of attribute a (any rank, fixed- or variable-length) as a
 * new array of *n copies; NULL when it is not text or a read fails. */
static char **attr_strs(hid_t a, size_t *n)
{
    hid_t t = H5Aget_type(a);
    hid_t sp = H5Aget_space(a);
    hssize_t k = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    char **v = NULL;
    if (t >= 0 && k >= 0 && H5Tget_class(t) == H5T_STRING) {
        hid_t mt = H5Tget_native_type(t, H5T_DIR_ASCEND);
        int vl = H5Tis_variable_str(t) > 0;
        size_t w = vl ? sizeof(char *) : H5Tget_size(t);
        void *buf = calloc((size_t)k + 1, w);
        if (buf && mt >= 0 && H5Aread(a, mt, buf) >= 0) {
            v = strs_copy(t, buf, (size_t)k);
            if (vl)
                H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, buf);
            *n = (size_t)k;
        }
        free(buf);
        if (mt >= 0)
            H5Tclose(mt);
    }
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    return v;
}

int gs_h5in_attr_strs(const struct gs_h5in *r, const char *obj,
                      const char *name, char ***v, size_t *n)
{
    *v = NULL;
    *n = 0;
    if (!gs_h5in_has(r, obj) ||
        H5Aexists_by_name(r->f, obj, name, H5P_DEFAULT) <= 0)
        return GS_ENOTFOUND;
    hid_t a = H5Aopen_by_name(r->f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0)
        return GS_ENOTFOUND;
    *v = attr_strs(a, n);
    H5Aclose(a);
    return *v ? 0 : GS_EPARSE;
}

char *gs_h5in_attr_str(const struct gs_h5in *r, const char *obj,
                       const char *name)
{
    char **v;
    size_t n;
    if (gs_h5in_attr_strs(r, obj, name, &v, &n) < 0)
        return NULL;
    char *out = n == 1 ? v[0] : NULL;
    if (n == 1)
        v[0] = NULL;
    gs_h5in_strs_free(v, n);
    return out;
}

int gs_h5in_attr_num(const struct gs_h5in *r, const char *obj,
                     const char *name, double *out)
{
    if (H5Aexists_by_name(r->f, obj, name, H5P_DEFAULT) <= 0)
        return GS_ENOTFOUND;
    hid_t a = H5Aopen_by_name(r->f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
    H5T_class_t c = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    int rc = GS_ENOTFOUND;
    if ((c == H5T_INTEGER || c == H5T_FLOAT) && sp >= 0 &&
        H5Sget_simple_extent_npoints(sp) == 1 &&
        H5Aread(a, H5T_NATIVE_DOUBLE, out) >= 0)
        rc = 0;
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return rc;
}

/* Open dataset path with its type and element count (rank and dims
 * into dims[3] when given).  GS_ENOTFOUND when it is not there. */
static int ds_open(const struct gs_h5in *r, const char *path, hid_t *ds,
                   hid_t *t, size_t *n, size_t dims[3], int *rank)
{
    if (!gs_h5in_has(r, path))
        return GS_ENOTFOUND;
    *ds = H5Dopen2(r->f, path, H5P_DEFAULT);
    if (*ds < 0)
        return GS_ENOTFOUND;
    *t = H5Dget_type(*ds);
    hid_t sp = H5Dget_space(*ds);
    hsize_t d[3] = { 1, 1, 1 };
    int k = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    if (*t < 0 || k < 0 || k > 3 ||
        H5Sget_simple_extent_dims(sp, d, NULL) < 0) {
        if (sp >= 0)
            H5Sclose(sp);
        if (*t >= 0)
            H5Tclose(*t);
        H5Dclose(*ds);
        return GS_EPARSE;
    }
    H5Sclose(sp);
    *n = (size_t)d[0] * (size_t)d[1] * (size_t)d[2];
    if (dims)
        for (int i = 0; i < 3; i++)
            dims[i] = (size_t)d[i];
    if (rank)
        *rank = k;
    return 0;
}

static void ds_close(hid_t ds, hid_t t)
{
    H5Tclose(t);
    H5Dclose(ds);
}

int gs_h5in_doubles(const struct gs_h5in *r, const char *path, double **v,
                    size_t dims[3])
{
    hid_t ds, t;
    size_t n;
    int rank;
    *v = NULL;
    int rc = ds_open(r, path, &ds, &t, &n, dims, &rank);
    if (rc < 0)
        return rc;
    H5T_class_t c = H5Tget_class(t);
    double *buf = malloc((n ? n : 1) * sizeof *buf);
    if (c != H5T_INTEGER && c != H5T_FLOAT)
        rc = GS_EPARSE;
    else if (buf == NULL)
        rc = GS_ENOMEM;
    else if (n && H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                          H5P_DEFAULT, buf) < 0)
        rc = GS_EIO;
    ds_close(ds, t);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *v = buf;
    return rank;
}

/* Read n strings of file type st from dataset ds through memory type mt
 * (mt: st itself, or a compound holding it). */
static int strs_read(hid_t ds, hid_t mt, hid_t st, size_t n, char ***v)
{
    int vl = H5Tis_variable_str(st) > 0;
    size_t w = vl ? sizeof(char *) : H5Tget_size(st);
    void *buf = calloc(n ? n : 1, w);
    if (buf == NULL)
        return GS_ENOMEM;
    int rc = 0;
    if (n && H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        rc = GS_EIO;
    else if ((*v = strs_copy(st, buf, n)) == NULL)
        rc = GS_ENOMEM;
    if (vl && n) {
        hid_t sp = H5Dget_space(ds);
        H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, buf);
        H5Sclose(sp);
    }
    free(buf);
    return rc;
}

int gs_h5in_strings(const struct gs_h5in *r, const char *path, char ***v,
                    size_t *n)
{
    hid_t ds, t;
    *v = NULL;
    int rc = ds_open(r, path, &ds, &t, n, NULL, NULL);
    if (rc < 0)
        return rc;
    if (H5Tget_class(t) != H5T_STRING)
        rc = GS_EPARSE;
    else
        rc = strs_read(ds, t, t, *n, v);
    ds_close(ds, t);
    return rc;
}

/* The member col of compound dataset path: opened ds, its file type t,
 * the member's file type *mt (caller closes all three). */
static int member_open(const struct gs_h5in *r, const char *path,
                       const char *col, hid_t *ds, hid_t *t, hid_t *mt,
                       size_t *n)
{
    int rc = ds_open(r, path, ds, t, n, NULL, NULL);
    if (rc < 0)
        return rc;
    int i = H5Tget_class(*t) == H5T_COMPOUND ? H5Tget_member_index(*t, col)
                                              : -1;
    if (i < 0 || (*mt = H5Tget_member_type(*t, (unsigned)i)) < 0) {
        ds_close(*ds, *t);
        return GS_ENOTFOUND;
    }
    return 0;
}

int gs_h5in_column(const struct gs_h5in *r, const char *path,
                   const char *col, double **v, size_t *n)
{
    hid_t ds, t, ft;
    *v = NULL;
    int rc = member_open(r, path, col, &ds, &t, &ft, n);
    if (rc < 0)
        return rc;
    H5T_class_t c = H5Tget_class(ft);
    hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(double));
    double *buf = malloc((*n ? *n : 1) * sizeof *buf);
    if (c != H5T_INTEGER && c != H5T_FLOAT)
        rc = GS_EPARSE;
    else if (buf == NULL || mt < 0 ||
             H5Tinsert(mt, col, 0, H5T_NATIVE_DOUBLE) < 0)
        rc = GS_ENOMEM;
    else if (*n && H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        rc = GS_EIO;
    if (mt >= 0)
        H5Tclose(mt);
    H5Tclose(ft);
    ds_close(ds, t);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *v = buf;
    return 0;
}

int gs_h5in_column_strs(const struct gs_h5in *r, const char *path,
                        const char *col, char ***v, size_t *n)
{
    hid_t ds, t, ft;
    *v = NULL;
    int rc = member_open(r, path, col, &ds, &t, &ft, n);
    if (rc < 0)
        return rc;
    if (H5Tget_class(ft) != H5T_STRING) {
        rc = GS_EPARSE;
    } else {
        int vl = H5Tis_variable_str(ft) > 0;
        hid_t mt = H5Tcreate(H5T_COMPOUND,
                             vl ? sizeof(char *) : H5Tget_size(ft));
        if (mt < 0 || H5Tinsert(mt, col, 0, ft) < 0)
            rc = GS_ENOMEM;
        else
            rc = strs_read(ds, mt, ft, *n, v);
        if (mt >= 0)
            H5Tclose(mt);
    }
    H5Tclose(ft);
    ds_close(ds, t);
    return rc;
}

int gs_h5in_columns(const struct gs_h5in *r, const char *path, char ***names,
                    size_t *n)
{
    hid_t ds, t;
    size_t rows;
    *names = NULL;
    *n = 0;
    int rc = ds_open(r, path, &ds, &t, &rows, NULL, NULL);
    if (rc < 0)
        return rc;
    int k = H5Tget_class(t) == H5T_COMPOUND ? H5Tget_nmembers(t) : -1;
    char **v = k >= 0 ? calloc((size_t)k + 1, sizeof *v) : NULL;
    rc = k < 0 ? GS_EPARSE : v == NULL ? GS_ENOMEM : 0;
    for (int i = 0; rc == 0 && i < k; i++) {
        char *m = H5Tget_member_name(t, (unsigned)i);
        if (m == NULL || (v[i] = strdup(m)) == NULL)
            rc = GS_ENOMEM;
        if (m)
            H5free_memory(m);
    }
    ds_close(ds, t);
    if (rc < 0) {
        gs_h5in_strs_free(v, k > 0 ? (size_t)k : 0);
        return rc;
    }
    *names = v;
    *n = (size_t)k;
    return 0;
}

struct names {
    char **v;
    size_t n, cap;
    int rc;
};

static herr_t add_name(hid_t g, const char *name, const H5L_info_t *info,
                       void *ctx)
{
    (void)g;
    (void)info;
    struct names *s = ctx;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        char **nv = realloc(s->v, cap * sizeof *nv);
        if (nv == NULL) {
            s->rc = GS_ENOMEM;
            return -1;
        }
        s->v = nv;
        s->cap = cap;
    }
    if ((s->v[s->n] = strdup(name)) == NULL) {
        s->rc = GS_ENOMEM;
        return -1;
    }
    s->n++;
    return 0;
}

int gs_h5in_children(const struct gs_h5in *r, const char *group,
                     char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    if (!gs_h5in_has(r, group))
        return GS_ENOTFOUND;
    struct names s = { 0 };
    hsize_t idx = 0;
    herr_t e = H5Literate_by_name(r->f, group, H5_INDEX_NAME, H5_ITER_INC,
                                  &idx, add_name, &s, H5P_DEFAULT);
    if (e < 0 || s.rc < 0) {
        gs_h5in_strs_free(s.v, s.n);
        return s.rc < 0 ? s.rc : GS_EIO;
    }
    *names = s.v;
    *n = s.n;
    return 0;
}

/* --- one-shot readers ------------------------------------------------------
 * Open path, read one thing through the calls above, close: what tests and
 * compare's merging ask of a file written a moment before. */

int gs_h5_read_series(const char *path, const char *dset, double **out,
                      long *n, struct gs_diag *d)
{
    struct gs_h5in *r;
    size_t dims[3];
    *out = NULL;
    *n = 0;
    int rc = gs_h5in_open(path, &r, d);
    if (rc < 0)
        return rc;
    rc = gs_h5in_doubles(r, dset, out, dims);
    gs_h5in_close(r);
    if (rc == 1) {
        *n = (long)dims[0];
        return 0;
    }
    free(*out);
    *out = NULL;
    return rc == GS_ENOMEM ? gs_diag_set(d, rc, path, "out of memory")
                           : gs_diag_set(d, GS_ENOTFOUND, path, "no 1-D "
                                         "numeric dataset %s", dset);
}

int gs_h5_read_column(const char *path, const char *table,
                      const char *column, double **out, long *n,
                      struct gs_diag *d)
{
    struct gs_h5in *r;
    size_t k = 0;
    *out = NULL;
    *n = 0;
    int rc = gs_h5in_open(path, &r, d);
    if (rc < 0)
        return rc;
    rc = gs_h5in_column(r, table, column, out, &k);
    gs_h5in_close(r);
    if (rc < 0)
        return gs_diag_set(d, rc == GS_ENOMEM ? rc : GS_ENOTFOUND, path,
                           "no numeric column '%s' in %s", column, table);
    *n = (long)k;
    return 0;
}

int gs_h5_read_attr_num(const char *path, const char *obj, const char *name,
                        double *out, struct gs_diag *d)
{
    struct gs_h5in *r;
    int rc = gs_h5in_open(path, &r, d);
    if (rc < 0)
        return rc;
    rc = gs_h5in_attr_num(r, obj, name, out);
    gs_h5in_close(r);
    return rc < 0 ? gs_diag_set(d, GS_ENOTFOUND, path, "no numeric "
                                "attribute %s of %s", name, obj) : 0;
}

int gs_h5_read_summary(const char *path, const char *name, double *out,
                       struct gs_diag *d)
{
    return gs_h5_read_attr_num(path, "/summary", name, out, d);
}

int gs_h5_read_attr_str(const char *path, const char *obj, const char *name,
                        char *buf, size_t n, struct gs_diag *d)
{
    struct gs_h5in *r;
    int rc = gs_h5in_open(path, &r, d);
    if (rc < 0)
        return rc;
    char *s = gs_h5in_attr_str(r, obj, name);
    gs_h5in_close(r);
    rc = s == NULL || strlen(s) + 1 > n
        ? gs_diag_set(d, GS_ENOTFOUND, path, "no string attribute %s of %s",
                      name, obj) : 0;
    if (rc == 0)
        memcpy(buf, s, strlen(s) + 1);
    free(s);
    return rc;
}

/* /jobs' columns and where each goes in struct gs_h5_job, with its C
 * type: 'l' int64_t, 'i' int32_t, 'b' int8_t, 'd' double. */
static const struct { const char *col; size_t off; char type; } jobcols[] = {
#define C(f, ty) { #f, offsetof(struct gs_h5_job, f), ty }
    C(id, 'l'), C(tenant, 'i'), C(tier, 'i'), C(state, 'i'), C(kill, 'i'),
    C(model, 'i'), C(preemptions, 'i'), C(arrival_s, 'd'), C(start_s, 'd'),
    C(end_s, 'd'), C(wait_s, 'd'), C(gpus, 'd'), C(work_s, 'd'),
    C(gpu_hours, 'd'), C(sla_wait, 'b'), C(sla_deadline, 'b'),
    C(cost_usd, 'd'), C(lost_gpu_hours, 'd'), C(cpu_milli, 'i'),
    C(mem_mib, 'i'),
#undef C
};

/* Column c of /jobs (k rows) into rows. */
static void put_column(struct gs_h5_job *rows, size_t k, int c,
                       const double *v)
{
    for (size_t i = 0; i < k; i++) {
        char *p = (char *)&rows[i] + jobcols[c].off;
        switch (jobcols[c].type) {
        case 'l': *(int64_t *)(void *)p = (int64_t)v[i]; break;
        case 'i': *(int32_t *)(void *)p = (int32_t)v[i]; break;
        case 'b': *(int8_t *)(void *)p = (int8_t)v[i]; break;
        default: *(double *)(void *)p = v[i]; break;
        }
    }
}

int gs_h5_read_jobs(const char *path, struct gs_h5_job **out, long *n,
                    struct gs_diag *d)
{
    struct gs_h5in *r;
    *out = NULL;
    *n = 0;
    int rc = gs_h5in_open(path, &r, d);
    if (rc < 0)
        return rc;
    struct gs_h5_job *rows = NULL;
    size_t k = 0;
    for (size_t c = 0; rc == 0 && c < sizeof jobcols / sizeof jobcols[0];
         c++) {
        double *v;
        size_t m;
        if ((rc = gs_h5in_column(r, "/jobs", jobcols[c].col, &v, &m)) < 0)
            break;
        if (c == 0 && (rows = calloc(m ? m : 1, sizeof *rows)) == NULL)
            rc = GS_ENOMEM;
        else if (c > 0 && m != k)
            rc = GS_EPARSE;
        else
            put_column(rows, k = m, (int)c, v);
        free(v);
    }
    gs_h5in_close(r);
    if (rc < 0) {
        free(rows);
        return rc == GS_ENOMEM ? gs_diag_set(d, rc, path, "out of memory")
                               : gs_diag_set(d, GS_ENOTFOUND, path, "no "
                                             "/jobs table of gpusim run");
    }
    *out = rows;
    *n = (long)k;
    return 0;
}

/* --- the self-description check ------------------------------------------- */

struct undesc {
    long count;
    char *first;
    size_t n;
};

/* The strings of dataset ds's attribute name (*n of them), or NULL. */
static char **ds_attr(hid_t ds, const char *name, size_t *n)
{
    *n = 0;
    if (H5Aexists(ds, name) <= 0)
        return NULL;
    hid_t a = H5Aopen(ds, name, H5P_DEFAULT);
    char **v = a >= 0 ? attr_strs(a, n) : NULL;
    if (a >= 0)
        H5Aclose(a);
    return v;
}

/* 1 when s is a placeholder, not a description: text pointing elsewhere
 * ("see the README's ...", "see units") or left to do. */
static int placeholder(const char *s)
{
    return strncmp(s, "see ", 4) == 0 || strstr(s, "README") ||
           strstr(s, "TODO") || strstr(s, "XXX") || strcmp(s, "by kind") == 0;
}

/* 1 when text says something: not empty, not a placeholder. */
static int says(const char *s)
{
    return s[0] != '\0' && !placeholder(s);
}

/* 1 when a unit fits data of HDF5 class cls: text has none (""), numbers
 * have one, and neither a placeholder. */
static int unit_fits(const char *u, H5T_class_t cls)
{
    return cls == H5T_STRING ? u[0] == '\0' : says(u);
}

/* 1 when dataset ds (type t) has a description and unit that say
 * something, and so does every column of a compound. */
static int described(hid_t ds, hid_t t)
{
    size_t nu = 0, nd = 0, ncu = 0, ncd = 0;
    char **u = ds_attr(ds, "units", &nu);
    char **d = ds_attr(ds, "description", &nd);
    H5T_class_t cls = H5Tget_class(t);
    int ok = u && d && nu == 1 && nd == 1 && says(d[0]) &&
             (cls == H5T_COMPOUND ? u[0][0] == '\0' : unit_fits(u[0], cls));
    gs_h5in_strs_free(u, nu);
    gs_h5in_strs_free(d, nd);
    if (!ok || cls != H5T_COMPOUND)
        return ok;
    int nm = H5Tget_nmembers(t);
    char **cu = ds_attr(ds, "column_units", &ncu);
    char **cd = ds_attr(ds, "column_descriptions", &ncd);
    ok = cu && cd && ncu == (size_t)nm && ncd == (size_t)nm;
    for (int i = 0; ok && i < nm; i++) {
        hid_t mt = H5Tget_member_type(t, (unsigned)i);
        ok = says(cd[i]) && unit_fits(cu[i], H5Tget_class(mt));
        if (mt >= 0)
            H5Tclose(mt);
    }
    gs_h5in_strs_free(cu, ncu);
    gs_h5in_strs_free(cd, ncd);
    return ok;
}

static herr_t check_one(hid_t obj, const char *name, const H5O_info_t *info,
                        void *arg)
{
    struct undesc *u = arg;
    if (info->type != H5O_TYPE_DATASET)
        return 0;
    hid_t ds = H5Dopen2(obj, name, H5P_DEFAULT);
    hid_t t = ds >= 0 ? H5Dget_type(ds) : -1;
    int ok = ds >= 0 && t >= 0 && described(ds, t);
    if (t >= 0)
        H5Tclose(t);
    if (ds >= 0)
        H5Dclose(ds);
    if (!ok && u->count++ == 0)
        snprintf(u->first, u->n, "/%s", name);
    return 0;
}

long gs_h5_undescribed(const char *path, char *first, size_t n)
{
    struct gs_h5in *r;
    if (n)
        first[0] = '\0';
    if (gs_h5in_open(path, &r, NULL) < 0)
        return GS_EIO;
    struct undesc u = { 0, first, n };
    herr_t e = H5Ovisit2(r->f, H5_INDEX_NAME, H5_ITER_INC, check_one, &u,
                         H5O_INFO_BASIC);
    gs_h5in_close(r);
    return e < 0 ? GS_EIO : u.count;
}
