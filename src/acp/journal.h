/* The journal: what happened in a session, appended to its store file as it happens (store.h),
 * and read back by replay.c.  Records say what happened, not how ACP v1 framed it, so another
 * wire dialect can replay them through its own presenter.  One JSON object per line:
 *
 *   {"t":"session","v":1,"id":ID,"cwd":DIR,"created":ISO-8601,"agent":"shell"|"openai"}  first
 *   {"t":"title","title":T,"at":ISO-8601}         from the first prompt
 *   {"t":"prompt","blocks":[...],"mid":M?}        the prompt's content blocks as the client sent
 *                                                 them; mid the message id a v2 client got
 *   {"t":"text","kind":"message"|"thought","text":T}   each agent message / thought chunk
 *   {"t":"call","id":C,"command":..,"description":..?,"cwd":DIR,"card":CARD,"status":S,
 *    "kind":"read"|"search"|"list"|"terminal","title":..,"path":..?,"line":N?,
 *    "locations":[{"path":..,"line":N?}]}         a bash call and its classification (the
 *                                                 verdict's facts the presenter reads); CARD is
 *                                                 the card it had live, S "pending" (asked) or
 *                                                 "in_progress"
 *   {"t":"status","id":C,"status":S}              e.g. in_progress once permission was given
 *   {"t":"flip","id":C,"notice":N,"events":[..]}  the watch saw a read/search/list command do
 *                                                 what it must not: from here the call is a
 *                                                 terminal card (its out records follow)
 *   {"t":"out","id":C,"data":D}                   a terminal card's output as streamed, up to
 *                                                 half the output cap (the head)
 *   {"t":"end","id":C,"ran":B,"exit_code":N|null,"signal":S|null,"error":E|null,"text":T,
 *    "tail":T?}                                   the end: text is the console text (ANSI
 *                                                 applied, head+tail with the "… N bytes omitted
 *                                                 …" marker); tail the marker and the last half
 *                                                 of a terminal stream longer than the cap
 *   {"t":"mcp_call","id":C,"title":T,"kind":K,"status":S,"input":{..}}   an MCP tool call
 *                                                 (acp/mcpcall.c): its card's facts
 *   {"t":"mcp_end","id":C,"status":S,"text":T}    its end: completed / failed, the text
 *   {"t":"turn","stop":R,"error":E?}              a prompt was answered
 *   {"t":"model","i":N,"entry":{..}}              the backend's conversation: entry N (and none
 *   {"t":"model","i":N}                           after it), or cut back to N entries
 *   {"t":"usage","used":N,"size":N}               usage_update
 *   {"t":"config","id":"mode"|"model","value":V}  a setting changed
 *   {"t":"capped"} / {"t":"skipped","what":T}     written by store.c (per-session cap, a record
 *                                                 over the record limit)
 *
 * A session's file is created with its first record (a session nothing happened in leaves no
 * file), starting with the "session" record and the mode it has.  Every function here is a
 * no-op without a store; a failed create or write is logged once and the session goes on
 * unrecorded. */
#ifndef SHC_JOURNAL_H
#define SHC_JOURNAL_H

#include <jansson.h>
#include <stddef.h>

#include "acp/present.h"
#include "agent/backend.h"

typedef struct br_bridge br_bridge;
typedef struct br_session br_session;
typedef struct br_turn br_turn;
typedef struct br_call br_call;

void shc__rec_put(br_session *s, json_t *rec /* steals */); /* any record */
void shc__rec_title(br_session *s, const char *title, const char *at);
/* mid: the user message's id (v2), or NULL */
void shc__rec_prompt(br_session *s, json_t *blocks /* borrowed */, const char *mid);
void shc__rec_text(br_session *s, const char *kind, const char *text, size_t len);
void shc__rec_call(br_call *c, const char *status);
void shc__rec_status(br_call *c, const char *status);
void shc__rec_flip(br_call *c, const char *notice, json_t *events /* borrowed */);
/* A terminal card's output: the head goes to the store at once, the rest into the call's tail
 * ring until rec_end. */
void shc__rec_out(br_call *c, const char *data, size_t len);
void shc__rec_end(br_call *c, const shc_call_end *end, const char *text, size_t len);
void shc__rec_turn(br_turn *t, const char *stop, const char *error);
void shc__rec_config(br_session *s, const char *id, const char *value);

/* The backend host callbacks that are not about the turn's cards: the conversation (into the
 * store), usage_update and notices (to the client).  payload is the turn. */
void shc__journal_history(void *payload, size_t index, const char *entry);
void shc__journal_usage(void *payload, uint64_t used, uint64_t size);
void shc__journal_notice(void *payload, const char *text);

#endif
