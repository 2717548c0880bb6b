/* cmd_compress.c: the 'compress' subcommand (placeholder until its issue #3 lands). */
#include <stdio.h>

#include "commands.h"

int cli_cmd_compress(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuest compress: not yet available in this version\n");
    return 1;
}
