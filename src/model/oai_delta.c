/* Stream chunk accumulation.  The chunk shape (choices[0].delta.{content, reasoning_content,
 * tool_calls[]}, choices[0].finish_reason) is shared by DeepSeek, OpenAI, llama.cpp, vLLM and
 * Ollama; servers differ in what they leave out (usage-only chunks with empty choices, tool
 * calls without index), so anything missing is tolerated and only wrong types are errors. */
#include "model/oai_delta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shcard.h"

typedef struct text {
    char *p;
    size_t n, cap;
} text;

typedef struct slot {
    bool used;
    text id, name, args;
} slot;

struct shc_oai_delta {
    text content, reasoning;
    slot tools[SHC_OAI_MAX_TOOL_CALLS];
    int last_tool; /* index of the last tool slot touched, -1 = none */
    char finish[32];
    bool done;
    bool has_usage;
    uint64_t usage[3]; /* prompt, completion, total tokens */
};

static int text_add(text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > SHC_OAI_MAX_TEXT)
        return SHC_E_LIMIT;
    if (t->n + n + 1 > t->cap) {
        size_t c = t->cap ? t->cap : 64;
        while (c < t->n + n + 1)
            c *= 2;
        char *p = realloc(t->p, c);
        if (!p)
            return SHC_E_NOMEM;
        t->p = p;
        t->cap = c;
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = '\0';
    return 0;
}

static const char *text_str(const text *t)
{
    return t->p ? t->p : "";
}

shc_oai_delta *shc_oai_delta_new(void)
{
    shc_oai_delta *d = calloc(1, sizeof *d);
    if (d)
        d->last_tool = -1;
    return d;
}

void shc_oai_delta_free(shc_oai_delta *d)
{
    if (!d)
        return;
    free(d->content.p);
    free(d->reasoning.p);
    for (size_t i = 0; i < SHC_OAI_MAX_TOOL_CALLS; i++) {
        free(d->tools[i].id.p);
        free(d->tools[i].name.p);
        free(d->tools[i].args.p);
    }
    free(d);
}

static int fail(char *err, size_t errlen, int code, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return code;
}

/* Picks the slot a tool-call delta belongs to. */
static int tool_slot(shc_oai_delta *d, json_t *tc, char *err, size_t errlen)
{
    json_t *jidx = json_object_get(tc, "index");
    json_t *jid = json_object_get(tc, "id");
    long long idx;
    if (json_is_integer(jidx)) {
        idx = json_integer_value(jidx);
        if (idx < 0 || idx >= SHC_OAI_MAX_TOOL_CALLS)
            return fail(err, errlen, SHC_E_LIMIT, "tool call index out of range");
    } else if (jidx && !json_is_null(jidx)) {
        return fail(err, errlen, SHC_E_SYNTAX, "tool call index is not an integer");
    } else {
        /* no index: a new id starts a new call, anything else continues the last one */
        bool fresh = json_is_string(jid) && json_string_length(jid) > 0 &&
                     (d->last_tool < 0 ||
                      strcmp(text_str(&d->tools[d->last_tool].id), json_string_value(jid)));
        if (fresh || d->last_tool < 0) {
            idx = 0;
            while (idx < SHC_OAI_MAX_TOOL_CALLS && d->tools[idx].used)
                idx++;
            if (idx == SHC_OAI_MAX_TOOL_CALLS)
                return fail(err, errlen, SHC_E_LIMIT, "too many tool calls in one message");
        } else {
            idx = d->last_tool;
        }
    }
    return (int)idx;
}

static int feed_tool(shc_oai_delta *d, json_t *tc, char *err, size_t errlen)
{
    if (!json_is_object(tc))
        return fail(err, errlen, SHC_E_SYNTAX, "tool call delta is not an object");
    int idx = tool_slot(d, tc, err, errlen);
    if (idx < 0)
        return idx;
    slot *s = &d->tools[idx];
    s->used = true;
    d->last_tool = idx;
    int rc = 0;
    json_t *jid = json_object_get(tc, "id");
    if (json_is_string(jid) && s->id.n == 0)
        rc = text_add(&s->id, json_string_value(jid), json_string_length(jid));
    json_t *fn = json_object_get(tc, "function");
    if (!rc && fn && !json_is_null(fn)) {
        if (!json_is_object(fn))
            return fail(err, errlen, SHC_E_SYNTAX, "tool call function is not an object");
        json_t *name = json_object_get(fn, "name");
        json_t *args = json_object_get(fn, "arguments");
        /* the name comes whole in the first delta; some servers repeat it, so never append */
        if (json_is_string(name) && s->name.n == 0)
            rc = text_add(&s->name, json_string_value(name), json_string_length(name));
        if (!rc && json_is_string(args))
            rc = text_add(&s->args, json_string_value(args), json_string_length(args));
        else if (!rc && args && !json_is_null(args))
            return fail(err, errlen, SHC_E_SYNTAX, "tool call arguments are not a string");
    }
    if (rc)
        return fail(err, errlen, rc, "tool call too large");
    return 0;
}

static int feed_text(text *t,
                     json_t *v,
                     void (*cb)(void *, const char *, size_t),
                     void *payload,
                     char *err,
                     size_t errlen)
{
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return fail(err, errlen, SHC_E_SYNTAX, "delta text is not a string");
    size_t n = json_string_length(v);
    if (n == 0)
        return 0;
    int rc = text_add(t, json_string_value(v), n);
    if (rc)
        return fail(err, errlen, rc, "model message too large");
    if (cb)
        cb(payload, json_string_value(v), n);
    return 0;
}

/* `usage` (stream_options.include_usage: the last chunk, often with an empty choices array;
 * some servers put it on every chunk, the last one wins). */
static void feed_usage(shc_oai_delta *d, json_t *u)
{
    static const char *const names[3] = {"prompt_tokens", "completion_tokens", "total_tokens"};
    uint64_t v[3];
    for (int i = 0; i < 3; i++) {
        json_t *n = json_object_get(u, names[i]);
        if (!json_is_integer(n) || json_integer_value(n) < 0) {
            if (i < 2)
                return;
            v[2] = v[0] + v[1];
            break;
        }
        v[i] = (uint64_t)json_integer_value(n);
    }
    memcpy(d->usage, v, sizeof v);
    d->has_usage = true;
}

static int feed_chunk(shc_oai_delta *d,
                      json_t *root,
                      const shc_oai_delta_cbs *cbs,
                      void *payload,
                      char *err,
                      size_t errlen)
{
    json_t *usage = json_object_get(root, "usage");
    if (json_is_object(usage))
        feed_usage(d, usage);
    json_t *e = json_object_get(root, "error");
    if (e && !json_is_null(e)) {
        const char *m = NULL;
        if (json_is_object(e))
            m = json_string_value(json_object_get(e, "message"));
        else if (json_is_string(e))
            m = json_string_value(e);
        if (err && errlen)
            snprintf(err, errlen, "the model server reported an error: %.200s",
                     m ? m : "(no message)");
        return SHC_E_IO;
    }
    json_t *choices = json_object_get(root, "choices");
    if (!json_is_array(choices))
        return fail(err, errlen, SHC_E_SYNTAX, "chunk has no choices array");
    if (json_array_size(choices) == 0)
        return 0; /* a usage-only chunk */
    json_t *c = json_array_get(choices, 0);
    if (!json_is_object(c))
        return fail(err, errlen, SHC_E_SYNTAX, "choice is not an object");
    json_t *delta = json_object_get(c, "delta");
    if (delta && !json_is_null(delta)) {
        if (!json_is_object(delta))
            return fail(err, errlen, SHC_E_SYNTAX, "delta is not an object");
        int rc = feed_text(&d->reasoning, json_object_get(delta, "reasoning_content"),
                           cbs ? cbs->reasoning : NULL, payload, err, errlen);
        if (!rc)
            rc = feed_text(&d->content, json_object_get(delta, "content"),
                           cbs ? cbs->content : NULL, payload, err, errlen);
        if (rc)
            return rc;
        json_t *tcs = json_object_get(delta, "tool_calls");
        if (tcs && !json_is_null(tcs)) {
            if (!json_is_array(tcs))
                return fail(err, errlen, SHC_E_SYNTAX, "tool_calls is not an array");
            size_t i;
            json_t *tc;
            json_array_foreach(tcs, i, tc)
            {
                rc = feed_tool(d, tc, err, errlen);
                if (rc)
                    return rc;
            }
        }
    }
    json_t *fr = json_object_get(c, "finish_reason");
    if (json_is_string(fr))
        snprintf(d->finish, sizeof d->finish, "%s", json_string_value(fr));
    else if (fr && !json_is_null(fr))
        return fail(err, errlen, SHC_E_SYNTAX, "finish_reason is not a string");
    return 0;
}

/* A copy of s[0..n) in which every number too large for jansson (past 64 bits, or an exponent
 * past a double's) is null: the chunk around it still counts.  NULL when out of memory. */
static char *tame_numbers(const char *s, size_t n, size_t *outn)
{
    char *o = malloc(n + 1);
    size_t k = 0;
    bool str = false;
    for (size_t i = 0; o && i < n;) {
        char c = s[i];
        if (str || c == '"') {
            if (str && c == '\\' && i + 1 < n)
                o[k++] = s[i++];
            else if (c == '"')
                str = !str;
            o[k++] = s[i++];
            continue;
        }
        if (c != '-' && (c < '0' || c > '9')) {
            o[k++] = s[i++];
            continue;
        }
        size_t a = i, digits = 0;
        long ex = 0;
        bool in_exp = false, exp_neg = false;
        while (i < n && (strchr("+-.eE", s[i]) || (s[i] >= '0' && s[i] <= '9'))) {
            if (s[i] == 'e' || s[i] == 'E')
                in_exp = true;
            else if (in_exp && s[i] == '-')
                exp_neg = true;
            else if (in_exp && s[i] >= '0' && s[i] <= '9' && ex < 100000)
                ex = ex * 10 + (s[i] - '0');
            else if (!in_exp && s[i] >= '0' && s[i] <= '9')
                digits++;
            i++;
        }
        if (digits > 18 || (!exp_neg && ex >= 300)) {
            memcpy(o + k, "null", 4);
            k += 4;
        } else {
            memcpy(o + k, s + a, i - a);
            k += i - a;
        }
    }
    *outn = k;
    return o;
}

int shc_oai_delta_feed(shc_oai_delta *d,
                       const char *data,
                       size_t len,
                       const shc_oai_delta_cbs *cbs,
                       void *payload,
                       char *err,
                       size_t errlen)
{
    size_t a = 0, b = len;
    while (a < b && (data[a] == ' ' || data[a] == '\t' || data[a] == '\n'))
        a++;
    while (b > a && (data[b - 1] == ' ' || data[b - 1] == '\t' || data[b - 1] == '\n'))
        b--;
    if (b - a == 6 && !memcmp(data + a, "[DONE]", 6)) {
        d->done = true;
        return 0;
    }
    json_error_t je;
    json_t *root = json_loadb(data + a, b - a, 0, &je);
    if (!root && json_error_code(&je) == json_error_numeric_overflow) {
        /* a number too large (a usage count, say) must not cost the whole reply: it becomes
         * null, which every reader here ignores where it wants a number */
        size_t tn = 0;
        char *tame = tame_numbers(data + a, b - a, &tn);
        root = tame ? json_loadb(tame, tn, 0, &je) : NULL;
        free(tame);
    }
    if (!root || !json_is_object(root)) {
        json_decref(root);
        return fail(err, errlen, SHC_E_SYNTAX, "a stream event is not a JSON object");
    }
    int rc = feed_chunk(d, root, cbs, payload, err, errlen);
    json_decref(root);
    return rc;
}

bool shc_oai_delta_done(const shc_oai_delta *d)
{
    return d->done;
}

const char *shc_oai_delta_finish(const shc_oai_delta *d)
{
    return d->finish[0] ? d->finish : NULL;
}

bool shc_oai_delta_usage(const shc_oai_delta *d, uint64_t *prompt, uint64_t *completion,
                         uint64_t *total)
{
    if (!d->has_usage)
        return false;
    *prompt = d->usage[0];
    *completion = d->usage[1];
    *total = d->usage[2];
    return true;
}

const char *shc_oai_delta_content(const shc_oai_delta *d, size_t *len)
{
    if (len)
        *len = d->content.n;
    return text_str(&d->content);
}

const char *shc_oai_delta_reasoning(const shc_oai_delta *d, size_t *len)
{
    if (len)
        *len = d->reasoning.n;
    return text_str(&d->reasoning);
}

size_t shc_oai_delta_ntools(const shc_oai_delta *d)
{
    size_t n = 0;
    for (size_t i = 0; i < SHC_OAI_MAX_TOOL_CALLS; i++)
        n += d->tools[i].used;
    return n;
}

bool shc_oai_delta_tool(const shc_oai_delta *d, size_t i, shc_oai_tool_call *out)
{
    for (size_t k = 0; k < SHC_OAI_MAX_TOOL_CALLS; k++) {
        if (!d->tools[k].used)
            continue;
        if (i-- == 0) {
            out->id = text_str(&d->tools[k].id);
            out->name = text_str(&d->tools[k].name);
            out->args = text_str(&d->tools[k].args);
            out->args_len = d->tools[k].args.n;
            return true;
        }
    }
    return false;
}

json_t *shc_oai_delta_message(const shc_oai_delta *d, const char *id_prefix)
{
    json_t *m = json_object();
    if (!m)
        return NULL;
    size_t n = shc_oai_delta_ntools(d);
    json_t *content =
        d->content.n || n == 0 ? json_stringn(text_str(&d->content), d->content.n) : json_null();
    if (json_object_set_new(m, "role", json_string("assistant")) ||
        json_object_set_new(m, "content", content))
        goto fail;
    /* DeepSeek's thinking mode wants the reasoning of a message with tool calls back in every
     * later request (400 without it); the reasoning of a plain answer is left out (older
     * deepseek-reasoner refuses it, newer ignores it) */
    if (n && d->reasoning.n &&
        json_object_set_new(m, "reasoning_content",
                            json_stringn(text_str(&d->reasoning), d->reasoning.n)))
        goto fail;
    if (n) {
        json_t *arr = json_array();
        if (json_object_set_new(m, "tool_calls", arr))
            goto fail;
        for (size_t i = 0; i < n; i++) {
            shc_oai_tool_call tc;
            shc_oai_delta_tool(d, i, &tc);
            char idbuf[96];
            const char *id = tc.id;
            if (!id[0]) {
                snprintf(idbuf, sizeof idbuf, "call_%s_%zu", id_prefix ? id_prefix : "x", i);
                id = idbuf;
            }
            json_t *t = json_pack("{s:s, s:s, s:{s:s, s:s%}}", "id", id, "type", "function",
                                  "function", "name", tc.name, "arguments", tc.args, tc.args_len);
            if (!t || json_array_append_new(arr, t))
                goto fail;
        }
    }
    return m;
fail:
    json_decref(m);
    return NULL;
}
