/* cmd_simulate.c: the 'simulate' subcommand (placeholder until its issue #6 lands). */
#include <stdio.h>

#include "commands.h"

int cli_cmd_simulate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuest simulate: not yet available in this version\n");
    return 1;
}
