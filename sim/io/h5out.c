/* h5out.c -- write gpusim's HDF5 result files (layout in h5out.h).
 *
 * With h5in.c (which reads them back), the only file that includes
 * hdf5.h.  HDF5's automatic error printing is
 * turned off; every failure becomes a gs_diag naming the file and the object
 * being written.  Every string -- datasets, compound columns, attributes --
 * is variable-length UTF-8 (H5T_VARIABLE, H5T_CSET_UTF8): no width to
 * guess or truncate at, and h5py reads attributes as str (datasets and
 * columns as bytes, or str through .asstr()).  In memory a string is a
 * `const char *`, in a compound row too.  Every dataset gets "units" and
 * "description" attributes (a compound "column_units" and
 * "column_descriptions") from h5desc.c's tables, report.c's metas or what
 * the writer passes (gs_h5col, gs_h5_ds, gs_h5w_describe);
 * h5in.c's gs_h5_undescribed checks a file for gaps and placeholders. */
#include "h5out.h"
#include "h5in.h"
#include "h5desc.h"
#include "h5chunk.h"
#include "outfile.h"
#include "report.h"
#include "question.h"
#include "../core/model.h"
#include "../base/bigmem.h"
#include "../base/version.h"

#include <hdf5.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct w {
    hid_t f;
    const char *path;
    struct gs_diag *d;
    int err;
    struct gs_out out;      /* the temporary the file is written under */
    double sample;          /* the share of requests kept (gs_h5w_sample) */
    const struct gs_h5col *cols;    /* the table being written, if a */
    int ncols;                      /* model's (its columns' meta) */
};

/* Object creation properties with time tracking off: HDF5 otherwise
 * stamps every object header with the clock, and two runs of the same
 * scenario and seed would not give byte-identical files. */
static hid_t ocpl(hid_t cls)
{
    hid_t p = H5Pcreate(cls);
    if (p >= 0)
        H5Pset_obj_track_times(p, 0);
    return p;
}

static hid_t group(hid_t loc, const char *name)
{
    hid_t p = ocpl(H5P_GROUP_CREATE);
    hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, p, H5P_DEFAULT);
    H5Pclose(p);
    return g;
}

static int fail(struct w *w, const char *what)
{
    if (!w->err)
        w->err = gs_diag_set(w->d, GS_EIO, w->path, "HDF5: cannot write %s",
                             what);
    return w->err;
}

/* The variable-length UTF-8 string type (memory: a `const char *`). */
static hid_t str_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

/* A string attribute; one already there (the derived description of a
 * dataset a writer describes better) is replaced. */
static void attr_str(struct w *w, hid_t obj, const char *name, const char *v)
{
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    hid_t t = str_type();
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, t, &v) < 0)
        fail(w, name);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
}

static void attr_int(struct w *w, hid_t obj, const char *name, int64_t v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_STD_I64LE, sp, H5P_DEFAULT,
                         H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, H5T_NATIVE_INT64, &v) < 0)
        fail(w, name);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
}

/* A 1-D attribute of n strings. */
static void attr_strs(struct w *w, hid_t obj, const char *name,
                      const char *const *v, size_t n)
{
    hid_t t = str_type();
    hsize_t dim = n;
    hid_t sp = H5Screate_simple(1, &dim, NULL);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || (n > 0 && H5Awrite(a, t, v) < 0))
        fail(w, name);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
}

/* ds's path without the leading "/" and a comparison's "runs/P/seedK/",
 * into buf (n bytes); "" when HDF5 cannot say. */
static const char *rel_path(hid_t ds, char *buf, size_t n)
{
    ssize_t k = H5Iget_name(ds, buf, n);
    if (k <= 0 || (size_t)k >= n)
        return "";
    const char *p = buf[0] == '/' ? buf + 1 : buf;
    if (strncmp(p, "runs/", 5) == 0) {
        const char *a = strchr(p + 5, '/');
        const char *b = a ? strchr(a + 1, '/') : NULL;
        if (b)
            p = b + 1;
    }
    return p;
}

/* Put "units" and "description" on dataset ds called name; a compound's
 * columns get "column_units" and "column_descriptions" in field order. */
static void describe(struct w *w, hid_t ds, const char *name, hid_t t)
{
    const char *units, *desc = NULL;
    char pbuf[512];
    const char *path = rel_path(ds, pbuf, sizeof pbuf);
    const char *punits = NULL;
    desc = gs_h5desc_dataset(path, name, &punits);
    if (H5Tget_class(t) == H5T_COMPOUND) {
        int n = H5Tget_nmembers(t);
        const char **cu = calloc((size_t)(n > 0 ? n : 1), sizeof *cu);
        const char **cd = calloc((size_t)(n > 0 ? n : 1), sizeof *cd);
        char **names = calloc((size_t)(n > 0 ? n : 1), sizeof *names);
        if (!cu || !cd || !names) {
            fail(w, name);
        } else {
            for (int i = 0; i < n; i++) {
                names[i] = H5Tget_member_name(t, (unsigned)i);
                if (names[i] == NULL) {
                    cu[i] = "1";
                    cd[i] = "";
                } else {
                    gs_h5desc_column(path, names[i], &cu[i], &cd[i]);
                    for (int k = 0; w->cols && k < w->ncols; k++)
                        if (strcmp(w->cols[k].name, names[i]) == 0 &&
                            w->cols[k].units && w->cols[k].desc) {
                            cu[i] = w->cols[k].units;
                            cd[i] = w->cols[k].desc;
                        }
                }
            }
            attr_strs(w, ds, "column_units", cu, (size_t)n);
            attr_strs(w, ds, "column_descriptions", cd, (size_t)n);
            for (int i = 0; i < n; i++)
                H5free_memory(names[i]);
        }
        free(cu);
        free(cd);
        free(names);
        units = "";
    } else if (H5Tget_class(t) == H5T_STRING) {
        units = "";
    } else {
        const char *d2;
        gs_report_meta(name, &units, &d2);
        if (desc == NULL)
            desc = d2;
    }
    attr_str(w, ds, "units", punits ? punits : units);
    attr_str(w, ds, "description", desc ? desc : "");
}

static void attr_num(struct w *w, hid_t obj, const char *name, double v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT,
                         H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, H5T_NATIVE_DOUBLE, &v) < 0)
        fail(w, name);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
}

/* Rows a chunk of a large dataset holds, and the rows a table is written
 * in at a time (dset_rows): the same number, so every piece is whole
 * chunks and the file is the same bytes as one write of the whole. */
enum { CHUNK_ROWS = 65536 };

/* Create dataset name of type t (memory; the file's is t packed) with rank
 * dims: large ones chunked by rows and compressed.  The dataset, or -1
 * (failure noted). */
static hid_t dset_create(struct w *w, hid_t loc, const char *name, hid_t t,
                         int rank, const hsize_t *dims)
{
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = ocpl(H5P_DATASET_CREATE);
    hsize_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    if (n >= 4096) {        /* compress large tables, chunked by rows */
        hsize_t chunk[3] = { dims[0] < CHUNK_ROWS ? dims[0] : CHUNK_ROWS,
                             rank > 1 ? dims[1] : 1, rank > 2 ? dims[2] : 1 };
        GS_ASSERT(rank <= 3);
        H5Pset_chunk(dcpl, rank, chunk);
        /* Shuffle (bytes of like significance together), then deflate at
         * level 1: a million requests' file is 29 MB written in 1.7-1.8 s
         * of CPU against 43 MB in 2.5-3.1 s at level 4 without shuffle
         * (gpusim run of bench_service's 60% scenario, shared VM). */
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 1);
    }
    /* A compound is stored packed: only its fields reach the file, never
     * the padding bytes of the C struct (which are not deterministic). */
    hid_t ft = H5Tget_class(t) == H5T_COMPOUND ? H5Tcopy(t) : t;
    if (ft != t)
        H5Tpack(ft);
    hid_t ds = H5Dcreate2(loc, name, ft, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0)
        fail(w, name);
    if (ft != t)
        H5Tclose(ft);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return ds;
}

/* Describe and close what dset_create made (ds < 0: nothing). */
static void dset_close(struct w *w, hid_t ds, const char *name, hid_t t)
{
    if (ds >= 0) {
        describe(w, ds, name, t);
        H5Dclose(ds);
    }
}

/* Write a dataset of type t (memory and file) with rank dims. */
static void dset(struct w *w, hid_t loc, const char *name, hid_t t, int rank,
                 const hsize_t *dims, const void *data)
{
    hsize_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    hid_t ds = dset_create(w, loc, name, t, rank, dims);
    /* HDF5 clears a type-conversion buffer of 1 MB for every write that
     * converts (compounds, strings): a small dataset's own size does
     * (four times it covers a file type larger than memory's, as a
     * variable-length string's; the buffer's size changes no byte) */
    size_t need = (size_t)n * H5Tget_size(t) * 4;
    hid_t dx = H5P_DEFAULT;
    if (need < (1u << 20) && (dx = H5Pcreate(H5P_DATASET_XFER)) >= 0 &&
        H5Pset_buffer(dx, need > 4096 ? need : 4096, NULL, NULL) < 0) {
        H5Pclose(dx);
        dx = H5P_DEFAULT;
    }
    if (dx < 0)
        dx = H5P_DEFAULT;
    if (ds >= 0 && n > 0 && H5Dwrite(ds, t, H5S_ALL, H5S_ALL, dx, data) < 0)
        fail(w, name);
    if (dx != H5P_DEFAULT)
        H5Pclose(dx);
    dset_close(w, ds, name, t);
}

/* Rows first .. first + k - 1 of a table into buf (k rows of the memory
 * type's size). */
typedef void rows_fn(void *ctx, hsize_t first, hsize_t k, void *buf);

/* How a compound's rows pack: each field's memory offset, packed offset
 * and size.  HDF5's conversion of a native compound to its packed copy
 * (H5Tpack) moves each field's bytes and nothing else; done by h5chunk.c
 * (straight into the shuffled planes) it is the same bytes without a
 * library call per field of every row. */
enum { PACK_MAX = 64 };
struct pack {
    int n;                      /* fields; 0: not plain, let HDF5 convert */
    size_t ms, fs;              /* row bytes in memory and in the file */
    size_t mo[PACK_MAX], po[PACK_MAX], sz[PACK_MAX];
};

/* The plan for memory type t and its packed file type ft: fields of the
 * same atomic type in both (numbers, enums, bitfields), else n = 0. */
static void pack_plan(hid_t t, hid_t ft, struct pack *p)
{
    p->n = 0;
    int n = H5Tget_nmembers(t);
    if (n <= 0 || n > PACK_MAX || H5Tget_nmembers(ft) != n)
        return;
    p->ms = H5Tget_size(t);
    p->fs = H5Tget_size(ft);
    size_t covered = 0;
    for (int i = 0; i < n; i++) {
        H5T_class_t c = H5Tget_member_class(t, (unsigned)i);
        if (c != H5T_INTEGER && c != H5T_FLOAT && c != H5T_ENUM &&
            c != H5T_BITFIELD)
            return;
        hid_t a = H5Tget_member_type(t, (unsigned)i);
        hid_t b = H5Tget_member_type(ft, (unsigned)i);
        int same = a >= 0 && b >= 0 && H5Tequal(a, b) > 0;
        p->sz[i] = same ? H5Tget_size(a) : 0;
        if (a >= 0)
            H5Tclose(a);
        if (b >= 0)
            H5Tclose(b);
        if (!same)
            return;
        p->mo[i] = H5Tget_member_offset(t, (unsigned)i);
        p->po[i] = H5Tget_member_offset(ft, (unsigned)i);
        if (p->mo[i] + p->sz[i] > p->ms || p->po[i] + p->sz[i] > p->fs)
            return;
        covered += p->sz[i];
    }
    if (covered == p->fs)       /* every byte of a packed row is a field's */
        p->n = n;
}

/* Rows first .. first + k - 1 (memory rows of type t at buf, room for
 * chunk of them) as the chunk of ds they make: packed to the file type
 * ft (fs bytes a row) and shuffled in one pass by h5chunk.c when pk has a
 * plan, else converted by HDF5 (into bkg) and shuffled from there; the
 * rest of the chunk zeros as HDF5 fills it; deflated by h5chunk.c and
 * written as the filters would have stored it (zb: h5chunk.c's buffers,
 * kept from chunk to chunk). */
static int write_chunk(hid_t ds, hid_t t, hid_t ft, size_t fs, hsize_t first,
                       hsize_t k, hsize_t chunk, void *buf, void *bkg,
                       const struct pack *pk, struct gs_h5chunk_buf *zb)
{
    if (pk->n > 0) {
        const struct gs_h5chunk_layout l = { pk->n, pk->ms, pk->fs, pk->mo,
                                             pk->po, pk->sz };
        const unsigned char *z;
        size_t zn;
        int rc = gs_h5chunk_encode_rows(zb, buf, (size_t)k, (size_t)chunk,
                                        &l, &z, &zn);
        if (rc < 0)
            return rc;
        return H5Dwrite_chunk(ds, H5P_DEFAULT, 0, &first, zn, z) < 0
               ? GS_EIO : 0;
    }
    unsigned char *z;
    size_t zn;
    if (H5Tconvert(t, ft, (size_t)k, buf, bkg, H5P_DEFAULT) < 0)
        return GS_EIO;
    memset((char *)bkg + k * fs, 0, (size_t)(chunk - k) * fs);
    int rc = gs_h5chunk_encode(bkg, (size_t)chunk, fs, &z, &zn);
    if (rc < 0)
        return rc;
    if (H5Dwrite_chunk(ds, H5P_DEFAULT, 0, &first, zn, z) < 0)
        rc = GS_EIO;
    free(z);
    return rc;
}

/* 1 when a table of type t is written chunk by chunk through h5chunk.c:
 * large (so chunked and filtered, dset_create) and of fixed-size fields
 * only (a string lives in HDF5's heap, not in the chunk). */
static int chunk_path(hid_t t, hsize_t n)
{
    return n >= 4096 && H5Tdetect_class(t, H5T_STRING) == 0 &&
           H5Tdetect_class(t, H5T_VLEN) == 0;
}

/* A 1-D table of n rows of compound type t (size bytes each in memory)
 * that fill produces a piece at a time: memory for CHUNK_ROWS rows, not
 * for the whole table (a 10 M-job run's /jobs is 1.2 GB as C structs).
 * A large table of numbers is written chunk by chunk (write_chunk); one
 * with strings, or a small one, through H5Dwrite. */
static void dset_rows(struct w *w, hid_t loc, const char *name, hid_t t,
                      size_t size, hsize_t n, rows_fn *fill, void *ctx)
{
    hsize_t piece = n < CHUNK_ROWS ? n : CHUNK_ROWS;
    int direct = chunk_path(t, n);
    /* mapped (bigmem.h): a piece of a large table is megabytes, faulted
     * in once on huge pages */
    size_t nb = (size_t)(piece ? piece : 1) * size;
    void *buf = gs_big_realloc(NULL, 0, nb), *bkg = NULL;
    struct gs_h5chunk_buf zb = { 0 };
    if (buf == NULL) {
        fail(w, name);
        return;
    }
    hid_t ds = dset_create(w, loc, name, t, 1, &n);
    hid_t fs = ds >= 0 ? H5Dget_space(ds) : -1;
    hid_t ft = ds >= 0 && direct ? H5Dget_type(ds) : -1;
    size_t fsz = ft >= 0 ? H5Tget_size(ft) : 0;
    struct pack pk = { .n = 0 };
    if (ft >= 0 && H5Tget_class(t) == H5T_COMPOUND)
        pack_plan(t, ft, &pk);
    /* HDF5 converts the rows pack_plan cannot move: room for its output */
    if (ft >= 0 && pk.n == 0 && (bkg = gs_big_realloc(NULL, 0, nb)) == NULL)
        fail(w, name);
    for (hsize_t first = 0; ds >= 0 && first < n && !w->err; first += piece) {
        hsize_t k = n - first < piece ? n - first : piece;
        fill(ctx, first, k, buf);
        if (direct) {
            if (ft < 0 || write_chunk(ds, t, ft, fsz, first, k, piece, buf,
                                      bkg, &pk, &zb) < 0)
                fail(w, name);
            continue;
        }
        hid_t ms = H5Screate_simple(1, &k, NULL);
        if (fs < 0 || ms < 0 ||
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, &first, NULL, &k,
                                NULL) < 0 ||
            H5Dwrite(ds, t, ms, fs, H5P_DEFAULT, buf) < 0)
            fail(w, name);
        if (ms >= 0)
            H5Sclose(ms);
    }
    if (ft >= 0)
        H5Tclose(ft);
    if (fs >= 0)
        H5Sclose(fs);
    dset_close(w, ds, name, t);
    gs_h5chunk_buf_free(&zb);
    gs_big_free(bkg, nb);
    gs_big_free(buf, nb);
}

/* A 1-D dataset of n strings. */
static void strings(struct w *w, hid_t loc, const char *name,
                    const char *const *v, size_t n)
{
    hid_t t = str_type();
    hsize_t dim = n;
    dset(w, loc, name, t, 1, &dim, v);
    H5Tclose(t);
}

static double secs(gs_time t)
{
    return t < 0 ? NAN : (double)t / 1000.0;
}

static hid_t job_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct gs_h5_job));
#define F(name, type) H5Tinsert(t, #name, HOFFSET(struct gs_h5_job, name), type)
    F(id, H5T_NATIVE_INT64);
    F(tenant, H5T_NATIVE_INT32);
    F(tier, H5T_NATIVE_INT32);
    F(state, H5T_NATIVE_INT32);
    F(kill, H5T_NATIVE_INT32);
    F(model, H5T_NATIVE_INT32);
    F(preemptions, H5T_NATIVE_INT32);
    F(arrival_s, H5T_NATIVE_DOUBLE);
    F(start_s, H5T_NATIVE_DOUBLE);
    F(end_s, H5T_NATIVE_DOUBLE);
    F(wait_s, H5T_NATIVE_DOUBLE);
    F(gpus, H5T_NATIVE_DOUBLE);
    F(work_s, H5T_NATIVE_DOUBLE);
    F(gpu_hours, H5T_NATIVE_DOUBLE);
    F(sla_wait, H5T_NATIVE_INT8);
    F(sla_deadline, H5T_NATIVE_INT8);
    F(cost_usd, H5T_NATIVE_DOUBLE);
    F(lost_gpu_hours, H5T_NATIVE_DOUBLE);
    F(cpu_milli, H5T_NATIVE_INT32);
    F(mem_mib, H5T_NATIVE_INT32);
#undef F
    return t;
}

struct jobrows {
    const struct gs_sim *s;     /* what records keep apart (sim.h) */
    const struct gs_jobrec *r;
};

static void job_rows(void *ctx, hsize_t first, hsize_t k, void *buf)
{
    const struct jobrows *j = ctx;
    struct gs_h5_job *rows = buf;
    for (hsize_t n = 0; n < k; n++) {
        long i = (long)(first + n);
        const struct gs_jobrec *r = &j->r[i];
        struct gs_jobhost h = gs_sim_record_host(j->s, i);
        rows[n] = (struct gs_h5_job){
            .id = r->id, .tenant = r->tenant, .tier = r->tier,
            .state = r->state, .kill = r->kill, .model = r->model,
            .preemptions = gs_sim_record_preemptions(j->s, i),
            .arrival_s = secs(r->arrival), .start_s = secs(r->start),
            .end_s = secs(r->end),
            .wait_s = r->start >= 0 ? secs(r->start - r->arrival) : NAN,
            .gpus = r->gpus, .work_s = r->work / 1000.0,
            .gpu_hours = r->gpu_hours, .sla_wait = r->sla_wait,
            .sla_deadline = r->sla_deadline, .cost_usd = r->cost,
            .lost_gpu_hours = gs_sim_record_lost(j->s, i),
            .cpu_milli = h.cpu_milli, .mem_mib = h.mem_mib,
        };
    }
}

static void write_jobs(struct w *w, const struct gs_sim *s)
{
    long n;
    struct jobrows j = { s, gs_sim_records(s, &n) };
    hid_t t = job_type();
    dset_rows(w, w->f, "jobs", t, sizeof(struct gs_h5_job), (hsize_t)n,
              job_rows, &j);
    H5Tclose(t);
}

static void write_names(struct w *w, const struct gs_sim *s)
{
    int nt = gs_sim_ntenants(s);
    const char **v = malloc((size_t)(nt + GS_MAX_MODELS + 8) * sizeof *v);
    hid_t jobs = H5Dopen2(w->f, "jobs", H5P_DEFAULT);
    if (v == NULL || jobs < 0) {
        free(v);
        if (jobs >= 0)
            H5Dclose(jobs);
        fail(w, "/tenants");
        return;
    }
    /* each label table also rides on /jobs, beside the codes it names */
    for (int i = 0; i < nt; i++)
        v[i] = gs_sim_tenant_name(s, i);
    strings(w, w->f, "tenants", v, (size_t)nt);
    attr_strs(w, jobs, "tenant_labels", v, (size_t)nt);
    for (int i = 0; i < GS_NTIERS; i++)
        v[i] = gs_tier_name(i);
    strings(w, w->f, "tiers", v, GS_NTIERS);
    attr_strs(w, jobs, "tier_labels", v, GS_NTIERS);
    const struct gs_catalog *cat = &gs_sim_scenario(s)->cat;
    for (int i = 0; i < cat->n; i++)
        v[i] = cat->m[i].name;
    strings(w, w->f, "models", v, (size_t)cat->n);
    attr_strs(w, jobs, "model_labels", v, (size_t)cat->n);
    for (int i = 0; i <= GS_JOB_UNFINISHED; i++)
        v[i] = gs_jstate_name(i);
    strings(w, w->f, "states", v, GS_JOB_UNFINISHED + 1);
    attr_strs(w, jobs, "state_labels", v, GS_JOB_UNFINISHED + 1);
    static const char *const kills[GS_NKILL] = { "none", "unplaceable",
                                                 "oom", "reclaim", "reaped",
                                                 "denied", "withdrawn" };
    strings(w, w->f, "kill_reasons", kills, GS_NKILL);
    attr_strs(w, jobs, "kill_labels", kills, GS_NKILL);
    H5Dclose(jobs);
    free(v);
}

static void redescribe(struct w *w, hid_t loc, const char *name,
                       const char *units, const char *desc);

/* /timeseries_by_model: time_s and one 1-D series per GPU model of the
 * fleet (GPUs of that model allocated to jobs), named after the model, so
 * the group reads straight into a DataFrame as /timeseries does.  A '/' in
 * a custom model's name (HDF5's path separator) becomes '_', and a model
 * named time_s is stored as model_time_s; the attribute "model" of each
 * series holds the model's name as given, "models" on the group lists the
 * series in fleet order. */
static void write_series_by_model(struct w *w, const struct gs_sim *s)
{
    const struct gs_series *ts = &gs_sim_metrics(s)->ts;
    const struct gs_catalog *cat = &gs_sim_scenario(s)->cat;
    hid_t g = group(w->f, "timeseries_by_model");
    if (g < 0) {
        fail(w, "/timeseries_by_model");
        return;
    }
    hsize_t n = (hsize_t)ts->n;
    attr_num(w, g, "step_s", (double)gs_sim_metrics(s)->step / 1000.0);
    dset(w, g, "time_s", H5T_NATIVE_DOUBLE, 1, &n, ts->t);
    char names[GS_MAX_MODELS][GS_MODEL_NAME + 8];
    const char *v[GS_MAX_MODELS];
    double *col = malloc((n ? n : 1) * sizeof *col);
    if (col == NULL) {
        fail(w, "/timeseries_by_model");
        H5Gclose(g);
        return;
    }
    for (int k = 0; k < ts->nmodels; k++) {
        const char *model = cat->m[ts->models[k]].name;
        snprintf(names[k], sizeof names[k], "%s%s",
                 strcmp(model, "time_s") == 0 ? "model_" : "", model);
        for (char *p = names[k]; *p; p++)
            if (*p == '/')
                *p = '_';
        v[k] = names[k];
        for (hsize_t i = 0; i < n; i++)
            col[i] = ts->alloc_model[i * (hsize_t)ts->nmodels + (hsize_t)k];
        dset(w, g, names[k], H5T_NATIVE_DOUBLE, 1, &n, col);
        char desc[96];
        snprintf(desc, sizeof desc, "GPUs of model %s allocated to jobs",
                 model);
        redescribe(w, g, names[k], "1", desc);
        hid_t ds = H5Dopen2(g, names[k], H5P_DEFAULT);
        if (ds >= 0) {
            attr_str(w, ds, "model", model);
            H5Dclose(ds);
        }
    }
    free(col);
    if (ts->nmodels > 0)
        attr_strs(w, g, "models", v, (size_t)ts->nmodels);
    H5Gclose(g);
}

/* The time series that count whole things (jobs, GPUs, nodes), sampled
 * at an instant: stored as 64-bit integers.  The rest (GPUs allocated,
 * which may be fractions of shared GPUs; rates; ratios) are doubles. */
static const char *const count_series[] = {
    "queue_length", "running_jobs", "gpus_up", "nodes_in_service",
    "nodes_billed", "nodes_provisioning", "nodes_in_repair", "nodes_spare",
    "gpus_failed", "gpus_degraded",
};

/* A 1-D series of n doubles; a count (count_series) as integers. */
static void series(struct w *w, hid_t g, const char *name, hsize_t n,
                   const double *v)
{
    for (size_t i = 0; i < sizeof count_series / sizeof count_series[0]; i++)
        if (strcmp(count_series[i], name) == 0) {
            int64_t *iv = malloc((n ? n : 1) * sizeof *iv);
            if (iv == NULL) {
                fail(w, name);
                return;
            }
            for (hsize_t k = 0; k < n; k++)
                iv[k] = llround(v[k]);
            dset(w, g, name, H5T_NATIVE_INT64, 1, &n, iv);
            free(iv);
            return;
        }
    dset(w, g, name, H5T_NATIVE_DOUBLE, 1, &n, v);
}

static void write_series(struct w *w, const struct gs_sim *s)
{
    const struct gs_series *ts = &gs_sim_metrics(s)->ts;
    hid_t g = group(w->f, "timeseries");
    if (g < 0) {
        fail(w, "/timeseries");
        return;
    }
    hsize_t n = (hsize_t)ts->n;
    attr_num(w, g, "step_s", (double)gs_sim_metrics(s)->step / 1000.0);
    struct { const char *name; const double *v; } cols[] = {
        { "time_s", ts->t }, { "allocated_gpus", ts->alloc },
        { "queue_length", ts->queue }, { "running_jobs", ts->running },
        { "gpus_up", ts->gpus_up }, { "cost_rate_usd_per_h", ts->cost_rate },
        { "fragmentation", ts->frag }, { "mig_slice_busy", ts->mig_busy },
        { "stranded_gpus", ts->stranded },
        { "allocated_cpu_cores", ts->cpu_alloc },
        { "allocated_memory_gib", ts->mem_alloc },
    };
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        series(w, g, cols[i].name, n, cols[i].v);
    if (ts->nx > 0) {
        double *col = malloc((n ? n : 1) * sizeof *col);
        if (col == NULL)
            fail(w, "/timeseries");
        for (int k = 0; col && k < ts->nx; k++) {
            for (hsize_t i = 0; i < n; i++)
                col[i] = ts->x[i * (hsize_t)ts->nx + (hsize_t)k];
            series(w, g, ts->xnames[k], n, col);
        }
        free(col);
    }
    H5Gclose(g);
    write_series_by_model(w, s);
}

/* A row of /summary/tiers: the scope's name and its statistics, counts
 * (long) stored as 64-bit integers and the rest as doubles. */
struct tier_row {
    const char *scope;
    struct gs_tstats st;
};

/* The HDF5 memory type of a C field, by its C type. */
#define NATIVE(x) _Generic((x), long: H5T_NATIVE_LONG, int: H5T_NATIVE_INT, \
                           double: H5T_NATIVE_DOUBLE)

struct model_row {
    const char *model;
    long gpus;
    double utilization, gpu_hours;
};

/* /summary/fields: the attributes of /summary again as a table with their
 * units and descriptions (attributes cannot carry attributes), which
 * pandas reads in one line. */
struct field_row {
    const char *name;
    double value;
    const char *units, *description;
};

/* 1 when summary field i is a count (printed without decimals), which
 * /summary keeps as an integer attribute. */
static int field_is_count(int i)
{
    return strcmp(gs_summary_field_fmt(i), "%.0f") == 0;
}

static void summary_fields(struct w *w, hid_t g, const struct gs_summary *su)
{
    struct field_row rows[GS_SUMMARY_NMAX + 4];
    size_t n = 0;
#define F(expr, nm)                                                       \
    if (n < sizeof rows / sizeof rows[0]) {                               \
        rows[n].name = nm;                                                \
        rows[n].value = (double)(expr);                                   \
        gs_report_meta(nm, &rows[n].units, &rows[n].description);         \
        n++;                                                              \
    }
    int nf = gs_summary_nfields();
    double v[GS_SUMMARY_NMAX];
    gs_summary_values(su, v);
    for (int i = 0; i < nf; i++)
        F(v[i], gs_summary_field_name(i))
    F(su->all.jobs, "jobs")
    F(su->all.done, "jobs_done")
    F(su->all.killed, "jobs_killed")
    F(su->all.unfinished, "jobs_unfinished")
#undef F
    hid_t st = str_type();
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct field_row));
    H5Tinsert(t, "name", HOFFSET(struct field_row, name), st);
    H5Tinsert(t, "value", HOFFSET(struct field_row, value), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "units", HOFFSET(struct field_row, units), st);
    H5Tinsert(t, "description", HOFFSET(struct field_row, description), st);
    hsize_t dim = n;
    dset(w, g, "fields", t, 1, &dim, rows);
    H5Tclose(t);
    H5Tclose(st);
}

static void summary_tiers(struct w *w, hid_t g, const struct gs_summary *su)
{
    hid_t st = str_type();
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct tier_row));
    H5Tinsert(t, "scope", HOFFSET(struct tier_row, scope), st);
#define T(f, label, unit)                                                 \
    H5Tinsert(t, label, HOFFSET(struct tier_row, st.f),                   \
              NATIVE(((struct gs_tstats *)0)->f));
    GS_TSTATS_FIELDS(T)
#undef T
    struct tier_row rows[GS_NTIERS + 1];
    for (int i = 0; i <= GS_NTIERS; i++) {
        rows[i].scope = i == 0 ? "all" : gs_tier_name(i - 1);
        rows[i].st = i == 0 ? su->all : su->tier[i - 1];
    }
    hsize_t dim = GS_NTIERS + 1;
    dset(w, g, "tiers", t, 1, &dim, rows);
    H5Tclose(t);
    H5Tclose(st);
}

static void summary_models(struct w *w, hid_t g, const struct gs_sim *s)
{
    const struct gs_summary *su = gs_sim_summary(s);
    hid_t st = str_type();
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct model_row));
    H5Tinsert(t, "model", HOFFSET(struct model_row, model), st);
    H5Tinsert(t, "gpus", HOFFSET(struct model_row, gpus), H5T_NATIVE_LONG);
    H5Tinsert(t, "utilization", HOFFSET(struct model_row, utilization),
              H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "gpu_hours", HOFFSET(struct model_row, gpu_hours),
              H5T_NATIVE_DOUBLE);
    struct model_row mrows[GS_MAX_MODELS];
    const struct gs_catalog *cat = &gs_sim_scenario(s)->cat;
    for (int k = 0; k < su->nmodels; k++) {
        mrows[k].model = cat->m[su->model[k].model].name;
        mrows[k].gpus = lround(su->model[k].gpus);
        mrows[k].utilization = su->model[k].util;
        mrows[k].gpu_hours = su->model[k].gpu_hours;
    }
    hsize_t dim = (hsize_t)su->nmodels;
    dset(w, g, "models", t, 1, &dim, mrows);
    H5Tclose(t);
    H5Tclose(st);
}

static void write_summary(struct w *w, const struct gs_sim *s)
{
    const struct gs_summary *su = gs_sim_summary(s);
    hid_t g = group(w->f, "summary");
    if (g < 0) {
        fail(w, "/summary");
        return;
    }
    double v[GS_SUMMARY_NMAX];
    gs_summary_values(su, v);
    for (int i = 0; i < gs_summary_nfields(); i++) {
        if (field_is_count(i))
            attr_int(w, g, gs_summary_field_name(i), llround(v[i]));
        else
            attr_num(w, g, gs_summary_field_name(i), v[i]);
    }
    attr_int(w, g, "jobs", su->all.jobs);
    attr_int(w, g, "jobs_done", su->all.done);
    attr_int(w, g, "jobs_killed", su->all.killed);
    attr_int(w, g, "jobs_unfinished", su->all.unfinished);
    summary_fields(w, g, su);
    summary_tiers(w, g, su);
    summary_models(w, g, s);
    H5Gclose(g);
}

/* Open a temporary beside PATH (outfile.h) and put the attributes and
 * /scenario every gpusim file starts with (kind: NULL for a single run).
 * 0, or the failure with d filled. */
static int file_begin(struct w *w, const char *kind, const char *scenario,
                      const char *text)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int rc = gs_out_check_seekable(w->path, w->d);
    if (rc == 0)
        rc = gs_out_begin(&w->out, w->path, w->d);
    if (rc < 0)
        return rc;
    hid_t fcpl = ocpl(H5P_FILE_CREATE);
    w->f = H5Fcreate(w->out.tmp, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    struct stat a, b;
    if (w->f >= 0 && (fstat(w->out.fd, &a) != 0 || stat(w->out.tmp, &b) != 0
                      || a.st_ino != b.st_ino || a.st_dev != b.st_dev)) {
        H5Fclose(w->f);     /* the name was swapped under us */
        w->f = -1;
    }
    if (w->f < 0) {
        gs_out_abort(&w->out);
        return gs_diag_set(w->d, GS_EIO, w->path, "HDF5: cannot create the "
                           "result file");
    }
    attr_str(w, w->f, "gpusim_version", GS_VERSION);
    attr_int(w, w->f, "layout_version", GS_H5_LAYOUT);
    attr_int(w, w->f, "schema_version", GS_H5_SCHEMA);
    if (kind)
        attr_str(w, w->f, "kind", kind);
    attr_str(w, w->f, "scenario", scenario);
    const char *t = text ? text : "";
    strings(w, w->f, "scenario", &t, 1);
    return 0;
}

/* Close the file and, if all went well, rename it into place; otherwise
 * remove it, so a failure never leaves a partial file at the path. */
static int file_end(struct w *w)
{
    if (H5Fclose(w->f) < 0)
        fail(w, "the file");
    if (w->err)
        gs_out_abort(&w->out);
    else
        w->err = gs_out_commit(&w->out, w->d);
    return w->err;
}

/* One row of the result file's /question/estimates. */
struct est_row {
    const char *what;
    double estimate, half_width, level;
    const char *method;
    int32_t batches;
    int64_t warmup_deleted, observations;
    int8_t warmup_at_limit, batches_independent;
    double lag1, tail;
};

/* /question: the question the run answers and, in steady state, each
 * estimate with its warm-up, batches and method (question.h). */
static void write_question(struct gs_h5w *w, const struct gs_question *q)
{
#define C(n, t) { #n, t, offsetof(struct est_row, n), NULL, NULL }
    /* the columns' units and descriptions are h5desc.c's */
    static const struct gs_h5col cols[] = {
        C(what, GS_H5_STR), C(estimate, GS_H5_F64), C(half_width, GS_H5_F64),
        C(level, GS_H5_F64), C(method, GS_H5_STR), C(batches, GS_H5_I32),
        C(warmup_deleted, GS_H5_I64), C(observations, GS_H5_I64),
        C(warmup_at_limit, GS_H5_I8), C(batches_independent, GS_H5_I8),
        C(lag1, GS_H5_F64), C(tail, GS_H5_F64),
    };
#undef C
    gs_h5loc g = gs_h5w_group(w, gs_h5w_root(w), "question");
    if (g < 0)
        return;
    const char *kind = gs_horizon_name(q->question);
    gs_h5w_strings(w, g, "kind", &kind, 1);
    gs_h5w_strings(w, g, "why", &q->why, 1);
    struct est_row rows[GS_QUESTION_MAX];
    for (int i = 0; i < q->nest; i++) {
        const struct gs_question_est *e = &q->est[i];
        const struct gs_steady *st = &e->st;
        int ok = e->rc == 0;
        rows[i] = (struct est_row){ .what = e->what, .level = 0.95,
            .method = ok ? gs_question_method(i) : "too few values",
            .estimate = ok ? st->ci.est : NAN,
            .half_width = ok ? st->ci.half : NAN, .batches = st->batches,
            .warmup_deleted = st->warmup, .observations = st->n,
            .warmup_at_limit = (int8_t)st->warmup_at_limit,
            .batches_independent = (int8_t)st->independent,
            .lag1 = ok ? st->lag1 : NAN,
            .tail = ok && i % 2 == 0 ? st->tail : NAN };
    }
    gs_h5w_table(w, g, "estimates", cols, (int)(sizeof cols / sizeof cols[0]),
                 sizeof rows[0], rows, (size_t)q->nest);
    gs_h5w_close(g);
}

int gs_h5_write(const char *path, const struct gs_sim *s, struct gs_diag *d)
{
    return gs_h5_write_sampled(path, s, 1.0, NULL, d);
}

int gs_h5_write_sampled(const char *path, const struct gs_sim *s,
                        double sample, const struct gs_question *q,
                        struct gs_diag *d)
{
    struct w w = { .f = -1, .path = path, .d = d, .sample = sample };
    const struct gs_scenario *sc = gs_sim_scenario(s);
    int rc = file_begin(&w, NULL, sc->name, sc->text);
    if (rc < 0)
        return rc;
    attr_str(&w, w.f, "policy", gs_sim_policy_name(s));
    attr_str(&w, w.f, "placement", gs_sim_placer_name(s));
    attr_int(&w, w.f, "seed", (int64_t)gs_sim_seed(s));
    write_jobs(&w, s);
    write_names(&w, s);
    write_series(&w, s);
    write_summary(&w, s);
    struct gs_question mine;
    if (q == NULL && gs_question_analyse(s, &mine) < 0)
        fail(&w, "/question");
    else
        write_question((struct gs_h5w *)&w, q ? q : &mine);
    for (int i = 0; gs_model_out(i); i++)
        if (gs_model_out(i)->h5)
            gs_model_out(i)->h5(s, gs_sim_model(s, gs_model_out(i)),
                                (struct gs_h5w *)&w);
    return file_end(&w);
}

/* Units and a description on dataset name of loc, in place of what
 * dset() derived from the name. */
static void redescribe(struct w *w, hid_t loc, const char *name,
                       const char *units, const char *desc)
{
    hid_t ds = H5Dopen2(loc, name, H5P_DEFAULT);
    if (ds < 0) {
        fail(w, name);
        return;
    }
    if (H5Aexists(ds, "units") > 0)
        H5Adelete(ds, "units");
    if (H5Aexists(ds, "description") > 0)
        H5Adelete(ds, "description");
    attr_str(w, ds, "units", units);
    attr_str(w, ds, "description", desc);
    H5Dclose(ds);
}

/* --- the writer calls of a model's h5 hook (h5out.h) -------------------- */

/* struct gs_h5w is the writer itself: a hook gets (struct gs_h5w *)&w. */
static struct w *W(const struct gs_h5w *x) { return (struct w *)x; }

gs_h5loc gs_h5w_root(const struct gs_h5w *x) { return W(x)->f; }
double gs_h5w_sample(const struct gs_h5w *x) { return W(x)->sample; }
int gs_h5w_fail(struct gs_h5w *x, const char *what) { return fail(W(x), what); }
void gs_h5w_close(gs_h5loc g) { H5Gclose(g); }

gs_h5loc gs_h5w_group(struct gs_h5w *x, gs_h5loc loc, const char *name)
{
    hid_t g = group(loc, name);
    if (g < 0)
        fail(W(x), name);
    return g;
}

gs_h5loc gs_h5w_open(struct gs_h5w *x, gs_h5loc loc, const char *name)
{
    hid_t g = H5Gopen2(loc, name, H5P_DEFAULT);
    if (g < 0)
        fail(W(x), name);
    return g;
}

/* The memory type of a table's row (a string column is a `const char *`
 * field); close it with row_type_close. */
static hid_t row_type(const struct gs_h5col *c, int nc, size_t rowsize,
                      hid_t st)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, rowsize);
    for (int i = 0; i < nc; i++) {
        hid_t ct = c[i].type == GS_H5_F64 ? H5T_NATIVE_DOUBLE
                   : c[i].type == GS_H5_I8 ? H5T_NATIVE_INT8
                   : c[i].type == GS_H5_I32 ? H5T_NATIVE_INT32
                   : c[i].type == GS_H5_I64 ? H5T_NATIVE_INT64
                   : st;
        H5Tinsert(t, c[i].name, c[i].offset, ct);
    }
    return t;
}

void gs_h5w_table(struct gs_h5w *x, gs_h5loc loc, const char *name,
                  const struct gs_h5col *cols, int ncols, size_t rowsize,
                  const void *rows, size_t n)
{
    hid_t st = str_type();
    hid_t t = row_type(cols, ncols, rowsize, st);
    hsize_t dim = n;
    W(x)->cols = cols;
    W(x)->ncols = ncols;
    dset(W(x), loc, name, t, 1, &dim, rows);
    W(x)->cols = NULL;
    H5Tclose(t);
    H5Tclose(st);
}

struct fillw { gs_h5w_fill_fn *fill; void *ctx; };

static void fill_rows(void *ctx, hsize_t first, hsize_t k, void *buf)
{
    struct fillw *f = ctx;
    f->fill(f->ctx, (size_t)first, (size_t)k, buf);
}

void gs_h5w_table_rows(struct gs_h5w *x, gs_h5loc loc, const char *name,
                       const struct gs_h5col *cols, int ncols,
                       size_t rowsize, size_t n, gs_h5w_fill_fn *fill,
                       void *ctx)
{
    hid_t st = str_type();
    hid_t t = row_type(cols, ncols, rowsize, st);
    struct fillw f = { fill, ctx };
    W(x)->cols = cols;
    W(x)->ncols = ncols;
    dset_rows(W(x), loc, name, t, rowsize, n, fill_rows, &f);
    W(x)->cols = NULL;
    H5Tclose(t);
    H5Tclose(st);
}

void gs_h5w_doubles(struct gs_h5w *x, gs_h5loc loc, const char *name,
                    int rank, const size_t *dims, const double *v)
{
    hsize_t d[3] = { 0, 0, 0 };
    GS_ASSERT(rank >= 1 && rank <= 3);
    for (int i = 0; i < rank; i++)
        d[i] = dims[i];
    dset(W(x), loc, name, H5T_NATIVE_DOUBLE, rank, d, v);
}

void gs_h5w_strings(struct gs_h5w *x, gs_h5loc loc, const char *name,
                    const char *const *v, size_t n)
{
    strings(W(x), loc, name, v, n);
}

void gs_h5w_describe(struct gs_h5w *x, gs_h5loc loc, const char *name,
                     const char *units, const char *desc)
{
    redescribe(W(x), loc, name, units, desc);
}

void gs_h5w_attr_num(struct gs_h5w *x, gs_h5loc loc, const char *name,
                     const char *attr, double v)
{
    hid_t ds = H5Dopen2(loc, name, H5P_DEFAULT);
    if (ds < 0) {
        fail(W(x), name);
        return;
    }
    attr_num(W(x), ds, attr, v);
    H5Dclose(ds);
}

/* --- comparisons ------------------------------------------------------- */

struct cp {
    struct w *w;
    hid_t src, dst;
};

static herr_t copy_one(hid_t loc, const char *name, const H5L_info_t *info,
                       void *arg)
{
    (void)loc;
    (void)info;
    struct cp *c = arg;
    if (strcmp(name, "scenario") == 0)
        return 0;               /* kept once, at the top */
    if (H5Ocopy(c->src, name, c->dst, name, H5P_DEFAULT, H5P_DEFAULT) < 0) {
        fail(c->w, name);
        return -1;
    }
    return 0;
}

/* Copy every object of the single-run file src into group dst. */
static void copy_run(struct w *w, const char *src, hid_t dst)
{
    hid_t f = H5Fopen(src, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        fail(w, src);
        return;
    }
    struct cp c = { w, f, dst };
    H5Literate(f, H5_INDEX_NAME, H5_ITER_INC, NULL, copy_one, &c);
    H5Fclose(f);
}

struct cmp_row {
    const char *policy, *metric, *units;
    long n;
    double mean, std, t, half, ci_low, ci_high;
};

int gs_h5_write_compare(const char *path, const struct gs_h5_compare *c,
                        struct gs_diag *d)
{
    struct w w = { .f = -1, .path = path, .d = d };
    int rc0 = file_begin(&w, "compare", c->scenario, c->text);
    if (rc0 < 0)
        return rc0;

    hid_t runs = group(w.f, "runs");
    for (int p = 0; p < c->npol && runs >= 0 && !w.err; p++) {
        hid_t gp = group(runs, c->policies[p]);
        if (gp < 0) {
            fail(&w, c->policies[p]);
            break;
        }
        for (int k = 0; k < c->nseeds && !w.err; k++) {
            char name[32];
            snprintf(name, sizeof name, "seed%d", k);
            hid_t g = group(gp, name);
            if (g < 0) {
                fail(&w, name);
                break;
            }
            attr_str(&w, g, "policy", c->policies[p]);
            attr_int(&w, g, "seed", (int64_t)c->seeds[k]);
            copy_run(&w, c->runfiles[p * c->nseeds + k], g);
            H5Gclose(g);
        }
        H5Gclose(gp);
    }
    if (runs < 0)
        fail(&w, "/runs");
    else
        H5Gclose(runs);

    hid_t g = group(w.f, "compare");
    if (g >= 0) {
        attr_num(&w, g, "bill_window_s", c->bill_window_s);
        strings(&w, g, "policies", c->policies, (size_t)c->npol);
        strings(&w, g, "metrics", c->metrics, (size_t)c->nmetrics);
        const char **mu = calloc((size_t)c->nmetrics + 1, sizeof *mu);
        if (mu == NULL)
            fail(&w, "/compare/metric_units");
        for (int m = 0; mu && m < c->nmetrics; m++) {
            const char *desc;
            gs_report_meta(c->metrics[m], &mu[m], &desc);
        }
        if (mu)
            strings(&w, g, "metric_units", mu, (size_t)c->nmetrics);
        free(mu);
        const char *q[3] = { c->question ? c->question : "",
                             c->question_why ? c->question_why : "",
                             "Student t over the seeds (independent "
                             "replications, common to every policy) of each "
                             "run's whole-run value" };
        strings(&w, g, "question", &q[0], 1);
        strings(&w, g, "question_why", &q[1], 1);
        strings(&w, g, "interval_method", &q[2], 1);
        hsize_t ns = (hsize_t)c->nseeds;
        dset(&w, g, "seeds", H5T_NATIVE_ULLONG, 1, &ns, c->seeds);
        hsize_t dims[3] = { (hsize_t)c->npol, (hsize_t)c->nseeds,
                            (hsize_t)c->nmetrics };
        dset(&w, g, "values", H5T_NATIVE_DOUBLE, 3, dims, c->values);

        size_t nr = (size_t)c->npol * (size_t)c->nmetrics;
        struct cmp_row *rows = calloc(nr ? nr : 1, sizeof *rows);
        if (rows == NULL) {
            fail(&w, "/compare/table");
        } else {
            for (int p = 0; p < c->npol; p++)
                for (int m = 0; m < c->nmetrics; m++) {
                    size_t i = (size_t)p * c->nmetrics + m;
                    const char *desc;
                    rows[i] = (struct cmp_row){
                        .policy = c->policies[p], .metric = c->metrics[m],
                        .n = c->nseeds, .mean = c->mean[i], .std = c->sd[i],
                        .t = c->t[i], .half = c->half[i],
                        .ci_low = c->mean[i] - c->half[i],
                        .ci_high = c->mean[i] + c->half[i] };
                    gs_report_meta(c->metrics[m], &rows[i].units, &desc);
                }
            hid_t st = str_type();
            hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct cmp_row));
#define F(f, ty) H5Tinsert(t, #f, HOFFSET(struct cmp_row, f), ty)
            F(policy, st);
            F(metric, st);
            F(units, st);
            F(n, H5T_NATIVE_LONG);
            F(mean, H5T_NATIVE_DOUBLE);
            F(std, H5T_NATIVE_DOUBLE);
            F(t, H5T_NATIVE_DOUBLE);
            F(half, H5T_NATIVE_DOUBLE);
            F(ci_low, H5T_NATIVE_DOUBLE);
            F(ci_high, H5T_NATIVE_DOUBLE);
#undef F
            hsize_t dim = nr;
            dset(&w, g, "table", t, 1, &dim, rows);
            H5Tclose(t);
            H5Tclose(st);
            free(rows);
        }
        H5Gclose(g);
    } else {
        fail(&w, "/compare");
    }
    return file_end(&w);
}

/* --- placement experiments ------------------------------------------------- */

int gs_h5_write_place_exp(const char *path, const char *scenario,
                          const char *text, const struct gs_h5_place_exp *x,
                          struct gs_diag *d)
{
    struct w w = { .f = -1, .path = path, .d = d };
    int rc0 = file_begin(&w, "place-exp", scenario, text);
    if (rc0 < 0)
        return rc0;
    hid_t g = group(w.f, "place_exp");
    double *mean = calloc((size_t)x->nplacers * (size_t)x->npoints + 1,
                          sizeof *mean);
    if (g < 0 || mean == NULL) {
        fail(&w, "/place_exp");
    } else {
        attr_num(&w, g, "capacity_gpus", x->capacity_gpus);
        attr_int(&w, g, "population", x->population);
        attr_int(&w, g, "population_gpu", x->population_gpu);
        strings(&w, g, "placers", x->placers, (size_t)x->nplacers);
        hsize_t ns = (hsize_t)x->nseeds, nk = (hsize_t)x->npoints;
        dset(&w, g, "seeds", H5T_NATIVE_UINT64, 1, &ns, x->seeds);
        dset(&w, g, "arrived_load", H5T_NATIVE_DOUBLE, 1, &nk, x->load);
        hsize_t dims[3] = { (hsize_t)x->nplacers, ns, nk };
        dset(&w, g, "alloc_ratio", H5T_NATIVE_DOUBLE, 3, dims, x->alloc);
        dset(&w, g, "stranded_ratio", H5T_NATIVE_DOUBLE, 3, dims,
             x->stranded);
        dset(&w, g, "cpu_alloc_ratio", H5T_NATIVE_DOUBLE, 3, dims,
             x->cpu_use);
        dset(&w, g, "failed_ratio", H5T_NATIVE_DOUBLE, 3, dims, x->failed);
        for (int i = 0; i < x->nplacers; i++)
            for (int k = 0; k < x->nseeds; k++)
                for (int p = 0; p < x->npoints; p++)
                    mean[(size_t)i * x->npoints + p] +=
                        x->alloc[((size_t)i * x->nseeds + k) * x->npoints + p] /
                        x->nseeds;
        hsize_t md[2] = { (hsize_t)x->nplacers, nk };
        dset(&w, g, "mean_alloc_ratio", H5T_NATIVE_DOUBLE, 2, md, mean);
        hsize_t td[2] = { (hsize_t)x->nplacers, ns };
        dset(&w, g, "tasks", H5T_NATIVE_LONG, 2, td, x->tasks);
    }
    free(mean);
    if (g >= 0)
        H5Gclose(g);
    return file_end(&w);
}

/* --- sweeps and plans ----------------------------------------------------- */

/* The group that holds name's dataset, created on the way (owned by the
 * caller: close it); *leaf points at the last component. */
static hid_t parent_group(struct w *w, const char *name, const char **leaf)
{
    hid_t g = H5Gopen2(w->f, "/", H5P_DEFAULT);
    const char *p = name;
    const char *slash;
    while (g >= 0 && (slash = strchr(p, '/')) != NULL) {
        char part[256];
        snprintf(part, sizeof part, "%.*s", (int)(slash - p), p);
        hid_t n = H5Lexists(g, part, H5P_DEFAULT) > 0
                      ? H5Gopen2(g, part, H5P_DEFAULT)
                      : group(g, part);
        H5Gclose(g);
        g = n;
        p = slash + 1;
    }
    *leaf = p;
    return g;
}

int gs_h5_write_sets(const char *path, const char *kind, const char *scenario,
                     const char *text, const struct gs_h5_ds *ds, int n,
                     struct gs_diag *d)
{
    struct w w = { .f = -1, .path = path, .d = d };
    int rc = file_begin(&w, kind, scenario, text);
    if (rc < 0)
        return rc;
    for (int i = 0; i < n && !w.err; i++) {
        const struct gs_h5_ds *x = &ds[i];
        const char *leaf;
        hid_t g = parent_group(&w, x->name, &leaf);
        if (g < 0) {
            fail(&w, x->name);
            break;
        }
        hsize_t dims[3];
        for (int k = 0; k < x->rank; k++)
            dims[k] = (hsize_t)x->dims[k];
        if (x->kind == GS_H5_STRING) {
            hid_t t = str_type();
            dset(&w, g, leaf, t, x->rank, dims, x->data);
            H5Tclose(t);
        } else {
            dset(&w, g, leaf, x->kind == GS_H5_U64 ? H5T_NATIVE_UINT64
                              : x->kind == GS_H5_INT64 ? H5T_NATIVE_INT64
                                                       : H5T_NATIVE_DOUBLE,
                 x->rank, dims, x->data);
        }
        if ((x->desc || x->units) && !w.err) {
            hid_t o = H5Dopen2(g, leaf, H5P_DEFAULT);
            if (o >= 0) {
                if (x->desc)
                    attr_str(&w, o, "description", x->desc);
                if (x->units)
                    attr_str(&w, o, "units", x->units);
                H5Dclose(o);
            }
        }
        H5Gclose(g);
    }
    return file_end(&w);
}

