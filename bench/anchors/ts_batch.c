/* Whole-process anchor: what a harness would run instead of `shcard explain --batch` if it used
 * tree-sitter-bash.  Reads lines of {"cmd": "..."} on stdin, parses each command with
 * tree-sitter-bash and walks every node of the tree, and writes one line per request,
 * {"nodes":N,"error":true|false}, to a buffered stdout.  The request reader is the least a C
 * program can do (find the string after "cmd", undo \" \\ \/ \n \t \r \b \f and ASCII \u00XX,
 * no validation), which favours the anchor. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_bash(void);

static size_t ts_walk(TSTree *tree)
{
    TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(tree));
    size_t n = 1;
    for (;;) {
        if (ts_tree_cursor_goto_first_child(&c)) {
            n++;
            continue;
        }
        while (!ts_tree_cursor_goto_next_sibling(&c))
            if (!ts_tree_cursor_goto_parent(&c)) {
                ts_tree_cursor_delete(&c);
                return n;
            }
        n++;
    }
}

/* The "cmd" string of line, decoded into out (at least as long as line); its length or -1. */
static long decode_cmd(const char *line, size_t len, char *out)
{
    const char *p = strstr(line, "\"cmd\"");
    if (!p)
        return -1;
    p = strchr(p + 5, '"');
    if (!p)
        return -1;
    p++;
    const char *e = line + len;
    size_t o = 0;
    while (p < e && *p != '"') {
        if (*p != '\\') {
            out[o++] = *p++;
            continue;
        }
        if (++p >= e)
            return -1;
        char c = *p++;
        switch (c) {
        case 'n': out[o++] = '\n'; break;
        case 't': out[o++] = '\t'; break;
        case 'r': out[o++] = '\r'; break;
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'u':
            if (e - p < 4)
                return -1;
            out[o++] = (char)strtol((char[]){p[0], p[1], p[2], p[3], 0}, NULL, 16);
            p += 4;
            break;
        default: out[o++] = c; break;
        }
    }
    return (long)o;
}

int main(void)
{
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    TSParser *parser = ts_parser_new();
    if (!parser || !ts_parser_set_language(parser, tree_sitter_bash()))
        return 1;
    char *line = NULL, *cmd = NULL;
    size_t cap = 0, ccap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) != -1) {
        if ((size_t)n + 1 > ccap) {
            ccap = (size_t)n + 1;
            cmd = realloc(cmd, ccap);
            if (!cmd)
                return 1;
        }
        long len = decode_cmd(line, (size_t)n, cmd);
        if (len < 0) {
            fputs("{\"error\":\"request\"}\n", stdout);
            continue;
        }
        TSTree *tree = ts_parser_parse_string(parser, NULL, cmd, (uint32_t)len);
        size_t nodes = ts_walk(tree);
        bool err = ts_node_has_error(ts_tree_root_node(tree));
        ts_tree_delete(tree);
        printf("{\"nodes\":%zu,\"error\":%s}\n", nodes, err ? "true" : "false");
    }
    free(line);
    free(cmd);
    ts_parser_delete(parser);
    return fflush(stdout) == 0 ? 0 : 1;
}
