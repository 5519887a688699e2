/* NDJSON framing and the JSON-RPC 2.0 envelope for `shcard acp` and the MCP client.
 *
 * The reader side is fed bytes (shc_rpc_feed) split anywhere; each complete line is parsed and
 * handed to the message callback.  The writer side never touches a file descriptor: complete
 * frames go into a write queue, and shc_rpc_flush() drains it through the injected write
 * function (which behaves like write(2): returns bytes written, or -1 with errno; EAGAIN keeps
 * the rest queued).  Outgoing requests get integer ids and a response callback.
 *
 * Ownership: the rpc owns its buffers, queue and pending-request table.  json_t values passed
 * to callbacks are borrowed for the duration of the call (json_incref to keep them).  Functions
 * that send take params/result by stealing the reference (jansson "_new" convention). */
#ifndef SHC_JSONRPC_H
#define SHC_JSONRPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum {
    SHC_RPC_PARSE_ERROR = -32700,
    SHC_RPC_INVALID_REQUEST = -32600,
    SHC_RPC_METHOD_NOT_FOUND = -32601,
    SHC_RPC_INVALID_PARAMS = -32602,
    SHC_RPC_INTERNAL_ERROR = -32603,
    SHC_RPC_REQUEST_CANCELLED = -32800,
    SHC_RPC_AUTH_REQUIRED = -32000, /* ACP: the client shows its authentication UI */
};

/* 4 MiB: a prompt, a client's terminal output or a pasted text fits; each line is held in a
 * few copies on its way through (buffer, parsed string, prompt text, command), so this is
 * also what bounds the memory a single message can cost. */
#define SHC_RPC_MAX_LINE_DEFAULT ((size_t)4 * 1024 * 1024)

/* A line is parsed only if it holds at most this many values (counted as '{', '[', ',' and ':'
 * outside strings) and this much nesting: a 4 MB line of empty objects would otherwise cost
 * the parser ~300 MB.  Past either, the request is answered -32600 with its own id. */
enum { SHC_RPC_MAX_VALUES = 20000, SHC_RPC_MAX_DEPTH = 64 };

typedef struct shc_rpc shc_rpc;

/* Behaves like write(2). */
typedef ssize_t (*shc_rpc_write_fn)(void *io, const void *buf, size_t len);
/* A request (id != NULL) or a notification (id == NULL).  params may be NULL. */
typedef void (*shc_rpc_message_fn)(void *payload, shc_rpc *rpc, json_t *id, const char *method,
                                   json_t *params);
/* The answer to one of our requests: exactly one of result / error is non-NULL.  Also called
 * with both NULL when the request is abandoned (shc_rpc_free or shc_rpc_abandon_all). */
typedef void (*shc_rpc_response_fn)(void *payload, json_t *result, json_t *error);

typedef struct shc_rpc_config {
    size_t max_line;        /* longest accepted input line in bytes (0 = 4 MiB) */
    shc_rpc_write_fn write; /* required */
    void *io;               /* first argument of write */
    shc_rpc_message_fn on_message;
    void *payload;          /* first argument of on_message */
    size_t max_values;      /* most JSON values in one message (0 = SHC_RPC_MAX_VALUES) */
    /* When set (the MCP client, whose peer is a server it runs): input that is not a JSON-RPC
     * message it can take (not JSON, no method, a wrong "jsonrpc", a bad id, over a bound) is
     * never answered but reported here, why being the error an answer would have held; JSON-RPC
     * lets a client drop it.  NULL (the bridge's stdin): answered with that error. */
    void (*on_invalid)(void *payload, const char *why);
} shc_rpc_config;

/* Returns an owned rpc (free with shc_rpc_free) or NULL on allocation failure. */
shc_rpc *shc_rpc_new(const shc_rpc_config *cfg);
/* NULL-safe.  Pending response callbacks are called with (NULL, NULL) first. */
void shc_rpc_free(shc_rpc *rpc);

/* Feeds input bytes.  Every complete line is handled before this returns (malformed lines are
 * answered with JSON-RPC errors, or reported to on_invalid, and reading goes on).  Returns 0 or SHC_E_NOMEM. */
int shc_rpc_feed(shc_rpc *rpc, const char *buf, size_t len);
/* End of input: a final line without a newline is handled as if it had one. */
void shc_rpc_feed_eof(shc_rpc *rpc);

/* Writers: queue one frame each.  Return 0, or SHC_E_NOMEM / SHC_E_IO (the writer failed
 * earlier: frames are dropped from then on, never crashing the caller). */
int shc_rpc_respond(shc_rpc *rpc, json_t *id, json_t *result);                 /* steals result */
int shc_rpc_error(shc_rpc *rpc, json_t *id, int code, const char *message, json_t *data); /* steals data */
int shc_rpc_notify(shc_rpc *rpc, const char *method, json_t *params);          /* steals params */
/* Sends a request; fn(payload, ...) is called once with the response.  *id_out (may be NULL)
 * receives the request id. */
int shc_rpc_request(shc_rpc *rpc, const char *method, json_t *params, shc_rpc_response_fn fn,
                    void *payload, int64_t *id_out);
/* Drops the pending request with this id (its callback is not called).  No-op if unknown. */
void shc_rpc_forget(shc_rpc *rpc, int64_t id);
/* Calls every pending response callback with (NULL, NULL) and forgets them. */
void shc_rpc_abandon_all(shc_rpc *rpc);

/* Writes as much of the queue as the writer takes.  Returns 1 if bytes remain queued (wait
 * for writability), 0 when the queue is empty, or SHC_E_IO once the writer failed for good
 * (EPIPE etc.; the queue is then discarded and later frames are dropped). */
int shc_rpc_flush(shc_rpc *rpc);
size_t shc_rpc_queued(const shc_rpc *rpc); /* bytes waiting in the write queue */
/* The value of a JSON string that holds no NUL character (the parser accepts \u0000 so that
 * such a request can be answered properly), else NULL: what the bridge reads every string
 * field of a client's message with, so a NUL never silently cuts a path or a command short. */
const char *shc_rpc_str(const json_t *v);
bool shc_rpc_broken(const shc_rpc *rpc);   /* the writer failed */
/* Stop writing anything from now on (teardown finished); later frames are dropped. */
void shc_rpc_close_output(shc_rpc *rpc);

#endif
