/* What a v2 session keeps of its own history in memory, for `session/resume` with
 * `replayFrom: {type: start}`: every session/update it sent, in the v1 form the presenter built
 * (a message chunk with the messageId it went out with, so a replayed message keeps its id),
 * consecutive output chunks of one call joined.  Replaying feeds these frames through the
 * encoder again (replay mode: a terminal becomes one snapshot).  It lives as long as the session
 * does in this process; past BR_V2_HISTORY_BYTES kept the rest of the output is not kept (the
 * cards and messages still are, up to twice that). */
#include "acp/bridge_int.h"

#include <stdlib.h>
#include <string.h>

static json_t *output_of(json_t *u)
{
    return json_object_get(json_object_get(u, "_meta"), "terminal_output");
}

/* The bytes of a frame's strings: what it costs to keep, near enough. */
static size_t weight(json_t *j)
{
    size_t n = 16, i;
    const char *k;
    json_t *v;
    if (json_is_string(j))
        return n + json_string_length(j);
    if (json_is_object(j))
        json_object_foreach(j, k, v) n += strlen(k) + weight(v);
    else if (json_is_array(j))
        json_array_foreach(j, i, v) n += weight(v);
    return n;
}

void shc__v2_history_add(br_session *s, json_t *frame)
{
    if (!frame)
        return;
    if (!output_of(frame)) {
        size_t w = weight(frame);
        if (s->v2_history_bytes + w > 2 * BR_V2_HISTORY_BYTES) {
            json_decref(frame); /* past twice the output cap nothing more is kept */
            return;
        }
        s->v2_history_bytes += w;
    }
    if (!s->v2_history && !(s->v2_history = json_array())) {
        json_decref(frame);
        return;
    }
    json_t *o = output_of(frame);
    if (o) {
        json_t *data = json_object_get(o, "data");
        size_t n = json_string_length(data);
        if (s->v2_history_bytes + n > BR_V2_HISTORY_BYTES) {
            json_decref(frame);
            return;
        }
        s->v2_history_bytes += n;
        json_t *last = json_array_get(s->v2_history, json_array_size(s->v2_history) - 1);
        json_t *lo = output_of(last);
        const char *a = json_string_value(json_object_get(last, "toolCallId"));
        const char *b = json_string_value(json_object_get(frame, "toolCallId"));
        json_t *ld = json_object_get(lo, "data");
        if (lo && a && b && !strcmp(a, b) && json_is_string(ld)) {
            /* one chunk per call while nothing came between */
            size_t m = json_string_length(ld);
            char *joined = malloc(m + n + 1);
            if (joined) {
                memcpy(joined, json_string_value(ld), m);
                memcpy(joined + m, json_string_value(data), n);
                json_object_set_new(lo, "data", json_stringn_nocheck(joined, m + n));
                free(joined);
                json_decref(frame);
                return;
            }
        }
    }
    json_array_append_new(s->v2_history, frame);
}
