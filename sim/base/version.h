/* version.h -- gpusim's version and the result-file layout version. */
#ifndef GS_VERSION_H
#define GS_VERSION_H

#define GS_VERSION "0.1.0"
#define GS_H5_LAYOUT 3      /* bumped when the HDF5 layout changes */

#endif
