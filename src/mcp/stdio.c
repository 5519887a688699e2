/* The stdio transport: the server's process runs through the executor (exec/), so it is
 * contained as a command is (its own session and process group, a cgroup or the guardian's
 * subtree) and ends with its session, with the agent, and after a SIGKILL of the agent (the
 * guardian ends it).  The executor gives a command a PTY, which would mix the server's stderr
 * into its messages, so the command is bash's `exec -- "$@" <IN >OUT 2>ERR` with three FIFOs
 * in a private directory, the editor's command and arguments being the script's own arguments
 * (never parsed by the shell, each up to the kernel's limit).  The shell runs with the agent's
 * environment: the editor's variables are applied by `env -- NAME=VALUE...` at the last exec,
 * so none of them (BASH_ENV, BASH_FUNC_*, SHELLOPTS...) reaches the shell; the model's key
 * variables (DEEPSEEK_API_KEY, OPENAI_API_KEY, --api-key-env's) are removed unless they are.  The agent opens the FIFOs read-write (which
 * never blocks).  A fourth FIFO, read by the agent, is opened and closed by the shell after the
 * three (`3>ready 3>&-`, before the exec): its hang-up tells the agent the server holds its
 * pipes, and the directory goes at once, so a kill -9 of the agent while the server starts
 * leaves nothing behind in TMPDIR. */
#define _GNU_SOURCE
#include "mcp/mcp_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/quote.h"
#include "base/strbuf.h"
#include "base/utf8.h"

static const char *const fifo_names[4] = {"in", "out", "err", "ready"};

static void remove_dir(mcp_server *s)
{
    if (!s->dir)
        return;
    for (int i = 0; i < 4; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", s->dir, fifo_names[i]);
        unlink(p);
    }
    rmdir(s->dir);
    free(s->dir);
    s->dir = NULL;
}

ssize_t shc__mcp_stdio_write(void *io, const void *buf, size_t len)
{
    mcp_server *s = io;
    if (s->in_fd < 0) {
        errno = EPIPE;
        return -1;
    }
    return write(s->in_fd, buf, len);
}

static void on_writable(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)loop;
    (void)fd;
    (void)events;
    { mcp_server *s = payload; s->up->flush(s); }
}

void shc__mcp_stdio_want_write(mcp_server *s, bool on)
{
    if (on && !s->in_w && s->in_fd >= 0)
        s->in_w = shc_loop_watch(s->m->env.loop, s->in_fd, SHC_LOOP_WRITE, on_writable, s);
    else if (!on && s->in_w) {
        shc_loop_unwatch(s->m->env.loop, s->in_w);
        s->in_w = 0;
    }
    if (s->in_w < 0)
        s->in_w = 0;
}

static void on_out(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)loop;
    (void)events;
    mcp_server *s = payload;
    char buf[65536];
    for (int i = 0; i < 16 && s->out_fd == fd && s->state != MS_FAILED && !s->paused; i++) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0)
            break;
        s->up->feed(s, buf, (size_t)n);
    }
}

void shc__mcp_stdio_want_read(mcp_server *s, bool on)
{
    if (on && !s->out_w && s->out_fd >= 0) {
        s->out_w = shc_loop_watch(s->m->env.loop, s->out_fd, SHC_LOOP_READ, on_out, s);
        if (s->out_w < 0)
            s->out_w = 0;
    } else if (!on && s->out_w > 0) {
        shc_loop_unwatch(s->m->env.loop, s->out_w);
        s->out_w = 0;
    }
}

/* The server's stderr, a line at a time, into the agent's log (control characters escaped). */
static void err_line(mcp_server *s)
{
    char esc[sizeof s->errline * 4 + 1];
    size_t o = 0;
    for (size_t i = 0; i < s->errlen; i++) {
        unsigned char c = (unsigned char)s->errline[i];
        if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(esc + o, sizeof esc - o, "\\x%02x", c);
        else
            esc[o++] = (char)c;
    }
    esc[o] = '\0';
    s->errlen = 0;
    if (o == 0)
        return;
    /* raw bytes, and a line cut at the buffer's end: valid UTF-8 before they enter a text */
    char clean[sizeof esc * 3 / 4 * 3 + 1];
    size_t cl = shc_utf8_cut(clean, esc, o, sizeof clean - 1);
    shc_utf8_cut(s->errlast, clean, cl, sizeof s->errlast - 1);
    shc__mcp_log_line(s, "%s", clean);
}

static void on_err(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)loop;
    (void)events;
    mcp_server *s = payload;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    for (ssize_t i = 0; i < n; i++) {
        if (buf[i] == '\n' || s->errlen == sizeof s->errline) {
            err_line(s);
            if (buf[i] == '\n')
                continue;
        }
        s->errline[s->errlen++] = buf[i];
    }
}

static void ready_stop(mcp_server *s)
{
    if (s->ready_w > 0)
        shc_loop_unwatch(s->m->env.loop, s->ready_w);
    s->ready_w = 0;
    if (s->ready_fd >= 0)
        close(s->ready_fd);
    s->ready_fd = -1;
}

/* The shell closed the ready FIFO: the server's three pipes are open, their names can go. */
static void on_ready(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)loop;
    (void)events;
    mcp_server *s = payload;
    char buf[64];
    if (read(fd, buf, sizeof buf) != 0)
        return; /* not the end (nothing is written there: read it anyway) */
    ready_stop(s);
    remove_dir(s);
}

static void on_pty_output(shc_pty *pty, const char *data, size_t len, void *payload)
{
    (void)pty;
    mcp_server *s = payload;
    shc__mcp_log_line(s, "(terminal) %.*s", (int)(len > 300 ? 300 : len), data);
}

static void on_pty_exit(shc_pty *pty, const shc_pty_status *st, void *payload)
{
    (void)pty;
    mcp_server *s = payload;
    if (s->errlen)
        err_line(s);
    char how[64];
    if (st->signal)
        snprintf(how, sizeof how, "was killed by %s", st->signal);
    else
        snprintf(how, sizeof how, "exited with status %d", st->exit_code);
    if (s->state == MS_FAILED)
        return;
    /* what it printed before it went is usually the reason */
    if (s->errlast[0])
        shc__mcp_up_fail(s, "the server %s (stderr: %s)", how, s->errlast);
    else
        shc__mcp_up_fail(s, "the server %s", how);
}

/* The script's $0 $1...: "shcard-mcp", then `env -- NAME=VALUE...` when the editor gave
 * variables, then the command and its arguments (owned array of borrowed strings).  env(1)
 * takes every leading word with a '=' as a variable, so a command with one is run through
 * `nice -n 0 --` (which changes nothing and takes it as the program). */
static const char **server_words(mcp_server *s)
{
    size_t na = 0, ne = 0;
    while (s->argv[na])
        na++;
    while (s->env && s->env[ne])
        ne++;
    const char **w = calloc(na + ne + 8, sizeof *w), **p = w;
    if (!w)
        return NULL;
    *p++ = "shcard-mcp";
    if (ne) {
        *p++ = "env";
        *p++ = "--";
        for (size_t i = 0; i < ne; i++)
            *p++ = s->env[i];
        if (strchr(s->argv[0], '=')) {
            static const char *const nice[] = {"nice", "-n", "0", "--"};
            for (size_t i = 0; i < 4; i++)
                *p++ = nice[i];
        }
    }
    for (size_t i = 0; i < na; i++)
        *p++ = s->argv[i];
    *p = NULL;
    return w;
}

/* Whether the words and the agent's environment fit in one execve: each word under the
 * kernel's limit per string (MAX_ARG_STRLEN, 32 pages), all of them under ARG_MAX. */
static bool words_fit(const char **w, char *why, size_t cap)
{
    extern char **environ;
    const size_t one = 32 * 4096;
    long am = sysconf(_SC_ARG_MAX);
    size_t max = am > 0 ? (size_t)am : 2u << 20, total = 4096; /* the script and slack */
    for (const char **p = w; *p; p++) {
        size_t n = strlen(*p) + 1;
        if (n > one) {
            snprintf(why, cap, "an argument or variable of %zu bytes (one may have at most %zu)",
                     n - 1, one - 1);
            return false;
        }
        total += n + sizeof(char *);
    }
    for (char **p = environ; p && *p; p++)
        total += strlen(*p) + 1 + sizeof(char *);
    if (total > max) {
        snprintf(why, cap, "the arguments and environment take %zu bytes (the system takes at "
                           "most %zu)", total, max);
        return false;
    }
    return true;
}

int shc__mcp_stdio_start(mcp_server *s)
{
    const char *tmp = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/shcard-mcp-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp(tmpl)) {
        shc__mcp_up_fail(s, "cannot make a directory for its pipes: %s", strerror(errno));
        return -1;
    }
    s->dir = strdup(tmpl);
    if (!s->dir) {
        rmdir(tmpl);
        shc__mcp_up_fail(s, "out of memory");
        return -1;
    }
    int *fds[4] = {&s->in_fd, &s->out_fd, &s->err_fd, &s->ready_fd};
    const char **args = server_words(s);
    if (!args) {
        shc__mcp_up_fail(s, "out of memory");
        return -1;
    }
    char why[160];
    if (!words_fit(args, why, sizeof why)) {
        free(args);
        shc__mcp_up_fail(s, "cannot start `%.60s`: %s", s->argv[0], why);
        return -1;
    }
    /* The script names no word of the editor's: they are its "$@" (the program, after `env` and
     * the variables when there are some), so the shell neither parses nor quotes them, and
     * `exec --` runs a first word starting with '-' as the program's name. */
    shc_strbuf cmd = {0};
    shc_strbuf_puts(&cmd, "exec -- \"$@\"");
    for (int i = 0; i < 4; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", s->dir, fifo_names[i]);
        /* the agent's end of "ready" is read-only: the shell's close is then a hang-up */
        int mode = i == 3 ? O_RDONLY : O_RDWR;
        if (mkfifo(p, 0600) != 0 || (*fds[i] = open(p, mode | O_NONBLOCK | O_CLOEXEC)) < 0) {
            shc_strbuf_free(&cmd);
            free(args);
            shc__mcp_up_fail(s, "cannot make its pipes: %s", strerror(errno));
            return -1;
        }
        shc_strbuf_puts(&cmd, i == 0 ? " <" : i == 1 ? " >" : i == 2 ? " 2>" : " 3>");
        shc_shell_quote(&cmd, p, strlen(p));
    }
    shc_strbuf_puts(&cmd, " 3>&-");
    char *command = shc_strbuf_take(&cmd);
    if (!command) {
        free(args);
        shc__mcp_up_fail(s, "out of memory");
        return -1;
    }
    s->out_w = shc_loop_watch(s->m->env.loop, s->out_fd, SHC_LOOP_READ, on_out, s);
    s->err_w = shc_loop_watch(s->m->env.loop, s->err_fd, SHC_LOOP_READ, on_err, s);
    s->ready_w = shc_loop_watch(s->m->env.loop, s->ready_fd, SHC_LOOP_READ, on_ready, s);
    /* the agent's environment without the model's key (the server never needs it; an entry
     * whose env names the variable gets its own value back through env's words) */
    const char *key_env = s->m->env.key_env;
    const char *unset[] = {"DEEPSEEK_API_KEY", "OPENAI_API_KEY",
                           key_env && *key_env && !strchr(key_env, '=') ? key_env : NULL, NULL};
    shc_pty_opts o = {
        .command = command,
        .args = args,
        .env = unset,
        .cwd = s->m->cwd, /* the agent's environment: the editor's variables are env's words */
        .kill_grace_ms = 1000,
        .model_cap = 4096,
        .has_tail_limit = true,
        .tail_limit = 0,
        .on_output = on_pty_output,
        .on_exit = on_pty_exit,
        .payload = s,
    };
    shc_pty_error err;
    memset(&err, 0, sizeof err);
    int rc = shc_pty_spawn(&s->pty, s->m->env.exec, &o, &err);
    free(command);
    free(args);
    if (rc != 0) {
        s->pty = NULL;
        shc__mcp_up_fail(s, "cannot start `%s`: %s", s->argv[0],
                      err.message[0] ? err.message : "spawn failed");
        return -1;
    }
    shc_log_info(s->m->env.log, "mcp %s: started `%s` (pid %d)", s->name, s->argv[0],
                 (int)shc_pty_pid(s->pty));
    return 0;
}

void shc__mcp_stdio_ready(mcp_server *s)
{
    remove_dir(s);
}

void shc__mcp_stdio_stop(mcp_server *s)
{
    shc_loop *loop = s->m->env.loop;
    shc__mcp_stdio_want_write(s, false);
    if (s->out_w > 0)
        shc_loop_unwatch(loop, s->out_w);
    if (s->err_w > 0)
        shc_loop_unwatch(loop, s->err_w);
    s->out_w = s->err_w = 0;
    ready_stop(s);
    int *fds[3] = {&s->in_fd, &s->out_fd, &s->err_fd};
    for (int i = 0; i < 3; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
    /* from its exit callback the pty is freed by the executor's caller: here, not there */
    if (s->pty) {
        shc_pty *p = s->pty;
        s->pty = NULL;
        shc_pty_free(p);
    }
    remove_dir(s);
    shc__mcp_log_flush(s);
}
