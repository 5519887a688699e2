/* libFuzzer target: the word oracle (tests/word_oracle.py) in process.
 *
 * The input is the tail of a command: the target parses "QQF " + input.  When shcard reads it
 * as exactly one simple command QQF WORD... (no assignment, redirection or &), the text goes to
 * a bash 5.2 server that evals it with QQF a function printing its arguments NUL-separated.
 * Up to the first word that may change the number of arguments (a $ expansion, which may
 * vanish or split, or a brace flag), every word shcard calls static (no expansion, brace,
 * tilde or glob flag) must be, byte for byte, the argument bash passes at that position; with
 * no such word the number of arguments must match too.  A mismatch, a bash that runs anything
 * else, or one that hangs, aborts.
 *
 * The server is one bash started once per process, in bubblewrap (read-only file system, no
 * network, PATH=/nonexistent, globbing off, LC_ALL=C.UTF-8) and talked to over two pipes: a
 * round trip costs tens of microseconds, so the check runs on every input that qualifies.
 * Nothing reaches bash that shcard did not accept as that one call, and shcard rejects every
 * substitution; the sandbox holds if shcard is wrong about that.
 *
 * The replay build (suite_fuzz_replay) runs the same check over fuzz/seeds/fuzz_words; it needs
 * bwrap and /bin/bash, and aborts when they cannot start.  The server is the one piece of state
 * that outlives an input (a fuzz harness, not the library). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shcard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

extern char **environ;

static const char server_script[] =
    "set -f\n"
    "QQF() { printf 'C\\0%s\\0' \"$#\"; if [ $# -gt 0 ]; then printf '%s\\0' \"$@\"; fi; }\n"
    "command_not_found_handle() { printf 'X\\0'; return 127; }\n"
    "while IFS= read -r __l; do printf -v __c '%b' \"$__l\"; eval \"$__c\" </dev/null;"
    " printf 'E\\0'; done\n";

static struct {
    unsigned long inputs, checked, words; /* printed at exit */
    pid_t pid;
    int to, from; /* the server's stdin and stdout */
    char *buf;
    size_t cap;
} srv = {0, 0, 0, 0, -1, -1, NULL, 0};

static void stop_server(void)
{
    if (srv.to >= 0)
        close(srv.to);
    if (srv.from >= 0)
        close(srv.from);
    if (srv.pid > 0) {
        kill(srv.pid, SIGKILL);
        waitpid(srv.pid, NULL, 0);
    }
    srv.pid = 0;
    srv.to = srv.from = -1;
}

static void release(void)
{
    fprintf(stderr, "fuzz_words: %lu inputs, %lu checked against bash, %lu static words equal\n",
            srv.inputs, srv.checked, srv.words);
    stop_server();
    free(srv.buf);
    srv.buf = NULL;
}

static void start_server(void)
{
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0)
        abort();
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    /* clang-format off */
    const char *argv[] = {
        "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
        "--unshare-all", "--die-with-parent", "--new-session", "--chdir", "/tmp", "--clearenv",
        "--setenv", "PATH", "/nonexistent", "--setenv", "HOME", "/nonexistent-home",
        "--setenv", "OLDPWD", "/old-pwd", "--setenv", "LC_ALL", "C.UTF-8", "--",
        "/bin/bash", "--norc", "--noprofile", "-c", server_script, NULL};
    /* clang-format on */
    int rc = posix_spawnp(&srv.pid, "bwrap", &fa, NULL, (char *const *)(uintptr_t)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    if (rc != 0) {
        fprintf(stderr, "fuzz_words: cannot start bwrap: %s\n", strerror(rc));
        abort();
    }
    srv.to = in[1];
    srv.from = out[0];
}

/* Sends one command and reads the reply up to the server's E record.  Returns the reply's
 * length (in srv.buf), or -1 when the server died or hung (it is stopped then). */
static long ask(const char *cmd, size_t len)
{
    if (srv.pid <= 0)
        start_server();
    if (!srv.buf) {
        srv.cap = 4096;
        srv.buf = malloc(srv.cap);
        if (!srv.buf)
            abort();
    }
    /* one line of \xHH escapes: ASCII, so a byte sequence that is not UTF-8 cannot swallow the
     * delimiter (bash reads in the UTF-8 locale) */
    size_t ln = len * 4 + 1, off = 0;
    char *line = malloc(ln + 1);
    if (!line)
        abort();
    for (size_t i = 0; i < len; i++)
        snprintf(line + i * 4, 5, "\\x%02x", (unsigned char)cmd[i]);
    line[ln - 1] = '\n';
    while (off < ln) {
        ssize_t w = write(srv.to, line + off, ln - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            free(line);
            stop_server();
            return -1;
        }
        off += (size_t)w;
    }
    free(line);
    size_t n = 0;
    for (;;) {
        /* a complete reply: C n arg... records, X records, then E, each token NUL-terminated */
        size_t i = 0;
        bool done = false, more = false;
        while (!done && !more) {
            const char *t = srv.buf + i;
            const char *z = i < n ? memchr(t, '\0', n - i) : NULL;
            if (!z) {
                more = true;
                break;
            }
            i = (size_t)(z - srv.buf) + 1;
            if (!strcmp(t, "E")) {
                done = true;
            } else if (!strcmp(t, "C")) {
                const char *c = i < n ? memchr(srv.buf + i, '\0', n - i) : NULL;
                if (!c) {
                    more = true;
                    break;
                }
                long k = strtol(srv.buf + i, NULL, 10);
                i = (size_t)(c - srv.buf) + 1;
                for (; k > 0 && !more; k--) {
                    const char *a = i < n ? memchr(srv.buf + i, '\0', n - i) : NULL;
                    if (!a)
                        more = true;
                    else
                        i = (size_t)(a - srv.buf) + 1;
                }
            } else if (strcmp(t, "X") != 0) {
                fprintf(stderr, "fuzz_words: unexpected reply from bash\n");
                abort();
            }
        }
        if (done)
            return (long)i;
        if (n == srv.cap) {
            srv.cap *= 2;
            srv.buf = realloc(srv.buf, srv.cap);
            if (!srv.buf)
                abort();
        }
        struct pollfd p = {srv.from, POLLIN, 0};
        int pr = poll(&p, 1, 5000);
        if (pr < 0 && errno == EINTR)
            continue;
        ssize_t r = pr > 0 ? read(srv.from, srv.buf + n, srv.cap - n) : -1;
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            stop_server();
            return -1;
        }
        n += (size_t)r;
    }
}

static bool is_static(const shc_word *w)
{
    return w->value &&
           !(w->flags & (SHC_WORD_EXPANSION | SHC_WORD_BRACE | SHC_WORD_TILDE | SHC_WORD_GLOB));
}

/* The one QQF call the text must be, or NULL. */
static const shc_call *qqf_call(const shc_ast *ast)
{
    const shc_node *root = ast->root;
    if (root->u.list.n != 1 || root->u.list.seps[0] == SHC_SEP_AMP)
        return NULL;
    const shc_node *p = root->u.list.items[0];
    if (p->kind != SHC_NODE_PIPE || p->u.pipe.n != 1 || p->u.pipe.negated)
        return NULL;
    const shc_call *c = &p->u.pipe.cmds[0]->u.call;
    if (c->nassigns || c->nredirs || c->nwords == 0 || c->words[0].flags || !c->words[0].value ||
        strcmp(c->words[0].value, "QQF") != 0)
        return NULL;
    return c;
}

/* Words before the first one that may change the number of arguments (a $ expansion, which may
 * vanish or split, or a brace expansion): their positions in bash's argv are known. */
static size_t aligned_words(const shc_call *c)
{
    size_t i = 1;
    while (i < c->nwords && !(c->words[i].flags & (SHC_WORD_EXPANSION | SHC_WORD_BRACE)))
        i++;
    return i;
}

static void mismatch(const char *text, size_t len, const char *what, size_t i)
{
    fprintf(stderr, "fuzz_words: %s (word %zu) for: ", what, i);
    fwrite(text, 1, len, stderr);
    fputc('\n', stderr);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    if (srv.inputs++ == 0) {
        signal(SIGPIPE, SIG_IGN);
        atexit(release);
    }
    char *text = malloc(size + 5);
    if (!text)
        return 0;
    memcpy(text, "QQF ", 4);
    memcpy(text + 4, data, size);
    size_t len = size + 4;
    text[len] = '\0';
    shc_ast *ast = NULL;
    shc_diag d;
    const shc_call *c = NULL;
    if (shc_parse(&ast, text, len, false, NULL, &d) == 0)
        c = qqf_call(ast);
    /* never hand bash a substitution, whatever shcard thinks (it rejects them all) */
    if (c &&
        (memchr(text, '`', len) || strstr(text, "$(") || strstr(text, "<(") || strstr(text, ">(")))
        c = NULL;
    if (c) {
        srv.checked++;
        long n = ask(text, len);
        /* ${x?msg} with x unset ends a non-interactive shell: no mismatch when a word was
         * flagged as an expansion (the server starts again for the next input) */
        if (n < 0 && aligned_words(c) < c->nwords)
            goto done;
        if (n < 0)
            mismatch(text, len, "bash died or hung", 0);
        /* exactly one C record: C, argc, then the arguments; then E */
        const char *r = srv.buf;
        size_t known = aligned_words(c);
        /* a bad substitution stops the command before QQF runs (brace expansion can make one:
         * {$,}{x} gives ${x}): no mismatch when a word was flagged */
        if (strcmp(r, "E") != 0 || known == c->nwords) {
            if (strcmp(r, "C") != 0)
                mismatch(text, len, "bash did not run QQF once", 0);
            r += 2;
            size_t argc = (size_t)strtoul(r, NULL, 10);
            r += strlen(r) + 1;
            if (known == c->nwords ? argc != c->nwords - 1 : argc < known - 1)
                mismatch(text, len, "bash passes a different number of arguments", argc);
            for (size_t i = 1; i < known; i++) {
                size_t al = strlen(r);
                const shc_word *w = &c->words[i];
                if (is_static(w) && (al != w->len || memcmp(r, w->value, al) != 0))
                    mismatch(text, len, "a static word differs from bash's argument", i);
                srv.words += is_static(w);
                r += al + 1;
            }
            for (size_t i = known; i < argc + 1; i++) /* the arguments from a flagged word on */
                r += strlen(r) + 1;
            if (strcmp(r, "E") != 0)
                mismatch(text, len, "bash ran more than QQF", 0);
        }
    }
done:
    shc_ast_free(ast);
    free(text);
    return 0;
}
