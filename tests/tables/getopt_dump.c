/* An LD_PRELOAD shim for suite_tables: the first getopt_long / getopt_long_only / getopt call
 * writes the optstring and the long options the program passes to the file named by
 * GETOPT_DUMP, then ends the process before the program does anything else. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void dump(const char *optstring, const struct option *longopts)
{
    const char *path = getenv("GETOPT_DUMP");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "optstring %s\n", optstring);
        for (const struct option *o = longopts; o && o->name; o++)
            fprintf(f, "long %s %d\n", o->name, o->has_arg);
        fclose(f);
    }
    _exit(0);
}

int getopt_long(int argc, char *const argv[], const char *optstring,
                const struct option *longopts, int *longindex)
{
    (void)argc, (void)argv, (void)longindex;
    dump(optstring, longopts);
    return -1;
}

int getopt_long_only(int argc, char *const argv[], const char *optstring,
                     const struct option *longopts, int *longindex)
{
    (void)argc, (void)argv, (void)longindex;
    dump(optstring, longopts);
    return -1;
}

int getopt(int argc, char *const argv[], const char *optstring)
{
    (void)argc, (void)argv;
    dump(optstring, NULL);
    return -1;
}
