/* The context window: how large it is for a model, and which part of a conversation is sent
 * when all of it would not fit.  The conversation itself is never changed (it is what happened,
 * and what the store keeps); each request sends a view of it. */
#include "model/openai_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Windows of known model families (tokens), by name prefix; the first match wins. */
static const struct {
    const char *prefix;
    long window;
} known[] = {
    {"deepseek-", 131072},   {"gpt-4.1", 1047576},     {"gpt-4o", 128000},
    {"gpt-4-turbo", 128000}, {"gpt-5", 400000},        {"gpt-3.5-turbo", 16385},
    {"o1", 200000},          {"o3", 200000},           {"o4", 200000},
    {"claude-", 200000},     {"gemini-", 1048576},     {"qwen2.5-coder", 32768},
    {"qwen3-coder", 262144}, {"qwen3", 40960},         {"llama3.1", 131072},
    {"llama-3.1", 131072},   {"llama3.3", 131072},     {"llama-3.3", 131072},
    {"codestral", 256000},   {"mistral-large", 131072}, {"kimi-k2", 131072},
    {"glm-4.5", 131072},
};

long shc__oai_window(const openai *be, const char *model)
{
    if (be->context_window > 0)
        return be->context_window;
    json_t *w = json_object_get(be->windows, model ? model : "");
    if (json_is_integer(w) && json_integer_value(w) >= SHC_MODEL_MIN_CONTEXT_WINDOW)
        return (long)json_integer_value(w);
    /* "qwen2.5-coder:7b" (Ollama) and "Qwen/Qwen2.5-Coder-7B" (vLLM): compare the last path
     * part, case-insensitively */
    const char *name = model ? model : "";
    const char *slash = strrchr(name, '/');
    if (slash)
        name = slash + 1;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strncasecmp(name, known[i].prefix, strlen(known[i].prefix)))
            return known[i].window;
    return SHC_OAI_DEFAULT_WINDOW;
}

/* ------------------------------------------------------------------ fitting */

static const char elided_marker[] =
    "[output elided: this older command output was removed to keep the conversation within the "
    "model's context window; run the command again if you need it]";

static size_t msg_bytes(const json_t *m)
{
    char *s = json_dumps(m, JSON_COMPACT);
    size_t n = s ? strlen(s) : 0;
    free(s);
    return n + 1; /* the comma between messages */
}

static bool is_role(const json_t *m, const char *role)
{
    const char *r = json_string_value(json_object_get(m, "role"));
    return r && !strcmp(r, role);
}

/* Replaces the content of tool message i with the marker (in the view).  Returns bytes saved. */
static size_t elide(json_t *view, size_t *sizes, size_t i)
{
    json_t *m = json_array_get(view, i);
    const char *c = json_string_value(json_object_get(m, "content"));
    if (!c || !strcmp(c, elided_marker))
        return 0;
    json_t *copy = json_copy(m);
    if (!copy || json_object_set_new(copy, "content", json_string(elided_marker))) {
        json_decref(copy);
        return 0;
    }
    size_t n = msg_bytes(copy);
    if (n >= sizes[i]) {
        json_decref(copy);
        return 0;
    }
    json_array_set_new(view, i, copy);
    size_t saved = sizes[i] - n;
    sizes[i] = n;
    return saved;
}

json_t *shc__oai_fit(json_t *history, size_t budget, size_t *elided, size_t *dropped)
{
    *elided = *dropped = 0;
    size_t n = json_array_size(history);
    json_t *view = json_array();
    size_t *sizes = calloc(n + 1, sizeof *sizes);
    if (!view || !sizes || json_array_extend(view, history)) {
        json_decref(view);
        free(sizes);
        return NULL;
    }
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += sizes[i] = msg_bytes(json_array_get(view, i));
    size_t last_user = 0;
    for (size_t i = 0; i < n; i++)
        if (is_role(json_array_get(view, i), "user"))
            last_user = i;
    /* 1. tool outputs of earlier turns, oldest first */
    for (size_t i = 0; i < last_user && total > budget; i++) {
        if (!is_role(json_array_get(view, i), "tool"))
            continue;
        size_t saved = elide(view, sizes, i);
        if (saved) {
            total -= saved;
            (*elided)++;
        }
    }
    /* 2. whole turns, oldest first, never the current one */
    size_t start = 0;
    while (total > budget && start < last_user) {
        size_t next = start + 1;
        while (next < last_user && !is_role(json_array_get(view, next), "user"))
            next++;
        for (size_t i = start; i < next; i++)
            total -= sizes[i];
        start = next;
        (*dropped)++;
    }
    /* 3. older tool outputs of the current turn (the latest one stays) */
    size_t last_tool = n;
    for (size_t i = n; i-- > last_user;)
        if (is_role(json_array_get(view, i), "tool")) {
            last_tool = i;
            break;
        }
    for (size_t i = last_user; i < n && total > budget; i++) {
        if (i == last_tool || !is_role(json_array_get(view, i), "tool"))
            continue;
        size_t saved = elide(view, sizes, i);
        if (saved) {
            total -= saved;
            (*elided)++;
        }
    }
    free(sizes);
    if (start == 0)
        return view;
    /* what was elided in the dropped turns is not counted: it is gone altogether */
    for (size_t i = 0; i < start; i++)
        if (json_array_get(view, i) != json_array_get(history, i) && *elided > 0)
            (*elided)--;
    /* the dropped turns leave the view */
    json_t *out = json_array();
    for (size_t i = start; out && i < n; i++)
        json_array_append(out, json_array_get(view, i));
    json_decref(view);
    return out;
}
