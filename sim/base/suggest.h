/* suggest.h -- "did you mean ...?" for a misspelled name.
 *
 * The closest candidate by optimal string alignment distance (Levenshtein
 * plus the swap of two neighbours, Damerau 1964), compared without regard
 * to case, is suggested when it is close enough to be a typo: a distance of
 * at most 1 for names up to 4 characters, 2 up to 8 and 3 beyond, and never
 * the whole word (git's and cargo's rule of thumb).  A candidate that
 * starts with the word (an abbreviation) is suggested too. */
#ifndef GS_SUGGEST_H
#define GS_SUGGEST_H

/* The best candidate of the NULL-terminated cands for word, or NULL. */
const char *gs_suggest(const char *word, const char *const *cands);

/* Format " (did you mean 'X'?)" into buf (n bytes), or "" when there is
 * no suggestion; returns buf. */
char *gs_suggest_fmt(const char *word, const char *const *cands, char *buf,
                     unsigned long n);

/* getopt_long (with ':' leading its option string) returned c, '?' or
 * ':', for argv[optind - 1]: print "gpusim: CMD: unknown option '--x'
 * (did you mean '--y'?)" or "gpusim: CMD: --x needs a value", then
 * "(see 'gpusim help CMD')", on stderr.  Returns 2, the usage status. */
struct option;
int gs_suggest_bad_option(const char *cmd, const struct option *opts,
                          int argc, char **argv, int c);

/* Run fn(argc + 1, [name, argv..., NULL]): a command's entry point gets
 * the arguments after its name (as the CLI, tests and benches call it),
 * and getopt_long wants the name in argv[0].  fn's status, or 2 when out
 * of memory. */
int gs_cli_named(const char *name, int argc, char **argv,
                 int (*fn)(int argc, char **argv));

/* getopt_long(argc, argv, shortopts, opts, NULL) for a command that takes
 * one scenario among its options: the scenario may come before, between
 * or after them, and "--" ends the options (only the scenario may follow
 * it).  Each operand is taken into *file on the way; the return is the
 * next option's code as getopt_long gives it (shortopts starts with "+:"),
 * -1 at the end, or GS_CLI_EXTRA with optarg at an argument that is one
 * scenario too many.  The caller sets opterr = 0 and optind = 0 first
 * (0, not 1: glibc then forgets the previous parse's position inside an
 * argument, which a second parse in the same process -- tests, the bench
 * -- would otherwise resume from). */
#define GS_CLI_EXTRA 1
int gs_cli_getopt(int argc, char **argv, const char *shortopts,
                  const struct option *opts, const char **file);

#endif
