/* Shell mode: the offline backend of `shcard acp`.  Each non-empty line of the prompt text is one
 * bash tool call, run in order; the turn ends end_turn with a one-line summary message. */
#ifndef SHC_BACKEND_SHELL_H
#define SHC_BACKEND_SHELL_H

#include "agent/backend.h"

/* Returns an owned backend (free with be->ops->free) or NULL. */
shc_backend *shc_backend_shell_new(void);

#endif
