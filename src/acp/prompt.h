/* The content blocks of session/prompt (text, resource_link, resource, image) as the backend
 * seam's prompt parts, and the session title a first prompt gives. */
#ifndef SHC_PROMPT_H
#define SHC_PROMPT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "agent/backend.h"

#define SHC_TITLE_MAX 80 /* characters of a session title, then "…" */

/* The parts of prompt (a JSON array, borrowed: the parts point into it), or NULL with *why
 * (for -32602): not an array, an empty or blank prompt, a malformed block, an image when images
 * is false, audio or an unknown type.  The array is owned (free). */
shc_prompt_part *shc__prompt_parts(json_t *prompt, bool images, size_t *n, const char **why);

/* The title: the first non-blank line of text (control characters as spaces, blanks squeezed),
 * else the first mention's name or path; capped at SHC_TITLE_MAX characters.  Owned. */
char *shc__prompt_title(const shc_prompt_part *parts, size_t n, const char *cwd);

#endif
