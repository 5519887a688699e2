/* shcard login (also `shcard acp login`, the ACP terminal-auth method): an interactive setup on
 * the terminal.  It asks for DeepSeek, another OpenAI-compatible server (by base URL) or shell
 * mode, reads the key with echo off, and saves the choice in the config file the model backend
 * reads (model/config_write.c: mode 0600, replaced atomically, other settings kept).  A running
 * `shcard acp` picks the new settings up for its next session.  Without a terminal it refuses:
 * a key is never read from a pipe, where it could be logged or echoed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include "cli/argv.h"
#include "cli/cmd.h"
#include "model/config.h"
#include "model/config_write.h"
#include "shcard.h"

#define DEEPSEEK_URL      "https://api.deepseek.com"
#define DEEPSEEK_KEYS_URL "https://platform.deepseek.com/api_keys"
#define LINE_MAX_BYTES    1024

typedef struct tty {
    int in, out;
    bool opened; /* in == out was opened here (/dev/tty) */
} tty;

static void say(const tty *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const tty *t, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
    for (size_t off = 0; off < len;) {
        ssize_t w = write(t->out, buf + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        off += (size_t)w;
    }
}

/* The controlling terminal, else stdin when it is one (output then to stderr, which is). */
static int open_tty(tty *t)
{
    int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0) {
        *t = (tty){fd, fd, true};
        return 0;
    }
    if (isatty(0)) {
        *t = (tty){0, isatty(2) ? 2 : 1, false};
        return 0;
    }
    return -1;
}

/* One line typed with echo (the terminal's own line editing).  0, or -1 at end of input. */
static int read_line(const tty *t, char *buf, size_t len)
{
    size_t n = 0;
    for (;;) {
        char ch;
        ssize_t r = read(t->in, &ch, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        if (ch == '\n')
            break;
        if (n + 1 < len)
            buf[n++] = ch;
    }
    while (n && (buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
        n--;
    buf[n] = '\0';
    size_t lead = strspn(buf, " \t");
    memmove(buf, buf + lead, n - lead + 1);
    return 0;
}

/* The terminal settings to give back when a signal ends login while echo is off (SIGTERM when an
 * editor closes the terminal-auth tab, SIGHUP, SIGQUIT, a SIGINT sent by kill).  A signal handler
 * can only reach process state, so this is the one static of the command; it is set only while
 * read_secret has the terminal in raw mode. */
static struct termios restore_tty;
static volatile sig_atomic_t restore_fd = -1;
static const int restore_sigs[] = {SIGTERM, SIGHUP, SIGQUIT, SIGINT};
#define N_RESTORE_SIGS (sizeof restore_sigs / sizeof restore_sigs[0])

static void restore_and_reraise(int sig)
{
    int saved = errno;
    if (restore_fd >= 0)
        tcsetattr(restore_fd, TCSANOW, &restore_tty); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: the usual death by that signal */
    errno = saved;
}

static void guard_tty(int fd, const struct termios *old, struct sigaction *prev)
{
    restore_tty = *old;
    restore_fd = fd;
    struct sigaction sa = {.sa_handler = restore_and_reraise};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_RESTORE_SIGS; i++)
        sigaction(restore_sigs[i], &sa, &prev[i]);
}

static void unguard_tty(const struct sigaction *prev)
{
    for (size_t i = 0; i < N_RESTORE_SIGS; i++)
        sigaction(restore_sigs[i], &prev[i], NULL);
    restore_fd = -1;
}

/* A secret typed with echo off, a byte at a time (no line discipline, no signals: Ctrl-C and
 * Ctrl-D are read here, so the terminal is always given its settings back).  0, -1 when the user
 * cancelled, -2 when the terminal's settings cannot be changed.  The prompt is written once echo
 * is off. */
static int read_secret(const tty *t, const char *prompt, char *buf, size_t len)
{
    struct termios old, raw;
    if (tcgetattr(t->in, &old) != 0)
        return -2;
    raw = old;
    raw.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
    raw.c_iflag |= ICRNL;
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    struct sigaction prev[N_RESTORE_SIGS];
    guard_tty(t->in, &old, prev);
    if (tcsetattr(t->in, TCSAFLUSH, &raw) != 0) {
        unguard_tty(prev);
        return -2;
    }
    say(t, "%s", prompt); /* only now: what is typed after it is not echoed */
    size_t n = 0;
    int rc = 0;
    for (;;) {
        char ch;
        ssize_t r = read(t->in, &ch, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || ch == 3 || (ch == 4 && n == 0)) { /* EOF, Ctrl-C, Ctrl-D */
            rc = -1;
            break;
        }
        if (ch == '\n' || ch == '\r')
            break;
        if (ch == 127 || ch == 8) { /* backspace */
            if (n)
                n--;
            continue;
        }
        if (ch == 21) { /* Ctrl-U: start again */
            n = 0;
            continue;
        }
        if (n + 1 < len)
            buf[n++] = ch;
    }
    buf[n] = '\0';
    tcsetattr(t->in, TCSADRAIN, &old);
    unguard_tty(prev);
    say(t, "\n");
    /* a key pasted with spaces around it */
    while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t'))
        buf[--n] = '\0';
    size_t lead = strspn(buf, " \t");
    memmove(buf, buf + lead, n - lead + 1);
    return rc;
}

static void wipe(char *s, size_t len)
{
    volatile char *p = s;
    while (len--)
        *p++ = '\0';
}

/* The model the file names now (NULL when none or the file cannot be read). */
static char *current_model(const char *path)
{
    shc_model_config c;
    shc_model_config_init(&c);
    char err[512];
    char *m = NULL;
    if (shc_model_config_file(&c, path, err, sizeof err) == 0 && c.model)
        m = strdup(c.model);
    shc_model_config_free(&c);
    return m;
}

static int save(const tty *t, const char *path, const shc_config_set *set, size_t n)
{
    char err[512];
    if (shc_config_write(path, set, n, err, sizeof err) != 0) {
        say(t, "shcard login: nothing saved: %s\n", err);
        return 1;
    }
    say(t, "Saved in %s (readable by you only).\n"
           "A running shcard acp uses it from its next session on; no restart needed.\n",
        path);
    return 0;
}

static int setup(const tty *t, const char *path)
{
    char line[LINE_MAX_BYTES], key[LINE_MAX_BYTES], url[LINE_MAX_BYTES], model[LINE_MAX_BYTES];
    say(t,
        "shcard login: how should shcard acp answer prompts?  (saved in %s)\n"
        "  1) DeepSeek (%s)\n"
        "  2) another OpenAI-compatible server, by its base URL\n"
        "  3) shell mode: no model; each line of a prompt runs as one command\n",
        path, DEEPSEEK_URL);
    int choice = 0;
    for (int tries = 0; !choice && tries < 3; tries++) {
        say(t, "Choice [1-3, Enter for 1]: ");
        if (read_line(t, line, sizeof line) != 0) {
            say(t, "\nshcard login: cancelled; nothing saved\n");
            return 1;
        }
        if (!line[0] || !strcmp(line, "1"))
            choice = 1;
        else if (!strcmp(line, "2") || !strcmp(line, "3"))
            choice = line[0] - '0';
        else
            say(t, "Type 1, 2 or 3.\n");
    }
    if (!choice) {
        say(t, "shcard login: no choice made; nothing saved\n");
        return 1;
    }
    if (choice == 3) {
        shc_config_set set[] = {{"shell", "yes"}};
        return save(t, path, set, 1);
    }
    char *cur = current_model(path);
    if (choice == 1) {
        snprintf(url, sizeof url, "%s", DEEPSEEK_URL);
        /* a model saved for another server means nothing to DeepSeek */
        snprintf(model, sizeof model, "%s",
                 cur && strncmp(cur, "deepseek", 8) ? SHC_MODEL_DEFAULT_MODEL : cur ? cur : "");
        say(t, "Make a key at %s if you have none.\n", DEEPSEEK_KEYS_URL);
    } else {
        for (;;) {
            say(t, "Base URL (before /chat/completions, e.g. http://localhost:11434/v1): ");
            if (read_line(t, url, sizeof url) != 0) {
                free(cur);
                say(t, "\nshcard login: cancelled; nothing saved\n");
                return 1;
            }
            if (!strncmp(url, "http://", 7) || !strncmp(url, "https://", 8))
                break;
            say(t, "The base URL starts with http:// or https://.\n");
        }
        say(t, "Model name%s%s%s: ", cur ? " [Enter for " : "", cur ? cur : "", cur ? "]" : "");
        if (read_line(t, model, sizeof model) != 0) {
            free(cur);
            say(t, "\nshcard login: cancelled; nothing saved\n");
            return 1;
        }
        if (!model[0])
            snprintf(model, sizeof model, "%s", cur ? cur : SHC_MODEL_DEFAULT_MODEL);
    }
    free(cur);
    int rc = read_secret(t,
                         choice == 2 ? "API key (typing is not shown; Enter for none): "
                                     : "API key (typing is not shown): ",
                         key, sizeof key);
    if (rc == -2) {
        say(t, "\nshcard login: cannot turn off echo on this terminal; nothing saved\n");
        return 1;
    }
    if (rc != 0 || (choice == 1 && !key[0])) {
        wipe(key, sizeof key);
        say(t, "shcard login: %s; nothing saved\n", rc ? "cancelled" : "no key typed");
        return 1;
    }
    shc_config_set set[] = {
        {"base_url", url},
        {"api_key", key[0] ? key : NULL},
        {"model", model[0] ? model : NULL},
        {"api_key_env", NULL}, /* it would win over the saved key */
        {"shell", NULL},
    };
    rc = save(t, path, set, sizeof set / sizeof set[0]);
    wipe(key, sizeof key);
    return rc;
}

static const char *real_env(const char *name)
{
    return getenv(name);
}

int shc_cmd_login_config(const char *config_path)
{
    shc_model_config c;
    shc_model_config_init(&c);
    c.config_path = config_path ? strdup(config_path) : NULL;
    char path[4096];
    bool named;
    int rc = shc_model_config_path(&c, real_env, path, sizeof path, &named);
    shc_model_config_free(&c);
    if (rc) {
        fprintf(stderr, "shcard login: no place for the config file: set XDG_CONFIG_HOME or "
                        "HOME, or give --config PATH\n");
        return 2;
    }
    tty t;
    if (open_tty(&t) != 0) {
        fprintf(stderr,
                "shcard login: needs a terminal to type the key without echo, and there is none "
                "(no /dev/tty, stdin is not a terminal).\n"
                "Run it in a terminal, or give shcard acp the key in its environment: "
                "DEEPSEEK_API_KEY or OPENAI_API_KEY.\n");
        return 2;
    }
    rc = setup(&t, path);
    if (t.opened)
        close(t.in);
    return rc;
}

enum { L_CONFIG };

static const shc_cli_opt login_opts_table[] = {
    {"config", 0, SHC_ARG_STR, "PATH", 0, 0,
     "$SHCARD_CONFIG, else $XDG_CONFIG_HOME/shcard/config or\n~/.config/shcard/config",
     "the settings file to write", L_CONFIG},
};

static int set_opt(void *ctx, const shc_cli_opt *opt, const shc_cli_val *v, char *err, size_t n)
{
    (void)err;
    (void)n;
    if (opt->id != L_CONFIG)
        return -1;
    *(const char **)ctx = v->str;
    return 0;
}

static const shc_cli_cmd login_cli = {
    "login",
    "[OPTION]...",
    "Set up shcard acp on this terminal: DeepSeek, another OpenAI-compatible server, or shell\n"
    "mode; the key is typed without echo and saved in the config file (mode 0600).  This is\n"
    "what the ACP terminal authentication method runs (shcard acp login).",
    login_opts_table,
    sizeof login_opts_table / sizeof login_opts_table[0],
    set_opt,
    NULL,
    NULL,
    false,
};

int shc_cmd_login(int argc, char **argv)
{
    const char *config = NULL;
    int first = 0;
    int prc = shc__cli_parse(&login_cli, argc, argv, &config, &first, NULL);
    if (!prc && first < argc)
        prc = shc__cli_usage_error(&login_cli, "unexpected operand '%s' (login takes options only)",
                                   argv[first]);
    if (prc)
        return prc == SHC_CLI_DONE ? 0 : prc;
    return shc_cmd_login_config(config);
}
