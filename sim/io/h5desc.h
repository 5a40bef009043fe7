/* h5desc.h -- the descriptions and units h5out.c puts on the datasets
 * and columns of a result file (the tables are in h5desc.c). */
#ifndef GS_H5DESC_H
#define GS_H5DESC_H

/* The description of the dataset at path (leading "/" and a comparison's
 * "runs/POLICY/seedK/" left out) whose last component is leaf: by path
 * first, else by leaf; NULL when neither table has it.  *units is the
 * path's own unit, or NULL to take the name's (report.h). */
const char *gs_h5desc_dataset(const char *path, const char *leaf,
                              const char **units);

/* Units and description of column col of the table at path: the table's
 * own entry when there is one, else by the column's name alone
 * (report.h gs_report_meta). */
void gs_h5desc_column(const char *path, const char *col, const char **u,
                      const char **d);

#endif
