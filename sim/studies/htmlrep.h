/* htmlrep.h -- `gpusim report FILE.h5 [-o report.html]`: one self-contained
 * HTML page for a run, a comparison or a plan file (htmlrep.c). */
#ifndef GS_HTMLREP_H
#define GS_HTMLREP_H

/* The command's entry point: argv holds the arguments after "report".
 * Exit status: 0, 2 for bad usage or a file that is not a run, compare or
 * plan result, 1 when the page cannot be written or a plot not drawn. */
int gs_htmlrep_main(int argc, char **argv);

#endif
