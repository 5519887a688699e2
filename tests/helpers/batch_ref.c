/* The reference path of `shcard explain --batch` / `parse --batch` (cli/batch.h): every line
 * through jansson, every answer built as a tree and dumped, a flush per line.  suite_batch
 * compares the fast path of the real binary with it, byte for byte.
 * Usage: batch_ref explain|parse [--no-unwrap] [--cwd DIR] [--context bridge] < lines */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/batch.h"
#include "shcard.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    bool unwrap = true;
    shc_classify_opts copts = SHC_CLASSIFY_OPTS_INIT;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--no-unwrap"))
            unwrap = false;
        else if (!strcmp(argv[i], "--cwd") && i + 1 < argc)
            copts.cwd = argv[++i];
        else if (!strcmp(argv[i], "--context") && i + 1 < argc && !strcmp(argv[i + 1], "bridge")) {
            copts.context = SHC_CONTEXT_BRIDGE;
            i++;
        } else
            return 2;
    }
    copts.no_unwrap = !unwrap;
    if (!strcmp(argv[1], "explain"))
        return shc__batch_reference(stdin, stdout, &shc__explain_batch, &copts);
    if (!strcmp(argv[1], "parse"))
        return shc__batch_reference(stdin, stdout, &shc__parse_batch, &unwrap);
    return 2;
}
