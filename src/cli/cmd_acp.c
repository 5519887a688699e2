/* shcard acp: the ACP agent on stdio.  Thin glue: flags -> shc_bridge_config -> shc_bridge_run.
 * The backend is picked here: the model backend (model/) with a key or a base URL, else shell
 * mode (agent/shell.c); the bridge only sees the seam (agent/backend.h).  Here too is what
 * authentication asks of the settings (shc_bridge_auth): whether a setup is usable, and a new
 * backend when the config file changed (stat: inode, size, mtime) since it was last read.
 * `shcard acp ... login` is `shcard login` (what the ACP terminal auth method runs). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "acp/bridge.h"
#include "acp/store.h"
#include "agent/shell.h"
#include "base/json.h"
#include "cli/cmd.h"
#include "cli/argv.h"
#include "confine/confine.h"
#include "model/config.h"
#include "model/openai.h"
#include "shcard.h"

enum {
    A_APPROVE, A_CLIENT_TERMINALS, A_LOG_LEVEL, A_TIMEOUT, A_INPUT_WAIT, A_LOGIN, A_COLOR,
    A_MAX_LINE, A_OUTPUT_LIMIT, A_CHUNK_BYTES, A_CHUNK_MS, A_MAX_COMMANDS,
    A_NO_VERIFY, A_VERIFY_GRACE, A_SANDBOX, A_ALLOW_NETWORK, A_SANDBOX_FALLBACK, A_MCP_TIMEOUT,
    A_MODEL_FLAG /* the model backend's and the store's: shc_model_config_set() by name */
};

static const shc_cli_opt acp_opts_table[] = {
    {"approve", 0, SHC_ARG_CHOICE, "all|ask", 0, 0, "all in shell mode, ask with a model",
     "ask the client before each command (ask) or not (all)", A_APPROVE},
    {"client-terminals", 0, SHC_ARG_NONE, NULL, 0, 0, NULL,
     "run commands through the client's terminal/create when it\nhas no _meta.terminal_output", A_CLIENT_TERMINALS},
    {"log-level", 0, SHC_ARG_CHOICE, "error|warn|info|debug", 0, 0, "warn",
     "what goes to stderr", A_LOG_LEVEL},
    {"timeout", 0, SHC_ARG_UINT, "SECONDS", 0, SHC_MODEL_MAX_COMMAND_TIMEOUT,
     "1800, or the config file's timeout", "per-command timeout; 0 = none", A_TIMEOUT},
    {"input-wait", 0, SHC_ARG_UINT, "SECONDS", 0, 86400, "3",
     "end a command that waits this long for terminal input (a\npassword prompt, a pager, read </dev/tty, stopped); 0 = never", A_INPUT_WAIT},
    {"mcp-timeout", 0, SHC_ARG_UINT, "SECONDS", 1, 86400, "120",
     "how long an MCP tool call may take before it is cancelled", A_MCP_TIMEOUT},
    {"login", 0, SHC_ARG_NONE, NULL, 0, 0, NULL, "run commands with bash -lc (not bash -c)", A_LOGIN},
    {"color", 0, SHC_ARG_NONE, NULL, 0, 0, NULL,
     "TERM=xterm-256color (without it: TERM=dumb, NO_COLOR=1)", A_COLOR},
    {"no-verify", 0, SHC_ARG_NONE, NULL, 0, 0, NULL,
     "do not watch read/search/list commands as they run", A_NO_VERIFY},
    {"verify-grace", 0, SHC_ARG_NUM, "SECONDS", 0.001, 86400, "3",
     "a watched card still running this long becomes a terminal card", A_VERIFY_GRACE},
    {"sandbox", 0, SHC_ARG_CHOICE, "off|read-only|workspace", 0, 0,
     "workspace for the model's commands, off in shell mode",
     "the sandbox commands run in (Landlock and seccomp)", A_SANDBOX},
    {"allow-network", 0, SHC_ARG_NONE, NULL, 0, 0, NULL,
     "sandboxed commands may use the network", A_ALLOW_NETWORK},
    {"sandbox-fallback", 0, SHC_ARG_CHOICE, "refuse|off", 0, 0, "refuse",
     "without Landlock: refuse to run sandboxed commands, or run\nthem unsandboxed", A_SANDBOX_FALLBACK},
    {"max-line", 0, SHC_ARG_UINT, "BYTES", 1024, 4294967296.0, "4194304 (4 MiB)",
     "longest accepted JSON-RPC line", A_MAX_LINE},
    {"output-limit", 0, SHC_ARG_UINT, "BYTES", 0, 4294967296.0, "1048576 (1 MiB)",
     "model text / outputByteLimit cap", A_OUTPUT_LIMIT},
    {"chunk-bytes", 0, SHC_ARG_UINT, "BYTES", 0, 16777216, "8192",
     "terminal_output coalescing size", A_CHUNK_BYTES},
    {"chunk-ms", 0, SHC_ARG_UINT, "MS", 0, 10000, "16", "terminal_output coalescing delay", A_CHUNK_MS},
    {"max-commands", 0, SHC_ARG_UINT, "N", 1, 4096, "16",
     "commands running at once, all sessions; more wait for a slot", A_MAX_COMMANDS},
    /* the model backend (used with an API key or --base-url; else shell mode) */
    {"model", 0, SHC_ARG_STR, "NAME", 0, 0, SHC_MODEL_DEFAULT_MODEL, "the model", A_MODEL_FLAG},
    {"base-url", 0, SHC_ARG_STR, "URL", 0, 0, SHC_MODEL_DEFAULT_BASE_URL,
     "the server ({URL}/chat/completions)", A_MODEL_FLAG},
    {"api-key-env", 0, SHC_ARG_STR, "VAR", 0, 0, "DEEPSEEK_API_KEY, then OPENAI_API_KEY",
     "read the API key from the environment variable VAR", A_MODEL_FLAG},
    {"max-turn-requests", 0, SHC_ARG_STR, "N", 0, 0, "50", "model requests per prompt (1-100000)",
     A_MODEL_FLAG},
    {"request-timeout", 0, SHC_ARG_STR, "SECONDS", 0, 0, "120",
     "give up when the model's stream makes no progress this long\n(no event; keep-alive comments do not count; 1-86400)", A_MODEL_FLAG},
    {"model-deadline", 0, SHC_ARG_STR, "SECONDS", 0, 0, "600",
     "give up on one model request after this long in all (1-86400)", A_MODEL_FLAG},
    {"system-prompt-file", 0, SHC_ARG_STR, "PATH", 0, 0, "the built-in prompt",
     "replace the system prompt", A_MODEL_FLAG},
    {"tool-output-limit", 0, SHC_ARG_STR, "BYTES", 0, 0, "65536",
     "bytes of command output the model gets, head and tail\n(1024-67108864)", A_MODEL_FLAG},
    {"context-window", 0, SHC_ARG_STR, "TOKENS", 0, 0,
     "the server's /models, else known models,\nelse 32768",
     "the model's context window (1024-67108864)", A_MODEL_FLAG},
    {"images", 0, SHC_ARG_CHOICE, "yes|no", 0, 0, "no", "the model takes images", A_MODEL_FLAG},
    {"config", 0, SHC_ARG_STR, "PATH", 0, 0,
     "$SHCARD_CONFIG, else $XDG_CONFIG_HOME/shcard/config or\n~/.config/shcard/config",
     "the settings file", A_MODEL_FLAG},
    {"shell", 0, SHC_ARG_NONE, NULL, 0, 0, NULL, "shell mode even when an API key is set", A_MODEL_FLAG},
    /* the session store (session/load, list, resume, delete) */
    {"store", 0, SHC_ARG_STR, "DIR", 0, 0,
     "$XDG_STATE_HOME/shcard/sessions or\n~/.local/state/shcard/sessions",
     "where sessions are stored (an absolute path)", A_MODEL_FLAG},
    {"store-max-mb", 0, SHC_ARG_STR, "N", 0, 0, "256",
     "the store's total size in MiB; the oldest sessions are pruned", A_MODEL_FLAG},
    {"no-store", 0, SHC_ARG_NONE, NULL, 0, 0, NULL, "keep sessions in memory only", A_MODEL_FLAG},
};

typedef struct acp_auth acp_auth;

typedef struct acp_args {
    shc_bridge_config *cfg;
    shc_model_config *mcfg;
    acp_auth *auth; /* remembers the model flags: authentication reads them again */
    bool timeout_given, input_wait_given;
} acp_args;

static int remember_flag(acp_auth *a, const char *name, const char *value, char *err, size_t n);

static int set_opt(void *ctx, const shc_cli_opt *opt, const shc_cli_val *v, char *err, size_t n)
{
    acp_args *a = ctx;
    shc_bridge_config *cfg = a->cfg;
    switch (opt->id) {
    case A_APPROVE: cfg->approve = v->choice == 0 ? SHC_APPROVE_ALL : SHC_APPROVE_ASK; return 0;
    case A_CLIENT_TERMINALS: cfg->client_terminals = true; return 0;
    case A_LOG_LEVEL: return shc_log_parse_level(&cfg->log.level, v->str) ? -1 : 0;
    case A_TIMEOUT:
        cfg->timeout_ms = v->u * 1000;
        a->timeout_given = true;
        return 0;
    case A_INPUT_WAIT:
        cfg->input_wait_ms = v->u * 1000;
        a->input_wait_given = true;
        return 0;
    case A_MCP_TIMEOUT: cfg->mcp_timeout_ms = v->u * 1000; return 0;
    case A_LOGIN: cfg->login = true; return 0;
    case A_COLOR: cfg->color = true; return 0;
    case A_MAX_LINE: cfg->max_line = (size_t)v->u; return 0;
    case A_OUTPUT_LIMIT: cfg->output_byte_limit = (size_t)v->u; return 0;
    case A_CHUNK_BYTES: cfg->chunk_bytes = (size_t)v->u; return 0;
    case A_CHUNK_MS: cfg->chunk_ms = (uint32_t)v->u; return 0;
    case A_MAX_COMMANDS: cfg->max_commands = (size_t)v->u; return 0;
    case A_NO_VERIFY: cfg->no_verify = true; return 0;
    case A_VERIFY_GRACE: cfg->verify_grace_ms = (uint64_t)(v->num * 1000.0 + 0.5); return 0;
    case A_SANDBOX: cfg->sandbox = v->str; return 0;
    case A_ALLOW_NETWORK: cfg->allow_network = true; return 0;
    case A_SANDBOX_FALLBACK: cfg->sandbox_fallback_off = v->choice == 1; return 0;
    case A_MODEL_FLAG: {
        char flag[64];
        snprintf(flag, sizeof flag, "--%s", opt->name);
        if (shc_model_config_set(a->mcfg, flag, v->str, err, n))
            return -1;
        return remember_flag(a->auth, opt->name, v->str, err, n);
    }
    default: return -1;
    }
}

static const shc_cli_cmd acp_cli = {
    "acp",
    "[OPTION]... [login]",
    "The ACP (Agent Client Protocol) agent on stdin/stdout, for Zed and other ACP clients;\n"
    "logs go to stderr.  With an API key or --base-url it runs the model backend; otherwise\n"
    "shell mode: each non-empty line of a prompt runs as one bash tool call.",
    acp_opts_table,
    sizeof acp_opts_table / sizeof acp_opts_table[0],
    set_opt,
    NULL,
    "The config file's keys are the long options' names with '_' for '-' (model = NAME,\n"
    "store_dir = DIR, timeout = SECONDS ...); options win over the file.\n",
    false,
};

static int shell_backend(shc_backend **out)
{
    *out = shc_backend_shell_new();
    if (!*out) {
        fprintf(stderr, "shcard acp: out of memory\n");
        return SHC_E_NOMEM;
    }
    return 0;
}

static const char *real_env(const char *name)
{
    return getenv(name);
}

/* The backend for resolved settings: the model backend with a key or a base URL, else shell mode
 * (said on stderr).  *out is an owned backend.  0, or a negative SHC_E_* (said on stderr). */
static int make_backend(shc_model_config *cfg, shc_backend **out)
{
    char err[512];
    *out = NULL;
    if (cfg->force_shell) {
        fprintf(stderr, "shcard acp: --shell: shell mode, each prompt line runs as one command\n");
        return shell_backend(out);
    }
    if (!shc_model_config_enabled(cfg)) {
        fprintf(stderr,
                "shcard acp: no API key (%s) and no --base-url: shell mode, each prompt "
                "line runs as one command\n",
                cfg->api_key_env ? cfg->api_key_env : "DEEPSEEK_API_KEY or OPENAI_API_KEY");
        return shell_backend(out);
    }
    *out = shc_openai_new(cfg, err, sizeof err);
    if (!*out) {
        fprintf(stderr, "shcard acp: %s\n", err);
        return SHC_E_NOMEM;
    }
    if (cfg->key_held_back)
        fprintf(stderr, "shcard acp: %s\n", cfg->key_held_back);
    fprintf(stderr, "shcard acp: model %s at %s (%s)\n", cfg->model, cfg->base_url,
            cfg->key_source ? cfg->key_source : "no API key");
    return 0;
}

/* After the flags: resolves the model settings (config file, environment) and picks the backend.
 * Returns 0, or a negative SHC_E_* after printing the error on stderr. */
static int pick_backend(shc_model_config *cfg, shc_backend **out)
{
    char err[512];
    *out = NULL;
    int rc = shc_model_config_resolve(cfg, real_env, err, sizeof err);
    if (rc) {
        fprintf(stderr, "shcard acp: %s\n", err);
        return rc;
    }
    return make_backend(cfg, out);
}

/* ------------------------------------------------------------------ authentication */

#define MAX_MODEL_FLAGS 64

/* What the bridge's auth callbacks need: the model flags again (argv stays valid for the whole
 * run), the config file's path and what it was when last read. */
struct acp_auth {
    struct {
        const char *name, *value; /* the option's name; its value in argv (NULL for a flag) */
    } flags[MAX_MODEL_FLAGS];
    int nflags;
    char path[4096]; /* "" when there is no config path */
    bool existed;
    struct stat st;
};

static void remember(acp_auth *a)
{
    struct stat st;
    a->existed = a->path[0] && stat(a->path, &st) == 0;
    a->st = a->existed ? st : (struct stat){0};
}

static bool changed(const acp_auth *a)
{
    struct stat st;
    bool exists = a->path[0] && stat(a->path, &st) == 0;
    if (exists != a->existed)
        return true;
    return exists && (st.st_ino != a->st.st_ino || st.st_dev != a->st.st_dev ||
                      st.st_size != a->st.st_size || st.st_mtim.tv_sec != a->st.st_mtim.tv_sec ||
                      st.st_mtim.tv_nsec != a->st.st_mtim.tv_nsec);
}

/* The settings as a new shcard acp with the same flags would read them now. */
static int resolve_now(const acp_auth *a, shc_model_config *c, char *err, size_t len)
{
    shc_model_config_init(c);
    for (int k = 0; k < a->nflags; k++) {
        char flag[64];
        snprintf(flag, sizeof flag, "--%s", a->flags[k].name);
        if (shc_model_config_set(c, flag, a->flags[k].value, err, len)) {
            snprintf(err, len, "the flags cannot be read again"); /* they were good at start */
            return SHC_E_USAGE;
        }
    }
    return shc_model_config_resolve(c, real_env, err, len);
}

static int auth_check(void *payload, bool env_only, char *msg, size_t len)
{
    const acp_auth *a = payload;
    shc_model_config c;
    char err[512] = "out of memory"; /* what a failure that says nothing means */
    int rc = resolve_now(a, &c, err, sizeof err);
    if (env_only) {
        const char *var = rc == 0 && c.api_key_env ? c.api_key_env : NULL;
        const char *v1 = var ? getenv(var) : getenv("DEEPSEEK_API_KEY");
        const char *v2 = var ? NULL : getenv("OPENAI_API_KEY");
        bool ok = (v1 && *v1) || (v2 && *v2);
        if (!ok)
            snprintf(msg, len,
                     "%s%s set in shcard's environment: start shcard acp with it set (in Zed: "
                     "\"env\" of the agent server), or run shcard login",
                     var ? var : "neither DEEPSEEK_API_KEY nor OPENAI_API_KEY is",
                     var ? " is not" : "");
        shc_model_config_free(&c);
        return ok ? 0 : -1;
    }
    bool ok = rc == 0 && (shc_model_config_enabled(&c) || c.force_shell);
    if (rc)
        snprintf(msg, len, "the settings cannot be used: %s", err);
    else if (!ok)
        snprintf(msg, len,
                 "no model is set up yet: run shcard login in a terminal (or start shcard acp "
                 "with DEEPSEEK_API_KEY set); until then shcard runs in shell mode");
    shc_model_config_free(&c);
    return ok ? 0 : -1;
}

static shc_backend *auth_refresh(void *payload)
{
    acp_auth *a = payload;
    if (!changed(a))
        return NULL;
    remember(a); /* before reading: a change after this is seen next time */
    shc_model_config c;
    char err[512] = "out of memory"; /* what a failure that says nothing means */
    shc_backend *be = NULL;
    if (resolve_now(a, &c, err, sizeof err) != 0)
        fprintf(stderr, "shcard acp: %s changed but cannot be used (%s); new sessions keep the "
                        "previous settings\n",
                a->path, err);
    else
        make_backend(&c, &be);
    shc_model_config_free(&c);
    return be;
}

/* Remembers a model flag (auth_refresh sets them again on settings read anew). */
static int remember_flag(acp_auth *a, const char *name, const char *value, char *err, size_t n)
{
    if (a->nflags == MAX_MODEL_FLAGS) {
        snprintf(err, n, "more than %d model flags", MAX_MODEL_FLAGS);
        return -1;
    }
    a->flags[a->nflags].name = name;
    a->flags[a->nflags].value = value;
    a->nflags++;
    return 0;
}

/* Grows the stack now: under an address-space limit (RLIMIT_AS) the heap can take every byte,
 * and a stack that must grow later then ends the agent with SIGSEGV instead of an error. */
__attribute__((noinline)) static void reserve_stack(void)
{
    volatile char pages[256 * 1024];
    for (size_t i = 0; i < sizeof pages; i += 4096)
        pages[i] = 0;
}

int shc_cmd_acp(int argc, char **argv)
{
    shc_json_guard_install(); /* before any jansson value exists */
    reserve_stack();
    shc_bridge_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.in_fd = cfg.out_fd = -1;
    cfg.log.level = SHC_LOG_WARN;
    cfg.log.prefix = "shcard acp";
    /* Before anything can log: a closed stderr must give EPIPE, not end the agent. */
    signal(SIGPIPE, SIG_IGN);
    shc_model_config mcfg; /* the model backend's flags (config.h) */
    shc_model_config_init(&mcfg);
    int mrc;
    acp_auth auth; /* lives until the bridge returns */
    memset(&auth, 0, sizeof auth);
    acp_args a = {&cfg, &mcfg, &auth, false, false};
    int first = 0;
    int prc = shc__cli_parse(&acp_cli, argc, argv, &a, &first, NULL);
    bool login = !prc && first < argc && !strcmp(argv[first], "login");
    if (!prc && first + (login ? 1 : 0) < argc)
        prc = shc__cli_usage_error(&acp_cli,
                                   "unexpected operand '%s' (acp takes options, and the one "
                                   "operand login)",
                                   argv[first + (login ? 1 : 0)]);
    if (prc) {
        shc_model_config_free(&mcfg);
        return prc == SHC_CLI_DONE ? 0 : prc;
    }
    if (login) {
        int rc = shc_cmd_login_config(mcfg.config_path);
        shc_model_config_free(&mcfg);
        return rc;
    }
    bool named;
    if (shc_model_config_path(&mcfg, real_env, auth.path, sizeof auth.path, &named) != 0)
        auth.path[0] = '\0';
    remember(&auth);
    cfg.auth = (shc_bridge_auth){&auth, auth_check, auth_refresh};
    cfg.backend = NULL;
    mrc = pick_backend(&mcfg, &cfg.backend);
    if (!a.timeout_given) /* `timeout` from the config file, else the default */
        cfg.timeout_ms = (uint64_t)(mcfg.timeout_set ? mcfg.timeout_s
                                                     : SHC_BRIDGE_DEFAULT_TIMEOUT_S) * 1000;
    if (!a.input_wait_given)
        cfg.input_wait_ms = (uint64_t)SHC_BRIDGE_DEFAULT_INPUT_WAIT_S * 1000;
    /* the session store: --store / store_dir, else $XDG_STATE_HOME or ~/.local/state */
    char store_dir[4096];
    cfg.no_store = mcfg.no_store;
    if (mcfg.store_dir && strlen(mcfg.store_dir) < sizeof store_dir)
        strcpy(store_dir, mcfg.store_dir);
    else if (shc_store_default_dir(store_dir, sizeof store_dir, real_env) != 0)
        store_dir[0] = 0;
    cfg.store_dir = store_dir[0] ? store_dir : NULL;
    cfg.store_max_bytes = (uint64_t)mcfg.store_max_mb << 20;
    /* the key's variable is not for MCP servers (docs/mcp.md) */
    char key_env[256] = "";
    if (mcfg.api_key_env && strlen(mcfg.api_key_env) < sizeof key_env)
        strcpy(key_env, mcfg.api_key_env);
    cfg.mcp_key_env = key_env[0] ? key_env : NULL;
    shc_model_config_free(&mcfg);
    if (mrc)
        return 2;
    /* every session in memory holds its store file open (locked): up to 1024 of them, beside
     * the PTYs, pipes and sockets; a soft limit of 1024 would not hold them all */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max && rl.rlim_cur < 8192) {
        rl.rlim_cur = rl.rlim_max < 8192 ? rl.rlim_max : 8192;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    return shc_bridge_run(&cfg);
}
