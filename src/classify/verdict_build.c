/* Verdicts in one allocation: every string is first described as a list of pieces (borrowed
 * pointer + length), measured, then copied into the block behind the struct. */
#include "classify/verdict_build.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct piece {
    const char *s;
    size_t n;
} piece;

/* A list of pieces over caller storage (not zeroed: only [0..n) is read). */
typedef struct pieces {
    piece *p;
    size_t n, cap;
} pieces;

static void add(pieces *ps, const char *s, size_t n)
{
    if (ps->n < ps->cap)
        ps->p[ps->n++] = (piece){s, n};
}

static void adds(pieces *ps, const char *s)
{
    add(ps, s, strlen(s));
}

static size_t plen(const pieces *ps)
{
    size_t n = 0;
    for (size_t i = 0; i < ps->n; i++)
        n += ps->p[i].n;
    return n;
}

/* p joined onto cwd (cwd NULL: p as written; p NULL: cwd): at most 3 pieces. */
static void add_join(pieces *ps, const char *cwd, const char *p)
{
    if (!cwd) {
        adds(ps, p);
        return;
    }
    if (!p || !strcmp(p, ".")) {
        adds(ps, cwd);
        return;
    }
    if (p[0] == '/') {
        adds(ps, p);
        return;
    }
    size_t n = strlen(cwd);
    add(ps, cwd, n);
    if (n && cwd[n - 1] != '/')
        add(ps, "/", 1);
    adds(ps, p);
}

static void add_all(pieces *dst, const pieces *src)
{
    for (size_t i = 0; i < src->n; i++)
        add(dst, src->p[i].s, src->p[i].n);
}

/* The writer: copies the pieces at the cursor, NUL-terminates, advances. */
static char *put(char **at, const pieces *ps)
{
    char *d = *at, *o = d;
    for (size_t i = 0; i < ps->n; i++) {
        memcpy(o, ps->p[i].s, ps->p[i].n);
        o += ps->p[i].n;
    }
    *o = '\0';
    *at = o + 1;
    return d;
}

static char *put1(char **at, const char *s, size_t n)
{
    char *d = *at;
    memcpy(d, s, n);
    d[n] = '\0';
    *at = d + n + 1;
    return d;
}

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t' || **s == '\n'))
        (*s)++, (*n)--;
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\n'))
        (*n)--;
}

/* Every NUL byte of s[0..n) becomes '?'. */
static void nul_to_mark(char *s, size_t n)
{
    for (char *p = s, *e = s + n; (p = memchr(p, '\0', (size_t)(e - p))) != NULL; p++)
        *p = '?';
}

static size_t strings_at(size_t fixed)
{
    return (fixed + alignof(max_align_t) - 1) / alignof(max_align_t) * alignof(max_align_t);
}

shc_verdict *shc__verdict_terminal(const char *script,
                                   size_t script_len,
                                   bool wrapped,
                                   const char *reason,
                                   shc_span span,
                                   int parse_error)
{
    const char *t = script;
    size_t tn = script_len;
    trim(&t, &tn);
    size_t rn = strlen(reason);
    size_t head = strings_at(sizeof(shc_verdict));
    shc_verdict *v = malloc(head + script_len + 1 + tn + 1 + rn + 1);
    if (!v)
        return NULL;
    memset(v, 0, sizeof *v);
    char *at = (char *)v + head;
    v->script = put1(&at, script, script_len);
    nul_to_mark(v->script, script_len); /* a NUL byte (always a parse error): spans stay inside */
    v->title = put1(&at, t, tn);
    nul_to_mark(v->title, tn);
    v->reason = put1(&at, reason, rn);
    v->kind = SHC_KIND_TERMINAL;
    v->reason_span = span;
    v->wrapped = wrapped;
    v->parse_error = parse_error;
    return v;
}

/* Appends the decimal digits of v (> 0) at o; returns the end. */
static char *put_long(char *o, long v)
{
    char tmp[24];
    size_t n = 0;
    unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *o++ = '-';
    while (n)
        *o++ = tmp[--n];
    return o;
}

static char *put_lit(char *o, const char *s)
{
    size_t n = strlen(s);
    memcpy(o, s, n);
    return o + n;
}

/* " (lines 1-40)" and friends, into buf (two longs, the words and r->more, under 64 bytes,
 * fit in 128), without printf: this is the hot path.  Further sed ranges follow the first. */
static void line_suffix(char buf[static 128], const shc_rule *r)
{
    char *o = buf;
    if (r->last_line) {
        o = put_lit(o, " (last line");
        o = put_lit(o, r->more);
        *o++ = ')';
    } else if (r->line && r->line_end == r->line) {
        o = put_lit(o, " (line ");
        o = put_long(o, r->line);
        o = put_lit(o, r->more);
        *o++ = ')';
    } else if (r->line && r->line_end) {
        o = put_lit(o, " (lines ");
        o = put_long(o, r->line);
        *o++ = '-';
        o = put_long(o, r->line_end);
        o = put_lit(o, r->more);
        *o++ = ')';
    } else if (r->line) {
        o = put_lit(o, " (from line ");
        o = put_long(o, r->line);
        o = put_lit(o, r->more);
        *o++ = ')';
    }
    *o = '\0';
}

shc_verdict *shc__verdict_accepted(const char *script,
                                   size_t script_len,
                                   bool wrapped,
                                   const char *cwd,
                                   const shc_rule *r,
                                   const char *const *argv,
                                   size_t argc,
                                   shc_span span)
{
    /* paths: the main one and every location (search roots), joined onto cwd */
    piece path_st[3], loc_st[SHC_MAX_ARGS][3], title_st[16 + 5 * SHC_MAX_ARGS];
    pieces path = {path_st, 0, 3}, title = {title_st, 0, sizeof title_st / sizeof title_st[0]};
    pieces loc[SHC_MAX_ARGS];
    bool has_path = r->path || cwd;
    if (has_path)
        add_join(&path, cwd, r->path);
    size_t nloc = r->npaths ? r->npaths : (has_path ? 1 : 0);
    size_t loclen = 0;
    for (size_t i = 0; i < nloc; i++) {
        loc[i] = (pieces){loc_st[i], 0, 3};
        if (r->npaths)
            add_join(&loc[i], cwd, r->paths[i]);
        else
            add_all(&loc[i], &path);
        loclen += plen(&loc[i]) + 1;
    }

    char suffix[128];
    switch (r->kind) {
    case SHC_KIND_READ:
        line_suffix(suffix, r);
        if (nloc > 1) {
            adds(&title, "Read files ");
            for (size_t i = 0; i < nloc; i++) {
                adds(&title, i ? ", '" : "'");
                add_all(&title, &loc[i]);
                adds(&title, "'");
            }
        } else {
            adds(&title, "Read file '");
            add_all(&title, &path);
            adds(&title, "'");
        }
        adds(&title, suffix);
        break;
    case SHC_KIND_SEARCH:
        adds(&title, "Search for '");
        adds(&title, r->query);
        adds(&title, "'");
        for (size_t i = 0; i < nloc; i++) {
            adds(&title, i ? ", " : " in ");
            add_all(&title, &loc[i]);
        }
        break;
    case SHC_KIND_LIST:
        adds(&title, has_path ? "List files in '" : "List files");
        add_all(&title, &path);
        if (has_path)
            adds(&title, "'");
        break;
    case SHC_KIND_TERMINAL: break;
    }

    size_t argvlen = 0, argn[SHC_MAX_ARGS];
    for (size_t i = 0; i < argc; i++)
        argvlen += (argn[i] = strlen(argv[i])) + 1;
    size_t qn = r->query ? strlen(r->query) : 0, rn = strlen(r->reason);
    size_t loc_off = strings_at(sizeof(shc_verdict));
    size_t argv_off = strings_at(loc_off + nloc * sizeof(shc_location));
    size_t str_off = strings_at(argv_off + (argc + 1) * sizeof(char *));
    size_t total = str_off + script_len + 1 + plen(&title) + 1 + rn + 1 +
                   (has_path ? plen(&path) + 1 : 0) + (r->query ? qn + 1 : 0) + loclen + argvlen;
    shc_verdict *v = malloc(total);
    if (!v)
        return NULL;
    memset(v, 0, sizeof *v);
    char *base = (char *)v, *at = base + str_off;
    v->kind = r->kind;
    v->script = put1(&at, script, script_len);
    v->title = put(&at, &title);
    v->reason = put1(&at, r->reason, rn);
    v->path = has_path ? put(&at, &path) : NULL;
    v->query = r->query ? put1(&at, r->query, qn) : NULL;
    v->line = r->line;
    v->locations = nloc ? (shc_location *)(void *)(base + loc_off) : NULL;
    v->nlocations = nloc;
    for (size_t i = 0; i < nloc; i++) {
        v->locations[i].path = put(&at, &loc[i]);
        v->locations[i].line = r->kind == SHC_KIND_READ ? r->line : 0;
    }
    v->argv = (char **)(void *)(base + argv_off);
    for (size_t i = 0; i < argc; i++)
        v->argv[i] = put1(&at, argv[i], argn[i]);
    v->argv[argc] = NULL;
    v->argc = argc;
    v->reason_span = span;
    v->wrapped = wrapped;
    return v;
}
