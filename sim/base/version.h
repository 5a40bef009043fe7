/* version.h -- gpusim's version and the result-file layout version. */
#ifndef GS_VERSION_H
#define GS_VERSION_H

#define GS_VERSION "0.1.0"
#define GS_H5_LAYOUT 4      /* bumped when the HDF5 layout changes */
/* bumped when a dataset's or column's meaning, unit or description
 * changes (the file's schema_version attribute) */
#define GS_H5_SCHEMA 3

#endif
