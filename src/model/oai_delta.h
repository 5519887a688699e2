/* Accumulates one assistant message from the chunks of an OpenAI-compatible streaming chat
 * completion (`data:` payloads of the event stream, one JSON object each, then `[DONE]`).
 *
 * Content and reasoning_content deltas are passed on at once (callbacks) and also kept; tool
 * call deltas are accumulated by their `index` until the message ends.  No I/O, no globals.
 *
 * Ownership: the accumulator owns every string it returns (valid until shc_oai_delta_free). */
#ifndef SHC_OAI_DELTA_H
#define SHC_OAI_DELTA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct shc_oai_delta shc_oai_delta;

typedef struct shc_oai_tool_call {
    const char *id;   /* as the model sent it, or "" */
    const char *name; /* function name, or "" */
    const char *args; /* the concatenated arguments text (NUL-terminated) */
    size_t args_len;
} shc_oai_tool_call;

typedef struct shc_oai_delta_cbs {
    void (*content)(void *payload, const char *text, size_t len);
    void (*reasoning)(void *payload, const char *text, size_t len);
} shc_oai_delta_cbs;

/* Limits: tool calls per message, and bytes of text kept per message. */
#define SHC_OAI_MAX_TOOL_CALLS 64
#define SHC_OAI_MAX_TEXT       (4u * 1024u * 1024u) /* per message: memory stays bounded */

shc_oai_delta *shc_oai_delta_new(void);
void shc_oai_delta_free(shc_oai_delta *d);

/* Feed one event's data.  Returns 0, or a negative SHC_E_* with a message in err:
 *   SHC_E_IO      the server sent an error object in the stream
 *   SHC_E_SYNTAX  not the API's shape (not JSON, no choices, wrong types)
 *   SHC_E_LIMIT   over a limit above
 * `[DONE]` marks the stream finished (shc_oai_delta_done). */
int shc_oai_delta_feed(shc_oai_delta *d,
                       const char *data,
                       size_t len,
                       const shc_oai_delta_cbs *cbs,
                       void *payload,
                       char *err,
                       size_t errlen);

bool shc_oai_delta_done(const shc_oai_delta *d);          /* [DONE] seen */
const char *shc_oai_delta_finish(const shc_oai_delta *d); /* finish_reason, or NULL */
/* The token counts of the server's `usage` object, when one came (stream_options.include_usage);
 * a missing total_tokens is prompt + completion. */
bool shc_oai_delta_usage(const shc_oai_delta *d, uint64_t *prompt, uint64_t *completion,
                         uint64_t *total);
const char *shc_oai_delta_content(const shc_oai_delta *d, size_t *len);
const char *shc_oai_delta_reasoning(const shc_oai_delta *d, size_t *len);
size_t shc_oai_delta_ntools(const shc_oai_delta *d);
/* The i-th tool call in index order (gaps skipped); false when i is out of range. */
bool shc_oai_delta_tool(const shc_oai_delta *d, size_t i, shc_oai_tool_call *out);

/* The assistant message for the history: {"role":"assistant","content":...,"tool_calls":[...]},
 * with "reasoning_content" when it has both tool calls and reasoning (DeepSeek needs it back).
 * Tool calls without an id get "call_<prefix>_<i>".  Returns a new reference, NULL on OOM. */
json_t *shc_oai_delta_message(const shc_oai_delta *d, const char *id_prefix);

#endif
