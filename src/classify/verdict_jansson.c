/* The verdict as a jansson json_t (classify/verdict.h), for the CLI and the ACP bridge.  The
 * library's jansson-free writer (verdict_json.c) prints the same bytes. */
#include "classify/verdict.h"

#include <string.h>

#include "base/json.h"

static json_t *str_or_null(const char *s)
{
    return shc_json_cstr(s);
}

/* json_object_set_new that remembers a failure */
static void put(json_t *o, const char *k, json_t *val, int *bad)
{
    if (!val || json_object_set_new(o, k, val) < 0)
        *bad = 1;
}

json_t *shc_verdict_json(const shc_verdict *v, const char *cmd)
{
    return shc_verdict_json_n(v, cmd, cmd ? strlen(cmd) : 0);
}

json_t *shc_verdict_json_n(const shc_verdict *v, const char *cmd, size_t len)
{
    int bad = 0;
    json_t *o = json_object();
    if (!o)
        return NULL;
    put(o, "cmd", cmd ? shc_json_str(cmd, len) : str_or_null(v->script), &bad);
    put(o, "kind", json_string(shc_kind_name(v->kind)), &bad);
    put(o, "title", str_or_null(v->title), &bad);
    put(o, "path", str_or_null(v->path), &bad);
    put(o, "query", str_or_null(v->query), &bad);
    put(o, "line", v->line > 0 ? json_integer(v->line) : json_null(), &bad);
    json_t *locs = json_array();
    for (size_t i = 0; locs && i < v->nlocations; i++) {
        json_t *l = json_object();
        if (!l) {
            bad = 1;
            break;
        }
        put(l, "path", str_or_null(v->locations[i].path), &bad);
        put(l, "line", v->locations[i].line > 0 ? json_integer(v->locations[i].line) : json_null(),
            &bad);
        if (json_array_append_new(locs, l) < 0)
            bad = 1;
    }
    put(o, "locations", locs, &bad);
    put(o, "reason", str_or_null(v->reason), &bad);
    json_t *span = json_object();
    if (span) {
        put(span, "start", json_integer(v->reason_span.start), &bad);
        put(span, "end", json_integer(v->reason_span.end), &bad);
    }
    put(o, "span", span, &bad);
    put(o, "script", str_or_null(v->script), &bad);
    put(o, "wrapped", json_boolean(v->wrapped), &bad);
    json_t *argv = v->argv ? json_array() : json_null();
    for (size_t i = 0; v->argv && argv && i < v->argc; i++)
        if (json_array_append_new(argv, str_or_null(v->argv[i])) < 0)
            bad = 1;
    put(o, "argv", argv, &bad);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
