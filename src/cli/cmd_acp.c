/* shcard acp: the ACP agent on stdio.  Thin glue: flags -> shc_bridge_config -> shc_bridge_run.
 * The backend is picked here: the model backend (model/) with a key or a base URL, else shell
 * mode (agent/shell.c); the bridge only sees the seam (agent/backend.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "acp/bridge.h"
#include "acp/store.h"
#include "agent/shell.h"
#include "cli/cmd.h"
#include "confine/confine.h"
#include "model/config.h"
#include "model/openai.h"
#include "shcard.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: shcard acp [options]\n"
            "  ACP (Agent Client Protocol) agent on stdin/stdout; logs go to stderr.\n"
            "  Shell mode: each non-empty line of a prompt runs as one bash tool call.\n\n"
            "  --approve all|ask        ask the client before each command (default: all in\n"
            "                           shell mode, ask for model backends)\n"
            "  --client-terminals       run terminal commands through the client's\n"
            "                           terminal/create when it has no _meta.terminal_output\n"
            "  --log-level LEVEL        error, warn (default), info or debug\n"
            "  --timeout SECONDS        per-command timeout (default 1800; 0 = none)\n"
            "  --input-wait SECONDS     end a command that waits this long for terminal input\n"
            "                           (a password prompt, a pager, read </dev/tty, stopped)\n"
            "                           (default 3; 0 = never)\n"
            "  --login                  run commands with bash -lc (default bash -c)\n"
            "  --sandbox MODE           off, read-only or workspace: where commands may write\n"
            "                           (default: workspace for a model's commands, off in\n"
            "                           shell mode); network off unless --allow-network\n"
            "  --allow-network          sandboxed commands keep the network\n"
            "  --sandbox-fallback refuse|off  without Landlock: refuse (default) or run\n"
            "                           unsandboxed\n"
            "  --no-verify              do not watch read/search/list commands as they run\n"
            "  --verify-grace SECONDS   a watched card still running this long becomes a\n"
            "                           terminal card (default 3)\n"
            "  --color                  TERM=xterm-256color (default TERM=dumb, NO_COLOR=1)\n"
            "  --max-line BYTES         longest accepted JSON-RPC line (default 4 MiB)\n"
            "  --output-limit BYTES     model text / outputByteLimit cap (default 1 MiB)\n"
            "  --chunk-bytes BYTES      terminal_output coalescing size (default 8192)\n"
            "  --chunk-ms MS            terminal_output coalescing delay (default 16)\n"
            "  --max-commands N         commands running at once, all sessions (default 16);\n"
            "                           more wait for a free slot\n");
    fprintf(f, "\n%s", shc_model_config_usage());
}

static int num(const char *flag, const char *s, unsigned long long max, unsigned long long *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = s ? strtoull(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v > max || s[0] == '-') {
        fprintf(stderr, "shcard acp: %s needs a number (0-%llu), got '%s'\n", flag, max,
                s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

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

/* After the flags: resolves the model settings (config file, environment) and picks the backend:
 * the model backend with a key or a base URL, else shell mode (said on stderr).  *out is an owned
 * backend.  Returns 0, or a negative SHC_E_* after printing the error on stderr. */
static int pick_backend(shc_model_config *cfg, shc_backend **out)
{
    char err[512];
    *out = NULL;
    int rc = shc_model_config_resolve(cfg, real_env, err, sizeof err);
    if (rc) {
        fprintf(stderr, "shcard acp: %s\n", err);
        return rc;
    }
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
    fprintf(stderr, "shcard acp: model %s at %s (%s)\n", cfg->model, cfg->base_url,
            cfg->key_source ? cfg->key_source : "no API key");
    return 0;
}

int shc_cmd_acp(int argc, char **argv)
{
    shc_bridge_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.in_fd = cfg.out_fd = -1;
    cfg.log.level = SHC_LOG_WARN;
    cfg.log.prefix = "shcard acp";
    /* Before anything can log: a closed stderr must give EPIPE, not end the agent. */
    signal(SIGPIPE, SIG_IGN);
    shc_model_config mcfg; /* the model backend's flags (config.h) */
    shc_model_config_init(&mcfg);
    char merr[256];
    int mrc;
    bool timeout_given = false, input_wait_given = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long n = 0;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--approve")) {
            if (v && !strcmp(v, "all"))
                cfg.approve = SHC_APPROVE_ALL;
            else if (v && !strcmp(v, "ask"))
                cfg.approve = SHC_APPROVE_ASK;
            else {
                fprintf(stderr, "shcard acp: --approve takes all or ask\n");
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--client-terminals")) {
            cfg.client_terminals = true;
        } else if (!strcmp(a, "--login")) {
            cfg.login = true;
        } else if (!strcmp(a, "--sandbox")) {
            if (shc_sandbox_parse(v) < 0) {
                fprintf(stderr, "shcard acp: --sandbox takes off, read-only or workspace\n");
                return 2;
            }
            cfg.sandbox = v;
            i++;
        } else if (!strcmp(a, "--allow-network")) {
            cfg.allow_network = true;
        } else if (!strcmp(a, "--sandbox-fallback")) {
            if (!v || (strcmp(v, "refuse") && strcmp(v, "off"))) {
                fprintf(stderr, "shcard acp: --sandbox-fallback takes refuse or off\n");
                return 2;
            }
            cfg.sandbox_fallback_off = !strcmp(v, "off");
            i++;
        } else if (!strcmp(a, "--no-verify")) {
            cfg.no_verify = true;
        } else if (!strcmp(a, "--verify-grace")) {
            char *end = NULL;
            double g = v ? strtod(v, &end) : 0;
            if (!v || !*v || *end || !(g > 0) || g > 86400) {
                fprintf(stderr, "shcard acp: --verify-grace needs seconds (e.g. 3 or 0.5)\n");
                return 2;
            }
            cfg.verify_grace_ms = (uint64_t)(g * 1000.0 + 0.5);
            i++;
        } else if (!strcmp(a, "--color")) {
            cfg.color = true;
        } else if (!strcmp(a, "--log-level")) {
            if (shc_log_parse_level(&cfg.log.level, v) != 0) {
                fprintf(stderr, "shcard acp: --log-level takes error, warn, info or debug\n");
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--timeout")) {
            if (num(a, v, 86400ull * 365, &n))
                return 2;
            cfg.timeout_ms = n * 1000;
            timeout_given = true;
            i++;
        } else if (!strcmp(a, "--input-wait")) {
            if (num(a, v, 86400, &n))
                return 2;
            cfg.input_wait_ms = n * 1000;
            input_wait_given = true;
            i++;
        } else if (!strcmp(a, "--max-line")) {
            if (num(a, v, 1ull << 32, &n) || n < 1024) {
                fprintf(stderr, "shcard acp: --max-line must be at least 1024\n");
                return 2;
            }
            cfg.max_line = (size_t)n;
            i++;
        } else if (!strcmp(a, "--output-limit")) {
            if (num(a, v, 1ull << 32, &n))
                return 2;
            cfg.output_byte_limit = (size_t)n;
            i++;
        } else if (!strcmp(a, "--chunk-bytes")) {
            if (num(a, v, 1ull << 24, &n))
                return 2;
            cfg.chunk_bytes = (size_t)n;
            i++;
        } else if (!strcmp(a, "--max-commands")) {
            if (num(a, v, 4096, &n) || n < 1) {
                fprintf(stderr, "shcard acp: --max-commands must be at least 1\n");
                return 2;
            }
            cfg.max_commands = (size_t)n;
            i++;
        } else if (!strcmp(a, "--chunk-ms")) {
            if (num(a, v, 10000, &n))
                return 2;
            cfg.chunk_ms = (uint32_t)n;
            i++;
        } else if ((mrc = shc_model_config_flag(&mcfg, argc, argv, &i, merr, sizeof merr))) {
            if (mrc < 0) {
                fprintf(stderr, "shcard acp: %s\n", merr);
                shc_model_config_free(&mcfg);
                return 2;
            }
            i--; /* it moved past the flag and its value; the loop adds one */
        } else {
            fprintf(stderr, "shcard acp: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    cfg.backend = NULL;
    mrc = pick_backend(&mcfg, &cfg.backend);
    if (!timeout_given) /* `timeout` from the config file, else the default */
        cfg.timeout_ms = (uint64_t)(mcfg.timeout_s > 0 ? mcfg.timeout_s
                                                       : SHC_BRIDGE_DEFAULT_TIMEOUT_S) * 1000;
    if (!input_wait_given)
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
