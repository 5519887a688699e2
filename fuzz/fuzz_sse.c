/* libFuzzer target for the model stream parsers (sse.c + oai_delta.c).  Beyond "no crash, leak
 * or UB": the same bytes fed whole, split at a point taken from the input, and one byte at a
 * time give the same events, the same text and the same tool calls. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/oai_delta.h"
#include "model/sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct run {
    shc_oai_delta *d;
    size_t events, errors;
    unsigned long hash; /* over every event's data */
} run;

static int on_event(void *payload, const char *event, const char *data, size_t len)
{
    run *r = payload;
    (void)event;
    r->events++;
    for (size_t i = 0; i < len; i++)
        r->hash = r->hash * 31u + (unsigned char)data[i];
    r->hash = r->hash * 31u + 0x100u;
    char err[128];
    if (shc_oai_delta_feed(r->d, data, len, NULL, NULL, err, sizeof err))
        r->errors++;
    return 0;
}

static void feed(run *r, const uint8_t *data, size_t size, size_t step)
{
    shc_sse *s = shc_sse_new(4096);
    r->d = shc_oai_delta_new();
    if (!s || !r->d)
        abort();
    for (size_t i = 0; i < size; i += step) {
        size_t k = size - i < step ? size - i : step;
        if (shc_sse_feed(s, (const char *)data + i, k, on_event, r))
            break; /* over the limit: both runs stop at the same event */
    }
    shc_sse_free(s);
}

static void same(const run *a, const run *b)
{
    if (a->events != b->events || a->hash != b->hash || a->errors != b->errors)
        abort();
    size_t la, lb;
    const char *ca = shc_oai_delta_content(a->d, &la), *cb = shc_oai_delta_content(b->d, &lb);
    if (la != lb || memcmp(ca, cb, la))
        abort();
    if (shc_oai_delta_ntools(a->d) != shc_oai_delta_ntools(b->d))
        abort();
    for (size_t i = 0; i < shc_oai_delta_ntools(a->d); i++) {
        shc_oai_tool_call ta, tb;
        if (!shc_oai_delta_tool(a->d, i, &ta) || !shc_oai_delta_tool(b->d, i, &tb))
            abort();
        if (ta.args_len != tb.args_len || strcmp(ta.args, tb.args) || strcmp(ta.id, tb.id))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    run whole = {0}, split = {0}, bytes = {0};
    size_t cut = size ? (size_t)data[0] % size + 1 : 1;
    feed(&whole, data, size, size ? size : 1);
    feed(&split, data, size, cut);
    feed(&bytes, data, size, 1);
    same(&whole, &split);
    same(&whole, &bytes);
    json_t *m = shc_oai_delta_message(whole.d, "fz");
    json_decref(m);
    shc_oai_delta_free(whole.d);
    shc_oai_delta_free(split.d);
    shc_oai_delta_free(bytes.d);
    return 0;
}
