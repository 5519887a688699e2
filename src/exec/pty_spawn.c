#define _GNU_SOURCE
#include "exec/pty_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "exec/syscalls.h"
#include "confine/confine.h"
#include "shcard.h"

extern char **environ;

enum { STAGE_TTY = 1, STAGE_CHDIR, STAGE_EXEC, STAGE_CGROUP, STAGE_CONFINE, STAGE_LISTENER };

enum { PASS_EXEC_MS = 5000 }; /* the child's exec of the shell, told to us by its filter */

/* Variables every command gets (see pty.h for the TERM decision). */
static const char *const forced[] = {
    "PAGER=cat",
    "GIT_PAGER=cat",
    "GH_PAGER=cat",
    "MANPAGER=cat",
    "SYSTEMD_PAGER=cat",
    "BAT_PAGER=", /* bat runs $PAGER itself (exec cat); empty: no pager at all (bat 0.22) */
    "LESS=-FRX",
    "GIT_TERMINAL_PROMPT=0",
    "GIT_EDITOR=:",
    "GIT_MERGE_AUTOEDIT=no",
    "LANG=C.UTF-8",
    "LC_CTYPE=C.UTF-8",
    "LC_ALL=C.UTF-8",
};
static const char *const plain_term[] = {"TERM=dumb", "NO_COLOR=1"};
static const char *const color_term[] = {"TERM=xterm-256color", "COLORTERM=truecolor"};
/* Removed from the inherited environment (multiplexer state, what we set ourselves, and CDPATH,
 * which would make `cd DIR` go somewhere the command's text does not say). */
static const char *const dropped[] = {"STY",       "WINDOW",   "WINDOWID",     "TERM",
                                      "COLORTERM", "NO_COLOR", "PWD",          "OLDPWD",
                                      "COLUMNS",   "LINES",    "SHCARD_CMD_ID", "CDPATH"};

static size_t name_len(const char *kv)
{
    const char *eq = strchr(kv, '=');
    return eq ? (size_t)(eq - kv) : strlen(kv);
}

static bool same_name(const char *a, const char *b)
{
    size_t n = name_len(a);
    return n == name_len(b) && !memcmp(a, b, n);
}

static bool is_dropped(const char *kv, const shc_pty_opts *o)
{
    if (!strncmp(kv, "TMUX", 4))
        return true;
    for (size_t i = 0; i < sizeof dropped / sizeof dropped[0]; i++)
        if (same_name(kv, dropped[i]))
            return true;
    for (size_t i = 0; i < sizeof forced / sizeof forced[0]; i++)
        if (same_name(kv, forced[i]))
            return true;
    for (const char *const *e = o->env; e && *e; e++)
        if (same_name(kv, *e))
            return true;
    return false;
}

/* The caller's environment (opts.env) sets or unsets this variable. */
static bool in_opts_env(const char *kv, const shc_pty_opts *o)
{
    for (const char *const *e = o->env; e && *e; e++)
        if (same_name(kv, *e))
            return true;
    return false;
}

__attribute__((format(printf, 4, 5))) static void
fail_msg(shc_pty_error *err, int e, const char *stage, const char *fmt, ...)
{
    char eb[128];
    err->err = e;
    err->stage = stage;
    const char *es = strerror_r(e, eb, sizeof eb);
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(err->message, sizeof err->message, "%s: %s", what, es);
}

/* Finds the shell: a path is used as given, a bare name is looked up in PATH.  Owned result. */
static char *find_shell(const char *shell, int *e)
{
    if (strchr(shell, '/')) {
        if (access(shell, X_OK) != 0) {
            *e = errno;
            return NULL;
        }
        return strdup(shell);
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    *e = ENOENT;
    for (const char *s = path; *s;) {
        const char *c = strchr(s, ':');
        size_t n = c ? (size_t)(c - s) : strlen(s);
        char *cand = malloc(n + strlen(shell) + 2);
        if (!cand) {
            *e = ENOMEM;
            return NULL;
        }
        memcpy(cand, s, n);
        sprintf(cand + n, "%s%s", n ? "/" : "", shell);
        if (access(cand, X_OK) == 0)
            return cand;
        free(cand);
        s += n + (c ? 1 : 0);
    }
    return NULL;
}

static void free_env(char **env)
{
    if (!env)
        return;
    for (char **e = env; *e; e++)
        free(*e);
    free(env);
}

/* Builds the child's envp (owned; NULL when out of memory). */
static char **
build_env(const shc_pty_opts *o, const char *pwd, const char *token, unsigned cols, unsigned rows)
{
    size_t n = 0, k = 0;
    for (char **e = environ; e && *e; e++)
        n++;
    for (const char *const *e = o->env; e && *e; e++)
        n++;
    n += sizeof forced / sizeof forced[0] + 8;
    char **env = calloc(n + 1, sizeof *env);
    if (!env)
        return NULL;
    char buf[64];
#define ADD(s)                       \
    do {                             \
        if (!(env[k++] = strdup(s))) \
            goto nomem;              \
    } while (0)
    for (char **e = environ; e && *e; e++)
        if (strchr(*e, '=') && !is_dropped(*e, o))
            ADD(*e);
    for (size_t i = 0; i < sizeof forced / sizeof forced[0]; i++)
        ADD(forced[i]);
    const char *const *term = o->color ? color_term : plain_term;
    for (size_t i = 0; i < 2; i++)
        if (!in_opts_env(term[i], o)) /* the caller's TERM wins (shcard run --color) */
            ADD(term[i]);
    snprintf(buf, sizeof buf, "COLUMNS=%u", cols);
    ADD(buf);
    snprintf(buf, sizeof buf, "LINES=%u", rows);
    ADD(buf);
    ADD(token);
    if (!(env[k] = malloc(strlen(pwd) + 5)))
        goto nomem;
    sprintf(env[k++], "PWD=%s", pwd);
    for (const char *const *e = o->env; e && *e; e++)
        if (strchr(*e, '='))
            ADD(*e);
#undef ADD
    env[k] = NULL;
    return env;
nomem:
    free_env(env);
    return NULL;
}

/* The absolute form of cwd (not resolved: chdir in the child reports a missing directory). */
static char *abs_cwd(const char *cwd)
{
    char here[PATH_MAX];
    if (cwd && cwd[0] == '/')
        return strdup(cwd);
    if (!getcwd(here, sizeof here))
        return strdup(cwd ? cwd : "/");
    if (!cwd)
        return strdup(here);
    char *r = malloc(strlen(here) + strlen(cwd) + 2);
    if (r)
        sprintf(r, "%s/%s", here, cwd);
    return r;
}

static void set_termios(int fd, unsigned cols, unsigned rows)
{
    struct termios t;
    if (tcgetattr(fd, &t) == 0) {
        t.c_iflag = ICRNL | IXON | IXANY | IMAXBEL | BRKINT | IUTF8;
        t.c_oflag = OPOST | ONLCR;
        t.c_cflag = CREAD | CS8 | HUPCL;
        t.c_lflag = ICANON | ISIG | IEXTEN | ECHO | ECHOE | ECHOK | ECHOKE | ECHOCTL;
        cfsetispeed(&t, B38400);
        cfsetospeed(&t, B38400);
        tcsetattr(fd, TCSANOW, &t);
    }
    struct winsize ws = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
    ioctl(fd, TIOCSWINSZ, &ws);
}

/* In the child: report {stage, errno} through the pipe and exit. */
static _Noreturn void child_fail(int fd, int stage)
{
    int msg[2] = {stage, errno};
    ssize_t r = write(fd, msg, sizeof msg);
    (void)r;
    _exit(127);
}

static _Noreturn void child(int slave, int errw, int cg, const char *cwd, const char *shell,
                            char *const argv[], char *const envp[], const shc_confine_spec *spec)
{
    /* Containment first (cgroup.h): into the command's own cgroup, and a subreaper, so that what
     * it leaves behind comes back to it, not to the guardian, while it lives. */
    if (cg >= 0 && write(cg, "0", 1) != 1)
        child_fail(errw, STAGE_CGROUP);
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    /* Dispositions and mask back to defaults: ignored signals and the mask survive exec. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++) {
        if (sigaction(s, &dfl, NULL) == 0 || errno != EINVAL)
            continue;
        /* glibc refuses its reserved real-time signals (32 and 33); an ignored one would still
         * survive exec, so reset it with the raw system call (kernel sigaction layout). */
        struct {
            void (*handler)(int);
            unsigned long flags;
            void (*restorer)(void);
            unsigned long mask;
        } k = {SIG_DFL, 0, NULL, 0};
        syscall(SYS_rt_sigaction, s, &k, NULL, sizeof k.mask);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) < 0)
        child_fail(errw, STAGE_TTY);
    int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
    /* Lift everything above 2 first so the dup2s below cannot clobber a source. */
    int s2 = fcntl(slave, F_DUPFD_CLOEXEC, 3);
    int n2 = nul >= 0 ? fcntl(nul, F_DUPFD_CLOEXEC, 3) : -1;
    int e2 = fcntl(errw, F_DUPFD_CLOEXEC, 3);
    if (s2 < 0 || n2 < 0 || e2 < 0)
        child_fail(errw, STAGE_TTY);
    if (dup2(n2, 0) < 0 || dup2(s2, 1) < 0 || dup2(s2, 2) < 0)
        child_fail(e2, STAGE_TTY);
    if (e2 != 3) {
        if (dup3(e2, 3, O_CLOEXEC) < 0)
            child_fail(e2, STAGE_TTY);
        e2 = 3;
    }
    /* every inherited fd; 3 is the CLOEXEC report pipe */
    if (shc__close_range(4, ~0U, 0) != 0) {
        struct rlimit rl;
        int max =
            getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur : 65536;
        for (int fd = 4; fd < max; fd++)
            close(fd);
    }
    if (chdir(cwd) != 0)
        child_fail(e2, STAGE_CHDIR);
    /* Dumpable again (the agent and the guardian are not, pty.c): our parent takes the watch's
     * listener from us with pidfd_getfd, which a non-dumpable process refuses its own user.
     * Every inherited descriptor is closed by now; exec would make us dumpable anyway. */
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    /* Last before exec: from here on the watched calls are told to the supervisor, and the exec
     * below is the first of them (our parent answers it once it holds the listener). */
    int lfd = -1, crc = shc_confine_apply(spec, &lfd);
    if (crc != 0) {
        errno = -crc;
        child_fail(e2, STAGE_CONFINE);
    }
    if (lfd >= 0) {
        int msg[2] = {STAGE_LISTENER, lfd};
        if (write(e2, msg, sizeof msg) != (ssize_t)sizeof msg)
            child_fail(e2, STAGE_CONFINE);
        shc_confine_handoff(spec);
    }
#ifdef SHC_FUZZING
    (void)shell;
    (void)argv;
    (void)envp;
    errno = ENOSYS; /* fuzz builds never run a command */
#else
    execve(shell, argv, envp);
#endif
    child_fail(e2, STAGE_EXEC);
}

/* Reads one {stage, errno} message from the child's report pipe: true when one came, false at
 * EOF (the exec happened). */
static bool read_msg(int fd, int msg[2])
{
    size_t got = 0;
    while (got < 2 * sizeof(int)) {
        ssize_t n = read(fd, (char *)msg + got, 2 * sizeof(int) - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return got == 2 * sizeof(int);
}

int shc__pty_fork(pid_t *pid_out, int *master_out, int *listener_out, const shc_pty_opts *o,
                  const shc_confine_spec *spec, const char *token, int cg, shc_pty_error *err)
{
    *listener_out = -1;
    int listener = -1;
    int rc = SHC_E_IO, e = 0;
    int master = -1, slave = -1, pipefd[2] = {-1, -1};
    char **env = NULL;
    char *shell = NULL, *cwd = NULL, *marked = NULL, **argv = NULL;
    unsigned cols = o->cols ? o->cols : 120, rows = o->rows ? o->rows : 40;
    const char *sh = o->shell ? o->shell : "bash";

    shell = find_shell(sh, &e);
    if (!shell) {
        fail_msg(err, e, "shell", "cannot run the shell '%s'", sh);
        goto fail;
    }
    cwd = abs_cwd(o->cwd);
    if (!cwd || !(env = build_env(o, cwd, token, cols, rows))) {
        rc = SHC_E_NOMEM;
        fail_msg(err, ENOMEM, "nomem", "%s", "building the environment");
        goto fail;
    }
    const char *base = strrchr(shell, '/') ? strrchr(shell, '/') + 1 : shell;
    /* A watched login shell: the profile's time ends where the command's text starts (the
     * marker's failed open, confine.h), on the same line, so line numbers do not move. */
    if (o->login && spec && (spec->flags & SHC_CONFINE_WATCH) && (spec->flags & SHC_CONFINE_LOGIN)) {
        size_t ml = strlen(SHC_CONFINE_PROFILE_END_CMD), cl = strlen(o->command);
        if (!(marked = malloc(ml + cl + 1))) {
            rc = SHC_E_NOMEM;
            fail_msg(err, ENOMEM, "nomem", "%s", "building the command");
            goto fail;
        }
        memcpy(marked, SHC_CONFINE_PROFILE_END_CMD, ml);
        memcpy(marked + ml, o->command, cl + 1);
    }
    size_t nargs = 0;
    for (const char *const *a = o->args; a && *a; a++)
        nargs++;
    if (!(argv = calloc(nargs + 4, sizeof *argv))) {
        rc = SHC_E_NOMEM;
        fail_msg(err, ENOMEM, "nomem", "%s", "building the command");
        goto fail;
    }
    argv[0] = (char *)(uintptr_t)base;
    argv[1] = (char *)(uintptr_t)(o->login ? "-lc" : "-c");
    argv[2] = marked ? marked : (char *)(uintptr_t)o->command;
    for (size_t i = 0; i < nargs; i++) /* the script's $0 $1..., as they are */
        argv[3 + i] = (char *)(uintptr_t)o->args[i];

    char sname[128];
    master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0 ||
        ptsname_r(master, sname, sizeof sname) != 0 ||
        (slave = open(sname, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
        fail_msg(err, errno, "openpt", "%s", "cannot open a pseudo-terminal");
        goto fail;
    }
    set_termios(slave, cols, rows);
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        fail_msg(err, errno, "fork", "%s", "cannot create a pipe");
        goto fail;
    }

    shc_confine_prepare(spec); /* the filters built here, once, not in each child */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0) {
        close(master);
        close(pipefd[0]);
        child(slave, pipefd[1], cg, cwd, shell, argv, env, spec);
    }
    e = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) {
        fail_msg(err, e, "fork", "%s", "cannot fork");
        goto fail;
    }
    close(slave);
    slave = -1;
    close(pipefd[1]);
    pipefd[1] = -1;

    int msg[2];
    bool failed = read_msg(pipefd[0], msg);
    if (failed && msg[0] == STAGE_LISTENER) {
        /* The child's filter is in place and its exec waits for an answer: take the listener
         * (the child's copy closes with the exec), let the exec of the shell through. */
        listener = shc_confine_take(pid, msg[1]);
        int prc = listener >= 0 ? shc_confine_pass_exec(listener, PASS_EXEC_MS) : listener;
        if (prc != 0) {
            kill(pid, SIGKILL);
            msg[0] = STAGE_CONFINE;
            msg[1] = -prc;
        } else {
            failed = read_msg(pipefd[0], msg);
        }
    }
    if (failed) { /* the child failed before exec and exited 127 (or was killed above) */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        if (msg[0] == STAGE_CHDIR)
            fail_msg(err, msg[1], "chdir", "cannot change directory to '%s'", cwd);
        else if (msg[0] == STAGE_CGROUP)
            fail_msg(err, msg[1], "cgroup", "%s", "cannot move the command into its cgroup");
        else if (msg[0] == STAGE_EXEC)
            fail_msg(err, msg[1], "exec", "cannot execute '%s'", shell);
        else if (msg[0] == STAGE_CONFINE)
            fail_msg(err, msg[1], "confine", "%s", "cannot confine the command");
        else
            fail_msg(err, msg[1], "openpt", "%s", "cannot set up the terminal in the child");
        goto fail;
    }
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    *pid_out = pid;
    *master_out = master;
    master = -1;
    *listener_out = listener;
    listener = -1;
    rc = 0;
fail:
    if (listener >= 0)
        close(listener);
    if (master >= 0)
        close(master);
    if (slave >= 0)
        close(slave);
    if (pipefd[0] >= 0)
        close(pipefd[0]);
    if (pipefd[1] >= 0)
        close(pipefd[1]);
    free_env(env);
    free(shell);
    free(cwd);
    free(marked);
    free(argv);
    return rc;
}
