/* Byte-exact word dump for the word oracle (tests/word_oracle.py): reads NUL-terminated commands
 * on stdin, parses each (no unwrapping) and prints one block per command:
 *
 *   E <error kind>                      the command did not parse
 *   L <number of simple commands>       it did; then per simple command, in source order:
 *   C <assignments> <words>
 *   A <name> <flags> <value as hex, or ->     one line per assignment prefix
 *   W <flags> <value as hex, or ->            one line per word
 *
 * flags is the SHC_WORD_* bit set as a decimal number; "-" marks a word with no static value.
 * Values go out as hex because JSON cannot carry the bytes that are not UTF-8. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shcard.h"

static void hex(const char *v, size_t n)
{
    if (!v) {
        fputs(" -", stdout);
        return;
    }
    putchar(' ');
    if (n == 0)
        putchar('=');
    for (size_t i = 0; i < n; i++)
        printf("%02x", (unsigned char)v[i]);
}

static void count_call(const shc_node *n, void *payload)
{
    (void)n;
    (*(size_t *)payload)++;
}

static void dump_call(const shc_node *n, void *payload)
{
    (void)payload;
    const shc_call *c = &n->u.call;
    printf("C %zu %zu\n", c->nassigns, c->nwords);
    for (size_t i = 0; i < c->nassigns; i++) {
        printf("A %s %u", c->assigns[i].name, c->assigns[i].value.flags);
        hex(c->assigns[i].value.value, c->assigns[i].value.len);
        putchar('\n');
    }
    for (size_t i = 0; i < c->nwords; i++) {
        printf("W %u", c->words[i].flags);
        hex(c->words[i].value, c->words[i].len);
        putchar('\n');
    }
}

int main(void)
{
    char *cmd = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getdelim(&cmd, &cap, '\0', stdin)) > 0) {
        size_t len = (size_t)n;
        if (cmd[len - 1] == '\0')
            len--;
        shc_ast *ast = NULL;
        shc_diag d;
        int rc = shc_parse(&ast, cmd, len, false, NULL, &d);
        if (rc != 0) {
            printf("E %s\n", shc_err_kind(rc));
        } else {
            size_t calls = 0;
            shc_ast_each_call(ast->root, count_call, &calls);
            printf("L %zu\n", calls);
            shc_ast_each_call(ast->root, dump_call, NULL);
        }
        shc_ast_free(ast);
    }
    free(cmd);
    return fflush(stdout) == 0 ? 0 : 1;
}
