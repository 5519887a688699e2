/* run_corpus FILE.jsonl...: runs every labelled case through shc_classify and checks kind,
 * path, query and line.  A case passes when the kind is `expect` (then path/query/line, when
 * given, must match) or one of `expect_alt`.  The safety gate is reported on its own line: a
 * case labelled terminal with no alternative must come out terminal.  Ends with
 * "N passed, N failed"; exit status 1 when anything failed.
 * A case may name its "context" ("any", the default, or "bridge": shcard's executor).
 *   --accepted   instead, print {"cmd":...,"kind":...,"context":...} for every case the
 *                classifier labels read/search/list (input for the safety oracle). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shcard.h"

typedef struct stats {
    size_t pass, fail, gate_cases, gate_leaks;
} stats;

static bool str_eq(const json_t *want, const char *got)
{
    if (json_is_null(want))
        return got == NULL;
    return got && json_is_string(want) && !strcmp(json_string_value(want), got);
}

static bool kind_allowed(const json_t *c, const char *kind, bool *exact)
{
    const char *expect = json_string_value(json_object_get(c, "expect"));
    *exact = expect && !strcmp(expect, kind);
    if (*exact)
        return true;
    json_t *alt = json_object_get(c, "expect_alt");
    size_t i;
    json_t *a;
    json_array_foreach(alt, i,
                       a) if (json_is_string(a) && !strcmp(json_string_value(a), kind)) return true;
    return false;
}

static void check_case(const json_t *c, const char *file, size_t lineno, stats *st, bool accepted)
{
    json_t *jcmd = json_object_get(c, "cmd");
    const char *expect = json_string_value(json_object_get(c, "expect"));
    if (!json_is_string(jcmd) || !expect) {
        printf("%s:%zu: FAIL malformed case (needs cmd and expect)\n", file, lineno);
        st->fail++;
        return;
    }
    shc_classify_opts o = SHC_CLASSIFY_OPTS_INIT;
    const char *ctxname = json_string_value(json_object_get(c, "context"));
    if (ctxname && !strcmp(ctxname, "bridge")) {
        o.context = SHC_CONTEXT_BRIDGE;
    } else if (ctxname && strcmp(ctxname, "any")) {
        printf("%s:%zu: FAIL unknown context '%s'\n", file, lineno, ctxname);
        st->fail++;
        return;
    }
    shc_verdict *v = NULL;
    if (shc_classify_ex(&v, json_string_value(jcmd), json_string_length(jcmd), &o) < 0) {
        printf("%s:%zu: FAIL out of memory\n", file, lineno);
        st->fail++;
        return;
    }
    const char *kind = shc_kind_name(v->kind);
    if (accepted) {
        if (v->kind != SHC_KIND_TERMINAL) {
            json_t *j = json_pack("{s:O,s:s,s:s}", "cmd", jcmd, "kind", kind, "context",
                                  shc_context_name(o.context));
            char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
            if (s)
                puts(s);
            free(s);
            json_decref(j);
        }
        shc_verdict_free(v);
        return;
    }
    bool gate =
        !strcmp(expect, "terminal") && json_array_size(json_object_get(c, "expect_alt")) == 0;
    if (gate) {
        st->gate_cases++;
        if (v->kind != SHC_KIND_TERMINAL) {
            st->gate_leaks++;
            printf("%s:%zu: SAFETY GATE: %s labelled terminal, got %s (%s)\n", file, lineno,
                   json_string_value(jcmd), kind, v->title);
        }
    }
    bool exact;
    char why[300] = "";
    if (!kind_allowed(c, kind, &exact)) {
        snprintf(why, sizeof why, "kind %s, want %s (reason: %s)", kind, expect, v->reason);
    } else if (exact) {
        json_t *p = json_object_get(c, "path"), *q = json_object_get(c, "query"),
               *l = json_object_get(c, "line");
        if (p && !str_eq(p, v->path))
            snprintf(why, sizeof why, "path [%s], want [%s]", v->path ? v->path : "null",
                     json_is_string(p) ? json_string_value(p) : "null");
        else if (q && !str_eq(q, v->query))
            snprintf(why, sizeof why, "query [%s], want [%s]", v->query ? v->query : "null",
                     json_is_string(q) ? json_string_value(q) : "null");
        else if (l && (json_is_null(l) ? v->line != 0 : json_integer_value(l) != v->line))
            snprintf(why, sizeof why, "line %ld, want %lld", v->line,
                     (long long)json_integer_value(l));
    }
    if (why[0]) {
        printf("%s:%zu: FAIL %s: %s\n", file, lineno, json_string_value(jcmd), why);
        st->fail++;
    } else {
        st->pass++;
    }
    shc_verdict_free(v);
}

int main(int argc, char **argv)
{
    stats st = {0, 0, 0, 0};
    bool accepted = false;
    int first = 1;
    if (argc > 1 && !strcmp(argv[1], "--accepted")) {
        accepted = true;
        first = 2;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: run_corpus [--accepted] FILE.jsonl...\n");
        return 2;
    }
    for (int i = first; i < argc; i++) {
        FILE *f = fopen(argv[i], "r");
        if (!f) {
            printf("%s: FAIL cannot open\n", argv[i]);
            st.fail++;
            continue;
        }
        char *line = NULL;
        size_t cap = 0, lineno = 0;
        ssize_t n;
        while ((n = getline(&line, &cap, f)) != -1) {
            lineno++;
            if (n <= 1)
                continue;
            json_error_t err;
            json_t *c = json_loadb(line, (size_t)n, JSON_ALLOW_NUL, &err);
            if (!c) {
                printf("%s:%zu: FAIL invalid JSON: %s\n", argv[i], lineno, err.text);
                st.fail++;
                continue;
            }
            check_case(c, argv[i], lineno, &st, accepted);
            json_decref(c);
        }
        free(line);
        fclose(f);
    }
    if (accepted)
        return 0;
    printf("safety gate: %zu terminal-only cases, %zu labelled otherwise\n", st.gate_cases,
           st.gate_leaks);
    printf("corpus: %zu passed, %zu failed\n", st.pass, st.fail);
    return st.fail || st.gate_leaks ? 1 : 0;
}
