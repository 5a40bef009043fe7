/* plan.c -- placeholder replaced below. */
#include "plan.h"
int gs_plan_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 2;
}
