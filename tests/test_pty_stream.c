/* The executor's output stream with real processes: nothing lost, UTF-8 whole, memory bounded,
 * pagers never block (executor-and-performance.md §1.9 items 4, 5, 10, 11, 12). */
#include "pty_run.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>

#include "shcard.h"

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/shc-pty-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char c[128];
    snprintf(c, sizeof c, "rm -rf '%s'", tmpdir);
    return system(c) == 0 ? 0 : -1;
}

static shc_pty_opts cmd(const char *c)
{
    shc_pty_opts o;
    memset(&o, 0, sizeof o);
    o.command = c;
    return o;
}

/* Replaces every \r\n with \n in place (the tty's ONLCR added the \r). */
static size_t crlf_to_lf(char *s, size_t n)
{
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\r' && i + 1 < n && s[i + 1] == '\n')
            continue;
        s[j++] = s[i];
    }
    return j;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* A 10 MB file arrives byte-exact (CRLF from the tty accounted for), in bounded chunks. */
static void test_10mb_byte_exact(void **state)
{
    (void)state;
    char c[256], path[128];
    snprintf(path, sizeof path, "%s/big.txt", tmpdir);
    snprintf(c, sizeof c, "head -c 7500000 /dev/urandom | base64 -w 100 > '%s'", path);
    assert_int_equal(system(c), 0);
    size_t flen;
    char *want = read_file(path, &flen);
    assert_true(flen >= 10000000);
    size_t lines = 0;
    for (size_t i = 0; i < flen; i++)
        lines += want[i] == '\n';
    snprintf(c, sizeof c, "cat '%s'", path);
    run_result r = {0};
    run_cmd(&r, cmd(c));
    assert_int_equal(r.st.exit_code, 0);
    assert_int_equal(r.bytes_read, flen + lines);
    assert_int_equal(r.out.len, flen + lines);
    assert_true(r.max_chunk <= 8192);
    assert_false(r.chunk_bad_utf8);
    size_t n = crlf_to_lf(r.out.p, r.out.len);
    assert_int_equal(n, flen);
    assert_memory_equal(r.out.p, want, flen);
    free(want);
    run_free(&r);
}

/* A 3 KB burst printed just before exit is never lost, and the status is always right. */
static void test_burst_before_exit_1000_runs(void **state)
{
    (void)state;
    char big[3001];
    for (int i = 0; i < 3000; i++)
        big[i] = (char)('a' + i % 26);
    big[3000] = 0;
    char c[3100];
    snprintf(c, sizeof c, "printf %%s '%s'; exit 3", big);
    int lost = 0, bad_status = 0;
    for (int i = 0; i < 1000; i++) {
        run_result r = {0};
        run_cmd(&r, cmd(c));
        if (r.out.len != 3000 || memcmp(r.out.p, big, 3000) != 0)
            lost++;
        if (r.st.exit_code != 3)
            bad_status++;
        run_free(&r);
    }
    assert_int_equal(lost, 0);
    assert_int_equal(bad_status, 0);
}

/* The reader comes 300 ms late: the output is still there. */
static void test_late_reader(void **state)
{
    (void)state;
    run_result r = {0};
    r.delay_ms = 300;
    run_cmd(&r, cmd("head -c 3000 /dev/zero | tr '\\0' x; echo"));
    assert_int_equal(r.out.len, 3002);
    assert_memory_equal(r.out.p + 3000, "\r\n", 2);
    assert_int_equal(r.st.exit_code, 0);
    run_free(&r);
}

static const char EURO[] = "\xe2\x82\xac";
static const char FFFD[] = "\xef\xbf\xbd";

/* "€" split across two reads arrives whole; a lone 0xff is one U+FFFD; a truncated sequence at
 * exit is exactly one U+FFFD. */
static void test_utf8_across_reads(void **state)
{
    (void)state;
    run_result r = {0};
    run_cmd(&r, cmd("printf 'a\\342\\202'; sleep 0.1; printf '\\254b'"));
    char want[16];
    snprintf(want, sizeof want, "a%sb", EURO);
    assert_string_equal(r.out.p, want);
    assert_false(r.chunk_bad_utf8);
    assert_true(r.chunks >= 2); /* it really came in two pieces */
    run_free(&r);

    run_cmd(&r, cmd("printf 'x\\360'; sleep 0.1; printf '\\237\\230\\200y'"));
    assert_string_equal(r.out.p, "x\xf0\x9f\x98\x80y");
    run_free(&r);

    run_cmd(&r, cmd("printf '\\377'"));
    assert_string_equal(r.out.p, FFFD);
    run_free(&r);

    run_cmd(&r, cmd("printf '\\342\\202'"));
    assert_string_equal(r.out.p, FFFD);
    assert_string_equal(r.model, FFFD);
    run_free(&r);
}

/* 50 MB of output: the executor's memory stays under a fixed cap (the display chunks are only
 * counted here), and the model text is head + marker + tail.  Runs first, before other tests
 * raise the peak RSS. */
typedef struct count_ctx {
    uint64_t bytes;
    size_t max_chunk;
    bool done;
    shc_pty_status st;
    char *model;
    size_t model_len;
    char *tail;
    size_t tail_len;
    bool tail_trunc;
} count_ctx;

static void count_out(shc_pty *p, const char *d, size_t n, void *payload)
{
    (void)p;
    (void)d;
    count_ctx *c = payload;
    c->bytes += n;
    if (n > c->max_chunk)
        c->max_chunk = n;
}

static void count_exit(shc_pty *p, const shc_pty_status *st, void *payload)
{
    count_ctx *c = payload;
    c->done = true;
    c->st = *st;
    c->model = shc_pty_model_text(p, &c->model_len);
    c->tail = shc_pty_tail(p, &c->tail_len, &c->tail_trunc);
}

static long vm_hwm_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6))
            v = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

static void test_50mb_memory_bounded(void **state)
{
    (void)state;
    shc_loop *loop = shc_loop_new();
    shc_exec *ex = shc_exec_new(loop);
    long before = vm_hwm_kb();
    count_ctx c;
    memset(&c, 0, sizeof c);
    shc_pty_opts o = cmd("yes | head -c 50000000");
    o.on_output = count_out;
    o.on_exit = count_exit;
    o.payload = &c;
    o.model_cap = 1u << 20;
    o.has_tail_limit = true;
    o.tail_limit = 4096;
    shc_pty *p;
    assert_int_equal(shc_pty_spawn(&p, ex, &o, NULL), 0);
    while (!c.done)
        assert_int_equal(shc_loop_run_once(loop, 5000), 0);
    long grown = vm_hwm_kb() - before;
    assert_int_equal(c.st.exit_code, 0);
    assert_int_equal(c.bytes, 75000000); /* 25M lines, each "y\r\n" */
    assert_int_equal(shc_pty_bytes_read(p), 75000000);
    assert_true(c.max_chunk <= 8192);
    /* 1 MiB model + 4 KiB tail + 64 KiB read buffer + display buffer: 8 MB is the cap */
    assert_true(grown >= 0);
    assert_true(grown < 8 * 1024);
    assert_true(c.model_len < (1u << 20) + 100);
    assert_true(c.model_len > (1u << 20) - 100);
    assert_memory_equal(c.model, "y\ny\ny\n", 6);
    const char *mk = strstr(c.model, "\n\xe2\x80\xa6 ");
    assert_non_null(mk);
    char want[64];
    snprintf(want, sizeof want, "\n\xe2\x80\xa6 %llu bytes omitted \xe2\x80\xa6\n",
             (unsigned long long)(50000000u - (1u << 20)));
    assert_memory_equal(mk, want, strlen(want));
    assert_memory_equal(c.model + c.model_len - 6, "y\ny\ny\n", 6);
    assert_int_equal(c.tail_len, 4096);
    assert_true(c.tail_trunc);
    free(c.model);
    free(c.tail);
    shc_pty_free(p);
    shc_exec_free(ex);
    shc_loop_free(loop);
}

/* The tail ring with outputByteLimit 0 keeps nothing and says so. */
static void test_tail_limit_zero(void **state)
{
    (void)state;
    shc_pty_opts o = cmd("echo hello");
    o.has_tail_limit = true;
    o.tail_limit = 0;
    run_result r = {0};
    run_cmd(&r, o);
    assert_string_equal(r.tail, "");
    assert_true(r.tail_trunc);
    assert_string_equal(r.out.p, "hello\r\n");
    assert_string_equal(r.model, "hello\n");
    run_free(&r);
}

/* Model text from a real program: progress frames collapse, colours go, CRLF becomes LF. */
static void test_model_text_from_program(void **state)
{
    (void)state;
    run_result r = {0};
    run_cmd(&r, cmd("for i in 1 2 3; do printf '\\r%d%%' $i; done; printf '\\r\\033[Kdone\\n';"
                    "printf '\\033[1;32mgreen\\033[0m\\n'"));
    assert_string_equal(r.model, "done\ngreen\n");
    assert_non_null(strstr(r.out.p, "\033[1;32m")); /* the display keeps ANSI */
    run_free(&r);
}

/* git log in a repository with 500 commits ends (pager forced to cat), even with core.pager. */
static void test_git_log_no_pager(void **state)
{
    (void)state;
    char c[512];
    snprintf(c, sizeof c,
             "cd '%s' && git init -q repo && cd repo && "
             "for i in $(seq 1 500); do printf 'commit refs/heads/master\\ncommitter T <t@x> %%d "
             "+0000\\ndata 9\\nmsg %%04d\\n\\n' $((1700000000+i)) $i; done | git fast-import "
             "--quiet && git checkout -q master",
             tmpdir);
    assert_int_equal(system(c), 0);
    char cwd[128];
    snprintf(cwd, sizeof cwd, "%s/repo", tmpdir);
    const char *cmds[] = {"git log", "git -c core.pager=less log",
                          "git -c core.pager='less -+F' log --oneline"};
    for (size_t i = 0; i < 3; i++) {
        shc_pty_opts o = cmd(cmds[i]);
        o.cwd = cwd;
        o.timeout_ms = 10000;
        run_result r = {0};
        run_cmd(&r, o);
        assert_false(r.st.timed_out);
        assert_int_equal(r.st.exit_code, 0);
        assert_non_null(strstr(r.out.p, "msg 0500"));
        assert_non_null(strstr(r.out.p, "msg 0001"));
        run_free(&r);
    }
}

/* The display stream stops at its cap and says how much it withheld; the model text does not. */
static void test_display_limit(void **state)
{
    (void)state;
    shc_pty_opts o = cmd("head -c 100000 /dev/zero | tr '\\0' x; echo; echo END");
    o.display_limit = 20000;
    run_result r = {0};
    run_cmd(&r, o);
    assert_int_equal(r.st.exit_code, 0);
    assert_true(r.out.len < 20000 + 100);
    assert_true(r.out.len > 20000 - 8192 - 100);
    const char *note = strstr(r.out.p, "\r\n[shcard: ");
    assert_non_null(note);
    char *end;
    unsigned long long hidden = strtoull(note + 11, &end, 10);
    assert_string_equal(end, " more bytes not shown]\r\n");
    assert_int_equal((size_t)(note - r.out.p) + hidden, 100000 + 2 + 5);
    assert_non_null(strstr(r.model, "END\n"));
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_50mb_memory_bounded),
        cmocka_unit_test(test_10mb_byte_exact),
        cmocka_unit_test(test_burst_before_exit_1000_runs),
        cmocka_unit_test(test_late_reader),
        cmocka_unit_test(test_utf8_across_reads),
        cmocka_unit_test(test_tail_limit_zero),
        cmocka_unit_test(test_display_limit),
        cmocka_unit_test(test_model_text_from_program),
        cmocka_unit_test(test_git_log_no_pager),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
