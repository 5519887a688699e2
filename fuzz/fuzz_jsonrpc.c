/* libFuzzer target for what a client can send `shcard acp`: the bytes on its stdin.
 *
 * 1. Framing (rpc/jsonrpc.c): the same bytes fed whole, split at a point taken from the input,
 *    and one byte at a time give byte-identical output; every output frame is one line of valid
 *    JSON (ids beyond what jansson holds excepted, they are echoed raw); every request line is
 *    answered.
 * 2. Dispatch: the real bridge (acp/, agent/shell.c, exec/) reads the bytes from a pipe as its
 *    stdin (the first lines one at a time, so turns progress in between) and writes to a memory
 *    file until EOF tears it down; every frame it wrote is valid JSON.  Its commands run with
 *    /bin/true as the shell, so nothing a fuzzer writes is ever executed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "acp/bridge.h"
#include "rpc/jsonrpc.h"
#include "agent/shell.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct out {
    char *p;
    size_t len, cap;
    size_t requests;
} out;

static ssize_t out_write(void *io, const void *buf, size_t len)
{
    out *o = io;
    if (o->len + len > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 4096;
        while (cap < o->len + len)
            cap *= 2;
        char *p = realloc(o->p, cap);
        if (!p)
            abort();
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->len, buf, len);
    o->len += len;
    return (ssize_t)len;
}

static void on_msg(void *payload, shc_rpc *rpc, json_t *id, const char *method, json_t *params)
{
    (void)payload;
    if (id)
        shc_rpc_respond(rpc, id, json_pack("{s:s,s:b}", "method", method, "params", params != NULL));
}

static void frame(out *o, const uint8_t *data, size_t size, size_t step)
{
    shc_rpc_config cfg = {4096, out_write, o, on_msg, o, 0, NULL};
    shc_rpc *rpc = shc_rpc_new(&cfg);
    if (!rpc)
        abort();
    for (size_t i = 0; i < size; i += step)
        shc_rpc_feed(rpc, (const char *)data + i, size - i < step ? size - i : step);
    shc_rpc_feed_eof(rpc);
    if (shc_rpc_flush(rpc) != 0)
        abort();
    shc_rpc_free(rpc);
}

/* Every line is JSON (or carries a raw number id jansson cannot hold). */
static void check_lines(const char *p, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '\n')
            continue;
        json_error_t e;
        json_t *j = json_loadb(p + start, i - start, JSON_ALLOW_NUL, &e);
        if (!j && !strstr(e.text, "too big") && !strstr(e.text, "overflow"))
            abort();
        if (j && !json_is_object(j))
            abort();
        json_decref(j);
        start = i + 1;
    }
    if (start != n)
        abort(); /* a frame without its newline */
}

/* The client side of the pipe: the first lines one at a time with a short pause, so that the
 * bridge's turns make progress between them (a permission answer after the request it
 * answers, a cancel while a command runs), the rest at once; then EOF. */
typedef struct feeder {
    int fd;
    const uint8_t *data;
    size_t size;
} feeder;

static void *feed_lines(void *arg)
{
    feeder *f = arg;
    size_t off = 0;
    for (int line = 0; off < f->size; line++) {
        const uint8_t *nl = line < 32 ? memchr(f->data + off, '\n', f->size - off) : NULL;
        size_t n = nl ? (size_t)(nl - (f->data + off)) + 1 : f->size - off;
        for (size_t w = 0; w < n;) {
            ssize_t r = write(f->fd, f->data + off + w, n - w);
            if (r <= 0)
                goto out;
            w += (size_t)r;
        }
        off += n;
        if (nl) {
            struct timespec ts = {0, 3000000};
            nanosleep(&ts, NULL);
        }
    }
out:
    close(f->fd);
    return NULL;
}

static void bridge(const uint8_t *data, size_t size)
{
    int in[2];
    int outfd = memfd_create("fuzz-out", MFD_CLOEXEC);
    if (pipe2(in, O_CLOEXEC) != 0 || outfd < 0)
        abort();
    signal(SIGPIPE, SIG_IGN); /* the feeder learns of an early end through EPIPE */
    feeder f = {in[1], data, size};
    pthread_t th;
    if (pthread_create(&th, NULL, feed_lines, &f) != 0)
        abort();
    shc_bridge_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.backend = shc_backend_shell_new();
    cfg.approve = size && (data[0] & 1) ? SHC_APPROVE_ASK : SHC_APPROVE_ALL;
    cfg.client_terminals = size && (data[0] & 2);
    cfg.max_line = 65536;
    cfg.shell = "/bin/true";
    cfg.session_prefix = "fz_"; /* sessions are sess_fz_1, sess_fz_2...: a fuzzer can name them */
    cfg.timeout_ms = 2000;
    cfg.kill_grace_ms = 100;
    cfg.teardown_ms = 300;
    cfg.flush_ms = 300;
    cfg.in_fd = in[0];
    cfg.out_fd = outfd;
    cfg.log.level = SHC_LOG_ERROR;
    cfg.log.prefix = "fuzz";
    shc_bridge_run(&cfg);
    close(in[0]);
    pthread_join(th, NULL);
    off_t n = lseek(outfd, 0, SEEK_END);
    char *p = n > 0 ? malloc((size_t)n) : NULL;
    if (p && pread(outfd, p, (size_t)n, 0) == n)
        check_lines(p, (size_t)n);
    free(p);
    close(outfd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 200000)
        return 0;
    out whole = {0}, split = {0}, bytes = {0};
    size_t cut = size ? (size_t)data[0] % size + 1 : 1;
    frame(&whole, data, size, size ? size : 1);
    frame(&split, data, size, cut);
    frame(&bytes, data, size, 1);
    if (whole.len != split.len || whole.len != bytes.len ||
        (whole.len && (memcmp(whole.p, split.p, whole.len) || memcmp(whole.p, bytes.p, whole.len))))
        abort();
    check_lines(whole.p, whole.len);
    free(whole.p);
    free(split.p);
    free(bytes.p);
    bridge(data, size);
    return 0;
}
