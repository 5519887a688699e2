/* libFuzzer target for the --batch fast path (cli/batch.h): it must give the bytes the
 * reference path gives (jansson reads every line, answers are built as trees and dumped).
 *   - the input as one command: the one-pass writers (verdict_write.c, dump_write.c) against
 *     json_dumps of the jansson trees, for explain and parse, with and without unwrapping
 *     (explain also in the bridge context);
 *   - the input as lines of requests: shc__batch_line fast against reference, answer and status;
 *   - each line the fast reader accepts: jansson accepts it too, as an object whose only member
 *     is "cmd", a string with exactly the bytes the fast reader decoded.
 * Never executes anything. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "cli/batch.h"
#include "shcard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const shc_strbuf *a, const shc_strbuf *b)
{
    if (a->err || b->err || a->n != b->n || (a->n && memcmp(a->p, b->p, a->n) != 0))
        abort();
}

static void one_command(const shc_batch_ops *ops, const char *cmd, size_t len, const void *pl)
{
    shc_strbuf fast = {0}, ref = {0};
    int sf = 0, sr = 0;
    ops->write(&fast, cmd, len, pl, &sf);
    json_t *t = ops->tree(cmd, len, pl, &sr);
    char *s = t ? json_dumps(t, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER) : NULL;
    if (!s)
        abort();
    shc_strbuf_puts(&ref, s);
    free(s);
    json_decref(t);
    same(&fast, &ref);
    if (sf != sr)
        abort();
    shc_strbuf_free(&fast);
    shc_strbuf_free(&ref);
}

static void check_reader(const char *line, size_t len, shc_strbuf *scratch)
{
    const char *cmd;
    size_t n;
    if (!shc__batch_request(line, len, scratch, &cmd, &n))
        return;
    json_error_t err;
    json_t *req = json_loadb(line, len, JSON_ALLOW_NUL, &err);
    json_t *c = req ? json_object_get(req, "cmd") : NULL;
    if (!req || json_object_size(req) != 1 || !json_is_string(c) || json_string_length(c) != n ||
        memcmp(json_string_value(c), cmd, n) != 0)
        abort();
    json_decref(req);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    shc_classify_opts copts = SHC_CLASSIFY_OPTS_INIT;
    for (int unwrap = 0; unwrap < 2; unwrap++) {
        bool u = unwrap != 0;
        copts.no_unwrap = !u;
        copts.context = unwrap ? SHC_CONTEXT_BRIDGE : SHC_CONTEXT_ANY;
        one_command(&shc__explain_batch, in, size, &copts);
        one_command(&shc__parse_batch, in, size, &u);
    }
    copts.no_unwrap = false;
    copts.context = SHC_CONTEXT_ANY;
    bool u = true;
    shc_strbuf scratch = {0};
    size_t lineno = 0;
    for (size_t beg = 0; beg < size;) {
        const char *nl = memchr(in + beg, '\n', size - beg);
        size_t len = nl ? (size_t)(nl - (in + beg)) : size - beg;
        lineno++;
        check_reader(in + beg, len, &scratch);
        for (int p = 0; p < 2; p++) {
            const shc_batch_ops *ops = p ? &shc__parse_batch : &shc__explain_batch;
            const void *pl = p ? (const void *)&u : (const void *)&copts;
            shc_strbuf fast = {0}, ref = {0};
            int sf = 0, sr = 0;
            shc__batch_line(&fast, &scratch, in + beg, len, lineno, ops, pl, &sf, false);
            shc__batch_line(&ref, &scratch, in + beg, len, lineno, ops, pl, &sr, true);
            same(&fast, &ref);
            if (sf != sr)
                abort();
            shc_strbuf_free(&fast);
            shc_strbuf_free(&ref);
        }
        beg += len + 1;
    }
    shc_strbuf_free(&scratch);
    return 0;
}
