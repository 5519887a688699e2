/* Prints the benchmarks' fixed-seed generated command set (bench/gencmds.h) as JSON lines
 * ({"cmd": "..."}), for tests/coverage.py: `gencmds_dump [N]` (default 100,000, the set
 * bench_parse and bench_classify time). */
#include <stdio.h>
#include <stdlib.h>

#include "gencmds.h"

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
    char buf[512];
    for (long i = 0; i < n; i++) {
        size_t len = gen_command(buf, sizeof buf);
        putchar('{');
        fputs("\"cmd\": \"", stdout);
        for (size_t k = 0; k < len; k++) {
            unsigned char c = (unsigned char)buf[k];
            if (c == '"' || c == '\\')
                printf("\\%c", c);
            else if (c < 0x20)
                printf("\\u%04x", c);
            else
                putchar(c);
        }
        fputs("\"}\n", stdout);
    }
    return 0;
}
