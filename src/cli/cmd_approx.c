/* cmd_approx.c: the 'approx' subcommand (placeholder until its issue #8 lands). */
#include <stdio.h>

#include "commands.h"

int cli_cmd_approx(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuest approx: not yet available in this version\n");
    return 1;
}
