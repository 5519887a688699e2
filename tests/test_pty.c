/* The PTY executor with real processes on real PTYs (executor-and-performance.md §1.9).
 * Process, fds, environment, stdin, exit status, ending (timeout, cancel, orphans). */
#include "pty_run.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/wait.h>

#include "shc.h"
#include "sweep.h"

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
    const char *env[] = {"SHC_TEST_X=42", "HOME", NULL};
    shc_pty_opts o = cmd("echo \"$TERM|$NO_COLOR|$PAGER|$GIT_PAGER|$GH_PAGER|$GIT_TERMINAL_PROMPT|"
                         "$GIT_EDITOR|$LC_ALL|$PWD|$(pwd)|${TMUX-none}|${STY-none}|$SHC_TEST_X|"
                         "${HOME-unset}\"; stty size </dev/tty");
    o.cwd = "/tmp";
    o.env = env;
    run_result r = {0};
    run_cmd(&r, o);
    unsetenv("TMUX");
    unsetenv("STY");
    assert_int_equal(r.st.exit_code, 0);
    assert_string_equal(r.out.p, "dumb|1|cat|cat|cat|0|:|C.UTF-8|/tmp|/tmp|none|none|42|unset\r\n"
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
    assert_true(r.ms < 900); /* did not wait for the sleep */
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
