#include "cli/batch.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { READ_CHUNK = 64 * 1024 };

void shc__print_json_line(const json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
        free(s);
    } else {
        fputs("{\"error\":{\"kind\":\"nomem\",\"message\":\"out of memory\"}}\n", stdout);
    }
    fflush(stdout);
}

/* What shc__print_json_line writes, appended to out. */
static void put_tree(shc_strbuf *out, const json_t *o)
{
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER) : NULL;
    if (s) {
        shc_strbuf_puts(out, s);
        shc_strbuf_putc(out, '\n');
        free(s);
    } else {
        shc_strbuf_puts(out, "{\"error\":{\"kind\":\"nomem\",\"message\":\"out of memory\"}}\n");
    }
}

static json_t *line_error(const char *kind, const char *msg, size_t lineno)
{
    json_t *o = json_object();
    json_t *e = json_object();
    json_object_set_new(e, "kind", json_string(kind));
    json_object_set_new(e, "message", json_string(msg));
    json_object_set_new(o, "error", e);
    json_object_set_new(o, "line", json_integer((json_int_t)lineno));
    return o;
}

void shc__batch_line(shc_strbuf *out,
                     shc_strbuf *scratch,
                     const char *line,
                     size_t len,
                     size_t lineno,
                     const shc_batch_ops *ops,
                     const void *payload,
                     int *status,
                     bool reference)
{
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    if (len == 0)
        return; /* blank lines are not requests */
    const char *cmd;
    size_t cmdlen;
    if (!reference && shc__batch_request(line, len, scratch, &cmd, &cmdlen)) {
        ops->write(out, cmd, cmdlen, payload, status);
        shc_strbuf_putc(out, '\n');
        return;
    }
    json_error_t err;
    json_t *req = json_loadb(line, len, JSON_ALLOW_NUL, &err);
    json_t *cmdj = req ? json_object_get(req, "cmd") : NULL;
    json_t *ans;
    if (!req) {
        char msg[256];
        snprintf(msg, sizeof msg, "invalid JSON: %s (column %d)", err.text, err.column);
        ans = line_error("json", msg, lineno);
        *status = 1;
    } else if (!json_is_string(cmdj)) {
        ans = line_error("request", "expected an object with a \"cmd\" string", lineno);
        *status = 1;
    } else if (!reference) {
        ops->write(out, json_string_value(cmdj), json_string_length(cmdj), payload, status);
        shc_strbuf_putc(out, '\n');
        json_decref(req);
        return;
    } else {
        ans = ops->tree(json_string_value(cmdj), json_string_length(cmdj), payload, status);
    }
    put_tree(out, ans);
    json_decref(ans);
    json_decref(req);
}

int shc__batch_reference(FILE *in, FILE *out, const shc_batch_ops *ops, const void *payload)
{
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t n;
    int status = 0;
    shc_strbuf ob = {0}, scratch = {0};
    while ((n = getline(&line, &cap, in)) != -1) {
        shc__batch_line(&ob, &scratch, line, (size_t)n, ++lineno, ops, payload, &status, true);
        if (ob.n)
            fwrite(ob.p, 1, ob.n, out);
        fflush(out);
        ob.n = 0;
    }
    free(line);
    shc_strbuf_free(&ob);
    shc_strbuf_free(&scratch);
    return status;
}

/* Whether fd has input now (or an end or an error to report: read will not block). */
static bool input_ready(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r;
    do
        r = poll(&p, 1, 0);
    while (r < 0 && errno == EINTR);
    return r > 0;
}

/* Writes out's bytes and empties it; false when out cannot be written (or memory ran out). */
static bool flush(shc_strbuf *ob, FILE *out)
{
    if (ob->err) {
        fputs("shcard: out of memory\n", stderr);
        return false;
    }
    if (ob->n && fwrite(ob->p, 1, ob->n, out) != ob->n)
        return false;
    ob->n = 0;
    return fflush(out) == 0;
}

int shc__batch(int fd, FILE *out, const shc_batch_ops *ops, const void *payload)
{
    size_t cap = READ_CHUNK, beg = 0, scan = 0, end = 0, lineno = 0;
    char *buf = malloc(cap);
    shc_strbuf ob = {0}, scratch = {0};
    int status = 0;
    bool eof = false, ok = buf != NULL;
    while (ok) {
        char *nl = memchr(buf + scan, '\n', end - scan);
        if (nl || (eof && beg < end)) {
            size_t len = nl ? (size_t)(nl - (buf + beg)) : end - beg;
            shc__batch_line(&ob, &scratch, buf + beg, len, ++lineno, ops, payload, &status, false);
            beg = scan = nl ? beg + len + 1 : end;
            if (ob.n >= SHC_BATCH_FLUSH || ob.err)
                ok = flush(&ob, out);
            continue;
        }
        if (eof)
            break;
        scan = end;
        /* nothing left to answer from what was read: answer now unless more is already here */
        if (ob.n && !input_ready(fd) && !(ok = flush(&ob, out)))
            break;
        if (beg > 0) {
            memmove(buf, buf + beg, end - beg);
            end -= beg;
            scan -= beg;
            beg = 0;
        }
        if (cap - end < READ_CHUNK / 2) { /* a long line: grow */
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                fputs("shcard: out of memory\n", stderr);
                ok = false;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + end, cap - end);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            eof = true; /* a read error ends the input, as it ends getline */
        else
            end += (size_t)r;
    }
    if (ok)
        ok = flush(&ob, out);
    free(buf);
    shc_strbuf_free(&ob);
    shc_strbuf_free(&scratch);
    return ok ? status : 1;
}

int shc__run_commands(const char *prog,
                      bool batch,
                      int argc,
                      char **argv,
                      int first,
                      shc_one_fn one,
                      void *payload,
                      const shc_batch_ops *each,
                      const void *batch_payload,
                      void (*usage)(FILE *))
{
    if (batch) {
        if (first < argc) {
            fprintf(stderr, "shcard %s: --batch reads commands from stdin, not arguments\n", prog);
            return 2;
        }
        fflush(stdout);
        return shc__batch(STDIN_FILENO, stdout, each, batch_payload);
    }
    if (first >= argc) {
        usage(stderr);
        return 2;
    }
    int status = 0;
    for (int i = first; i < argc; i++)
        if (one(argv[i], strlen(argv[i]), payload))
            status = 1;
    return status;
}
