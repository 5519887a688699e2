/* The MCP client of `shcard acp` (docs/mcp.md): the MCP servers an editor names in
 * session/new, load or resume become tools of the session's model.  One shc_mcp per session
 * holds its servers; each speaks JSON-RPC (rpc/) over stdio (a process run through the
 * executor, so it is contained like a command and ends with the agent) or streamable HTTP
 * (libcurl on the loop).  Nothing here blocks: every step runs from the bridge's loop.
 *
 * Ownership: shc_mcp is owned by the caller (the session) and borrows the loop, the executor
 * and the log.  Strings passed to callbacks are borrowed for the call. */
#ifndef SHC_MCP_H
#define SHC_MCP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/backend.h"
#include "base/log.h"
#include "base/loop.h"
#include "exec/pty.h"

/* The protocol versions this client speaks, newest first; it asks for the first. */
#define SHC_MCP_PROTOCOL "2025-06-18"
#define SHC_MCP_CALL_TIMEOUT_MS ((uint64_t)120000) /* a tools/call (--mcp-timeout) */
#define SHC_MCP_INIT_TIMEOUT_MS ((uint64_t)30000)  /* start, initialize and the first list */
#define SHC_MCP_SCHEMA_MAX ((size_t)32 * 1024)     /* a tool's inputSchema, as JSON text */
#define SHC_MCP_MAX_SERVERS 32                     /* per session */
#define SHC_MCP_MAX_TOOLS_TEXT "127"
/* per session, all servers: with bash 128 functions a request, the most OpenAI's API takes */
#define SHC_MCP_MAX_TOOLS 127
#define SHC_MCP_MAX_LINE ((size_t)4 * 1024 * 1024) /* one message from a server */
/* JSON values in one message from a server: a tools/list page may carry a schema far over
 * SHC_MCP_SCHEMA_MAX (that tool alone is left out), so the ACP bound (rpc/) is too small */
#define SHC_MCP_MAX_VALUES ((size_t)500000)
#define SHC_MCP_IMAGES_MAX ((size_t)4 * 1024 * 1024) /* a result's image blocks in a card: base64,
                                                      * type and SHC_MCP_BLOCK_COST each */
#define SHC_MCP_BLOCK_COST ((size_t)64)  /* what one content block costs beyond its own text */
#define SHC_MCP_MEDIA_BLOCKS 64          /* image and audio blocks shown per result (card, model) */
#define SHC_MCP_TEXT_BLOCKS 1024         /* other blocks (text, resources...) per result */
#define SHC_MCP_NAME_MAX 64                        /* a function name for the model */
/* Flow control (docs/mcp.md "Floods"): what one server can make the agent hold or do. */
#define SHC_MCP_REQ_RATE 20 /* a server's requests (ping...) answered per second; others not */
#define SHC_MCP_INVALID_MAX 100 /* messages that are not JSON-RPC: the server fails at this many */
#define SHC_MCP_QUEUE_HIGH ((size_t)256 * 1024) /* queued for the server: its output waits */
#define SHC_MCP_QUEUE_MAX ((size_t)64 << 20) /* queued past this: it does not read its input */
#define SHC_MCP_STALL_MS ((uint64_t)15000) /* output waiting this long: it does not read either */
#define SHC_MCP_HTTP_TRANSFERS 8            /* POSTs (and connections) of one HTTP server at once */
#define SHC_MCP_HTTP_WAITING 64             /* POSTs waiting for one of them; past it: failed */
#define SHC_MCP_NOTE_TIMEOUT_S 10L /* a POST that carries no request (an answer, a notification) */
#define SHC_MCP_STREAM_BYTES ((size_t)16 * 1024 * 1024) /* one POST's answer, events included */
#define SHC_MCP_NOTE_BYTES ((size_t)64 * 1024) /* what a POST that carries no request may get */
#define SHC_MCP_RELIST_MS ((uint64_t)2000)  /* list_changed: at most one tools/list round per */
#define SHC_MCP_STDIO_FDS 6                 /* descriptors a stdio server holds in the agent */
#define SHC_MCP_FDS_KEPT 256                /* always left for commands, pipes and the store */
#define SHC_MCP_LOG_LINES 200               /* log lines a second, all servers of the agent */
#define SHC_MCP_LOG_BYTES ((size_t)32 * 1024) /* their bytes a second */

typedef struct shc_mcp shc_mcp;
typedef struct shc_mcp_call shc_mcp_call;

/* Descriptors all the sessions' MCP servers hold (the bridge owns one for the agent): a stdio
 * server takes SHC_MCP_STDIO_FDS while it runs, an HTTP server SHC_MCP_HTTP_TRANSFERS; at most
 * fds_max (set at each start: half of what RLIMIT_NOFILE leaves over SHC_MCP_FDS_KEPT) and
 * never so many that fewer than SHC_MCP_FDS_KEPT stay free; a server that finds too few left
 * fails to start.  The bridge keeps fewer sessions in memory by fds_used. */
typedef struct shc_mcp_budget {
    size_t fds_max, fds_used;
    /* The log lines of every server of every session (mcp/result.c): at most SHC_MCP_LOG_RATE
     * a second from one server and SHC_MCP_LOG_LINES lines and SHC_MCP_LOG_BYTES bytes a second
     * in all; the others counted, and said in one line when a later second logs. */
    uint64_t log_window; /* the second counted */
    size_t log_lines, log_bytes, log_dropped;
} shc_mcp_budget;

typedef struct shc_mcp_env {
    shc_loop *loop;         /* borrowed */
    shc_exec *exec;         /* borrowed: stdio servers run through it */
    const shc_log *log;     /* borrowed: "mcp SERVER: ..." lines */
    const char *cwd;        /* copied: stdio servers start there */
    uint64_t call_timeout_ms; /* 0 = SHC_MCP_CALL_TIMEOUT_MS */
    const char *key_env;    /* copied: the variable --api-key-env names, or NULL; it is kept from
                             * stdio servers as DEEPSEEK_API_KEY and OPENAI_API_KEY are */
    shc_mcp_budget *budget; /* borrowed: shared by every session; NULL = no agent-wide bound */
    /* The tools changed (a server came up, failed, or re-listed) or every server is settled
     * (ready or failed).  Called from the loop. */
    void (*changed)(void *payload);
    void *payload;
} shc_mcp_env;

/* One tool as the session knows it. */
typedef struct shc_mcp_tool {
    const char *fname;  /* mcp__SERVER__TOOL, sanitised, unique: what the model calls */
    const char *server; /* the server's name as the editor gave it */
    const char *tool;   /* the tool's name as the server gave it */
    const char *title;  /* "SERVER: TOOL", safe to show (target.c) */
    bool read_only, open_world; /* annotations.readOnlyHint, openWorldHint */
} shc_mcp_tool;

/* How a call ended.  text is what the model reads (the tool's text content first; "MCP
 * error: ..." when it failed); error is true for a failure (the card's status is failed). */
typedef struct shc_mcp_result {
    bool error;
    bool cancelled;
    const char *text;
    size_t len;
    json_t *images; /* borrowed, or NULL: the result's images as ACP image blocks, for the card */
} shc_mcp_result;

typedef void (*shc_mcp_done_fn)(void *payload, const shc_mcp_result *r);

/* Checks an mcpServers array (the ACP shapes: stdio {name, command, args, env}, http {type,
 * name, url, headers}; sse entries are accepted and skipped).  0, or -1 with why (a message
 * for -32602). */
int shc_mcp_check(json_t *servers, char *why, size_t cap);
/* Starts the servers (servers borrowed; checked already).  NULL when there is nothing to start
 * (no servers, or out of memory: logged). */
shc_mcp *shc_mcp_start(const shc_mcp_env *env, json_t *servers);
/* Every server is up (initialized and listed) or has failed. */
bool shc_mcp_settled(const shc_mcp *m);
/* The tools for the model: a JSON array text of {name, description, parameters} (owned). */
char *shc_mcp_tools_json(const shc_mcp *m);
/* The tools as shc_mcp_tools_json gives them now, with what each name means (snap.c): a new
 * reference for the backend's set_tools, or NULL (no servers, out of memory). */
shc_tools_snap *shc_mcp_tools_snap(const shc_mcp *m);
/* A call's target, resolved once from the model's function name against the tools of the
 * request the model answered (its snap), when the call arrives: the permission prompt, the
 * card and the call itself all use it, so a re-list (which may give the name to another tool,
 * or change the definition and change it back) cannot move the call.  Owned by the caller. */
typedef struct shc_mcp_target {
    char *ident;  /* the server entry's identity: its kind, name and what the user configured
                   * (cwd, command, args and env, or url and headers), as JSON text */
    char *server; /* the server's name as the editor gave it */
    char *tool;   /* the tool's exact name as the server gave it */
    char *title;  /* "SERVER: TOOL" made safe to show (one line, no controls, <= 120) */
    json_t *def;  /* owned reference: the tool's definition when it was resolved */
    bool read_only, open_world; /* annotations.readOnlyHint, openWorldHint */
} shc_mcp_target;

/* s as one line safe to show a person (owned): every code point outside an allow-list of
 * visible ones (target.c: controls, format and bidi characters, tags, combining marks, variation
 * selectors, fillers, private use, separators...) one U+FFFD, each run of white space one
 * space, at most max code points (cut with "…"). */
char *shc_mcp_display(const char *s, size_t max);
/* The target fname meant in snap (a shc_mcp_tools_snap), or NULL (no such tool in it, no
 * snap, or out of memory). */
shc_mcp_target *shc_mcp_resolve(const shc_tools_snap *snap, const char *fname);
/* The session still has g's server, listing g's tool with exactly g's definition; else false
 * with why (its server is gone, the tool is no longer listed, or its definition changed). */
bool shc_mcp_target_current(shc_mcp *m, const shc_mcp_target *g, const char **why);
void shc_mcp_target_free(shc_mcp_target *g); /* NULL-safe */
/* The key "Always allow this tool" is kept under: the server's identity, the tool's exact name
 * and its definition as the user was asked about it (description, inputSchema, annotations,
 * title: owned JSON text), never the function name, which a re-list may give to another tool;
 * a changed definition is another key, so the user is asked again. */
char *shc_mcp_approval_key(const shc_mcp_target *g);
/* A key of shc_mcp_approval_key is for the same server identity and tool name as g (allowed
 * once, with another definition: "changed since you allowed it"). */
bool shc_mcp_key_same_tool(const char *key, const shc_mcp_target *g);
/* A key of shc_mcp_approval_key names a server entry the session still has. */
bool shc_mcp_key_present(const shc_mcp *m, const char *key);
/* Calls the target with arguments (a JSON object text): on the server of that identity, the
 * tool of that exact name, and only while its definition is the one resolved (else "MCP
 * error: ..." and nothing is sent).  done runs exactly once, from the loop (never inside this
 * call), unless shc_mcp_call_drop comes first.  NULL only out of memory. */
shc_mcp_call *shc_mcp_call_start(shc_mcp *m, const shc_mcp_target *g, const char *arguments,
                                 shc_mcp_done_fn done, void *payload);
/* The turn was cancelled: notifications/cancelled goes to the server, done follows with
 * cancelled set. */
void shc_mcp_call_cancel(shc_mcp_call *c);
/* Forgets the call (done never runs). */
void shc_mcp_call_drop(shc_mcp_call *c);
/* NULL-safe: every server ends (stdio: stdin closed, then the kill ladder; http: DELETE not
 * sent), calls are dropped without their callbacks. */
void shc_mcp_free(shc_mcp *m);

#endif
