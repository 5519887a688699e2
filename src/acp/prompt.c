/* A session/prompt's content blocks: checked against the schema's types and handed to the
 * backend as shc_prompt_part (agent/backend.h; shell mode lays them out as lines in
 * agent/quote.c), and the session title derived from the first prompt.  A string that holds a
 * NUL byte, or a file URI that decodes to one, is refused: no backend ever sees one. */
#include "acp/prompt.h"
#include "rpc/jsonrpc.h"

#include <stdlib.h>
#include <string.h>

#include "agent/quote.h"
#include "base/utf8.h"
#include "base/strbuf.h"

/* A string member with no NUL byte, or NULL (*nul says the string was there but held one). */
static const char *member(json_t *o, const char *key, bool *nul)
{
    json_t *v = json_object_get(o, key);
    const char *s = shc_rpc_str(v);
    if (!s && json_is_string(v))
        *nul = true;
    return s;
}

/* A URI a mention may carry: no NUL in it, nor in the path it decodes to. */
static bool uri_ok(const char *uri)
{
    size_t len;
    bool nul = false;
    free(shc_file_uri_path(uri, &len, &nul));
    return !nul;
}

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
    bool blank = true, nul = false;
    size_t i;
    json_t *b;
    json_array_foreach(prompt, i, b)
    {
        const char *type = shc_rpc_str(json_object_get(b, "type"));
        shc_prompt_part *p = &v[i];
        if (type && !strcmp(type, "text")) {
            p->text = member(b, "text", &nul);
            if (!p->text) {
                *why = nul ? "session/prompt: a text block holds a NUL character"
                           : "session/prompt: a text block needs a string \"text\"";
                goto bad;
            }
            p->kind = SHC_PROMPT_TEXT;
            p->len = strlen(p->text);
            for (size_t k = 0; k < p->len && blank; k++)
                blank = strchr(" \t\r\n", p->text[k]) != NULL;
        } else if (type && !strcmp(type, "resource_link")) {
            p->kind = SHC_PROMPT_LINK;
            p->uri = member(b, "uri", &nul);
            p->name = member(b, "name", &nul);
            if (!p->uri || !*p->uri || nul || !uri_ok(p->uri)) {
                *why = nul || (p->uri && *p->uri)
                           ? "session/prompt: a resource_link's uri or name holds a NUL character"
                           : "session/prompt: a resource_link block needs a string \"uri\"";
                goto bad;
            }
            blank = false;
        } else if (type && !strcmp(type, "resource")) {
            json_t *r = json_object_get(b, "resource");
            p->kind = SHC_PROMPT_RESOURCE;
            p->uri = member(r, "uri", &nul);
            p->mime = member(r, "mimeType", &nul);
            p->text = member(r, "text", &nul);
            p->len = p->text ? strlen(p->text) : 0;
            if (!p->uri || !*p->uri || nul || !uri_ok(p->uri) ||
                (!p->text && !json_is_string(json_object_get(r, "blob")))) {
                *why = nul ? "session/prompt: a resource block holds a NUL character"
                           : "session/prompt: a resource block needs resource.uri and "
                             "resource.text or resource.blob";
                goto bad;
            }
            blank = false;
        } else if (type && !strcmp(type, "image") && images) {
            p->kind = SHC_PROMPT_IMAGE;
            p->mime = member(b, "mimeType", &nul);
            p->uri = member(b, "uri", &nul);
            p->text = member(b, "data", &nul);
            if (!p->text || nul || !p->mime || strncmp(p->mime, "image/", 6)) {
                *why = "session/prompt: an image block needs base64 \"data\" and an image/* "
                       "\"mimeType\"";
                goto bad;
            }
            p->len = strlen(p->text);
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

/* Appends s[0..n) with control characters as spaces, runs of blanks as one, and a byte that
 * is not UTF-8 (a mention's decoded path may hold any) as U+FFFD: a title is always a string. */
static void put_clean(shc_strbuf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t adv = 1;
        if (c >= 0x80) {
            if (shc_utf8_dec((const unsigned char *)s + i, n - i, &adv) == SHC_UTF8_OK && adv)
                shc_strbuf_put(b, s + i, adv);
            else
                shc_strbuf_puts(b, "\xef\xbf\xbd");
            i += (adv ? adv : 1) - 1;
            continue;
        }
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
            size_t plen;
            char *path = p->name && *p->name ? NULL : shc_mention_path(p->uri, cwd, &plen);
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
