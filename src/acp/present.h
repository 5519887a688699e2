/* The presenter: the only place that knows how a verdict plus the client's capabilities become
 * ACP `tool_call` / `tool_call_update` payloads (acp-protocol.md §9).  Pure functions from
 * values to JSON; no I/O.  Classification is display-only: nothing here decides what runs.
 *
 * Ownership: every json_t * returned is a new reference owned by the caller (the `update`
 * object of a session/update notification).  Inputs are borrowed. */
#ifndef SHC_PRESENT_H
#define SHC_PRESENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "shcard.h"

/* The longest card title in characters (longer ones are cut and end with an ellipsis). */
enum { SHC_PRESENT_TITLE_MAX = 256 };

/* What the client said in `initialize`, snapshotted per session, plus the bridge's flags. */
typedef struct shc_client_caps {
    bool terminal;         /* clientCapabilities.terminal === true */
    bool terminal_output;  /* clientCapabilities._meta.terminal_output === true */
    bool client_terminals; /* --client-terminals was given */
    bool terminal_output_delta; /* clientCapabilities._meta.terminal_output_delta === true */
    bool display_terminals;     /* ACP v2: agent-owned display terminals are baseline */
    bool notices;          /* clientCapabilities.session.notices (the `notice` update) */
} shc_client_caps;

typedef enum shc_card {
    SHC_CARD_CLASSIFIED,      /* read / search / list card with locations, fenced output */
    SHC_CARD_TERMINAL,        /* live terminal card (v1 `_meta`, v2 display terminal) */
    SHC_CARD_CLIENT_TERMINAL, /* runs through the client's terminal/create */
    SHC_CARD_CONSOLE,         /* fallback: one ```console block at the end */
} shc_card;

const char *shc_card_name(shc_card card); /* "classified", "terminal", "client-terminal", "console" */

/* Which card a command gets.  v may be NULL (no classifier verdict: treated as terminal). */
shc_card shc_present_card(const shc_verdict *v, const shc_client_caps *caps);

/* One bash tool call, as the presenter needs it (all borrowed). */
typedef struct shc_call_info {
    const char *call_id;     /* toolCallId; also the `_meta` terminal id */
    const char *command;     /* exactly what runs */
    const char *cwd;         /* the session's absolute cwd */
    const char *description; /* optional text shown above a terminal card, or NULL */
    const shc_verdict *verdict; /* may be NULL */
    shc_card card;
    const char *client_terminal_id; /* SHC_CARD_CLIENT_TERMINAL: the client's id, once known */
} shc_call_info;

/* How the call ended. */
typedef struct shc_call_end {
    bool ran;           /* false: rejected, cancelled before start, or failed to spawn */
    int exit_code;      /* when ran and exited normally */
    const char *signal; /* "SIGKILL" etc. when killed by a signal, else NULL */
    const char *text;   /* output for a fenced block (classified / console cards); may be NULL */
    size_t text_len;
    const char *error;  /* when !ran: e.g. "rejected by the user" */
} shc_call_end;

/* A read/search/list card whose command did what such a command must not (the watch, src/
 * confine/): the call shown again as c->card (a live terminal card when the client has one, else
 * the console card), titled with the command, kind `execute`, notice as its first content block.
 * Sent as a `tool_call` with the same id (an upsert: v2 turns it into tool_call_update and the
 * terminal's start). */
json_t *shc_present_flip(const shc_call_info *c, const char *notice);
/* The single `tool_call` of a call.  status is "pending" (permission will be asked) or
 * "in_progress". */
json_t *shc_present_tool_call(const shc_call_info *c, const char *status);
/* The `toolCall` object of session/request_permission. */
json_t *shc_present_permission_call(const shc_call_info *c);
/* A status-only `tool_call_update` (e.g. in_progress after permission was granted). */
json_t *shc_present_status(const shc_call_info *c, const char *status);
/* A client-terminal card: the update that embeds the terminal once terminal/create answered. */
json_t *shc_present_attach_terminal(const shc_call_info *c);
/* Live output of a terminal card: data must be valid UTF-8 (see shc_utf8_stream).  Returns NULL
 * if it is not, or for other cards. */
json_t *shc_present_output(const shc_call_info *c, const char *data, size_t len);
/* The final `tool_call_update`: status completed / failed, plus what the card needs. */
json_t *shc_present_final(const shc_call_info *c, const shc_call_end *end);

/* "completed" or "failed" for an end. */
const char *shc_present_end_status(const shc_call_end *end);

/* The output as a fenced block: a fence longer than any backtick run in text, info string
 * `info` (may be ""), trailing newlines trimmed.  Returns an owned string (free) or NULL. */
char *shc_present_fence(const char *text, size_t len, const char *info);
/* The Markdown info string for a file name ("c", "python", ...; "text" when unknown). */
const char *shc_present_lang(const char *path);
/* An absolute path: path itself if absolute, else cwd joined with it ("." = cwd).  Owned. */
char *shc_present_abs_path(const char *cwd, const char *path);

/* Console text for a fenced block: ANSI/OSC/DCS sequences removed, CRLF -> LF, a bare CR
 * rewinds to the start of its line (so spinners leave their last frame), invalid UTF-8 ->
 * U+FFFD.  Returns an owned NUL-terminated string (length in *out_len) or NULL. */
char *shc_console_text(const char *in, size_t len, size_t *out_len);

/* A UTF-8 stream cleaner for terminal bytes: holds an incomplete trailing sequence for the next
 * chunk and replaces invalid bytes with U+FFFD, so every emitted piece is valid UTF-8. */
typedef struct shc_utf8_stream {
    unsigned char pend[4];
    size_t npend;
} shc_utf8_stream;

/* Appends the clean form of in[0..len) to *buf (realloc'd; *cap its capacity, *n its length).
 * With final, a held incomplete sequence becomes U+FFFD.  Returns 0 or SHC_E_NOMEM. */
int shc_utf8_stream_push(shc_utf8_stream *st, const char *in, size_t len, bool final, char **buf,
                         size_t *n, size_t *cap);

#endif
