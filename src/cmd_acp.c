/* shcard acp: placeholder until its issue lands. */
#include <stdio.h>

#include "cmd.h"

int shc_cmd_acp(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "shcard acp: not built yet\n");
    return 2;
}
