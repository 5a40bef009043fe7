/* llmcli.h -- `gpusim llm validate|calibrate`: the LLM operator model against measured kernels and serving times. */
#ifndef GS_LLMCLI_H
#define GS_LLMCLI_H

/* argv[0] is the subcommand.  0, 1 (output not written), 2 (bad input). */
int gs_llm_main(int argc, char **argv);

#endif
