/* The tools as one model request showed them (docs/mcp.md, "What the model was shown"): each
 * function name with the server entry's identity, the tool's exact name and the definition it
 * had then.  client.c makes one each time the session's tools change; the backend keeps a
 * reference per request it builds and hands it back with that request's calls, so a call is
 * resolved against what the model saw: a re-list that changed the definition (even back and
 * forth) or gave the name to another tool in the meantime cannot redirect it.  Self-contained
 * (copies and JSON references), so it outlives the session's servers safely. */
#define _GNU_SOURCE
#include "mcp/mcp_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct snap_tool {
    char *fname, *ident, *server, *tool, *title;
    json_t *def; /* a reference: the tools/list entry's definition as the request showed it */
    bool read_only, open_world;
} snap_tool;

typedef struct mcp_snap {
    shc_tools_snap base; /* first: the seam's handle */
    size_t n;
    snap_tool tools[];
} mcp_snap;

static void snap_destroy(shc_tools_snap *base)
{
    mcp_snap *p = (mcp_snap *)base;
    for (size_t i = 0; i < p->n; i++) {
        snap_tool *t = &p->tools[i];
        free(t->fname);
        free(t->ident);
        free(t->server);
        free(t->tool);
        free(t->title);
        json_decref(t->def);
    }
    free(p);
}

/* The server whose tools hold t. */
static const mcp_server *server_of(const shc_mcp *m, const mcp_tool *t)
{
    for (size_t i = 0; i < m->n; i++)
        for (size_t k = 0; k < m->servers[i]->ntools; k++)
            if (&m->servers[i]->tools[k] == t)
                return m->servers[i];
    return NULL;
}

shc_tools_snap *shc__mcp_snap_new(const shc_mcp *m)
{
    mcp_snap *p = calloc(1, sizeof *p + m->nindex * sizeof *p->tools);
    if (!p)
        return NULL;
    p->base.refs = 1;
    p->base.destroy = snap_destroy;
    for (size_t i = 0; i < m->nindex; i++) {
        const mcp_tool *t = m->index[i];
        const mcp_server *s = server_of(m, t);
        if (!s || !s->ident || !t->entry)
            continue;
        snap_tool *e = &p->tools[p->n++];
        e->fname = strdup(t->fname);
        e->ident = strdup(s->ident);
        e->server = strdup(s->name);
        e->tool = strdup(t->tool);
        e->title = strdup(t->title);
        e->def = json_incref(t->entry);
        e->read_only = t->pub.read_only;
        e->open_world = t->pub.open_world;
        if (!e->fname || !e->ident || !e->server || !e->tool || !e->title) {
            snap_destroy(&p->base);
            return NULL;
        }
    }
    return &p->base;
}

shc_tools_snap *shc_mcp_tools_snap(const shc_mcp *m)
{
    return m ? shc_tools_snap_ref(m->snap) : NULL;
}

shc_mcp_target *shc_mcp_resolve(const shc_tools_snap *snap, const char *fname)
{
    if (!snap || snap->destroy != snap_destroy || !fname)
        return NULL; /* none, or not one of ours */
    const mcp_snap *p = (const mcp_snap *)snap;
    const snap_tool *t = NULL;
    for (size_t i = 0; i < p->n && !t; i++)
        if (!strcmp(p->tools[i].fname, fname))
            t = &p->tools[i];
    if (!t)
        return NULL;
    shc_mcp_target *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->ident = strdup(t->ident);
    g->server = strdup(t->server);
    g->tool = strdup(t->tool);
    g->title = strdup(t->title);
    g->def = json_incref(t->def);
    g->read_only = t->read_only;
    g->open_world = t->open_world;
    if (!g->ident || !g->server || !g->tool || !g->title) {
        shc_mcp_target_free(g);
        return NULL;
    }
    return g;
}
