/* cmd_noc.c: the 'noc' subcommand (placeholder until its issue #5 lands). */
#include <stdio.h>

#include "commands.h"

int cli_cmd_noc(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuest noc: not yet available in this version\n");
    return 1;
}
