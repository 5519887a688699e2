/* In-process anchor: the same 100,000 generated agent commands as bench_parse (fixed seed),
 * each timed through shcard's parse (shc_parse), shcard's parse + classify (shc_classify) and
 * tree-sitter-bash's parse + walk (ts_parser_parse_string, then a cursor over every node of the
 * tree, then ts_tree_delete), interleaved block by block (1,000 commands) in the same passes.
 * Per command the best of three passes counts (the machine is shared: the slower passes were slowed by
 * someone else).  Prints mean, p50 and p99 of each and key=value lines for bench_anchors.sh.
 * With FILE, also writes the commands to FILE, one per line (for the other anchors).
 * tree-sitter-bash's C sources come from the npm package pinned in bench/anchors/package.json
 * (fetched by `make bench-anchors`); the runtime is Debian's libtree-sitter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "gencmds.h"
#include "shcard.h"

#define N 100000
#define BLOCK 1000 /* the three take turns block by block: each runs with its own code and tables
                    * in cache, as in a program that does only that, while all three share the
                    * machine's noise */

const TSLanguage *tree_sitter_bash(void);

typedef struct stats {
    double mean, p50, p99;
} stats;

static stats summarize(const double *t0, double *t)
{
    memcpy(t, t0, N * sizeof *t);
    qsort(t, N, sizeof *t, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < N; i++)
        sum += t[i];
    return (stats){sum / N, t[N / 2], t[N * 99 / 100]};
}

/* Visits every node of the tree (named or not) with a cursor; returns how many. */
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

int main(int argc, char **argv)
{
    char **cmds = malloc(N * sizeof *cmds);
    size_t *lens = malloc(N * sizeof *lens);
    double *tp = malloc(N * sizeof *tp), *tc = malloc(N * sizeof *tc), *tt = malloc(N * sizeof *tt);
    double *scratch = malloc(N * sizeof *scratch);
    if (!cmds || !lens || !tp || !tc || !tt || !scratch)
        return 1;
    FILE *out = argc > 1 ? fopen(argv[1], "w") : NULL;
    for (size_t i = 0; i < N; i++) {
        char buf[512];
        lens[i] = gen_command(buf, sizeof buf);
        cmds[i] = strdup(buf);
        if (!cmds[i])
            return 1;
        if (out)
            fprintf(out, "%s\n", buf);
        tp[i] = tc[i] = tt[i] = 1e18;
    }
    if (out)
        fclose(out);
    TSParser *parser = ts_parser_new();
    if (!parser || !ts_parser_set_language(parser, tree_sitter_bash())) {
        fprintf(stderr, "ts_inproc: tree-sitter-bash does not load in this libtree-sitter\n");
        return 1;
    }
    size_t parsed = 0, ts_nodes = 0, ts_errors = 0;
    for (int pass = 0; pass < 4; pass++) { /* pass 0 warms up (1,000 commands), not counted */
        parsed = ts_nodes = ts_errors = 0;
        size_t n = pass ? N : 1000;
        for (size_t b0 = 0; b0 < n; b0 += BLOCK) {
            size_t b1 = b0 + BLOCK < n ? b0 + BLOCK : n;
            for (size_t i = b0; i < b1; i++) {
                shc_diag d;
                double s = now_ns();
                shc_ast *ast = NULL;
                int rc = shc_parse(&ast, cmds[i], lens[i], true, NULL, &d);
                shc_ast_free(ast);
                double e = now_ns();
                parsed += rc == 0;
                if (pass && e - s < tp[i])
                    tp[i] = e - s;
            }
            for (size_t i = b0; i < b1; i++) {
                double s = now_ns();
                shc_verdict *v = NULL;
                if (shc_classify(&v, cmds[i], lens[i], true) != 0)
                    return 1;
                shc_verdict_free(v);
                double e = now_ns();
                if (pass && e - s < tc[i])
                    tc[i] = e - s;
            }
            for (size_t i = b0; i < b1; i++) {
                double s = now_ns();
                TSTree *tree = ts_parser_parse_string(parser, NULL, cmds[i], (uint32_t)lens[i]);
                size_t nodes = ts_walk(tree);
                bool err = ts_node_has_error(ts_tree_root_node(tree));
                ts_tree_delete(tree);
                double e = now_ns();
                ts_nodes += nodes;
                ts_errors += err;
                if (pass && e - s < tt[i])
                    tt[i] = e - s;
            }
        }
    }
    ts_parser_delete(parser);
    stats p = summarize(tp, scratch), c = summarize(tc, scratch), t = summarize(tt, scratch);
    printf("commands: %d; shcard parsed %zu; tree-sitter-bash: %zu nodes walked, %zu trees with "
           "an ERROR node\n",
           N, parsed, ts_nodes, ts_errors);
    printf("shcard parse:             mean %6.0f ns, p50 %6.0f ns, p99 %6.0f ns\n", p.mean, p.p50,
           p.p99);
    printf("shcard parse + classify:  mean %6.0f ns, p50 %6.0f ns, p99 %6.0f ns\n", c.mean, c.p50,
           c.p99);
    printf("tree-sitter parse + walk: mean %6.0f ns, p50 %6.0f ns, p99 %6.0f ns\n", t.mean, t.p50,
           t.p99);
    printf("shc_parse_mean_ns=%.0f shc_classify_mean_ns=%.0f ts_mean_ns=%.0f\n", p.mean, c.mean,
           t.mean);
    printf("shc_parse_p50_ns=%.0f shc_classify_p50_ns=%.0f ts_p50_ns=%.0f\n", p.p50, c.p50, t.p50);
    for (size_t i = 0; i < N; i++)
        free(cmds[i]);
    free(cmds);
    free(lens);
    free(tp);
    free(tc);
    free(tt);
    free(scratch);
    return 0;
}
