/* The PTY executor with real processes on real PTYs (executor-and-performance.md §1.9).
 * Process, fds, environment, stdin, exit status, ending (timeout, cancel, orphans). */
#include "pty_run.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>

#include "shcard.h"
#include "exec/sweep.h"

static shc_pty_opts cmd(const char *c)
{
    shc_pty_opts o;
    memset(&o, 0, sizeof o);
    o.command = c;
    return o;
}

/* Parses whitespace-separated pids printed by the command. */
static size_t pids_in(const char *s, pid_t *out, size_t max)
{
    size_t n = 0;
    while (*s && n < max) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s) {
            s++;
            continue;
        }
        if (v > 0)
            out[n++] = (pid_t)v;
        s = end;
    }
    return n;
}

/* 1: session and process group; the controlling tty is a pts. */
static void test_session_leader_on_pts(void **state)
{
    (void)state;
    run_result r = {0};
    run_cmd(&r, cmd("ps -o pid=,pgid=,sid= -p $$; readlink /proc/self/fd/1; tty </dev/tty"));
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.st.exit_code, 0);
    pid_t v[3];
    assert_int_equal(pids_in(r.out.p, v, 3), 3);
    assert_int_equal(v[0], r.pid);
    assert_int_equal(v[1], r.pid);
    assert_int_equal(v[2], r.pid);
    assert_non_null(strstr(r.out.p, "/dev/pts/"));
    run_free(&r);
}

/* 2: signals reset in the child, whatever the parent ignores or blocks. */
static void test_signals_reset(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    sigset_t usr, old;
    sigemptyset(&usr);
    sigaddset(&usr, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr, &old);
    run_result r = {0};
    run_cmd(&r, cmd("yes | head -1; trap -p; grep -E '^Sig(Blk|Ign)' /proc/self/status"));
    sigprocmask(SIG_SETMASK, &old, NULL);
    signal(SIGPIPE, SIG_DFL);
    assert_int_equal(r.st.exit_code, 0);
    assert_string_equal(r.out.p, "y\r\nSigBlk:\t0000000000000000\r\nSigIgn:\t0000000000000000\r\n");
    run_free(&r);
}

/* 3: the child sees only fds 0-2 (plus ls's own directory fd). */
static void test_only_std_fds(void **state)
{
    (void)state;
    int canary = open("/dev/null", O_RDONLY); /* no CLOEXEC on purpose */
    assert_true(canary > 2);
    char c[256];
    snprintf(c, sizeof c, "ls /proc/self/fd | tr '\\n' ' '; [ -e /proc/self/fd/%d ] && echo LEAK",
             canary);
    run_result r = {0};
    run_cmd(&r, cmd(c));
    close(canary);
    assert_int_equal(r.st.exit_code, 1); /* the [ -e ] test failed */
    assert_string_equal(r.out.p, "0 1 2 3 ");
    run_free(&r);
}

/* 4: environment, window size, cwd. */
static void test_environment_and_winsize(void **state)
{
    (void)state;
    setenv("TMUX", "/tmp/tmux-0/default,1,0", 1);
    setenv("STY", "1.pts", 1);
    setenv("CDPATH", "/", 1);
    const char *env[] = {"SHC_TEST_X=42", "HOME", NULL};
    shc_pty_opts o = cmd("echo \"$TERM|$NO_COLOR|$PAGER|$GIT_PAGER|$GH_PAGER|$GIT_TERMINAL_PROMPT|"
                         "$GIT_EDITOR|$LC_ALL|$PWD|$(pwd)|${TMUX-none}|${STY-none}|$SHC_TEST_X|"
                         "${HOME-unset}|${CDPATH-none}\"; stty size </dev/tty");
    o.cwd = "/tmp";
    o.env = env;
    run_result r = {0};
    run_cmd(&r, o);
    unsetenv("TMUX");
    unsetenv("STY");
    unsetenv("CDPATH");
    assert_int_equal(r.st.exit_code, 0);
    assert_string_equal(r.out.p, "dumb|1|cat|cat|cat|0|:|C.UTF-8|/tmp|/tmp|none|none|42|unset|none\r\n"
                                 "40 120\r\n");
    run_free(&r);

    o = cmd("echo \"$TERM ${NO_COLOR-none} $COLUMNS\"; stty size </dev/tty");
    o.color = true;
    o.cols = 80;
    o.rows = 24;
    run_cmd(&r, o);
    assert_string_equal(r.out.p, "xterm-256color none 80\r\n24 80\r\n");
    run_free(&r);
}

/* 4: a missing cwd or shell is a structured error, not output. */
static void test_spawn_errors(void **state)
{
    (void)state;
    shc_pty_opts o = cmd("echo never");
    o.cwd = "/nonexistent/dir";
    run_result r = {0};
    assert_int_equal(run_cmd(&r, o), SHC_E_IO);
    assert_string_equal(r.err.stage, "chdir");
    assert_int_equal(r.err.err, ENOENT);
    assert_non_null(strstr(r.err.message, "/nonexistent/dir"));
    assert_int_equal(r.out.len, 0);
    run_free(&r);

    o = cmd("echo never");
    o.shell = "/nonexistent/bash";
    assert_int_equal(run_cmd(&r, o), SHC_E_IO);
    assert_string_equal(r.err.stage, "shell");
    assert_int_equal(r.err.err, ENOENT);
    run_free(&r);

    o = cmd("echo never");
    o.shell = "/etc/passwd"; /* exists, not executable */
    assert_int_equal(run_cmd(&r, o), SHC_E_IO);
    assert_int_equal(r.err.err, EACCES);
    run_free(&r);

    o = cmd("echo never");
    o.shell = "/tmp"; /* passes the parent's X_OK check, fails execve in the child */
    assert_int_equal(run_cmd(&r, o), SHC_E_IO);
    assert_string_equal(r.err.stage, "exec");
    assert_int_equal(r.err.err, EACCES);
    assert_non_null(strstr(r.err.message, "cannot execute '/tmp'"));
    assert_int_equal(r.out.len, 0);
    run_free(&r);

    o = cmd(NULL);
    assert_int_equal(run_cmd(&r, o), SHC_E_USAGE);
    run_free(&r);
    /* the failures left no child behind */
    int z;
    assert_int_equal(shc__count_children(&z), 0);
}

/* 6: stdin is /dev/null: readers end at once. */
static void test_stdin_readers_end(void **state)
{
    (void)state;
    run_result r = {0};
    run_cmd(&r, cmd("cat; read x; echo \"read=$?\"; python3 -c 'input()' 2>&1 | tail -n1"));
    assert_int_equal(r.st.exit_code, 0);
    assert_false(r.st.timed_out);
    assert_string_equal(r.out.p, "read=1\r\nEOFError: EOF when reading a line\r\n");
    assert_true(r.ms < 5000);
    run_free(&r);
}

/* 9: exit status mapping. */
static void test_exit_status(void **state)
{
    (void)state;
    run_result r = {0};
    run_cmd(&r, cmd("exit 3"));
    assert_int_equal(r.st.exit_code, 3);
    assert_null(r.st.signal);
    assert_int_equal(shc_pty_status_code(&r.st), 3);
    run_free(&r);
    run_cmd(&r, cmd("kill -9 $$"));
    assert_int_equal(r.st.exit_code, -1);
    assert_string_equal(r.st.signal, "SIGKILL");
    assert_int_equal(shc_pty_status_code(&r.st), 137);
    assert_false(r.st.timed_out);
    assert_false(r.st.cancelled);
    run_free(&r);
    run_cmd(&r, cmd("kill -TERM $$"));
    assert_string_equal(r.st.signal, "SIGTERM");
    run_free(&r);
}

/* 8: a timeout ends the whole group, including grandchildren, within the grace. */
static void test_timeout_kills_group(void **state)
{
    (void)state;
    shc_pty_opts o = cmd("sleep 300 & echo $!; sleep 300 & echo $!; wait");
    o.timeout_ms = 300;
    run_result r = {0};
    run_cmd(&r, o);
    assert_true(r.st.timed_out);
    assert_false(r.st.cancelled);
    assert_int_equal(shc_pty_status_code(&r.st), 124);
    assert_string_equal(r.st.signal, "SIGTERM");
    assert_true(r.ms < 2300);
    pid_t v[2];
    assert_int_equal(pids_in(r.out.p, v, 2), 2);
    assert_true(pid_gone(v[0]));
    assert_true(pid_gone(v[1]));
    run_free(&r);
}

/* 8: SIGTERM ignored: SIGKILL after the grace. */
static void test_trap_term_gets_sigkill(void **state)
{
    (void)state;
    shc_pty_opts o = cmd("trap '' TERM; sleep 100");
    o.timeout_ms = 200;
    o.kill_grace_ms = 500;
    run_result r = {0};
    run_cmd(&r, o);
    assert_true(r.st.timed_out);
    assert_string_equal(r.st.signal, "SIGKILL");
    assert_true(r.ms >= 650);
    assert_true(r.ms < 5000);
    run_free(&r);
}

/* 7: processes that escape with setsid or nohup (even ignoring HUP and TERM) end with the
 * command, though the command itself exits at once. */
static void test_escaped_orphans_swept(void **state)
{
    (void)state;
    run_result r = {0};
    run_cmd(&r, cmd("setsid sleep 300 & echo $!; nohup sleep 300 >/dev/null 2>&1 & echo $!; "
                    "setsid sh -c 'trap \"\" HUP TERM; sleep 300' & echo $!; "
                    "(sleep 300 &) ; sleep 0.2"));
    assert_int_equal(r.st.exit_code, 0);
    pid_t v[3];
    assert_int_equal(pids_in(r.out.p, v, 3), 3);
    for (int i = 0; i < 3; i++)
        assert_true(pid_gone(v[i]));
    int z = -1;
    assert_int_equal(shc__count_children(&z), 0);
    assert_int_equal(z, 0);
    run_free(&r);
}

/* 8: cancel runs the ladder and is reported as such. */
static void test_cancel(void **state)
{
    (void)state;
    run_result r = {0};
    r.cancel_after_ms = 100;
    run_cmd(&r, cmd("sleep 100"));
    assert_true(r.st.cancelled);
    assert_false(r.st.timed_out);
    assert_string_equal(r.st.signal, "SIGTERM");
    assert_int_equal(shc_pty_status_code(&r.st), 128 + 15);
    assert_true(r.ms < 2300);
    run_free(&r);
}

/* 5: a background job holding the tty does not delay completion. */
static void test_background_job_does_not_hold(void **state)
{
    (void)state;
    run_result r = {0};
    run_cmd(&r, cmd("sleep 1 & echo hi"));
    assert_string_equal(r.out.p, "hi\r\n");
    assert_int_equal(r.st.exit_code, 0);
    assert_true(r.ms < 500); /* did not wait for the sleep (typically a few ms) */
    run_free(&r);
}

/* 7: 200 commands in a row leave no zombie and no leaked fd. */
static void test_no_zombies_no_fd_leaks(void **state)
{
    (void)state;
    int fds = count_fds();
    for (int i = 0; i < 200; i++) {
        run_result r = {0};
        run_cmd(&r, cmd(i % 2 ? "true" : "echo x & exit 0"));
        assert_int_equal(r.st.exit_code, 0);
        run_free(&r);
    }
    int z = -1;
    assert_int_equal(shc__count_children(&z), 0);
    assert_int_equal(z, 0);
    assert_int_equal(count_fds(), fds);
}

/* 13: the login flag gives a login shell. */
static void test_login_flag(void **state)
{
    (void)state;
    const char *env[] = {"HOME=/nonexistent-home", NULL};
    shc_pty_opts o = cmd("shopt -q login_shell && echo login || echo plain");
    o.env = env;
    run_result r = {0};
    run_cmd(&r, o);
    assert_string_equal(r.out.p, "plain\r\n");
    run_free(&r);
    o.login = true;
    run_cmd(&r, o);
    assert_non_null(strstr(r.out.p, "login\r\n"));
    run_free(&r);
}

/* 6/8: a program that opens /dev/tty itself (as ssh and sudo do) is stopped by the timeout. */
static void test_tty_reader_stopped_by_timeout(void **state)
{
    (void)state;
    shc_pty_opts o = cmd("read -r x </dev/tty; echo got");
    o.timeout_ms = 300;
    run_result r = {0};
    run_cmd(&r, o);
    assert_true(r.st.timed_out);
    assert_null(strstr(r.out.p, "got"));
    assert_true(r.ms < 2300);
    run_free(&r);
}

/* 13: the deadline covers shell startup: a login profile that sleeps cannot outlast it. */
static void test_slow_profile_honours_timeout(void **state)
{
    (void)state;
    char home[] = "/tmp/shc-home-XXXXXX";
    assert_non_null(mkdtemp(home));
    char path[128], env_home[160];
    snprintf(path, sizeof path, "%s/.profile", home);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("echo profile junk\nsleep 2\n", f);
    fclose(f);
    snprintf(env_home, sizeof env_home, "HOME=%s", home);
    const char *env[] = {env_home, NULL};
    shc_pty_opts o = cmd("echo ran");
    o.login = true;
    o.env = env;
    o.timeout_ms = 400;
    run_result r = {0};
    run_cmd(&r, o);
    assert_true(r.st.timed_out);
    assert_true(r.ms < 2000);
    assert_non_null(strstr(r.out.p, "profile junk"));
    assert_null(strstr(r.out.p, "ran"));
    run_free(&r);
    unlink(path);
    rmdir(home);
}

/* 14: resize reaches the running program. */
typedef struct resize_ctx {
    shc_pty *p;
    int rc;
} resize_ctx;

static void do_resize(shc_loop *loop, void *payload)
{
    (void)loop;
    resize_ctx *c = payload;
    c->rc = shc_pty_resize(c->p, 200, 50);
}

static void test_resize(void **state)
{
    (void)state;
    run_result r = {0};
    shc_loop *loop = shc_loop_new();
    shc_exec *ex = shc_exec_new(loop);
    shc_pty_opts o = cmd("stty size </dev/tty; sleep 0.5; stty size </dev/tty");
    o.on_output = rr_output;
    o.on_exit = rr_exit;
    o.payload = &r;
    assert_int_equal(shc_pty_spawn(&r.pty, ex, &o, NULL), 0);
    resize_ctx c = {r.pty, 1};
    shc_loop_timer(loop, 200, do_resize, &c);
    while (!r.done)
        assert_int_equal(shc_loop_run_once(loop, 5000), 0);
    assert_int_equal(c.rc, 0);
    shc_outbuf_append(&r.out, "", 1);
    assert_string_equal(r.out.p, "40 120\r\n50 200\r\n");
    shc_exec_free(ex);
    shc_loop_free(loop);
    run_free(&r);
}

/* Freeing a running command, or the exec context under it, kills and reaps it. */
static void test_free_while_running(void **state)
{
    (void)state;
    shc_loop *loop = shc_loop_new();
    shc_exec *ex = shc_exec_new(loop);
    shc_pty *a, *b;
    assert_int_equal(shc_pty_spawn(&a, ex, &(shc_pty_opts){.command = "sleep 300"}, NULL), 0);
    assert_int_equal(shc_pty_spawn(&b, ex, &(shc_pty_opts){.command = "sleep 300"}, NULL), 0);
    pid_t pa = shc_pty_pid(a), pb = shc_pty_pid(b);
    assert_true(pa > 0 && pb > 0 && pa != pb);
    assert_int_equal(shc_loop_run_once(loop, 50), 0);
    shc_pty_free(a);
    assert_true(pid_gone(pa));
    assert_false(pid_gone(pb));
    shc_exec_free(ex); /* b is still running: killed and reaped, no callback */
    assert_true(pid_gone(pb));
    assert_true(shc_pty_done(b));
    shc_pty_free(b);
    shc_loop_free(loop);
    int z = -1;
    assert_int_equal(shc__count_children(&z), 0);
}

/* Two commands at once on one loop: each completes with its own output and status. */
static void test_concurrent_commands(void **state)
{
    (void)state;
    shc_loop *loop = shc_loop_new();
    shc_exec *ex = shc_exec_new(loop);
    run_result ra = {0}, rb = {0};
    shc_pty_opts o = cmd("sleep 0.3; echo A; exit 5");
    o.on_output = rr_output;
    o.on_exit = rr_exit;
    o.payload = &ra;
    assert_int_equal(shc_pty_spawn(&ra.pty, ex, &o, NULL), 0);
    o = cmd("echo B; setsid sleep 300 & echo $!");
    o.on_output = rr_output;
    o.on_exit = rr_exit;
    o.payload = &rb;
    assert_int_equal(shc_pty_spawn(&rb.pty, ex, &o, NULL), 0);
    pid_t pa = shc_pty_pid(ra.pty);
    while (!ra.done || !rb.done) {
        assert_int_equal(shc_loop_run_once(loop, 5000), 0);
        if (rb.done && !ra.done) /* B's sweep must not touch A */
            assert_false(pid_gone(pa));
    }
    shc_outbuf_append(&ra.out, "", 1);
    shc_outbuf_append(&rb.out, "", 1);
    assert_string_equal(ra.out.p, "A\r\n");
    assert_int_equal(ra.st.exit_code, 5);
    assert_memory_equal(rb.out.p, "B\r\n", 3);
    pid_t v[1];
    assert_int_equal(pids_in(rb.out.p + 3, v, 1), 1);
    assert_true(pid_gone(v[0]));
    shc_exec_free(ex);
    shc_loop_free(loop);
    run_free(&ra);
    run_free(&rb);
}

/* 13: the login-shell preflight recipe: `true` under -l with a 5 s timeout shows a profile that
 * prints and is slow (the bridge warns on output or latency). */
static void test_login_preflight_flags_noisy_profile(void **state)
{
    (void)state;
    char home[] = "/tmp/shc-home-XXXXXX";
    assert_non_null(mkdtemp(home));
    char path[128], env_home[160];
    snprintf(path, sizeof path, "%s/.profile", home);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("echo motd junk\nsleep 1\n", f);
    fclose(f);
    snprintf(env_home, sizeof env_home, "HOME=%s", home);
    const char *env[] = {env_home, NULL};
    shc_pty_opts o = cmd("true");
    o.login = true;
    o.env = env;
    o.timeout_ms = 5000;
    run_result r = {0};
    run_cmd(&r, o);
    assert_false(r.st.timed_out);
    assert_int_equal(r.st.exit_code, 0);
    assert_true(r.st.duration_ms >= 1000);       /* slow: flagged */
    assert_string_equal(r.model, "motd junk\n"); /* prints: flagged */
    run_free(&r);
    /* the same recipe without the profile: quick and silent */
    snprintf(env_home, sizeof env_home, "HOME=%s/none", home);
    run_cmd(&r, o);
    assert_string_equal(r.model, "");
    assert_true(r.st.duration_ms < 1000);
    run_free(&r);
    unlink(path);
    rmdir(home);
}

/* 8: a dev-server style child (listening on loopback) dies with the command on timeout. */
static void test_server_child_killed(void **state)
{
    (void)state;
    shc_pty_opts o =
        cmd("python3 -m http.server 0 --bind 127.0.0.1 >/dev/null 2>&1 & echo $!; wait");
    o.timeout_ms = 500;
    run_result r = {0};
    run_cmd(&r, o);
    assert_true(r.st.timed_out);
    pid_t v[1];
    assert_int_equal(pids_in(r.out.p, v, 1), 1);
    assert_true(pid_gone(v[0]));
    run_free(&r);
}

/* 5: a straggler that ignores SIGHUP keeps the tty open after the shell exits: the command still
 * completes after the short drain grace (150 ms), and the straggler is swept. */
static void test_drain_grace_for_stragglers(void **state)
{
    (void)state;
    run_result r = {0};
    /* the trap comes first, so the background sleep starts with SIGHUP already ignored */
    run_cmd(&r, cmd("trap '' HUP; sleep 300 & echo $!; echo hi"));
    assert_int_equal(r.st.exit_code, 0);
    pid_t v[1];
    assert_int_equal(pids_in(r.out.p, v, 1), 1);
    assert_non_null(strstr(r.out.p, "\r\nhi\r\n"));
    assert_true(r.ms >= 140);
    assert_true(r.ms < 1500);
    assert_true(pid_gone(v[0]));
    run_free(&r);
}

/* 7: without pidfd (old kernels) the exit is found by polling waitid: same results. */
static void test_without_pidfd(void **state)
{
    (void)state;
    setenv("SHC_EXEC_NO_PIDFD", "1", 1);
    run_result r = {0};
    run_cmd(&r, cmd("echo x; exit 7"));
    assert_int_equal(r.st.exit_code, 7);
    assert_string_equal(r.out.p, "x\r\n");
    assert_true(r.ms < 200); /* SIGCHLD noticed it, not the 250 ms safety poll */
    run_free(&r);
    shc_pty_opts o = cmd("sleep 300 & echo $!; wait");
    o.timeout_ms = 200;
    run_cmd(&r, o);
    assert_true(r.st.timed_out);
    pid_t v[1];
    assert_int_equal(pids_in(r.out.p, v, 1), 1);
    assert_true(pid_gone(v[0]));
    run_free(&r);
    unsetenv("SHC_EXEC_NO_PIDFD");
    int z = -1;
    assert_int_equal(shc__count_children(&z), 0);
}

/* 16 commands at once, each leaving an escaped process: every command finishes normally (no
 * sweep ends another's processes), and every escaped process is gone afterwards. */
static void test_many_concurrent_with_orphans(void **state)
{
    (void)state;
    enum { K = 16 };
    shc_loop *loop = shc_loop_new();
    shc_exec *ex = shc_exec_new(loop);
    static run_result r[K];
    char cmds[K][160];
    memset(r, 0, sizeof r);
    for (int i = 0; i < K; i++) {
        snprintf(cmds[i], sizeof cmds[i], "setsid sleep 300 & echo $!; sleep 0.%02d; echo done %d",
                 (i * 7) % 40 + 5, i);
        shc_pty_opts o = cmd(cmds[i]);
        o.on_output = rr_output;
        o.on_exit = rr_exit;
        o.payload = &r[i];
        assert_int_equal(shc_pty_spawn(&r[i].pty, ex, &o, NULL), 0);
    }
    for (;;) {
        int left = 0;
        for (int i = 0; i < K; i++)
            left += !r[i].done;
        if (!left)
            break;
        assert_int_equal(shc_loop_run_once(loop, 5000), 0);
    }
    for (int i = 0; i < K; i++) {
        shc_outbuf_append(&r[i].out, "", 1);
        char want[32];
        snprintf(want, sizeof want, "done %d\r\n", i);
        assert_int_equal(r[i].st.exit_code, 0);
        assert_non_null(strstr(r[i].out.p, want));
        pid_t v[1];
        assert_int_equal(pids_in(r[i].out.p, v, 1), 1);
        assert_true(pid_gone(v[0]));
        run_free(&r[i]);
    }
    shc_exec_free(ex);
    shc_loop_free(loop);
    int z = -1;
    assert_int_equal(shc__count_children(&z), 0);
}

/* Whether pid is gone within ms milliseconds. */
static bool gone_within(pid_t pid, int ms)
{
    for (int i = 0; i < ms; i += 5) {
        if (pid_gone(pid))
            return true;
        usleep(5000);
    }
    return pid_gone(pid);
}

static void reap_strays(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}

/* The guardian: kill -9 of the process that owns the executor ends every command it started,
 * those that escaped with setsid or nohup or ignore SIGTERM and SIGHUP included, and nothing
 * keeps the owner's stdout open afterwards. */
static void test_owner_sigkill_ends_everything(void **state)
{
    (void)state;
    char dir[] = "/tmp/shc-guard-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char pidfile[64], c[600];
    snprintf(pidfile, sizeof pidfile, "%s/pids", dir);
    snprintf(c, sizeof c,
             "setsid sleep 300 & echo $! >> %s; nohup sleep 301 >/dev/null 2>&1 & echo $! >> %s; "
             "(trap '' TERM HUP INT; exec sleep 302) & echo $! >> %s; echo $$ >> %s; sleep 303",
             pidfile, pidfile, pidfile, pidfile);
    int out[2];
    assert_int_equal(pipe(out), 0);
    pid_t owner = fork();
    assert_true(owner >= 0);
    if (owner == 0) {
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
        shc_loop *loop = shc_loop_new();
        shc_exec *ex = shc_exec_new(loop);
        shc_pty *p;
        if (!ex || shc_pty_spawn(&p, ex, &(shc_pty_opts){.command = c}, NULL) != 0)
            _exit(1);
        for (;;)
            shc_loop_run_once(loop, 1000);
    }
    close(out[1]);
    pid_t v[4];
    size_t n = 0;
    for (int i = 0; i < 500 && n < 4; i++) {
        usleep(10000);
        FILE *f = fopen(pidfile, "r");
        if (!f)
            continue;
        char buf[256] = {0};
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        buf[got] = 0;
        fclose(f);
        n = pids_in(buf, v, 4);
    }
    assert_int_equal(n, 4);
    for (size_t i = 0; i < 4; i++)
        assert_false(pid_gone(v[i]));
    kill(owner, SIGKILL);
    assert_int_equal(waitpid(owner, NULL, 0), owner);
    for (size_t i = 0; i < 4; i++)
        assert_true(gone_within(v[i], 5000));
    struct pollfd pf = {out[0], POLLIN, 0};
    assert_int_equal(poll(&pf, 1, 5000), 1);
    char b;
    assert_int_equal(read(out[0], &b, 1), 0); /* EOF: nobody holds the owner's stdout */
    close(out[0]);
    usleep(50000);
    reap_strays(); /* the guardian, re-parented to us (a subreaper) when it exited */
    unlink(pidfile);
    rmdir(dir);
}

/* A killed guardian: its commands end as killed by SIGKILL (nothing of them left), and the
 * next command starts a new guardian. */
static void test_guardian_killed(void **state)
{
    (void)state;
    shc_loop *loop = shc_loop_new();
    shc_exec *ex = shc_exec_new(loop);
    run_result r = {0}, r2 = {0};
    shc_pty_opts o = cmd("setsid sleep 300 & echo $!; sleep 300");
    o.on_output = rr_output;
    o.on_exit = rr_exit;
    o.payload = &r;
    assert_int_equal(shc_pty_spawn(&r.pty, ex, &o, NULL), 0);
    pid_t leader = shc_pty_pid(r.pty), g = shc_exec_guardian(ex);
    assert_true(g > 0);
    for (int i = 0; i < 100 && r.out.len == 0; i++)
        shc_loop_run_once(loop, 20);
    kill(g, SIGKILL);
    for (int i = 0; i < 200 && !r.done; i++)
        assert_int_equal(shc_loop_run_once(loop, 50), 0);
    assert_true(r.done);
    assert_string_equal(r.st.signal, "SIGKILL");
    assert_true(gone_within(leader, 2000));
    shc_outbuf_append(&r.out, "", 1);
    pid_t v[1];
    assert_int_equal(pids_in(r.out.p, v, 1), 1);
    assert_true(gone_within(v[0], 2000));
    o = cmd("echo again");
    o.on_output = rr_output;
    o.on_exit = rr_exit;
    o.payload = &r2;
    assert_int_equal(shc_pty_spawn(&r2.pty, ex, &o, NULL), 0);
    assert_true(shc_exec_guardian(ex) > 0 && shc_exec_guardian(ex) != g);
    while (!r2.done)
        assert_int_equal(shc_loop_run_once(loop, 5000), 0);
    shc_outbuf_append(&r2.out, "", 1);
    assert_string_equal(r2.out.p, "again\r\n");
    assert_int_equal(r2.st.exit_code, 0);
    shc_exec_free(ex);
    shc_loop_free(loop);
    run_free(&r);
    run_free(&r2);
    int z = -1;
    assert_int_equal(shc__count_children(&z), 0);
}

/* Back-pressure: a paused executor reads nothing more than the PTY's buffer, so the command
 * blocks in write(); on resume every byte arrives.  Cancel works while paused. */
static void test_pause_and_resume(void **state)
{
    (void)state;
    shc_loop *loop = shc_loop_new();
    shc_exec *ex = shc_exec_new(loop);
    run_result r = {0}, rc = {0};
    shc_pty_opts o = cmd("head -c 3000000 /dev/zero | tr '\\0' x; echo; echo END");
    o.on_output = rr_output;
    o.on_exit = rr_exit;
    o.payload = &r;
    shc_exec_pause(ex, true);
    assert_true(shc_exec_paused(ex));
    assert_int_equal(shc_pty_spawn(&r.pty, ex, &o, NULL), 0);
    o = cmd("yes");
    o.on_output = rr_output;
    o.on_exit = rr_exit;
    o.payload = &rc;
    assert_int_equal(shc_pty_spawn(&rc.pty, ex, &o, NULL), 0);
    uint64_t t0 = shc_loop_now_ms();
    while (shc_loop_now_ms() - t0 < 600)
        assert_int_equal(shc_loop_run_once(loop, 50), 0);
    assert_false(r.done);
    assert_int_equal(r.out.len, 0); /* nothing read: the writers are blocked */
    shc_pty_cancel(rc.pty);         /* cancel while paused */
    t0 = shc_loop_now_ms();
    while (!rc.done && shc_loop_now_ms() - t0 < 5000)
        assert_int_equal(shc_loop_run_once(loop, 50), 0);
    assert_true(rc.done);
    assert_true(rc.st.cancelled);
    assert_false(r.done);
    shc_exec_pause(ex, false);
    while (!r.done)
        assert_int_equal(shc_loop_run_once(loop, 5000), 0);
    assert_int_equal(r.st.exit_code, 0);
    assert_int_equal(r.out.len, 3000000 + 2 + 5);
    shc_outbuf_append(&r.out, "", 1);
    assert_string_equal(r.out.p + 3000000, "\r\nEND\r\n");
    shc_exec_free(ex);
    shc_loop_free(loop);
    run_free(&r);
    run_free(&rc);
}

/* A command waiting for terminal input (stall.h) gets the kill ladder after input_wait_ms, and
 * says so in its display and its model text; a quiet command that waits for nothing does not. */
static void test_input_wait(void **state)
{
    (void)state;
    const char *waiting[] = {
        "read x < /dev/tty; echo never",
        "echo before; kill -STOP $$; echo never",
        "python3 -c 'import getpass; getpass.getpass()'",
        "sleep 100 & kill -STOP $!; wait",
        "seq 1 5000 > /tmp/shc-less-$$; LESS= less /tmp/shc-less-$$; rm -f /tmp/shc-less-$$",
        /* polling the terminal (select) in raw mode, as a full-screen program does */
        "python3 -c 'import os,select,tty; f=os.open(\"/dev/tty\",os.O_RDWR); tty.setraw(f); "
        "select.select([f],[],[])'",
    };
    for (size_t i = 0; i < sizeof waiting / sizeof waiting[0]; i++) {
        run_result r = {0};
        shc_pty_opts o = cmd(waiting[i]);
        o.input_wait_ms = 400;
        run_cmd(&r, o);
        assert_true(r.done);
        assert_true(r.st.input_wait);
        /* each would wait forever: ending at all is the ladder's doing; the bound only catches a
         * ladder that waited for something else (python3 alone can take seconds on a busy machine) */
        assert_true(r.ms < 15000);
        assert_non_null(strstr(r.out.p, "waiting for terminal input"));
        assert_non_null(strstr(r.model, "Run it non-interactively."));
        assert_null(strstr(r.out.p, "never"));
        run_free(&r);
    }
    const char *fine[] = {
        "sleep 1; echo slept",
        "read x; echo read=$?",
        "cat; echo eof",
        /* raw mode, but polling something else: not waiting for the terminal */
        "python3 -c 'import os,select,tty; f=os.open(\"/dev/tty\",os.O_RDWR); tty.setraw(f); "
        "r,w=os.pipe(); select.select([r],[],[],1.2); select.select([r],[],[],0.3)'",
    };
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
        run_result r = {0};
        shc_pty_opts o = cmd(fine[i]);
        o.input_wait_ms = 300;
        run_cmd(&r, o);
        assert_false(r.st.input_wait);
        assert_int_equal(r.st.exit_code, 0);
        assert_null(strstr(r.out.p, "terminal input"));
        run_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_session_leader_on_pts),
        cmocka_unit_test(test_signals_reset),
        cmocka_unit_test(test_only_std_fds),
        cmocka_unit_test(test_environment_and_winsize),
        cmocka_unit_test(test_spawn_errors),
        cmocka_unit_test(test_stdin_readers_end),
        cmocka_unit_test(test_exit_status),
        cmocka_unit_test(test_timeout_kills_group),
        cmocka_unit_test(test_trap_term_gets_sigkill),
        cmocka_unit_test(test_escaped_orphans_swept),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_background_job_does_not_hold),
        cmocka_unit_test(test_no_zombies_no_fd_leaks),
        cmocka_unit_test(test_login_flag),
        cmocka_unit_test(test_tty_reader_stopped_by_timeout),
        cmocka_unit_test(test_slow_profile_honours_timeout),
        cmocka_unit_test(test_resize),
        cmocka_unit_test(test_free_while_running),
        cmocka_unit_test(test_concurrent_commands),
        cmocka_unit_test(test_login_preflight_flags_noisy_profile),
        cmocka_unit_test(test_server_child_killed),
        cmocka_unit_test(test_drain_grace_for_stragglers),
        cmocka_unit_test(test_without_pidfd),
        cmocka_unit_test(test_many_concurrent_with_orphans),
        cmocka_unit_test(test_owner_sigkill_ends_everything),
        cmocka_unit_test(test_guardian_killed),
        cmocka_unit_test(test_pause_and_resume),
        cmocka_unit_test(test_input_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
