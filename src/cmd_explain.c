/* shcard explain: placeholder until its issue lands. */
#include <stdio.h>

#include "cmd.h"

int shc_cmd_explain(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "shcard explain: not built yet\n");
    return 2;
}
