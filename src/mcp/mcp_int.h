/* Internals of the MCP client, shared by client.c (the session's servers and the protocol),
 * servers.c (the editor's entries), stdio.c and streamable.c (the two transports) and result.c (names, schemas, results as text) and target.c (identities, targets, titles),
 * flow.c (flow control: queue bounds, request rate, re-lists, the descriptor budget), snap.c (the
 * tools as one model request showed them, what a call is resolved against).
 * Direction: client.c -> servers.c, stdio.c, streamable.c -> result.c, and client.c, servers.c -> tools.c
 * (a listing's tools: kept to their definitions, bounded, checked) -> target.c; the transports reach
 * client.c only through s->up.  Not a public header. */
#ifndef SHC_MCP_INT_H
#define SHC_MCP_INT_H

#include <stdarg.h>

#include "mcp/mcp.h"
#include "model/http.h"
#include "rpc/jsonrpc.h"

typedef struct mcp_server mcp_server;

/* How a transport (and flow.c) reports to client.c (pointers, so that they name nothing above
 * them): bytes of messages, a failure (the message), "write what is queued", "list again". */
typedef struct mcp_up {
    void (*feed)(mcp_server *s, const char *buf, size_t len);
    void (*fail)(mcp_server *s, const char *msg);
    void (*flush)(mcp_server *s);
    void (*list)(mcp_server *s); /* a tools/list round starts (flow.c's coalesced re-list) */
} mcp_up;

typedef enum mcp_state {
    MS_STARTING, /* the transport comes up, initialize sent */
    MS_LISTING,  /* initialized; tools/list pages coming */
    MS_READY,
    MS_FAILED,
} mcp_state;

typedef struct mcp_tool {
    shc_mcp_tool pub;
    char *fname, *tool, *title, *description;
    json_t *schema; /* owned */
    json_t *entry;  /* owned reference (client.c): its definition (tools.c: the tools/list entry's
                     * name, title, description, inputSchema and annotations), what a target
                     * compares and "Always allow" is kept under */
    size_t cost;    /* bytes of its definition as the model gets it (tools.c), for the budget */
} mcp_tool;

struct mcp_server {
    shc_mcp *m;
    const mcp_up *up;     /* client.c's */
    char *name;
    char *ident;          /* owned (client.c): the entry's identity (target.c) */
    bool http;
    mcp_state state;
    char *why;            /* owned: why it failed */
    shc_rpc *rpc;         /* owned */
    int init_timer;
    json_t *listing;      /* owned: tools of the pages so far, each kept to its definition */
    size_t listing_bytes; /* their size as JSON */
    size_t left_out;      /* tools of this listing left out (tools.c), said in one line */
    char left_why[200];   /* the first one's name and why */
    unsigned pages;
    bool relist;          /* list_changed while listing */
    bool was_up;          /* it was ready once (a re-list keeps the old tools meanwhile) */
    mcp_tool *tools;      /* owned, ntools */
    size_t ntools;
    /* stdio (stdio.c) */
    char **argv;          /* owned, NULL-terminated */
    char **env;           /* owned "NAME=value", NULL-terminated */
    char *dir;            /* owned: the private directory of its FIFOs, until they are open */
    shc_pty *pty;         /* owned */
    int in_fd, out_fd, err_fd;
    int in_w, out_w, err_w;
    int ready_fd, ready_w; /* the FIFO the shell opens and closes once the three are open */
    char errline[512];    /* the stderr line being read */
    size_t errlen;
    char errlast[200];    /* the last complete stderr line (for the failure's message) */
    uint64_t log_window;  /* the second the log's lines are counted in (shc__mcp_log_line) */
    unsigned log_lines;   /* lines logged in it */
    uint64_t req_window;  /* the second the server's requests are counted in (client.c) */
    unsigned req_count;   /* requests answered in it */
    size_t req_dropped;   /* requests not answered since the last summary */
    unsigned invalid;     /* messages it wrote that are not JSON-RPC (client.c on_invalid) */
    bool paused;          /* its output is not read: too much waits for its input */
    int stall_timer;      /* while paused: fails it when it reads nothing for SHC_MCP_STALL_MS */
    uint64_t list_at;     /* when the last tools/list round started */
    uint64_t list_took;   /* how long it took (a re-list waits ten times that, at least) */
    int relist_timer;     /* a coalesced re-list, when list_changed came too soon */
    size_t fds_held;      /* descriptors taken from the agent's budget */
    /* http (http.c) */
    char *url;
    char **headers;       /* owned "Name: value", NULL-terminated (room for two more) */
    size_t nheaders;
    char *session_id;     /* owned: Mcp-Session-Id */
    char *proto;          /* owned: the negotiated version (MCP-Protocol-Version) */
    shc_http *curl;       /* owned */
    char *wbuf;           /* frames the rpc wrote, up to their newline */
    size_t wlen, wcap;
    struct mcp_post *posts; /* in flight */
    int post_timer;       /* starts the messages written from inside a transfer's callback */
    unsigned running;     /* posts whose transfer runs (at most SHC_MCP_HTTP_TRANSFERS) */
    unsigned waiting;     /* posts not started yet */
    size_t waiting_bytes;
};

struct shc_mcp {
    shc_mcp_env env;
    char *cwd;
    char *key_env;        /* owned: env.key_env's copy */
    mcp_server **servers;
    size_t n;
    shc_mcp_call *calls;  /* in flight */
    json_t *tools_json;   /* owned: what shc_mcp_tools_json gives */
    shc_tools_snap *snap; /* a reference: what its names mean (snap.c), or NULL */
    mcp_tool **index;     /* borrowed pointers into the servers' tools, by fname */
    size_t nindex;
    int changed_timer;
    size_t left_logged;   /* tools past the budget, as last logged (a change is logged again) */
    shc_mcp_budget own;   /* the log budget when env.budget is NULL (no agent-wide one) */
    bool freeing;
};

/* target.c: an entry's kind ("stdio", "http", "sse"), or NULL (servers.c checks with it) */
const char *shc__mcp_kind(json_t *entry);
/* servers.c: the server for a checked entry, or NULL (out of memory, or an sse entry: skipped) */
mcp_server *shc__mcp_server_new(shc_mcp *m, json_t *entry);
void shc__mcp_server_free(mcp_server *s); /* its settings and tools (transport stopped) */

/* result.c: fmt formatted into dst[cap] as valid UTF-8: a server's string cut by a precision or
 * by the buffer's end never leaves half a character (shc_utf8_cut), invalid bytes U+FFFD.  Every
 * message of this module that holds a server's text is made through it. */
void shc__mcp_vfmt(char *dst, size_t cap, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* stdio.c, streamable.c: a failure through s->up, formatted (shc__mcp_vfmt) */
void shc__mcp_up_fail(mcp_server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* stdio.c */
int shc__mcp_stdio_start(mcp_server *s); /* 0, or -1 after shc__mcp_fail */
ssize_t shc__mcp_stdio_write(void *io, const void *buf, size_t len);
void shc__mcp_stdio_want_write(mcp_server *s, bool on);
void shc__mcp_stdio_want_read(mcp_server *s, bool on); /* back-pressure: its output waits */
void shc__mcp_stdio_ready(mcp_server *s); /* initialized: the FIFOs' directory goes */
void shc__mcp_stdio_stop(mcp_server *s);

/* streamable.c */
int shc__mcp_http_start(mcp_server *s);
ssize_t shc__mcp_http_write(void *io, const void *buf, size_t len);
void shc__mcp_http_stop(mcp_server *s);
/* The call that sent request id ends unanswered (timeout, cancel): the transfer that carried
 * it, and nothing else, stops, so an endless answer is not read on. */
void shc__mcp_http_abandon(mcp_server *s, int64_t id);
size_t shc__mcp_http_waiting(const mcp_server *s); /* bytes of messages not sent yet */

/* result.c: a line from or about the server into the log at info ("mcp NAME: ..."), at most
 * SHC_MCP_LOG_RATE a second per server and SHC_MCP_LOG_LINES lines and SHC_MCP_LOG_BYTES bytes a
 * second for all the agent's servers (env.budget); the others are counted, and said in one line
 * ("N MCP log lines dropped") when a later second logs or shc__mcp_log_flush runs (a server
 * stops). */
#define SHC_MCP_LOG_RATE 50
void shc__mcp_log_line(mcp_server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void shc__mcp_log_flush(mcp_server *s);

/* flow.c (for client.c) */
void shc__mcp_flush(mcp_server *s);        /* writes what is queued; pauses, fails a stalled server */
void shc__mcp_timers_stop(mcp_server *s);  /* init, stall and re-list timers */
bool shc__mcp_fds_take(mcp_server *s);     /* false: the agent's budget has too few left */
void shc__mcp_fds_give(mcp_server *s);
bool shc__mcp_answer_request(mcp_server *s); /* within SHC_MCP_REQ_RATE this second */
/* The rpc's on_invalid (payload: the server): what it wrote that is not JSON-RPC it may send
 * (not JSON, no method, a wrong "jsonrpc"...) is never answered (rpc/), counted against its
 * request rate, the first logged; at SHC_MCP_INVALID_MAX the server fails, as one that does not
 * speak the protocol. */
void shc__mcp_on_invalid(void *payload, const char *why);
void shc__mcp_requests_flush(mcp_server *s); /* the count of unanswered ones into the log */
/* list_changed, coalesced: at most one tools/list round in flight (one more marked while it
 * runs), one started per SHC_MCP_RELIST_MS (a timer for the one that came too soon). */
void shc__mcp_relist(mcp_server *s);

/* snap.c: the index as it is now, what each function name means (a new reference, or NULL) */
shc_tools_snap *shc__mcp_snap_new(const shc_mcp *m);

/* target.c */
/* A tool just listed: its title made safe to show, its tools/list entry kept (a reference). */
void shc__mcp_tool_dress(mcp_tool *t, const char *server, json_t *entry);
/* A checked mcpServers entry's identity (owned JSON text), from its kind: its name, the session's
 * directory and every field that changes what runs or is reached (command, args and env, or url
 * and headers, values included), so an entry that runs something else is another server. */
char *shc__mcp_ident(json_t *entry, const char *cwd);
/* The tool a target names, on the server of its identity, with the definition it had; NULL with
 * why (the server is gone, the tool is no longer listed or was changed). */
mcp_tool *shc__mcp_target_tool(shc_mcp *m, const shc_mcp_target *g, mcp_server **srv,
                               const char **why);

/* tools.c: the limits on what a server's tools/list may give the model */
#define SHC_MCP_TOOL_NAME_MAX ((size_t)128)  /* a tool's name (longer: left out) */
#define SHC_MCP_ENTRY_MAX ((size_t)64 * 1024) /* one tool's definition, as JSON (else left out) */
#define SHC_MCP_LISTING_MAX ((size_t)512 * 1024) /* one server's listing (the rest left out) */
#define SHC_MCP_TOOLS_BUDGET ((size_t)128 * 1024) /* every MCP tool the model gets, per session */
/* A tools/list page's entries into s->listing, each kept to its definition and bounded; those
 * left out are counted for the listing's one line (shc__mcp_listing_done). */
void shc__mcp_listing_add(mcp_server *s, json_t *tools);
/* The listing in: s->tools replaced by its tools, and one line for those left out. */
void shc__mcp_listing_done(mcp_server *s);
/* A definition as a tool, or NULL with why (a name too long, a schema the model's API refuses...). */
int shc__mcp_tool_from(mcp_tool *out, const char *server, json_t *def, const char **why);
void shc__mcp_tool_fini(mcp_tool *t);

/* result.c */
/* fname for server / tool: "mcp__S__T" sanitised to [A-Za-z0-9_-], cut to SHC_MCP_NAME_MAX,
 * made unique against taken[0..n) (owned). */
char *shc__mcp_fname(const char *server, const char *tool, mcp_tool **taken, size_t n);
/* A tools/call result as the model's text (owned); *error when isError. */
char *shc__mcp_result_text(json_t *result, bool *error, size_t *len);
/* Its image content as ACP image blocks {type, data, mimeType} (owned array), or NULL when it
 * has none: at most SHC_MCP_MEDIA_BLOCKS, SHC_MCP_IMAGES_MAX bytes in all counting each block's
 * cost; the others are left to the text's notes. */
json_t *shc__mcp_result_images(json_t *result);

#endif
