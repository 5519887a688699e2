/* GET {base}/models: the models the server offers (for the editor's model selector), and the
 * context window of each when the server says (vLLM's max_model_len, OpenRouter's
 * context_length, ...).  Bounded: at most MODELS_MAX_BODY bytes and MODELS_MAX ids. */
#include "model/openai_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/config.h"

#define MODELS_MAX_BODY ((size_t)1 << 20)
#define MODELS_MAX      200
#define MODELS_TIMEOUT  10 /* s */

typedef void (*models_done_fn)(void *payload, const char *const *models, size_t n);

struct models_req {
    openai *be;
    shc_http_req *req;
    models_done_fn done;
    void *payload;
    char *body;
    size_t len;
    long status;
    bool over;
};

static void finish(struct models_req *m, const char *const *ids, size_t n)
{
    m->be->models_req = NULL;
    models_done_fn done = m->done;
    void *payload = m->payload;
    free(m->body);
    free(m);
    done(payload, ids, n);
}

static int on_body(void *payload, long status, const char *buf, size_t len)
{
    struct models_req *m = payload;
    m->status = status;
    if (m->len + len > MODELS_MAX_BODY) {
        m->over = true;
        return 1;
    }
    char *p = realloc(m->body, m->len + len + 1);
    if (!p)
        return 1;
    m->body = p;
    memcpy(m->body + m->len, buf, len);
    m->len += len;
    return 0;
}

static long window_of(json_t *model)
{
    static const char *const keys[] = {"max_model_len", "context_length", "context_window",
                                       "max_context_length"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(model, keys[i]);
        if (json_is_integer(v) && json_integer_value(v) >= SHC_MODEL_MIN_CONTEXT_WINDOW &&
            json_integer_value(v) <= SHC_MODEL_MAX_CONTEXT_WINDOW)
            return (long)json_integer_value(v);
    }
    return 0;
}

static void on_done(void *payload, const shc_http_result *res)
{
    struct models_req *m = payload;
    m->req = NULL;
    const char *ids[MODELS_MAX];
    size_t n = 0;
    json_t *root = NULL;
    if (!res->failed && res->status >= 200 && res->status < 300 && !m->over && m->body)
        root = json_loadb(m->body, m->len, 0, NULL);
    json_t *data = json_object_get(root, "data");
    size_t i;
    json_t *it;
    json_array_foreach(data, i, it)
    {
        const char *id = json_string_value(json_object_get(it, "id"));
        if (!id || !*id || strlen(id) > 200 || n == MODELS_MAX)
            continue;
        ids[n++] = id;
        long w = window_of(it);
        if (w) {
            if (!m->be->windows)
                m->be->windows = json_object();
            json_object_set_new(m->be->windows, id, json_integer(w));
        }
    }
    if (!root)
        fprintf(stderr, "shcard: model: GET /models gave no model list (%s): only the "
                        "configured model is offered\n",
                res->failed ? res->error : m->over ? "too large" : "not a model list");
    finish(m, ids, n);
    json_decref(root);
}

void shc__oai_list_models(shc_backend *base, shc_loop *loop, models_done_fn done, void *payload)
{
    openai *be = (openai *)base;
    struct models_req *m = be->models_req ? NULL : calloc(1, sizeof *m);
    if (!m) { /* out of memory, or one is already in flight */
        done(payload, NULL, 0);
        return;
    }
    m->be = be;
    m->done = done;
    m->payload = payload;
    be->models_req = m;
    if (!be->http) {
        be->loop = loop;
        char err[256];
        be->http = shc_http_new(loop, err, sizeof err);
        if (!be->http) /* said at start, not only by the first prompt that fails */
            fprintf(stderr, "shcard: model: cannot start libcurl (%s): no model list, and "
                            "prompts will fail\n", err);
    }
    char url[2048];
    int k = snprintf(url, sizeof url, "%s/models", be->base_url);
    const char *headers[] = {"Accept: application/json", be->auth, NULL};
    shc_http_opts o = {.url = url, .headers = headers, .idle_timeout_s = MODELS_TIMEOUT};
    static const shc_http_cbs cbs = {on_body, on_done, NULL};
    if (!be->http || k < 0 || (size_t)k >= sizeof url ||
        shc_http_post(&m->req, be->http, &o, &cbs, m) != 0)
        finish(m, NULL, 0);
}

void shc__oai_models_free(openai *be)
{
    struct models_req *m = be->models_req;
    if (!m)
        return;
    be->models_req = NULL; /* its transfer went with shc_http_free (which runs first) */
    free(m->body);
    free(m);
}
