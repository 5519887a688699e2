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
#include <stdbool.h>
#include <stddef.h>

#include "agent/backend.h"
#include "model/config.h"

/* Retries of one request on 429 and 5xx, and the first backoff delay (doubles each time). */
#define SHC_OPENAI_MAX_ATTEMPTS      3
#define SHC_OPENAI_BACKOFF_MS        500
#define SHC_OPENAI_MAX_RETRY_AFTER_S 30

/* The model API's limits on the functions of a request (OpenAI's, the strictest of the
 * OpenAI-compatible APIs): a request that breaks one is refused whole (HTTP 400), every turn of
 * the session with it.  shc_openai_request_body_ex() enforces them for every function, bash
 * included: a name must match ^[A-Za-z0-9_-]{1,64}$ (else the function is left out), a
 * description is cut to SHC_OPENAI_FN_DESC_MAX characters (counted as UTF-16 code units, so a
 * character outside the BMP counts 2: within the limit however the API counts) ending in "…",
 * and functions past SHC_OPENAI_FN_MAX are left out. */
#define SHC_OPENAI_FN_NAME_MAX 64
#define SHC_OPENAI_FN_DESC_MAX 1024
#define SHC_OPENAI_FN_MAX      128

/* s[0..n) as a function's description (new string, valid UTF-8: invalid bytes U+FFFD): itself
 * when within SHC_OPENAI_FN_DESC_MAX, else cut at a character boundary to fit with "…" at the
 * end.  NULL out of memory. */
char *shc_openai_fn_desc(const char *s, size_t n);
/* name is a function name the API takes. */
bool shc_openai_fn_name_ok(const char *name);

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
