/* tracecli.h -- the `gpusim trace` command family.
 *
 *   gpusim trace formats                  the formats gpusim reads
 *   gpusim trace convert INPUT -o OUT     any trace -> native CSV (or a
 *                                         request table -> request CSV)
 *   gpusim trace transform INPUT -o OUT   the same, named for its transforms
 *   gpusim trace stats INPUT|SCENARIO     describe a workload
 *   gpusim trace gen SPEC -o OUT          synthesize a workload (native CSV)
 *   gpusim trace fit INPUT -o SPEC        fit a generator spec to a workload
 * `gpusim trace help` prints every option.  Exit status: 0 done; 2 bad
 * usage or bad input (the message names file:line and field, or the JSON
 * path); 1 when the output cannot be written.  Output files are written to a
 * temporary file beside them and renamed at the end, so a failed command
 * leaves no half-written file. */
#ifndef GS_TRACECLI_H
#define GS_TRACECLI_H

/* Run `gpusim trace ARGS`: argv[0] is the subcommand ("convert", ...) and
 * argv[1..argc-1] its arguments -- sim/cli/cli.c passes argc - 2, argv + 2. */
int gs_trace_main(int argc, char **argv);

#endif
