/* The ACP bridge (architecture.md, layer 5): ACP methods, sessions, turns, the per-session
 * capability snapshot, permissions and teardown, on one loop with the PTY executor.  It speaks
 * NDJSON JSON-RPC on in_fd/out_fd (stdin/stdout) and renders every bash tool call of the
 * configured backend through the presenter.
 *
 * Picking a backend (cli/cmd_acp.c): fill shc_bridge_config.backend with an owned shc_backend *
 * (shell mode or the model backend; the bridge frees it with ops->free when it exits). */
#ifndef SHC_BRIDGE_H
#define SHC_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/backend.h"
#include "base/log.h"

typedef enum shc_approve {
    SHC_APPROVE_DEFAULT, /* shell backend: run without asking; any other backend: ask */
    SHC_APPROVE_ALL,     /* never ask */
    SHC_APPROVE_ASK,     /* session/request_permission before every command */
} shc_approve;

/* The defaults `shcard acp` gives (cli/cmd_acp.c): a generous overall timeout per command, and a
 * short grace for a command waiting for terminal input nobody can type. */
enum { SHC_BRIDGE_DEFAULT_TIMEOUT_S = 1800, SHC_BRIDGE_DEFAULT_INPUT_WAIT_S = 3 };

/* Authentication (acp/auth.c), given by whoever picked the backend (cli/cmd_acp.c); both
 * optional.  With check NULL, authMethods is empty and authenticate answers {}. */
typedef struct shc_bridge_auth {
    void *payload;
    /* Is a setup usable now?  env_only: only a key in the environment counts (the env_var
     * method); else the settings are read again now (the config file `shcard login` writes).
     * 0, or -1 with why (for the user) in msg. */
    int (*check)(void *payload, bool env_only, char *msg, size_t len);
    /* Called before session/new, load and resume: an owned new backend when the settings
     * changed since the last call (a login in another process), or NULL to keep the one in use
     * (also when the new settings are bad: that is logged). */
    shc_backend *(*refresh)(void *payload);
} shc_bridge_auth;

typedef struct shc_bridge_config {
    shc_backend *backend;     /* required; owned by the bridge once shc_bridge_run is called */
    shc_approve approve;
    bool client_terminals;    /* run terminal commands through the client's terminal/create */
    size_t max_line;          /* longest accepted JSON-RPC line (0 = 4 MiB) */
    size_t output_byte_limit; /* terminal/create outputByteLimit and model text cap (0 = 1 MiB) */
    bool login;               /* bash -lc instead of bash -c */
    const char *shell;        /* borrowed: the shell commands run with (NULL = bash from PATH);
                               * the fuzz target uses /bin/true so that nothing a fuzzer writes
                               * ever runs */
    uint64_t timeout_ms;      /* per command, 0 = none (`shcard acp` default: 30 min) */
    uint64_t mcp_timeout_ms;  /* per MCP tool call, 0 = SHC_MCP_CALL_TIMEOUT_MS (120 s) */
    const char *mcp_key_env;  /* borrowed: the variable --api-key-env names (kept, as the
                               * default key variables are, from MCP servers), or NULL */
    uint64_t input_wait_ms;   /* end a command waiting this long for terminal input, 0 = never
                               * (`shcard acp` default: 3 s; see exec/stall.h) */
    uint64_t kill_grace_ms;   /* SIGTERM -> SIGKILL on cancel/timeout (0 = 1000) */
    const char *sandbox;      /* borrowed: "off", "read-only" or "workspace" for new sessions;
                               * NULL = workspace for a model, off for the shell backend */
    bool allow_network;       /* sandboxed commands keep the network */
    bool sandbox_fallback_off; /* no Landlock here: run unsandboxed (default: refuse) */
    bool no_verify;           /* do not watch read/search/list commands (docs/verified-cards.md) */
    uint64_t verify_grace_ms; /* a watched card still running this long becomes a terminal
                               * card (0 = 3000) */
    uint64_t teardown_ms;     /* longest wait for children at teardown before SIGKILL (0 = 3000) */
    uint64_t flush_ms;        /* then the longest wait for the client to read (0 = 2000) */
    size_t chunk_bytes;       /* terminal_output coalescing: bytes (0 = executor default) */
    uint32_t chunk_ms;        /* terminal_output coalescing: delay (0 = executor default) */
    bool color;               /* TERM=xterm-256color for commands (default TERM=dumb, NO_COLOR) */
    size_t max_commands;      /* commands running at once, all sessions (0 = 16); others wait */
    const char *store_dir;    /* the session store (acp/store.h), or NULL: no store */
    uint64_t store_max_bytes; /* its total cap (0 = the default) */
    bool no_store;            /* keep sessions in memory only */
    int in_fd, out_fd;        /* -1 = 0 / 1 */
    const char *session_prefix; /* borrowed: without a store, session ids are "sess_" PREFIX N
                                 * (for the fuzz target, which must name them); NULL, or with
                                 * a store: 128 random bits */
    shc_bridge_auth auth;
    shc_log log;
} shc_bridge_config;

/* Runs the bridge until stdin EOF, a terminating signal or a broken stdout, then tears down once
 * (cancel every turn, end every process group, wait for all of them, flush) and returns the
 * process exit status: 0 after a clean teardown, 1 when the client did not read the last
 * frames within flush_ms (or the bridge could not start). */
int shc_bridge_run(shc_bridge_config *cfg);

#endif
