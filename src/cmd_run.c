/* shcard run: placeholder until its issue lands. */
#include <stdio.h>

#include "cmd.h"

int shc_cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "shcard run: not built yet\n");
    return 2;
}
