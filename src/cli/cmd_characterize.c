/* cmd_characterize.c: the 'characterize' subcommand (placeholder until its issue #4 lands). */
#include <stdio.h>

#include "commands.h"

int cli_cmd_characterize(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuest characterize: not yet available in this version\n");
    return 1;
}
