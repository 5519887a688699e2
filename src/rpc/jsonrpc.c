/* src/rpc/ owns the one JSON-RPC 2.0 implementation: NDJSON framing and the envelope (this
 * file) and the tolerant pre-scan of a line (rpc_scan.c).  The ACP bridge speaks it on stdio
 * and the MCP client to its servers (stdio lines, HTTP bodies and events).  May use: base/.
 *
 * NDJSON framing and JSON-RPC 2.0 envelope.  Never touches a file descriptor itself: input
 * arrives through shc_rpc_feed, output leaves through the injected write function, so tests
 * can split input at every byte and make the writer fail or stall at will. */
#include "rpc/jsonrpc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/rpc_scan.h"
#include "base/json.h"
#include "shcard.h"

typedef struct pending {
    int64_t id;
    shc_rpc_response_fn fn;
    void *payload;
} pending;

struct shc_rpc {
    shc_rpc_config cfg;
    /* input: the current partial line */
    char *in;
    size_t in_len, in_cap;
    bool discarding; /* skipping the rest of an over-long line */
    /* output queue: bytes [q_off, q_len) are still to be written */
    char *q;
    size_t q_off, q_len, q_cap;
    bool broken; /* the writer failed for good */
    bool closed; /* output closed on purpose */
    /* outgoing requests waiting for a response */
    pending *pend;
    size_t npend, pend_cap;
    int64_t next_id;
};

shc_rpc *shc_rpc_new(const shc_rpc_config *cfg)
{
    if (!cfg || !cfg->write)
        return NULL;
    shc_rpc *rpc = calloc(1, sizeof *rpc);
    if (!rpc)
        return NULL;
    rpc->cfg = *cfg;
    if (!rpc->cfg.max_line)
        rpc->cfg.max_line = SHC_RPC_MAX_LINE_DEFAULT;
    if (!rpc->cfg.max_values)
        rpc->cfg.max_values = SHC_RPC_MAX_VALUES;
    rpc->next_id = 1;
    return rpc;
}

void shc_rpc_free(shc_rpc *rpc)
{
    if (!rpc)
        return;
    shc_rpc_abandon_all(rpc);
    free(rpc->pend);
    free(rpc->in);
    free(rpc->q);
    free(rpc);
}

/* ------------------------------------------------------------------ output */

/* Makes room for n more bytes at the end of the queue (compacting, then growing). */
static int reserve(shc_rpc *rpc, size_t n)
{
    if (rpc->q_off > 0 && rpc->q_off == rpc->q_len)
        rpc->q_off = rpc->q_len = 0;
    if (rpc->q_len + n <= rpc->q_cap)
        return 0;
    if (rpc->q_off > 0) {
        memmove(rpc->q, rpc->q + rpc->q_off, rpc->q_len - rpc->q_off);
        rpc->q_len -= rpc->q_off;
        rpc->q_off = 0;
    }
    if (rpc->q_len + n <= rpc->q_cap)
        return 0;
    size_t cap = rpc->q_cap ? rpc->q_cap : 4096;
    while (cap < rpc->q_len + n)
        cap *= 2;
    char *q = realloc(rpc->q, cap);
    if (!q)
        return SHC_E_NOMEM;
    rpc->q = q;
    rpc->q_cap = cap;
    return 0;
}

/* jansson's dump callback: append straight into the queue (one pass over the message). */
static int append_cb(const char *buf, size_t size, void *data)
{
    shc_rpc *rpc = data;
    if (reserve(rpc, size + 1))
        return -1;
    memcpy(rpc->q + rpc->q_len, buf, size);
    rpc->q_len += size;
    return 0;
}

/* Serialises msg (steals it) as one line into the queue.  shc_json_write escapes every control
 * character inside strings, so a frame never holds a raw newline. */
static int send_msg(shc_rpc *rpc, json_t *msg)
{
    if (!msg)
        return SHC_E_NOMEM;
    if (rpc->broken || rpc->closed) {
        json_decref(msg);
        return SHC_E_IO;
    }
    size_t start = rpc->q_len, off = rpc->q_off;
    int rc = shc_json_write(msg, append_cb, rpc) == 0 ? 0 : SHC_E_NOMEM;
    json_decref(msg);
    if (rc == 0)
        rc = reserve(rpc, 1);
    if (rc) {
        /* drop the partial frame (reserve may have compacted the queue meanwhile) */
        rpc->q_len = start - (off - rpc->q_off);
        return rc;
    }
    rpc->q[rpc->q_len++] = '\n';
    return 0;
}

int shc_rpc_respond(shc_rpc *rpc, json_t *id, json_t *result)
{
    json_t *msg = json_pack("{s:s}", "jsonrpc", "2.0");
    if (!msg || !result) {
        json_decref(msg);
        json_decref(result);
        return SHC_E_NOMEM;
    }
    json_object_set(msg, "id", id ? id : json_null());
    json_object_set_new(msg, "result", result);
    return send_msg(rpc, msg);
}

int shc_rpc_error(shc_rpc *rpc, json_t *id, int code, const char *message, json_t *data)
{
    json_t *err = json_pack("{s:i,s:s}", "code", code, "message", message ? message : "");
    json_t *msg = json_pack("{s:s}", "jsonrpc", "2.0");
    if (!err || !msg) {
        json_decref(err);
        json_decref(msg);
        json_decref(data);
        return SHC_E_NOMEM;
    }
    if (data)
        json_object_set_new(err, "data", data);
    json_object_set(msg, "id", id ? id : json_null());
    json_object_set_new(msg, "error", err);
    return send_msg(rpc, msg);
}

/* An error whose id is a raw JSON number token (validated by the scan) that jansson cannot hold
 * exactly (1e400, 2^64): the frame is assembled around the client's own text. */
static int error_raw_id(shc_rpc *rpc, const char *raw, size_t n, int code, const char *message)
{
    if (rpc->broken || rpc->closed)
        return SHC_E_IO;
    json_t *err = json_pack("{s:i,s:s}", "code", code, "message", message);
    if (!err)
        return SHC_E_NOMEM;
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
    static const char mid[] = ",\"error\":";
    size_t start = rpc->q_len, off = rpc->q_off;
    int rc = append_cb(head, sizeof head - 1, rpc) || append_cb(raw, n, rpc) ||
                     append_cb(mid, sizeof mid - 1, rpc) || shc_json_write(err, append_cb, rpc) ||
                     append_cb("}", 1, rpc) || reserve(rpc, 1)
                 ? SHC_E_NOMEM
                 : 0;
    json_decref(err);
    if (rc) {
        rpc->q_len = start - (off - rpc->q_off);
        return rc;
    }
    rpc->q[rpc->q_len++] = '\n';
    return 0;
}

int shc_rpc_notify(shc_rpc *rpc, const char *method, json_t *params)
{
    json_t *msg = json_pack("{s:s}", "jsonrpc", "2.0");
    if (!msg) {
        json_decref(params);
        return SHC_E_NOMEM;
    }
    json_object_set_new(msg, "method", json_string(method));
    if (params)
        json_object_set_new(msg, "params", params);
    return send_msg(rpc, msg);
}

int shc_rpc_request(shc_rpc *rpc, const char *method, json_t *params, shc_rpc_response_fn fn,
                    void *payload, int64_t *id_out)
{
    if (rpc->broken || rpc->closed) {
        json_decref(params);
        return SHC_E_IO;
    }
    if (rpc->npend == rpc->pend_cap) {
        size_t cap = rpc->pend_cap ? rpc->pend_cap * 2 : 8;
        pending *p = realloc(rpc->pend, cap * sizeof *p);
        if (!p) {
            json_decref(params);
            return SHC_E_NOMEM;
        }
        rpc->pend = p;
        rpc->pend_cap = cap;
    }
    int64_t id = rpc->next_id++;
    json_t *msg = json_pack("{s:s}", "jsonrpc", "2.0");
    if (!msg) {
        json_decref(params);
        return SHC_E_NOMEM;
    }
    json_object_set_new(msg, "id", json_integer(id));
    json_object_set_new(msg, "method", json_string(method));
    if (params)
        json_object_set_new(msg, "params", params);
    int rc = send_msg(rpc, msg);
    if (rc)
        return rc;
    rpc->pend[rpc->npend++] = (pending){id, fn, payload};
    if (id_out)
        *id_out = id;
    return 0;
}

void shc_rpc_forget(shc_rpc *rpc, int64_t id)
{
    for (size_t i = 0; i < rpc->npend; i++) {
        if (rpc->pend[i].id == id) {
            rpc->pend[i] = rpc->pend[--rpc->npend];
            return;
        }
    }
}

void shc_rpc_abandon_all(shc_rpc *rpc)
{
    /* callbacks may send or forget: take them one at a time */
    while (rpc->npend > 0) {
        pending p = rpc->pend[--rpc->npend];
        if (p.fn)
            p.fn(p.payload, NULL, NULL);
    }
}

int shc_rpc_flush(shc_rpc *rpc)
{
    if (rpc->broken)
        return SHC_E_IO;
    while (rpc->q_off < rpc->q_len) {
        ssize_t w = rpc->cfg.write(rpc->cfg.io, rpc->q + rpc->q_off, rpc->q_len - rpc->q_off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 1;
            rpc->broken = true;
            rpc->q_off = rpc->q_len = 0;
            return SHC_E_IO;
        }
        if (w == 0)
            return 1;
        rpc->q_off += (size_t)w;
    }
    rpc->q_off = rpc->q_len = 0;
    if (rpc->q_cap > ((size_t)1 << 20)) { /* give back a big queue once it drained */
        free(rpc->q);
        rpc->q = NULL;
        rpc->q_cap = 0;
    }
    return 0;
}

const char *shc_rpc_str(const json_t *v)
{
    const char *s = json_string_value(v);
    return s && strlen(s) == json_string_length(v) ? s : NULL;
}

size_t shc_rpc_queued(const shc_rpc *rpc)
{
    return rpc->q_len - rpc->q_off;
}

bool shc_rpc_broken(const shc_rpc *rpc)
{
    return rpc->broken;
}

void shc_rpc_close_output(shc_rpc *rpc)
{
    rpc->closed = true;
}

/* ------------------------------------------------------------------ input */

static bool valid_id(const json_t *id)
{
    return json_is_string(id) || json_is_integer(id) || json_is_null(id);
}

/* Calls (and forgets) the pending request n with result or error; false if none. */
static bool answer_pending(shc_rpc *rpc, int64_t n, json_t *result, json_t *error)
{
    for (size_t i = 0; i < rpc->npend; i++) {
        if (rpc->pend[i].id != n)
            continue;
        pending p = rpc->pend[i];
        rpc->pend[i] = rpc->pend[--rpc->npend];
        if (p.fn)
            p.fn(p.payload, result, error);
        return true;
    }
    return false;
}

static void handle_response(shc_rpc *rpc, json_t *msg)
{
    json_t *id = json_object_get(msg, "id");
    if (!json_is_integer(id))
        return; /* not one of ours: nothing to answer to a response */
    json_t *result = json_object_get(msg, "result");
    json_t *error = json_object_get(msg, "error");
    if (error)
        result = NULL;
    else if (!result)
        result = json_null();
    answer_pending(rpc, (int64_t)json_integer_value(id), result, error);
}

/* The answer to a message we do not take (steals data), or its report to on_invalid. */
static void invalid(shc_rpc *rpc, json_t *id, int code, const char *message, json_t *data)
{
    if (rpc->cfg.on_invalid)
        json_decref(data), rpc->cfg.on_invalid(rpc->cfg.payload, message);
    else
        shc_rpc_error(rpc, id, code, message, data);
}

/* An answer to a request that cannot be processed, with the request's own id whenever the scan
 * recovered one (a parser error must not leave a client waiting forever). */
static void reject(shc_rpc *rpc, const shc_rpc_scan *sc, int code, const char *message,
                   json_t *data)
{
    json_t *id = NULL;
    shc_rpc_idkind k = shc__rpc_scan_id(sc, &id);
    if (k == SHC_RPC_ID_NUMBER && !rpc->cfg.on_invalid) {
        json_decref(data);
        error_raw_id(rpc, sc->id, sc->id_len, code, message);
        return;
    }
    invalid(rpc, id, code, message, data);
    json_decref(id);
}

static void handle_value(shc_rpc *rpc, const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
        i++;
    if (i == len)
        return; /* blank line: nothing to do */
    shc_rpc_scan sc;
    shc__rpc_scan(line, len, &sc);
    bool response = sc.object && !sc.has_method && sc.has_reply;
    json_t *sid = NULL;
    shc_rpc_idkind idk = shc__rpc_scan_id(&sc, &sid);
    if (response) {
        /* a client's answer to one of our requests: never answered; if it cannot be read, the
         * request it answers still ends, with an error */
        json_error_t jerr;
        bool oom = false;
        json_t *msg = sc.structural <= rpc->cfg.max_values && sc.depth <= SHC_RPC_MAX_DEPTH
                          ? shc_json_load_guarded(line, len, JSON_ALLOW_NUL, &jerr, &oom)
                          : NULL;
        if (msg && json_is_object(msg))
            handle_response(rpc, msg);
        else if (idk == SHC_RPC_ID_VALUE && json_is_integer(sid)) {
            json_t *e = json_pack("{s:i,s:s}", "code",
                                  oom ? SHC_RPC_INTERNAL_ERROR : SHC_RPC_PARSE_ERROR, "message",
                                  oom ? "out of memory reading the client's response"
                                      : "the client's response could not be parsed");
            answer_pending(rpc, (int64_t)json_integer_value(sid), NULL, e);
            json_decref(e);
        }
        json_decref(msg);
        json_decref(sid);
        return;
    }
    json_decref(sid);
    if (idk == SHC_RPC_ID_NUMBER) {
        reject(rpc, &sc, SHC_RPC_INVALID_REQUEST,
               "Invalid Request: id must be a string, a 64-bit integer or null", NULL);
        return;
    }
    if (sc.structural > rpc->cfg.max_values || sc.depth > SHC_RPC_MAX_DEPTH) {
        char why[128];
        snprintf(why, sizeof why, "Invalid Request: more than %zu values or %d levels of nesting",
                 rpc->cfg.max_values, SHC_RPC_MAX_DEPTH);
        reject(rpc, &sc, SHC_RPC_INVALID_REQUEST, why, NULL);
        return;
    }
    json_error_t jerr;
    bool oom = false;
    json_t *msg = shc_json_load_guarded(line, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr, &oom);
    if (oom) {
        reject(rpc, &sc, SHC_RPC_INTERNAL_ERROR, "Internal error: out of memory", NULL);
        return;
    }
    if (!msg) {
        reject(rpc, &sc, SHC_RPC_PARSE_ERROR, "Parse error",
               json_pack("{s:s,s:i}", "details", jerr.text, "position", jerr.position));
        return;
    }
    if (!json_is_object(msg)) {
        invalid(rpc, NULL, SHC_RPC_INVALID_REQUEST,
                json_is_array(msg) ? "Invalid Request: batch arrays are not supported"
                                   : "Invalid Request: a message must be a JSON object", NULL);
        goto done;
    }
    json_t *id = json_object_get(msg, "id");
    json_t *method = json_object_get(msg, "method");
    json_t *ver = json_object_get(msg, "jsonrpc");
    if (id && !valid_id(id)) {
        invalid(rpc, json_is_real(id) ? id : NULL, SHC_RPC_INVALID_REQUEST,
                "Invalid Request: id must be a string, a 64-bit integer or null", NULL);
        goto done;
    }
    if (!json_is_string(ver) || strcmp(json_string_value(ver), "2.0") != 0) {
        if (id || method || rpc->cfg.on_invalid)
            invalid(rpc, id, SHC_RPC_INVALID_REQUEST,
                    "Invalid Request: \"jsonrpc\" must be \"2.0\"", NULL);
        goto done;
    }
    if (!method) {
        if (id && (json_object_get(msg, "result") || json_object_get(msg, "error")))
            handle_response(rpc, msg);
        else
            invalid(rpc, id, SHC_RPC_INVALID_REQUEST, "Invalid Request: no method", NULL);
        goto done;
    }
    if (!json_is_string(method)) {
        invalid(rpc, id, SHC_RPC_INVALID_REQUEST, "Invalid Request: method must be a string",
                NULL);
        goto done;
    }
    if (!shc_rpc_str(method)) { /* a NUL inside: no method of ours has one */
        if (id || rpc->cfg.on_invalid)
            invalid(rpc, id, SHC_RPC_METHOD_NOT_FOUND, "Method not found", NULL);
        goto done;
    }
    if (rpc->cfg.on_message)
        rpc->cfg.on_message(rpc->cfg.payload, rpc, id, json_string_value(method),
                            json_object_get(msg, "params"));
    else if (id)
        shc_rpc_error(rpc, id, SHC_RPC_METHOD_NOT_FOUND, "Method not found", NULL);
done:
    json_decref(msg);
}

/* A line may carry several JSON values back to back ({"id":1,...}{"id":2,...}): a client sent
 * each as a message, so each is handled (or answered with an error under its own id). */
static void handle_line(shc_rpc *rpc, const char *line, size_t len)
{
    for (;;) {
        size_t end = shc__rpc_value_end(line, len), k = end;
        while (k < len && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r'))
            k++;
        if (k >= len) {
            handle_value(rpc, line, len);
            return;
        }
        handle_value(rpc, line, end);
        line += k;
        len -= k;
    }
}

static int append_in(shc_rpc *rpc, const char *s, size_t n)
{
    if (rpc->in_len + n > rpc->in_cap) {
        size_t cap = rpc->in_cap ? rpc->in_cap : 4096;
        while (cap < rpc->in_len + n)
            cap *= 2;
        char *p = realloc(rpc->in, cap);
        if (!p)
            return SHC_E_NOMEM;
        rpc->in = p;
        rpc->in_cap = cap;
    }
    memcpy(rpc->in + rpc->in_len, s, n);
    rpc->in_len += n;
    return 0;
}

/* A line that is dropped (too long, or no memory to hold it): start[0..n) is its beginning, where
 * its id usually is; the request is answered with code and msg. */
static void drop_line(shc_rpc *rpc, const char *start, size_t n, int code, const char *msg)
{
    shc_rpc_scan sc;
    shc__rpc_scan(start, n, &sc);
    if (sc.object && !sc.has_method && sc.has_reply) {
        /* an answer of the client's: never answered, but the request it answers ends */
        json_t *id = NULL;
        if (shc__rpc_scan_id(&sc, &id) == SHC_RPC_ID_VALUE && json_is_integer(id)) {
            json_t *e = json_pack("{s:i,s:s}", "code", code, "message", msg);
            answer_pending(rpc, (int64_t)json_integer_value(id), NULL, e);
            json_decref(e);
        }
        json_decref(id);
    } else {
        reject(rpc, &sc, code, msg, NULL);
    }
    rpc->in_len = 0;
    if (rpc->in_cap > 65536) {
        free(rpc->in);
        rpc->in = NULL;
        rpc->in_cap = 0;
    }
}

static void too_long(shc_rpc *rpc, const char *start, size_t n)
{
    char msg[128];
    snprintf(msg, sizeof msg, "Invalid Request: line longer than %zu bytes", rpc->cfg.max_line);
    drop_line(rpc, start, n, SHC_RPC_INVALID_REQUEST, msg);
}

int shc_rpc_feed(shc_rpc *rpc, const char *buf, size_t len)
{
    while (len > 0) {
        const char *nl = memchr(buf, '\n', len);
        size_t chunk = nl ? (size_t)(nl - buf) : len;
        if (rpc->discarding) {
            if (nl)
                rpc->discarding = false;
        } else if (rpc->in_len + chunk > rpc->cfg.max_line) {
            /* the id is looked for in the line's first max_line bytes, however it was split */
            size_t k = rpc->cfg.max_line - rpc->in_len;
            if (!rpc->in_len)
                too_long(rpc, buf, k);
            else if (append_in(rpc, buf, k) == 0)
                too_long(rpc, rpc->in, rpc->in_len);
            else
                too_long(rpc, rpc->in, rpc->in_len); /* out of memory: what we have */
            rpc->discarding = nl == NULL;
        } else if (nl && rpc->in_len == 0) {
            handle_line(rpc, buf, chunk); /* the common case: no copy */
        } else {
            if (append_in(rpc, buf, chunk)) {
                /* never a line with a piece missing: the rest of it is skipped and the
                 * request answered from what we hold */
                drop_line(rpc, rpc->in_len ? rpc->in : buf, rpc->in_len ? rpc->in_len : chunk,
                          SHC_RPC_INTERNAL_ERROR, "Internal error: out of memory");
                rpc->discarding = nl == NULL;
                if (!nl)
                    break;
                buf += chunk + 1;
                len -= chunk + 1;
                continue;
            }
            if (nl) {
                size_t n = rpc->in_len;
                rpc->in_len = 0;
                handle_line(rpc, rpc->in, n);
                if (rpc->in_cap > ((size_t)1 << 20)) { /* a big line's buffer goes back */
                    free(rpc->in);
                    rpc->in = NULL;
                    rpc->in_cap = 0;
                }
            }
        }
        if (!nl)
            break;
        buf += chunk + 1;
        len -= chunk + 1;
    }
    return 0;
}

void shc_rpc_feed_eof(shc_rpc *rpc)
{
    if (!rpc->discarding && rpc->in_len > 0) {
        size_t n = rpc->in_len;
        rpc->in_len = 0;
        handle_line(rpc, rpc->in, n);
    }
    rpc->discarding = false;
    rpc->in_len = 0;
}
