/* datapath.h -- where a file a scenario names is found.
 *
 * A relative path in a scenario (a trace, a node list, a price file,
 * weights) is relative to the folder of the scenario file.  When no file
 * is there, it is looked up in the data search path: the folders of
 * `gpusim --data-path DIR[:DIR...]`, else of $GPUSIM_DATA_PATH, in order.
 * In each folder D the path is tried as it is, then with its leading
 * components dropped one at a time ("../../shared/traces/x/a.csv": D/shared/
 * traces/x/a.csv, D/traces/x/a.csv, D/x/a.csv, D/a.csv; ".." parts are
 * dropped first), so a scenario installed away from its data (PREFIX/share/
 * gpusim/scenarios) still finds it when one folder of the path is given.
 * The first file that exists wins; when none does, the path stays relative
 * to the scenario's folder, so a message names the place it was expected.
 * Absolute paths are used as they are. */
#ifndef GS_DATAPATH_H
#define GS_DATAPATH_H

/* Set the search path (a ':'-separated list, copied; NULL or "" clears it
 * and $GPUSIM_DATA_PATH applies again).  0, or -1 when out of memory. */
int gs_data_path_set(const char *list);

/* The file path names for a scenario in folder dir (NULL or "": path as
 * it is), in memory the caller frees (path.h's rule: never cut to a
 * buffer); NULL when out of memory. */
char *gs_data_path(const char *dir, const char *path);

#endif
