/* The streamable HTTP transport (MCP 2025-06-18): each message the client sends is one POST
 * of JSON to the server's URL with the entry's headers, Mcp-Session-Id once the server gave
 * one, and MCP-Protocol-Version once negotiated; the answer is a JSON body or a
 * text/event-stream whose events carry the messages.  libcurl runs on the loop (model/http.c). */
#define _GNU_SOURCE
#include "mcp/mcp_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int shc__mcp_http_start(mcp_server *s)
{
    shc__mcp_up_fail(s, "HTTP servers are not supported yet");
    return -1;
}

ssize_t shc__mcp_http_write(void *io, const void *buf, size_t len)
{
    (void)io;
    (void)buf;
    (void)len;
    errno = EPIPE;
    return -1;
}

void shc__mcp_http_stop(mcp_server *s)
{
    (void)s;
}
