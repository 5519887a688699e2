/* A session/prompt's content blocks: checked and handed to the backend as shc_prompt_part
 * (agent/backend.h), and the session title derived from the first prompt. */
#include "acp/prompt.h"

#include <stdlib.h>
#include <string.h>

#include "agent/quote.h"
#include "base/strbuf.h"

shc_prompt_part *shc__prompt_parts(json_t *prompt, bool images, size_t *n, const char **why)
{
    *n = 0;
    if (!json_is_array(prompt) || json_array_size(prompt) == 0) {
        *why = "session/prompt: prompt must be a non-empty array of content blocks";
        return NULL;
    }
    shc_prompt_part *v = calloc(json_array_size(prompt), sizeof *v);
    if (!v) {
        *why = "out of memory";
        return NULL;
    }
    bool blank = true;
    size_t i;
    json_t *b;
    json_array_foreach(prompt, i, b)
    {
        const char *type = json_string_value(json_object_get(b, "type"));
        shc_prompt_part *p = &v[i];
        if (type && !strcmp(type, "text")) {
            json_t *t = json_object_get(b, "text");
            if (!json_is_string(t)) {
                *why = "session/prompt: a text block needs a string \"text\"";
                goto bad;
            }
            p->kind = SHC_PROMPT_TEXT;
            p->text = json_string_value(t);
            p->len = json_string_length(t);
            for (size_t k = 0; k < p->len && blank; k++)
                blank = strchr(" \t\r\n", p->text[k]) != NULL;
        } else if (type && !strcmp(type, "resource_link")) {
            p->kind = SHC_PROMPT_LINK;
            p->uri = json_string_value(json_object_get(b, "uri"));
            p->name = json_string_value(json_object_get(b, "name"));
            if (!p->uri || !*p->uri) {
                *why = "session/prompt: a resource_link block needs a string \"uri\"";
                goto bad;
            }
            blank = false;
        } else if (type && !strcmp(type, "resource")) {
            json_t *r = json_object_get(b, "resource");
            json_t *t = json_object_get(r, "text");
            p->kind = SHC_PROMPT_RESOURCE;
            p->uri = json_string_value(json_object_get(r, "uri"));
            p->mime = json_string_value(json_object_get(r, "mimeType"));
            if (!p->uri || !*p->uri || (!json_is_string(t) && !json_is_string(json_object_get(r, "blob")))) {
                *why = "session/prompt: a resource block needs resource.uri and resource.text "
                       "or resource.blob";
                goto bad;
            }
            p->text = json_string_value(t);
            p->len = json_string_length(t);
            blank = false;
        } else if (type && !strcmp(type, "image") && images) {
            json_t *d = json_object_get(b, "data");
            p->kind = SHC_PROMPT_IMAGE;
            p->mime = json_string_value(json_object_get(b, "mimeType"));
            p->uri = json_string_value(json_object_get(b, "uri"));
            if (!json_is_string(d) || !p->mime || strncmp(p->mime, "image/", 6)) {
                *why = "session/prompt: an image block needs base64 \"data\" and an image/* "
                       "\"mimeType\"";
                goto bad;
            }
            p->text = json_string_value(d);
            p->len = json_string_length(d);
            blank = false;
        } else {
            *why = images ? "session/prompt: unsupported content block (text, resource_link, "
                            "resource and image are accepted)"
                          : "session/prompt: unsupported content block (text, resource_link and "
                            "resource are accepted; images only when the model takes them)";
            goto bad;
        }
    }
    if (blank) {
        *why = "session/prompt: empty prompt";
        goto bad;
    }
    *n = json_array_size(prompt);
    return v;
bad:
    free(v);
    return NULL;
}

/* Appends s[0..n) with control characters as spaces and runs of blanks as one. */
static void put_clean(shc_strbuf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        bool space = c < 0x20 || c == 0x7f || c == ' ';
        if (space && (b->n == 0 || b->p[b->n - 1] == ' '))
            continue;
        shc_strbuf_putc(b, space ? ' ' : (char)c);
    }
}

char *shc__prompt_title(const shc_prompt_part *parts, size_t n, const char *cwd)
{
    shc_strbuf b = {0};
    for (size_t i = 0; i < n && b.n == 0; i++) {
        const shc_prompt_part *p = &parts[i];
        if (p->kind == SHC_PROMPT_TEXT) {
            /* the first line with something on it */
            const char *s = p->text, *end = p->text + p->len;
            while (s < end && b.n == 0) {
                const char *nl = memchr(s, '\n', (size_t)(end - s));
                const char *e = nl ? nl : end;
                put_clean(&b, s, (size_t)(e - s));
                s = e + 1;
            }
        } else if (p->kind == SHC_PROMPT_LINK || p->kind == SHC_PROMPT_RESOURCE) {
            char *path = p->name && *p->name ? NULL : shc_mention_path(p->uri, cwd);
            const char *t = path ? path : p->name ? p->name : "";
            put_clean(&b, t, strlen(t));
            free(path);
        }
    }
    if (b.n == 0)
        shc_strbuf_puts(&b, "Image");
    while (b.n && b.p[b.n - 1] == ' ')
        b.p[--b.n] = 0;
    /* cap at SHC_TITLE_MAX characters, at a character boundary */
    size_t chars = 0, i = 0;
    while (i < b.n && chars < SHC_TITLE_MAX) {
        i++;
        while (i < b.n && ((unsigned char)b.p[i] & 0xC0) == 0x80)
            i++;
        chars++;
    }
    if (i < b.n) {
        b.n = i;
        while (b.n && b.p[b.n - 1] == ' ')
            b.n--;
        b.p[b.n] = 0;
        shc_strbuf_puts(&b, "\xe2\x80\xa6");
    }
    return shc_strbuf_take(&b);
}
