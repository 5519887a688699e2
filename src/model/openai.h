/* The OpenAI-compatible model backend of `shcard acp` (DeepSeek by default; also llama.cpp's
 * server, vLLM, Ollama, OpenAI).  It implements the agent-backend seam (backend.h): for each
 * prompt it streams `POST {base}/chat/completions` with the `bash` tool through libcurl's multi
 * interface on the bridge's loop, passes content and reasoning deltas on as message and thought
 * chunks, hands every tool call to the bridge, feeds the results back, and repeats until the
 * model answers without tool calls, stops for length, or the request limit is reached.
 *
 * Ownership: shc_openai_new copies what it needs from the config; the backend is freed through
 * its ops->free.  Conversation history is kept per session until session_end. */
#ifndef SHC_OPENAI_H
#define SHC_OPENAI_H

#include <jansson.h>
#include <stddef.h>

#include "agent/backend.h"
#include "model/config.h"

/* Retries of one request on 429 and 5xx, and the first backoff delay (doubles each time). */
#define SHC_OPENAI_MAX_ATTEMPTS      3
#define SHC_OPENAI_BACKOFF_MS        500
#define SHC_OPENAI_MAX_RETRY_AFTER_S 30

/* Returns an owned backend, or NULL with a message in err. */
shc_backend *shc_openai_new(const shc_model_config *cfg, char *err, size_t errlen);

/* The request body for a conversation (for tests and the bench): a new JSON text, free()d by
 * the caller.  history is borrowed (NULL: none); note (may be NULL) ends the system prompt. */
char *shc_openai_request_body(const char *model,
                              const char *system_prompt,
                              const char *cwd,
                              json_t *history,
                              const char *note);
/* The same, with tool_note (may be NULL) ending the bash tool's description. */
char *shc_openai_request_body_tool(const char *model, const char *system_prompt, const char *cwd,
                                   json_t *history, const char *note, const char *tool_note);
/* The same, with more tools after bash (borrowed: an array of {"type":"function",...} entries,
 * or NULL). */
char *shc_openai_request_body_ex(const char *model, const char *system_prompt, const char *cwd,
                                 json_t *history, const char *note, const char *tool_note,
                                 json_t *tools);

#endif
