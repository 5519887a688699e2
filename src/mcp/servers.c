/* The mcpServers entries of session/new, load and resume: checked (every string without NUL,
 * the shapes of the ACP schema), and turned into the servers' settings. */
#define _GNU_SOURCE
#include "mcp/mcp_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/utf8.h"

/* An array of {name, value} string pairs (or absent / null). */
static bool pairs_ok(json_t *a)
{
    size_t i;
    json_t *p;
    if (!a || json_is_null(a))
        return true;
    if (!json_is_array(a) || json_array_size(a) > 256)
        return false;
    json_array_foreach(a, i, p)
    {
        const char *n = shc_rpc_str(json_object_get(p, "name"));
        const char *v = shc_rpc_str(json_object_get(p, "value"));
        if (!n || !v || !*n || strchr(n, '=') || strchr(n, ':') || strchr(n, '\n') || strchr(n, '\r') ||
            strchr(v, '\n') || strchr(v, '\r'))
            return false;
    }
    return true;
}

/* A name given twice in {name, value} pairs (headers: in any case), or NULL: with two, which
 * value counts depends on their order, and an approval must not carry over to the other. */
static const char *repeated(json_t *a, bool nocase)
{
    size_t n = json_is_array(a) ? json_array_size(a) : 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const char *x = shc_rpc_str(json_object_get(json_array_get(a, i), "name"));
            const char *y = shc_rpc_str(json_object_get(json_array_get(a, j), "name"));
            if (x && y && (nocase ? !strcasecmp(x, y) : !strcmp(x, y)))
                return x;
        }
    return NULL;
}

/* The names of a stdio server's variables: each one a word env(1) takes as a variable (not
 * empty, no '=', no NUL); a value with a NUL would be cut.  false with why. */
static bool env_ok(json_t *a, char *why, size_t cap, size_t i, const char *server)
{
    size_t k;
    json_t *p;
    json_array_foreach(a, k, p)
    {
        json_t *n = json_object_get(p, "name"), *v = json_object_get(p, "value");
        if (!json_is_string(n) || !json_is_string(v))
            continue; /* pairs_ok says it */
        const char *ns = json_string_value(n);
        if (!*ns || strchr(ns, '=') || strlen(ns) != json_string_length(n)) {
            snprintf(why, cap, "mcpServers[%zu] (%.60s): env[%zu]: a variable's name must be "
                               "non-empty, without '=' or NUL", i, server, k);
            return false;
        }
        if (strlen(json_string_value(v)) != json_string_length(v)) {
            snprintf(why, cap, "mcpServers[%zu] (%.60s): env[%zu] (%.60s): a value cannot hold "
                               "NUL", i, server, k, ns);
            return false;
        }
    }
    return true;
}

static int check(json_t *servers, char *why, size_t cap)
{
    size_t i;
    json_t *e;
    if (!servers || json_is_null(servers))
        return 0;
    if (!json_is_array(servers)) {
        snprintf(why, cap, "mcpServers must be an array");
        return -1;
    }
    if (json_array_size(servers) > SHC_MCP_MAX_SERVERS) {
        snprintf(why, cap, "mcpServers: at most %d servers", SHC_MCP_MAX_SERVERS);
        return -1;
    }
    json_array_foreach(servers, i, e)
    {
        const char *name = shc_rpc_str(json_object_get(e, "name"));
        const char *kind = shc__mcp_kind(e);
        if (!json_is_object(e) || !name || !*name || strlen(name) > 128) {
            snprintf(why, cap, "mcpServers[%zu]: a server needs a name (a string of 1 to 128 "
                               "characters)", i);
            return -1;
        }
        if (!kind) {
            snprintf(why, cap, "mcpServers[%zu] (%.60s): unknown type", i, name);
            return -1;
        }
        for (size_t k = 0; k < i; k++)
            if (!strcmp(shc_rpc_str(json_object_get(json_array_get(servers, k), "name")), name)) {
                snprintf(why, cap, "mcpServers: two servers are named %.60s", name);
                return -1;
            }
        if (!strcmp(kind, "stdio")) {
            const char *cmd = shc_rpc_str(json_object_get(e, "command"));
            json_t *args = json_object_get(e, "args");
            size_t k;
            json_t *a;
            bool args_ok = !args || json_is_null(args) || json_is_array(args);
            json_array_foreach(args, k, a) args_ok = args_ok && shc_rpc_str(a);
            if (!cmd || !*cmd || !args_ok || json_array_size(args) > 1024) {
                snprintf(why, cap, "mcpServers[%zu] (%.60s): a stdio server needs a command and "
                                   "args as strings", i, name);
                return -1;
            }
            if (!env_ok(json_object_get(e, "env"), why, cap, i, name))
                return -1;
            if (!pairs_ok(json_object_get(e, "env"))) {
                snprintf(why, cap, "mcpServers[%zu] (%.60s): env must be [{name, value}] strings",
                         i, name);
                return -1;
            }
            const char *twice = repeated(json_object_get(e, "env"), false);
            if (twice) {
                snprintf(why, cap, "mcpServers[%zu] (%.60s): env names %.60s twice", i, name,
                         twice);
                return -1;
            }
        } else if (!strcmp(kind, "http")) {
            const char *url = shc_rpc_str(json_object_get(e, "url"));
            if (!url || (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))) {
                snprintf(why, cap, "mcpServers[%zu] (%.60s): an http server needs an http(s) url",
                         i, name);
                return -1;
            }
            if (!pairs_ok(json_object_get(e, "headers"))) {
                snprintf(why, cap,
                         "mcpServers[%zu] (%.60s): headers must be [{name, value}] strings", i,
                         name);
                return -1;
            }
            const char *twice = repeated(json_object_get(e, "headers"), true);
            if (twice) {
                snprintf(why, cap, "mcpServers[%zu] (%.60s): headers name %.60s twice", i, name,
                         twice);
                return -1;
            }
        }
    }
    return 0;
}

int shc_mcp_check(json_t *servers, char *why, size_t cap)
{
    int rc = check(servers, why, cap);
    if (rc != 0 && cap > 0) { /* a name cut by a precision: valid UTF-8 again, or the answer
                               * could not be encoded and the request would go unanswered */
        char *clean = shc_utf8_dup(why, strlen(why), cap - 1);
        if (clean)
            memcpy(why, clean, strlen(clean) + 1);
        free(clean);
    }
    return rc;
}

static char **pairs(json_t *a, const char *sep, size_t extra, size_t *n)
{
    size_t cnt = json_array_size(a), i;
    char **out = calloc(cnt + extra + 1, sizeof *out);
    json_t *p;
    *n = 0;
    if (!out)
        return NULL;
    json_array_foreach(a, i, p)
    {
        if (asprintf(&out[*n], "%s%s%s", shc_rpc_str(json_object_get(p, "name")), sep,
                     shc_rpc_str(json_object_get(p, "value"))) < 0) {
            out[*n] = NULL;
            break;
        }
        (*n)++;
    }
    return out;
}

static void strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

mcp_server *shc__mcp_server_new(shc_mcp *m, json_t *e)
{
    const char *kind = shc__mcp_kind(e);
    const char *name = shc_rpc_str(json_object_get(e, "name"));
    if (!kind || !strcmp(kind, "sse")) {
        shc_log_info(m->env.log, "mcp %s: sse servers are not supported; skipped", name);
        return NULL;
    }
    mcp_server *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->m = m;
    s->in_fd = s->out_fd = s->err_fd = s->ready_fd = -1;
    s->name = strdup(name);
    s->http = !strcmp(kind, "http");
    size_t n = 0;
    bool ok = s->name != NULL;
    if (s->http) {
        s->url = strdup(shc_rpc_str(json_object_get(e, "url")));
        s->headers = pairs(json_object_get(e, "headers"), ": ", 4, &s->nheaders);
        ok = ok && s->url && s->headers;
    } else {
        json_t *args = json_object_get(e, "args");
        size_t na = json_array_size(args), i;
        json_t *a;
        s->argv = calloc(na + 2, sizeof *s->argv);
        if (s->argv) {
            s->argv[0] = strdup(shc_rpc_str(json_object_get(e, "command")));
            ok = ok && s->argv[0];
            json_array_foreach(args, i, a)
            {
                s->argv[i + 1] = strdup(shc_rpc_str(a));
                ok = ok && s->argv[i + 1];
            }
        }
        s->env = pairs(json_object_get(e, "env"), "=", 0, &n);
        ok = ok && s->argv && s->env;
    }
    if (!ok) {
        shc__mcp_server_free(s);
        return NULL;
    }
    return s;
}

void shc__mcp_server_free(mcp_server *s)
{
    if (!s)
        return;
    for (size_t k = 0; k < s->ntools; k++)
        shc__mcp_tool_fini(&s->tools[k]);
    free(s->tools);
    json_decref(s->listing);
    free(s->name);
    free(s->why);
    strv_free(s->argv);
    strv_free(s->env);
    free(s->url);
    strv_free(s->headers);
    free(s->session_id);
    free(s->proto);
    free(s->wbuf);
    free(s);
}
