/* A tolerant single pass over one NDJSON line, before (and whatever) the JSON parser says
 * (jsonrpc.c uses it): what the line would cost to parse, and the raw text of its top-level
 * "id", so that a request the parser rejects - invalid UTF-8, a NUL where it is not allowed,
 * nesting too deep, an id beyond 64 bits, a broken tail - is still answered with its own id.
 * Internal to acp/. */
#ifndef SHC_RPC_SCAN_H
#define SHC_RPC_SCAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct shc_rpc_scan {
    size_t structural; /* '{' '[' ',' ':' outside strings: bounds the number of values */
    size_t depth;      /* deepest nesting of objects and arrays */
    bool object;       /* the line starts with '{' */
    bool has_method;   /* a top-level "method" member */
    bool has_reply;    /* a top-level "result" or "error" member */
    const char *id;    /* raw text of the top-level "id" value (last one wins), or NULL */
    size_t id_len;
    bool id_complete;  /* the id's token ended (a string was closed, a number was followed) */
} shc_rpc_scan;

void shc__rpc_scan(const char *line, size_t len, shc_rpc_scan *out);

typedef enum shc_rpc_idkind {
    SHC_RPC_ID_NONE,    /* no id member (a notification), or nothing usable */
    SHC_RPC_ID_VALUE,   /* a string, an integer that fits 64 bits, or null: *value set */
    SHC_RPC_ID_NUMBER,  /* a valid JSON number that is not a 64-bit integer (1.5, 1e400,
                         * 2^64): echo its raw text, answer -32600 */
    SHC_RPC_ID_INVALID, /* an object, array, boolean or a malformed token: id null */
} shc_rpc_idkind;

/* Classifies the scanned id; for SHC_RPC_ID_VALUE *value is a new reference. */
shc_rpc_idkind shc__rpc_scan_id(const shc_rpc_scan *sc, json_t **value);

/* Where the first complete object or array of s[0..n) ends (several values may share a line),
 * or n. */
size_t shc__rpc_value_end(const char *s, size_t n);

#endif
