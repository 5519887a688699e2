/* A server's tools/list as the session's tools (docs/mcp.md, "Tools"): each entry kept to its
 * definition (name, title, description, inputSchema, annotations; whatever else a server adds
 * is dropped as its page is read), each bounded (its name, its definition, the server's whole
 * listing), its parameters checked to be a schema a model's API takes, its description for the
 * model cut at a character boundary; the tools left out are said in one line per listing,
 * through the server's log rate limit. */
#define _GNU_SOURCE
#include "mcp/mcp_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "model/openai.h"

static const char *const def_fields[] = {"name", "title", "description", "inputSchema",
                                         "annotations"};

/* A tool left out of this listing: counted; the first one's name and reason kept for the line. */
static void left(mcp_server *s, const char *name, const char *why)
{
    if (s->left_out++ == 0) {
        char cut[SHC_MCP_TOOL_NAME_MAX + 1];
        shc_utf8_cut(cut, name ? name : "?", name ? strlen(name) : 1, 80);
        snprintf(s->left_why, sizeof s->left_why, "%s: %s", cut, why);
    }
}

/* Bytes of v as compact JSON (counted, not written). */
static size_t json_bytes(const json_t *v)
{
    return json_dumpb(v, NULL, 0, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* One entry as its definition (new object), or NULL with why. */
static json_t *def_of(json_t *e, const char **why)
{
    const char *name = shc_rpc_str(json_object_get(e, "name"));
    if (!name || !*name) {
        *why = "a tool without a name";
        return NULL;
    }
    if (strlen(name) > SHC_MCP_TOOL_NAME_MAX) {
        *why = "its name is longer than 128 bytes";
        return NULL;
    }
    /* a string field far over the bound is refused before anything is counted */
    json_t *desc = json_object_get(e, "description");
    if (json_is_string(desc) && json_string_length(desc) > SHC_MCP_ENTRY_MAX) {
        *why = "its definition is larger than 64 KiB";
        return NULL;
    }
    json_t *def = json_object();
    for (size_t i = 0; def && i < sizeof def_fields / sizeof *def_fields; i++) {
        json_t *v = json_object_get(e, def_fields[i]);
        if (v && json_object_set(def, def_fields[i], v) != 0) {
            json_decref(def);
            def = NULL;
        }
    }
    if (!def) {
        *why = "out of memory";
        return NULL;
    }
    if (json_bytes(def) > SHC_MCP_ENTRY_MAX) {
        json_decref(def);
        *why = "its definition is larger than 64 KiB";
        return NULL;
    }
    return def;
}

/* Whether an entry of this listing so far (its pages until now) has this exact name. */
static bool named_already(json_t *listing, const char *name)
{
    size_t i;
    json_t *d;
    json_array_foreach(listing, i, d)
    {
        const char *n = shc_rpc_str(json_object_get(d, "name"));
        if (n && !strcmp(n, name))
            return true;
    }
    return false;
}

void shc__mcp_listing_add(mcp_server *s, json_t *tools)
{
    size_t i;
    json_t *e;
    json_array_foreach(tools, i, e)
    {
        const char *name = shc_rpc_str(json_object_get(e, "name"));
        if (json_array_size(s->listing) >= SHC_MCP_MAX_TOOLS) {
            left(s, name, "a session offers at most " SHC_MCP_MAX_TOOLS_TEXT " MCP tools");
            continue;
        }
        if (name && named_already(s->listing, name)) {
            /* a call is addressed by name alone: only the first of the name can be meant */
            left(s, name, "a second tool of that name in the listing");
            continue;
        }
        const char *why = NULL;
        json_t *def = def_of(e, &why);
        if (!def) {
            left(s, name, why);
            continue;
        }
        size_t n = json_bytes(def);
        if (n > SHC_MCP_LISTING_MAX - s->listing_bytes) {
            json_decref(def);
            left(s, name, "the server's tools take more than 512 KiB");
            continue;
        }
        if (json_array_append_new(s->listing, def) != 0) {
            left(s, name, "out of memory");
            continue;
        }
        s->listing_bytes += n;
    }
}

void shc__mcp_listing_done(mcp_server *s)
{
    size_t i;
    json_t *def;
    /* the tools are replaced at once (a call's target keeps its own reference to the
     * definition it was resolved with) */
    for (size_t k = 0; k < s->ntools; k++) {
        json_decref(s->tools[k].entry);
        shc__mcp_tool_fini(&s->tools[k]);
    }
    free(s->tools);
    s->ntools = 0;
    s->tools = calloc(json_array_size(s->listing) + 1, sizeof *s->tools);
    json_array_foreach(s->listing, i, def)
    {
        const char *why = NULL;
        if (!s->tools)
            break;
        if (shc__mcp_tool_from(&s->tools[s->ntools], s->name, def, &why) == 0)
            shc__mcp_tool_dress(&s->tools[s->ntools++], s->name, def);
        else
            left(s, shc_rpc_str(json_object_get(def, "name")), why);
    }
    json_array_clear(s->listing);
    s->listing_bytes = 0;
    if (s->left_out)
        shc__mcp_log_line(s, "%zu tool(s) left out (the first, %s)", s->left_out, s->left_why);
    s->left_out = 0;
}

/* The subset of JSON Schema the model's OpenAI-compatible APIs take: one schema they refuse
 * fails the whole request (every tool, bash too), so a tool with one is left out. */
#define SCHEMA_DEPTH 32    /* schemas inside schemas */
#define SCHEMA_NODES 4096  /* schemas in one inputSchema */

static const char *const schema_types[] = {"object", "array", "string", "number",
                                           "integer", "boolean", "null"};

static bool type_name(json_t *v)
{
    for (size_t i = 0; json_is_string(v) && i < sizeof schema_types / sizeof *schema_types; i++)
        if (!strcmp(json_string_value(v), schema_types[i]))
            return true;
    return false;
}

/* type is a known name or a non-empty array of them; *array when it names "array". */
static bool type_ok(json_t *type, bool *array)
{
    *array = json_is_string(type) && !strcmp(json_string_value(type), "array");
    if (json_is_string(type))
        return type_name(type);
    if (!json_is_array(type) || json_array_size(type) == 0)
        return false;
    size_t i;
    json_t *t;
    json_array_foreach(type, i, t)
    {
        if (!type_name(t))
            return false;
        *array |= !strcmp(json_string_value(t), "array");
    }
    return true;
}

/* One walk: the root (for $ref) and the schemas counted so far. */
typedef struct walk {
    json_t *root;
    size_t nodes;
} walk;

static const char *schema_at(json_t *v, unsigned depth, walk *w);

/* The kinds of value a known keyword takes (JSON Schema 2020-12's meta-schema, as far as the
 * model APIs go); a keyword not in the table is stripped from the model's copy. */
typedef enum kw_kind {
    KW_SCHEMA,   /* a schema */
    KW_MAP,      /* an object whose values are schemas */
    KW_LIST,     /* a non-empty array of schemas */
    KW_TYPE,     /* a type name, or a non-empty array of distinct ones */
    KW_STRING,   /* a string */
    KW_REF,      /* a local reference that resolves */
    KW_COUNT,    /* a non-negative integer */
    KW_NUMBER,   /* a number */
    KW_POSITIVE, /* a number above 0 */
    KW_ENUM,     /* a non-empty array */
    KW_NAMES,    /* an array of distinct strings */
    KW_BOOL,     /* true or false */
    KW_OBJECT,   /* an object */
    KW_ANY,      /* any JSON value */
} kw_kind;

static const struct {
    const char *name;
    kw_kind kind;
} keywords[] = {
    {"items", KW_SCHEMA},          {"additionalProperties", KW_SCHEMA}, {"not", KW_SCHEMA},
    {"contains", KW_SCHEMA},       {"propertyNames", KW_SCHEMA},        {"additionalItems", KW_SCHEMA},
    {"if", KW_SCHEMA},             {"then", KW_SCHEMA},                 {"else", KW_SCHEMA},
    {"properties", KW_MAP},        {"$defs", KW_MAP},                   {"definitions", KW_MAP},
    {"patternProperties", KW_MAP}, {"dependentSchemas", KW_MAP},        {"anyOf", KW_LIST},
    {"oneOf", KW_LIST},            {"allOf", KW_LIST},                  {"prefixItems", KW_LIST},
    {"type", KW_TYPE},             {"description", KW_STRING},          {"title", KW_STRING},
    {"pattern", KW_STRING},        {"format", KW_STRING},               {"$comment", KW_STRING},
    {"$ref", KW_REF},              {"minLength", KW_COUNT},             {"maxLength", KW_COUNT},
    {"minItems", KW_COUNT},        {"maxItems", KW_COUNT},              {"minProperties", KW_COUNT},
    {"maxProperties", KW_COUNT},   {"minContains", KW_COUNT},           {"maxContains", KW_COUNT},
    {"minimum", KW_NUMBER},        {"maximum", KW_NUMBER},              {"exclusiveMinimum", KW_NUMBER},
    {"exclusiveMaximum", KW_NUMBER}, {"multipleOf", KW_POSITIVE},       {"enum", KW_ENUM},
    {"required", KW_NAMES},        {"uniqueItems", KW_BOOL},            {"deprecated", KW_BOOL},
    {"readOnly", KW_BOOL},         {"writeOnly", KW_BOOL},              {"dependentRequired", KW_OBJECT},
    {"const", KW_ANY},             {"default", KW_ANY},                 {"examples", KW_ANY},
};

static int kw_find(const char *k)
{
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
        if (!strcmp(keywords[i].name, k))
            return (int)i;
    return -1;
}

/* Each value of an object of schemas (properties, $defs, patternProperties, ...). */
static const char *schema_map(json_t *map, unsigned depth, walk *w)
{
    const char *k, *why;
    json_t *v;
    json_object_foreach(map, k, v)
    {
        if ((why = schema_at(v, depth, w)))
            return why;
    }
    return NULL;
}

/* An array of distinct strings (required; type's names are checked by type_ok). */
static bool distinct_strings(json_t *a)
{
    size_t i, j;
    json_t *x, *y;
    if (!json_is_array(a))
        return false;
    json_array_foreach(a, i, x)
    {
        if (!json_is_string(x))
            return false;
        for (j = 0; j < i; j++) {
            y = json_array_get(a, j);
            if (!strcmp(json_string_value(x), json_string_value(y)))
                return false;
        }
    }
    return true;
}

/* "#" (the whole schema), or "#/$defs/NAME" / "#/definitions/NAME" naming one that exists. */
static bool ref_ok(json_t *root, json_t *ref)
{
    const char *r = json_string_value(ref);
    if (!r)
        return false;
    if (!strcmp(r, "#"))
        return true;
    const char *map = NULL, *name = NULL;
    if (!strncmp(r, "#/$defs/", 8)) {
        map = "$defs";
        name = r + 8;
    } else if (!strncmp(r, "#/definitions/", 14)) {
        map = "definitions";
        name = r + 14;
    }
    if (!name || !*name || strlen(name) > 256)
        return false;
    char key[257];
    size_t n = 0;
    for (const char *c = name; *c; c++) { /* one JSON Pointer segment: ~0 is ~, ~1 is / */
        if (*c == '/')
            return false;
        if (*c == '~') {
            if (c[1] != '0' && c[1] != '1')
                return false;
            key[n++] = c[1] == '0' ? '~' : '/';
            c++;
        } else {
            key[n++] = *c;
        }
    }
    key[n] = '\0';
    return json_object_get(json_object_get(root, map), key) != NULL;
}

/* One known keyword's value, by its kind; NULL when it is one the APIs take. */
static const char *keyword_bad(const char *k, kw_kind kind, json_t *x, unsigned depth, walk *w,
                               bool *array)
{
    const char *why;
    size_t i;
    json_t *e;
    switch (kind) {
    case KW_SCHEMA:
        if (json_is_array(x) && !strcmp(k, "items"))
            return "its inputSchema holds items that are an array";
        return schema_at(x, depth + 1, w);
    case KW_MAP:
        if (!json_is_object(x))
            return "its inputSchema holds properties, $defs or another map of schemas that is "
                   "not an object";
        return schema_map(x, depth + 1, w);
    case KW_LIST:
        if (!json_is_array(x) || json_array_size(x) == 0)
            return "its inputSchema holds an anyOf, oneOf, allOf or prefixItems that is not a "
                   "non-empty array";
        json_array_foreach(x, i, e)
        {
            if ((why = schema_at(e, depth + 1, w)))
                return why;
        }
        return NULL;
    case KW_TYPE:
        if (!type_ok(x, array) || (json_is_array(x) && !distinct_strings(x)))
            return "its inputSchema holds a type that is not a JSON Schema type name";
        return NULL;
    case KW_STRING:
        return json_is_string(x) ? NULL
                                 : "its inputSchema holds a description, title, pattern or "
                                   "format that is not a string";
    case KW_REF:
        return ref_ok(w->root, x) ? NULL
                                  : "its inputSchema holds a $ref that is not one of its own "
                                    "$defs or definitions";
    case KW_COUNT:
        return json_is_integer(x) && json_integer_value(x) >= 0
                   ? NULL
                   : "its inputSchema holds a minLength, maxItems or other count that is not a "
                     "non-negative integer";
    case KW_NUMBER:
        return json_is_number(x) ? NULL
                                 : "its inputSchema holds a minimum or maximum that is not a "
                                   "number";
    case KW_POSITIVE:
        return json_is_number(x) && json_number_value(x) > 0
                   ? NULL
                   : "its inputSchema holds a multipleOf that is not a number above 0";
    case KW_ENUM:
        return json_is_array(x) && json_array_size(x) > 0
                   ? NULL
                   : "its inputSchema holds an enum that is not a non-empty array";
    case KW_NAMES:
        return distinct_strings(x) ? NULL
                                   : "its inputSchema holds a required that is not an array of "
                                     "distinct names";
    case KW_BOOL:
        return json_is_boolean(x) ? NULL : "its inputSchema holds a flag that is not a boolean";
    case KW_OBJECT:
        return json_is_object(x) ? NULL
                                 : "its inputSchema holds a dependentRequired that is not an "
                                   "object";
    case KW_ANY: return NULL;
    }
    return NULL;
}

/* v as a schema (an object or a boolean), checked whole against the table of keywords: a
 * keyword not in it is stripped (in the model's copy), an array schema without items is given
 * "items": {} (what it means: any item), which the APIs require. */
static const char *schema_at(json_t *v, unsigned depth, walk *w)
{
    if (json_is_boolean(v))
        return NULL;
    if (!json_is_object(v))
        return "its inputSchema holds a schema that is neither an object nor a boolean";
    if (depth >= SCHEMA_DEPTH)
        return "its inputSchema nests schemas deeper than 32";
    if (++w->nodes > SCHEMA_NODES)
        return "its inputSchema holds more than 4096 schemas";
    const char *k, *why;
    json_t *x;
    void *tmp;
    bool array = false;
    json_object_foreach_safe(v, tmp, k, x)
    {
        int i = kw_find(k);
        if (i < 0) {
            json_object_del(v, k);
            continue;
        }
        if ((why = keyword_bad(k, keywords[i].kind, x, depth, w, &array)))
            return why;
    }
    if (array && !json_object_get(v, "items") && json_object_set_new(v, "items", json_object()) != 0)
        return "out of memory";
    return NULL;
}

/* The parameters schema of a function as the model's APIs take it: an object schema, checked
 * (and normalised, in the copy the model gets) all the way down. */
static const char *schema_bad(json_t *schema)
{
    if (!json_is_object(schema))
        return "its inputSchema is not an object";
    json_t *type = json_object_get(schema, "type");
    if (type && !(json_is_string(type) && !strcmp(json_string_value(type), "object")))
        return "its inputSchema is not of type object";
    /* the root has rules of its own: the APIs take only a plain object schema there */
    static const char *const not_at_root[] = {"anyOf", "oneOf", "allOf", "enum", "not",
                                              "const", "$ref"};
    for (size_t k = 0; k < sizeof not_at_root / sizeof *not_at_root; k++)
        if (json_object_get(schema, not_at_root[k]))
            return "its inputSchema has anyOf, oneOf, allOf, enum, not, const or $ref at the "
                   "top level (a model's API takes only a plain object schema there)";
    json_t *props = json_object_get(schema, "properties");
    if (props && !json_is_object(props))
        return "its inputSchema's properties are not an object";
    json_t *req = json_object_get(schema, "required"), *r;
    size_t i;
    if (req && !json_is_array(req))
        return "its inputSchema's required is not an array of names";
    json_array_foreach(req, i, r)
    {
        if (!json_is_string(r))
            return "its inputSchema's required is not an array of names";
    }
    if (json_bytes(schema) > SHC_MCP_SCHEMA_MAX)
        return "its inputSchema is larger than 32 KiB";
    walk w = {schema, 0};
    return schema_at(schema, 0, &w);
}

int shc__mcp_tool_from(mcp_tool *out, const char *server, json_t *def, const char **why)
{
    memset(out, 0, sizeof *out);
    const char *name = shc_rpc_str(json_object_get(def, "name"));
    json_t *schema = json_object_get(def, "inputSchema");
    if (!name || !*name || strlen(name) > SHC_MCP_TOOL_NAME_MAX) {
        *why = "a tool without a name of at most 128 bytes";
        return -1;
    }
    if (!json_is_object(schema)) {
        *why = "its inputSchema is not an object";
        return -1;
    }
    json_t *dj = json_object_get(def, "description");
    const char *desc = json_string_value(dj);
    /* the model is told whose tool it is; the whole description, prefix included, is cut to
     * what the model's API takes (model/openai.h), at a character boundary */
    char *sv = shc_utf8_dup(server, strlen(server), SHC_MCP_NAME_MAX);
    char *full = NULL, *d = NULL;
    if (sv && asprintf(&full, "[MCP server %s, tool %s] %s", sv, name, desc ? desc : "") >= 0)
        d = shc_openai_fn_desc(full, strlen(full));
    free(full);
    out->tool = strdup(name);
    out->description = d;
    out->schema = json_deep_copy(schema);
    out->title = NULL;
    if (sv && asprintf(&out->title, "%s: %s", sv, name) < 0)
        out->title = NULL;
    free(sv);
    if (!out->tool || !out->title || !out->description || !out->schema) {
        shc__mcp_tool_fini(out);
        *why = "out of memory";
        return -1;
    }
    /* checked, and normalised, in the model's copy: the definition stays as the server gave it */
    if ((*why = schema_bad(out->schema))) {
        shc__mcp_tool_fini(out);
        return -1;
    }
    /* the root as the APIs want it: type object, and properties even when there are none
     * (what that means is unchanged) */
    if ((!json_object_get(out->schema, "type") &&
         json_object_set_new(out->schema, "type", json_string("object")) != 0) ||
        (!json_object_get(out->schema, "properties") &&
         json_object_set_new(out->schema, "properties", json_object()) != 0)) {
        shc__mcp_tool_fini(out);
        *why = "out of memory";
        return -1;
    }
    json_t *ann = json_object_get(def, "annotations");
    out->pub.server = server;
    out->pub.tool = out->tool;
    out->pub.title = out->title;
    out->pub.read_only = json_is_true(json_object_get(ann, "readOnlyHint"));
    out->pub.open_world = json_is_true(json_object_get(ann, "openWorldHint"));
    /* what it adds to a model request: {"name":FNAME,"description":...,"parameters":...} */
    json_t *dd = json_string(d);
    out->cost = json_bytes(out->schema) + (dd ? json_bytes(dd) : strlen(d) * 6) +
                SHC_MCP_NAME_MAX + 64;
    json_decref(dd);
    return 0;
}

void shc__mcp_tool_fini(mcp_tool *t)
{
    free(t->fname);
    free(t->tool);
    free(t->title);
    free(t->description);
    json_decref(t->schema);
    memset(t, 0, sizeof *t);
}
