/* A program of the library's users, built by suite_library (and by test-packages against the
 * installed Debian packages) with nothing but `pkg-config --cflags --libs shcard`: reads records
 * "LEN\n" + LEN bytes of command from stdin and prints shc_verdict_to_json of each, one line
 * per command, which must equal what `shcard explain --batch` prints.
 *   shc_batch [--no-unwrap] [--cwd DIR] [--context any|bridge]   (only <shcard.h> and libc) */
#include <shcard.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    shc_classify_opts o = SHC_CLASSIFY_OPTS_INIT;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-unwrap"))
            o.no_unwrap = true;
        else if (!strcmp(argv[i], "--cwd") && i + 1 < argc)
            o.cwd = argv[++i];
        else if (!strcmp(argv[i], "--context") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], shc_context_name(SHC_CONTEXT_BRIDGE)))
                o.context = SHC_CONTEXT_BRIDGE;
            else if (strcmp(argv[i], shc_context_name(SHC_CONTEXT_ANY)) != 0)
                return 2;
        }
        else if (!strcmp(argv[i], "--version")) {
            printf("%s %s\n", shc_version(), SHC_VERSION);
            return 0;
        } else {
            fprintf(stderr, "usage: shc_batch [--no-unwrap] [--cwd DIR] [--context C] < records\n");
            return 2;
        }
    }
    size_t len;
    while (scanf("%zu", &len) == 1 && getchar() == '\n') {
        char *cmd = malloc(len + 1);
        if (!cmd || fread(cmd, 1, len, stdin) != len)
            return 1;
        shc_verdict *v = NULL;
        if (shc_classify_ex(&v, cmd, len, &o) != 0)
            return 1;
        size_t n = 0;
        char *json = shc_verdict_to_json(v, cmd, len, &n);
        if (!json)
            return 1;
        fwrite(json, 1, n, stdout);
        putchar('\n');
        shc_free(json);
        shc_verdict_free(v);
        free(cmd);
    }
    return ferror(stdin) ? 1 : 0;
}
