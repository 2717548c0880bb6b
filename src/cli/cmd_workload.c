/* cmd_workload.c: the 'workload' subcommand (placeholder until its issue #4 lands). */
#include <stdio.h>

#include "commands.h"

int cli_cmd_workload(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuest workload: not yet available in this version\n");
    return 1;
}
