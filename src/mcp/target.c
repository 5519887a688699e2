/* What a call is aimed at and what the user is shown (docs/mcp.md, "Approval"): a server
 * entry's identity (its name and what the user configured it to run or reach), a call's target
 * resolved once from the model's function name (server identity, exact tool name, the tool's
 * definition as listed then), the key "Always allow" is stored under, and titles made safe to
 * show: a server's names and descriptions never reach a prompt with control characters, bidi
 * controls or line breaks, nor longer than a line. */
#define _GNU_SOURCE
#include "mcp/mcp_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TITLE_MAX 120  /* code points of a title, the ellipsis included */
#define SERVER_MAX 48  /* of which the server's name takes at most */

/* ------------------------------------------------------------------ display text */

/* One code point from s (at most n bytes), its length in *len; an invalid sequence is one byte
 * read as U+FFFD. */
static unsigned utf8_next(const unsigned char *s, size_t n, size_t *len)
{
    unsigned c = s[0];
    size_t need = c < 0x80 ? 0 : c >= 0xC2 && c < 0xE0 ? 1 : c >= 0xE0 && c < 0xF0 ? 2
                : c >= 0xF0 && c < 0xF5 ? 3 : 9;
    *len = 1;
    if (need == 0)
        return c;
    if (need == 9 || need >= n)
        return 0xFFFD;
    unsigned cp = c & (0x3F >> need);
    for (size_t i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0xFFFD;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    static const unsigned least[] = {0, 0x80, 0x800, 0x10000};
    if (cp < least[need] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0xFFFD;
    *len = need + 1;
    return cp;
}

static bool is_space(unsigned cp)
{
    return cp == ' ' || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
           cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

/* What a title shows as itself: an allow-list of code points that draw as visible glyphs on
 * their own (ASCII and Latin, Greek, Cyrillic, general punctuation and symbols, CJK, kana,
 * Hangul syllables, emoji).  Everything else is one U+FFFD: controls, format characters (bidi,
 * joiners, tags U+E0000-E007F), combining marks, variation selectors, Hangul fillers, the braille
 * blank, private use, separators, unassigned code points; so no text hides in a title. */
static bool is_shown(unsigned cp)
{
    static const unsigned ranges[][2] = {
        {0x21, 0x7E},       {0xA1, 0xAC},       {0xAE, 0x2FF},     /* Latin */
        {0x370, 0x377},     {0x37A, 0x37F},     {0x384, 0x3FF},    /* Greek */
        {0x400, 0x482},     {0x48A, 0x52F},                        /* Cyrillic */
        {0x1E00, 0x1FFE},                                          /* Latin and Greek extended */
        {0x2010, 0x2027},   {0x2030, 0x205E},                      /* punctuation */
        {0x2070, 0x209C},   {0x20A0, 0x20C0},                      /* super/subscripts, currency */
        {0x2100, 0x23FF},   {0x2460, 0x27BF},                      /* symbols, arrows, shapes */
        {0x2900, 0x2BFF},                                          /* arrows, math, symbols */
        {0x3001, 0x303F},   {0x3041, 0x3096},   {0x30A0, 0x30FF},  /* CJK punctuation, kana */
        {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xAC00, 0xD7A3},  /* CJK, Hangul syllables */
        {0xFF01, 0xFF60},                                          /* fullwidth forms */
        {0x1F300, 0x1F5FF}, {0x1F600, 0x1F64F}, {0x1F680, 0x1F6FF}, /* emoji */
        {0x1F900, 0x1F9FF},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++)
        if (cp >= ranges[i][0] && cp <= ranges[i][1])
            return true;
    return false;
}

static size_t put_cp(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18);
    o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* s as one line for a person: every hidden character one U+FFFD, a run of white space one
 * space (none at the ends), at most max code points (the last one "…" when cut).  Owned. */
char *shc_mcp_display(const char *s, size_t max)
{
    if (!s)
        s = "";
    size_t n = strlen(s), cps = 0;
    char *out = malloc(max * 4 + 4), *o = out;
    if (!out || max == 0)
        return out ? (*out = '\0', out) : NULL;
    bool space = false;
    for (size_t i = 0, len; i < n; i += len) {
        unsigned cp = utf8_next((const unsigned char *)s + i, n - i, &len);
        if (is_space(cp)) {
            space = o > out;
            continue;
        }
        if (!is_shown(cp))
            cp = 0xFFFD;
        if (cps + space + 1 > max) { /* no room: the last kept one becomes the ellipsis */
            while (cps + 1 > max) {
                do
                    o--;
                while (((unsigned char)*o & 0xC0) == 0x80);
                cps--;
            }
            while (o > out && o[-1] == ' ')
                o--, cps--;
            o += put_cp(o, 0x2026);
            *o = '\0';
            return out;
        }
        if (space)
            *o++ = ' ', cps++;
        space = false;
        o += put_cp(o, cp);
        cps++;
    }
    *o = '\0';
    return out;
}

static char *title_of(const char *server, const char *tool)
{
    char *sv = shc_mcp_display(server, SERVER_MAX);
    size_t used = 0;
    for (const char *p = sv; p && *p; p++)
        used += ((unsigned char)*p & 0xC0) != 0x80;
    char *tl = shc_mcp_display(tool, TITLE_MAX - used - 2);
    char *t = NULL;
    if (!sv || !tl || asprintf(&t, "%s: %s", sv, tl) < 0)
        t = NULL;
    free(sv);
    free(tl);
    return t;
}

void shc__mcp_tool_dress(mcp_tool *t, const char *server, json_t *entry)
{
    char *title = title_of(server, t->tool);
    if (title) { /* else (out of memory) the raw title stays: result.c's "SERVER: TOOL" */
        free(t->title);
        t->title = title;
        t->pub.title = title;
    }
    t->entry = json_incref(entry);
}

/* ------------------------------------------------------------------ identities */

const char *shc__mcp_kind(json_t *e)
{
    const char *type = shc_rpc_str(json_object_get(e, "type"));
    if (!type)
        return json_object_get(e, "type") ? NULL : "stdio";
    if (!strcmp(type, "http") || !strcmp(type, "sse") || !strcmp(type, "stdio"))
        return type;
    return NULL;
}

/* {name, value} pairs as [[name, value]...] sorted (their order says nothing); names lower-cased
 * for headers, whose names are case-blind. */
static json_t *pairs_of(json_t *pairs, bool lower)
{
    json_t *a = json_array();
    size_t i;
    json_t *p;
    json_array_foreach(pairs, i, p)
    {
        const char *n = shc_rpc_str(json_object_get(p, "name"));
        const char *v = shc_rpc_str(json_object_get(p, "value"));
        char *d = n ? strdup(n) : NULL;
        for (char *q = d; lower && q && *q; q++)
            if (*q >= 'A' && *q <= 'Z')
                *q = (char)(*q - 'A' + 'a');
        if (d)
            json_array_append_new(a, json_pack("[s,s]", d, v ? v : ""));
        free(d);
    }
    size_t k = json_array_size(a);
    char **key = calloc(k + 1, sizeof *key);
    for (size_t x = 0; key && x < k; x++)
        key[x] = json_dumps(json_array_get(a, x), JSON_COMPACT);
    for (size_t x = 1; key && x < k; x++)
        for (size_t y = x; y > 0 && key[y - 1] && key[y] && strcmp(key[y - 1], key[y]) > 0; y--) {
            json_t *t = json_incref(json_array_get(a, y));
            json_array_set(a, y, json_array_get(a, y - 1));
            json_array_set_new(a, y - 1, t);
            char *ks = key[y];
            key[y] = key[y - 1];
            key[y - 1] = ks;
        }
    for (size_t x = 0; key && x < k; x++)
        free(key[x]);
    free(key);
    return a;
}

char *shc__mcp_ident(json_t *entry, const char *cwd)
{
    /* the kind the entry was checked as (servers.c), never guessed from a field it carries */
    const char *kind = shc__mcp_kind(entry);
    json_t *id;
    if (kind && !strcmp(kind, "http"))
        id = json_pack("{s:O?, s:s, s:O?, s:o}", "name", json_object_get(entry, "name"), "type",
                       "http", "url", json_object_get(entry, "url"), "headers",
                       pairs_of(json_object_get(entry, "headers"), true));
    else
        id = json_pack("{s:O?, s:s, s:s, s:O?, s:O?, s:o}", "name", json_object_get(entry, "name"),
                       "type", kind ? kind : "?", "cwd", cwd ? cwd : "", "command",
                       json_object_get(entry, "command"), "args", json_object_get(entry, "args"),
                       "env", pairs_of(json_object_get(entry, "env"), false));
    char *text = id ? json_dumps(id, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(id);
    return text;
}

/* ------------------------------------------------------------------ targets */

void shc_mcp_target_free(shc_mcp_target *g)
{
    if (!g)
        return;
    free(g->ident);
    free(g->server);
    free(g->tool);
    free(g->title);
    json_decref(g->def);
    free(g);
}

char *shc_mcp_approval_key(const shc_mcp_target *g)
{
    /* the definition itself (bounded by tools.c), not a hash of it: a server that chooses its
     * definitions cannot make a changed one collide with the one the user allowed */
    json_t *k = json_pack("[s,s,O]", g->ident, g->tool, g->def);
    char *text = k ? json_dumps(k, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(k);
    return text;
}

bool shc_mcp_key_same_tool(const char *key, const shc_mcp_target *g)
{
    json_t *k = json_loads(key, 0, NULL);
    const char *ident = json_string_value(json_array_get(k, 0));
    const char *tool = json_string_value(json_array_get(k, 1));
    bool same = ident && tool && !strcmp(ident, g->ident) && !strcmp(tool, g->tool);
    json_decref(k);
    return same;
}

bool shc_mcp_key_present(const shc_mcp *m, const char *key)
{
    json_t *k = json_loads(key, 0, NULL);
    const char *ident = json_string_value(json_array_get(k, 0));
    bool found = false;
    for (size_t i = 0; m && ident && i < m->n; i++)
        found |= m->servers[i]->ident && !strcmp(m->servers[i]->ident, ident);
    json_decref(k);
    return found;
}

mcp_tool *shc__mcp_target_tool(shc_mcp *m, const shc_mcp_target *g, mcp_server **srv,
                               const char **why)
{
    *srv = NULL;
    for (size_t i = 0; m && i < m->n; i++)
        if (m->servers[i]->ident && !strcmp(m->servers[i]->ident, g->ident))
            *srv = m->servers[i];
    if (!*srv) {
        *why = "its server is no longer one of the session's";
        return NULL;
    }
    for (size_t k = 0; k < (*srv)->ntools; k++) {
        mcp_tool *t = &(*srv)->tools[k];
        if (strcmp(t->tool, g->tool))
            continue;
        if (!json_equal(t->entry, g->def)) {
            *why = "the server changed the tool's definition since it was offered to the model";
            return NULL;
        }
        return t;
    }
    *why = "the server no longer lists the tool";
    return NULL;
}

bool shc_mcp_target_current(shc_mcp *m, const shc_mcp_target *g, const char **why)
{
    mcp_server *s;
    return shc__mcp_target_tool(m, g, &s, why) != NULL;
}
