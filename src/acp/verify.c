/* Verified cards: a read, search or list card's command runs under the watch (src/confine/), and
 * the card follows the facts.  On the first thing such a command must not do (a write, another
 * program, the network; confine.h), when it is still running after the grace, or when it waits
 * for terminal input, the call is shown again as a terminal card (present.c:
 * shc_present_flip) with a one-line notice and the output so far, and goes on as any terminal
 * card.  Nothing is killed and what runs never changes.  The flip is stored with the session
 * (journal.h: "flip"), so a replay shows the same card, and every card that did not hold is
 * appended to the local findings file (findings.h).  Below turn.c; uses call.c, journal.c. */
#define _GNU_SOURCE
#include "acp/bridge_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acp/findings.h"
#include "classify/programs.h"

enum {
    DEFAULT_GRACE_MS = 3000,
    PRE_MAX = 256 << 10, /* output kept before a flip (a card command is expected to be short) */
    MAX_EVENTS = 32,     /* events kept per call for the findings file */
    PROFILE_POLL_MS = 100, /* while a login profile runs, how often the grace looks again */
};

struct br_verify {
    shc_confine_spec spec;
    char *programs;  /* owned: spec.programs */
    char *script;    /* owned: a bash -lc wrapper's SCRIPT, run as the login shell's command */
    int t_grace;
    bool flipped, profile; /* profile: the grace waited for a login profile to end */
    char *pre;       /* display bytes so far (valid UTF-8 chunks), up to PRE_MAX */
    size_t npre;
    uint64_t dropped;
    json_t *events;  /* owned */
    size_t nevents;
};

static const char *card_word(const br_call *c)
{
    shc_kind k = c->verdict ? c->verdict->kind : SHC_KIND_TERMINAL;
    return k == SHC_KIND_SEARCH ? "search" : k == SHC_KIND_LIST ? "list" : "read";
}

static void add_event(br_verify *v, json_t *ev)
{
    v->nevents++;
    if (ev && json_array_size(v->events) < MAX_EVENTS)
        json_array_append(v->events, ev);
    json_decref(ev);
}

/* The card becomes a terminal card (or the console card where the client has none). */
static void flip(br_call *c, const char *why)
{
    br_verify *v = c->verify;
    if (v->flipped || c->state != CALL_RUNNING)
        return;
    v->flipped = true;
    if (v->t_grace > 0)
        shc_loop_cancel_timer(c->turn->br->loop, v->t_grace);
    v->t_grace = 0;
    shc_client_caps caps = c->turn->sess->caps;
    caps.client_terminals = false; /* the command already runs here */
    c->info.card = shc_present_card(NULL, &caps);
    char notice[800];
    snprintf(notice, sizeof notice, "shcard: shown as a %s, but %s. The command was not stopped.",
             card_word(c), why);
    shc_log_info(c->turn->br->log, "%s %s: %s", c->turn->sess->id, c->id, notice);
    shc__call_send(c->turn, shc_present_flip(&c->info, notice));
    shc__rec_flip(c, notice, v->events);
    if (c->info.card == SHC_CARD_TERMINAL && v->npre) {
        json_t *u = shc_present_output(&c->info, v->pre, v->npre);
        if (u)
            shc__call_send(c->turn, u);
        shc__rec_out(c, v->pre, v->npre);
    }
    if (c->info.card == SHC_CARD_TERMINAL && v->dropped) {
        char more[96];
        snprintf(more, sizeof more, "\r\n[shcard: %llu earlier bytes not shown]\r\n",
                 (unsigned long long)v->dropped);
        shc__call_send(c->turn, shc_present_output(&c->info, more, strlen(more)));
        shc__rec_out(c, more, strlen(more));
    }
    free(v->pre);
    v->pre = NULL;
    v->npre = 0;
    shc__wire_flush(c->turn->br);
}

static void on_confine(shc_pty *pty, const shc_confine_event *ev, void *payload)
{
    (void)pty;
    br_call *c = payload;
    if (!c->verify)
        return;
    add_event(c->verify, shc_finding_event(ev));
    char text[700];
    flip(c, shc_confine_event_text(ev, text, sizeof text));
}

static void on_wait(shc_pty *pty, void *payload)
{
    (void)pty;
    br_call *c = payload;
    if (!c->verify)
        return;
    add_event(c->verify, shc_finding_fact("input", "it waited for terminal input"));
    flip(c, "it waited for terminal input");
}

static void on_grace(shc_loop *loop, void *payload)
{
    br_call *c = payload;
    br_verify *v = c->verify;
    v->t_grace = 0;
    const shc_bridge_config *cfg = &c->turn->br->cfg;
    uint64_t ms = cfg->verify_grace_ms ? cfg->verify_grace_ms : DEFAULT_GRACE_MS;
    /* a login profile's time is not the command's: the grace starts once it is over */
    if (c->pty && shc_pty_in_profile(c->pty)) {
        v->profile = true;
        v->t_grace = shc_loop_timer(loop, PROFILE_POLL_MS, on_grace, c);
        return;
    }
    if (v->profile) {
        v->profile = false;
        v->t_grace = shc_loop_timer(loop, ms, on_grace, c);
        return;
    }
    char why[96];
    snprintf(why, sizeof why, "it is still running after %.3g s", (double)ms / 1000.0);
    add_event(v, shc_finding_fact("slow", why + 3));
    flip(c, why);
}

void shc__verify_opts(br_call *c, shc_pty_opts *o)
{
    br_bridge *br = c->turn->br;
    if (br->cfg.no_verify || c->info.card != SHC_CARD_CLASSIFIED || !c->verdict ||
        c->verdict->kind == SHC_KIND_TERMINAL || c->verify)
        return;
    br_verify *v = calloc(1, sizeof *v);
    size_t plen = 0;
    if (!v || !(v->events = json_array())) {
        free(v);
        return; /* out of memory: the card runs unverified */
    }
    bool login = false;
    v->programs = shc__programs(c->command, strlen(c->command), &plen, &login);
    /* `bash -lc SCRIPT`: run as the executor's own login shell, whose profile's end the watch
     * sees (confine.h); another login wrapper (sh -lc) has its profile counted. */
    if (login && (v->script = shc__login_script(c->command, strlen(c->command)))) {
        o->command = v->script;
        o->login = true;
    }
    unsigned flags = SHC_CONFINE_WATCH | (o->login ? SHC_CONFINE_LOGIN : 0u);
    v->spec = (shc_confine_spec){.flags = flags, .programs = v->programs,
                                 .programs_len = v->programs ? plen : 0};
    c->verify = v;
    o->confine = &v->spec;
    o->on_confine = on_confine;
    o->on_wait = on_wait;
}

void shc__verify_started(br_call *c)
{
    br_verify *v = c->verify;
    br_bridge *br = c->turn->br;
    if (!v)
        return;
    if (!shc_pty_watched(c->pty)) {
        if (!br->unverified_told) {
            br->unverified_told = true;
            const char *why = NULL;
            shc_confine_available(&why);
            char text[300];
            snprintf(text, sizeof text,
                     "shcard: read, search and list cards are unverified here (%s): what such a "
                     "command does is not watched.",
                     why ? why : "the watch could not start");
            shc__journal_notice(c->turn, text);
        }
        return;
    }
    uint64_t ms = br->cfg.verify_grace_ms ? br->cfg.verify_grace_ms : DEFAULT_GRACE_MS;
    v->t_grace = shc_loop_timer(br->loop, ms, on_grace, c);
}

void shc__verify_output(br_call *c, const char *data, size_t len)
{
    br_verify *v = c->verify;
    if (!v || v->flipped)
        return;
    if (v->npre + len > PRE_MAX) {
        v->dropped += len;
        return;
    }
    char *p = realloc(v->pre, v->npre + len);
    if (!p) {
        v->dropped += len;
        return;
    }
    memcpy(p + v->npre, data, len);
    v->pre = p;
    v->npre += len;
}

void shc__verify_end(br_call *c)
{
    br_verify *v = c->verify;
    if (!v)
        return;
    c->verify = NULL;
    if (v->t_grace > 0)
        shc_loop_cancel_timer(c->turn->br->loop, v->t_grace);
    if (v->flipped) {
        int rc = shc_findings_append(c->command, c->turn->sess->cwd, card_word(c),
                                     card_word(c), c->verdict ? c->verdict->reason : NULL,
                                     v->events);
        if (rc)
            shc_log_warn(c->turn->br->log, "cannot write the findings file: %s", strerror(-rc));
    }
    json_decref(v->events);
    free(v->programs);
    free(v->script);
    free(v->pre);
    free(v);
}
