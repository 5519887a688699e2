/* Cards that did not hold: the events of a watched command as JSON, and the local findings file
 * they are appended to (one JSON object a line) so that a case can be made of each
 * (tests/findings_to_corpus.py).  Shared by the bridge and `shcard run --verify`. */
#ifndef SHC_FINDINGS_H
#define SHC_FINDINGS_H

#include <jansson.h>

#include "confine/confine.h"

/* {"what","syscall","detail","pid"}; a new reference or NULL. */
json_t *shc_finding_event(const shc_confine_event *ev);
/* {"what":"slow","detail":"still running after N s"} and {"what":"input",...}: the two facts
 * that are no system call. */
json_t *shc_finding_fact(const char *what, const char *detail);
/* One line for people from an event object above: "it ran `touch`". */
const char *shc_finding_text(json_t *ev, char *buf, size_t cap);

/* The file: $SHCARD_FINDINGS, else $XDG_STATE_HOME/shcard/findings.jsonl, else
 * ~/.local/state/shcard/findings.jsonl (directories made 0700).  Appends
 * {"at","cmd","cwd","card","kind","reason","events"}; events is borrowed.  0, or -errno (the
 * caller logs it; nothing else depends on it). */
int shc_findings_append(const char *cmd, const char *cwd, const char *card, const char *kind,
                        const char *reason, json_t *events);

#endif
