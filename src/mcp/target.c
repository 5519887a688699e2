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

/* Control characters, bidi controls, invisible joiners and line or paragraph separators. */
static bool is_hidden(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x61C || cp == 0xAD ||
           (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB) ||
           cp == 0xFFFD;
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
        if (is_hidden(cp))
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

static json_t *names_of(json_t *pairs, bool lower)
{
    json_t *a = json_array();
    size_t i;
    json_t *p;
    json_array_foreach(pairs, i, p)
    {
        const char *n = shc_rpc_str(json_object_get(p, "name"));
        char *d = n ? strdup(n) : NULL;
        for (char *q = d; lower && q && *q; q++)
            if (*q >= 'A' && *q <= 'Z')
                *q = (char)(*q - 'A' + 'a');
        if (d)
            json_array_append_new(a, json_string(d));
        free(d);
    }
    /* the order of the entries says nothing: sorted */
    size_t k = json_array_size(a);
    for (size_t x = 1; x < k; x++)
        for (size_t y = x; y > 0 && strcmp(json_string_value(json_array_get(a, y - 1)),
                                           json_string_value(json_array_get(a, y))) > 0; y--) {
            json_t *t = json_incref(json_array_get(a, y));
            json_array_set(a, y, json_array_get(a, y - 1));
            json_array_set_new(a, y - 1, t);
        }
    return a;
}

char *shc__mcp_ident(json_t *entry)
{
    json_t *id;
    const char *url = shc_rpc_str(json_object_get(entry, "url"));
    if (url)
        id = json_pack("{s:O?, s:s, s:s, s:o}", "name", json_object_get(entry, "name"), "type",
                       "http", "url", url, "headers",
                       names_of(json_object_get(entry, "headers"), true));
    else
        id = json_pack("{s:O?, s:O?, s:O?, s:o}", "name", json_object_get(entry, "name"),
                       "command", json_object_get(entry, "command"), "args",
                       json_object_get(entry, "args"), "env",
                       names_of(json_object_get(entry, "env"), false));
    char *text = id ? json_dumps(id, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(id);
    return text;
}

/* ------------------------------------------------------------------ targets */

shc_mcp_target *shc_mcp_resolve(const shc_mcp *m, const char *fname)
{
    mcp_tool *t = NULL;
    for (size_t i = 0; m && fname && i < m->nindex; i++)
        if (!strcmp(m->index[i]->fname, fname))
            t = m->index[i];
    mcp_server *s = NULL;
    for (size_t i = 0; t && i < m->n; i++)
        for (size_t k = 0; k < m->servers[i]->ntools; k++)
            if (&m->servers[i]->tools[k] == t)
                s = m->servers[i];
    if (!t || !s || !s->ident || !t->entry)
        return NULL;
    shc_mcp_target *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->ident = strdup(s->ident);
    g->server = strdup(s->name);
    g->tool = strdup(t->tool);
    g->title = strdup(t->title);
    g->def = json_incref(t->entry);
    g->read_only = t->pub.read_only;
    g->open_world = t->pub.open_world;
    if (!g->ident || !g->server || !g->tool || !g->title) {
        shc_mcp_target_free(g);
        return NULL;
    }
    return g;
}

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
    json_t *k = json_pack("[s,s]", g->ident, g->tool);
    char *text = k ? json_dumps(k, JSON_COMPACT) : NULL;
    json_decref(k);
    return text;
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
            *why = "the server changed the tool's definition since the call was made";
            return NULL;
        }
        return t;
    }
    *why = "the server no longer lists the tool";
    return NULL;
}
