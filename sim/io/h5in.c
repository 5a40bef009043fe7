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
 * picks one field out of a table. */
#include "h5in.h"

#include <errno.h>
#include <hdf5.h>
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

char *gs_h5in_attr_str(const struct gs_h5in *r, const char *obj,
                       const char *name)
{
    if (H5Aexists_by_name(r->f, obj, name, H5P_DEFAULT) <= 0)
        return NULL;
    hid_t a = H5Aopen_by_name(r->f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    char *out = NULL;
    if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
        hid_t mt = H5Tget_native_type(t, H5T_DIR_ASCEND);
        int vl = H5Tis_variable_str(t) > 0;
        size_t w = vl ? sizeof(char *) : H5Tget_size(t);
        void *buf = calloc(1, w + 1);
        char **v = NULL;
        if (buf && mt >= 0 && H5Aread(a, mt, buf) >= 0) {
            v = strs_copy(t, buf, 1);
            if (vl) {
                hid_t sp = H5Screate(H5S_SCALAR);
                H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, buf);
                H5Sclose(sp);
            }
        }
        if (v) {
            out = v[0];
            free(v);
        }
        free(buf);
        if (mt >= 0)
            H5Tclose(mt);
    }
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
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
