/* shcard parse: placeholder until its issue lands. */
#include <stdio.h>

#include "cmd.h"

int shc_cmd_parse(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "shcard parse: not built yet\n");
    return 2;
}
