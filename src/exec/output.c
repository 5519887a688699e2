#include "exec/output.h"
#include "base/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shcard.h"

/* ---------------------------------------------------------------- buffer */

int shc_outbuf_reserve(shc_outbuf *b, size_t extra)
{
    if (b->cap - b->len >= extra)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < extra) {
        if (cap > SIZE_MAX / 2)
            return SHC_E_NOMEM;
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p)
        return SHC_E_NOMEM;
    b->p = p;
    b->cap = cap;
    return 0;
}

int shc_outbuf_append(shc_outbuf *b, const void *data, size_t n)
{
    if (!n)
        return 0;
    int rc = shc_outbuf_reserve(b, n);
    if (rc)
        return rc;
    memcpy(b->p + b->len, data, n);
    b->len += n;
    return 0;
}

void shc_outbuf_consume(shc_outbuf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
        return;
    }
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
}

void shc_outbuf_free(shc_outbuf *b)
{
    if (!b)
        return;
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* ---------------------------------------------------------------- UTF-8 */

static const unsigned char REPL[3] = {0xef, 0xbf, 0xbd};


int shc_utf8_feed(shc_utf8 *u, shc_outbuf *out, const void *in, size_t n)
{
    const unsigned char *s = in;
    size_t i = 0;
    if (n > (SIZE_MAX - 16) / 3)
        return SHC_E_NOMEM;
    int rc = shc_outbuf_reserve(out, n * 3 + 12);
    if (rc)
        return rc;
    unsigned char *o = (unsigned char *)out->p + out->len;
    /* finish the character left over from the last feed */
    while (u->npend && i < n) {
        u->pend[u->npend++] = s[i++];
        size_t adv;
        int r = shc_utf8_dec(u->pend, u->npend, &adv);
        if (r == SHC_UTF8_SHORT)
            continue;
        if (r == SHC_UTF8_OK) {
            memcpy(o, u->pend, adv);
            o += adv;
        } else {
            memcpy(o, REPL, 3);
            o += 3;
            /* the old pending bytes were a valid prefix, so the bad byte came from s */
            i -= u->npend - adv;
        }
        u->npend = 0;
    }
    while (i < n) {
        /* ASCII run, eight bytes at a time */
        size_t j = i;
        while (n - j >= 8) {
            uint64_t w;
            memcpy(&w, s + j, 8);
            if (w & 0x8080808080808080ull)
                break;
            j += 8;
        }
        while (j < n && s[j] < 0x80)
            j++;
        if (j > i) {
            memcpy(o, s + i, j - i);
            o += j - i;
            i = j;
            if (i == n)
                break;
        }
        size_t adv;
        int r = shc_utf8_dec(s + i, n - i, &adv);
        if (r == SHC_UTF8_OK) {
            memcpy(o, s + i, adv);
            o += adv;
            i += adv;
        } else if (r == SHC_UTF8_BAD) {
            memcpy(o, REPL, 3);
            o += 3;
            i += adv;
        } else {
            memcpy(u->pend, s + i, n - i);
            u->npend = n - i;
            i = n;
        }
    }
    out->len = (size_t)((char *)o - out->p);
    return 0;
}

int shc_utf8_finish(shc_utf8 *u, shc_outbuf *out)
{
    if (!u->npend)
        return 0;
    u->npend = 0;
    return shc_outbuf_append(out, REPL, 3);
}

size_t shc_utf8_boundary(const char *s, size_t n)
{
    size_t k = n;
    /* step back over continuation bytes to the last lead byte */
    while (k > 0 && n - k < 4 && ((unsigned char)s[k - 1] & 0xc0) == 0x80)
        k--;
    if (k == 0)
        return n; /* not UTF-8 we produced; do not loop */
    unsigned c = (unsigned char)s[k - 1];
    size_t need = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    if (n - (k - 1) >= need)
        return n;
    return k - 1;
}

/* ---------------------------------------------------------------- tail ring */

int shc_ring_init(shc_ring *r, size_t cap)
{
    memset(r, 0, sizeof *r);
    r->cap = cap;
    if (cap) {
        r->p = malloc(cap);
        if (!r->p)
            return SHC_E_NOMEM;
    }
    return 0;
}

void shc_ring_fini(shc_ring *r)
{
    if (!r)
        return;
    free(r->p);
    memset(r, 0, sizeof *r);
}

void shc_ring_push(shc_ring *r, const void *data, size_t n)
{
    const unsigned char *s = data;
    r->total += n;
    if (!r->cap || !n)
        return;
    if (n >= r->cap) {
        memcpy(r->p, s + n - r->cap, r->cap);
        r->start = 0;
        r->len = r->cap;
        return;
    }
    size_t end = (r->start + r->len) % r->cap;
    size_t first = r->cap - end < n ? r->cap - end : n;
    memcpy(r->p + end, s, first);
    memcpy(r->p, s + first, n - first);
    r->len += n;
    if (r->len > r->cap) {
        r->start = (r->start + r->len - r->cap) % r->cap;
        r->len = r->cap;
    }
}

char *shc_ring_copy(const shc_ring *r, size_t *len, bool *truncated, uint64_t *dropped)
{
    char *out = malloc(r->len + 1);
    if (!out)
        return NULL;
    size_t first = r->cap - r->start < r->len ? r->cap - r->start : r->len;
    if (r->len) {
        memcpy(out, r->p + r->start, first);
        memcpy(out + first, r->p, r->len - first);
    }
    size_t skip = 0;
    if (r->total > r->len) /* the start was cut: move to the next lead byte */
        while (skip < r->len && ((unsigned char)out[skip] & 0xc0) == 0x80)
            skip++;
    size_t n = r->len - skip;
    memmove(out, out + skip, n);
    out[n] = 0;
    if (len)
        *len = n;
    if (truncated)
        *truncated = r->total > n;
    if (dropped)
        *dropped = r->total - n;
    return out;
}

/* ---------------------------------------------------------------- model text */

#define LINE_MAX_BYTES 65536u

enum { ST_TEXT, ST_ESC, ST_ESC_INTER, ST_CSI, ST_OSC, ST_STR, ST_STR_ESC };

int shc_model_init(shc_model *m, size_t cap)
{
    memset(m, 0, sizeof *m);
    if (cap < 16)
        cap = 16;
    m->head_cap = cap / 2;
    m->head = malloc(m->head_cap);
    if (!m->head || shc_ring_init(&m->tail, cap - m->head_cap) != 0) {
        shc_model_fini(m);
        return SHC_E_NOMEM;
    }
    return 0;
}

void shc_model_fini(shc_model *m)
{
    if (!m)
        return;
    free(m->head);
    free(m->line);
    shc_ring_fini(&m->tail);
    memset(m, 0, sizeof *m);
}

/* Text that is final (a finished line) goes to the head until it is full, then to the tail. */
static void commit(shc_model *m, const unsigned char *s, size_t n)
{
    if (!m->head_closed) {
        size_t room = m->head_cap - m->head_len;
        size_t take = n <= room ? n : shc_utf8_boundary((const char *)s, room);
        memcpy(m->head + m->head_len, s, take);
        m->head_len += take;
        s += take;
        n -= take;
        if (n)
            m->head_closed = true;
    }
    if (n)
        shc_ring_push(&m->tail, s, n);
}

static int line_reserve(shc_model *m, size_t extra)
{
    if (m->line_cap - m->line_len >= extra)
        return 0;
    size_t cap = m->line_cap ? m->line_cap * 2 : 256;
    while (cap - m->line_len < extra)
        cap *= 2;
    unsigned char *p = realloc(m->line, cap);
    if (!p)
        return SHC_E_NOMEM;
    m->line = p;
    m->line_cap = cap;
    return 0;
}

/* How many leading bytes of s[0..n) are printable ASCII (0x20-0x7e); eight at a time. */
static size_t plain_run(const unsigned char *s, size_t n)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    size_t j = 0;
    while (n - j >= 8) {
        uint64_t w;
        memcpy(&w, s + j, 8);
        uint64_t del = w ^ (ones * 0x7f);
        /* any byte >= 0x80, any byte < 0x20, any byte == 0x7f */
        if ((w & highs) || ((w - ones * 0x20) & ~w & highs) || ((del - ones) & ~del & highs))
            break;
        j += 8;
    }
    while (j < n && s[j] >= 0x20 && s[j] < 0x7f)
        j++;
    return j;
}

static size_t char_len(unsigned char c)
{
    return c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/* Writes one character at the cursor: appends at the end, overwrites one character inside. */
static int put_char(shc_model *m, const unsigned char *c, size_t n)
{
    if (m->cursor == m->line_len && m->line_len >= LINE_MAX_BYTES) {
        /* a very long line without \n: commit what we have to keep memory bounded */
        commit(m, m->line, m->line_len);
        m->line_len = m->cursor = 0;
    }
    size_t old = m->cursor < m->line_len ? char_len(m->line[m->cursor]) : 0;
    if (old > m->line_len - m->cursor)
        old = m->line_len - m->cursor;
    if (n > old && line_reserve(m, n - old) != 0)
        return SHC_E_NOMEM;
    memmove(m->line + m->cursor + n, m->line + m->cursor + old, m->line_len - m->cursor - old);
    memcpy(m->line + m->cursor, c, n);
    m->line_len = m->line_len - old + n;
    m->cursor += n;
    return 0;
}

static void csi_final(shc_model *m, unsigned char f)
{
    if (m->csi_private)
        return;
    switch (f) {
    case 'K': /* erase in line */
        if (m->csi_param == 0) {
            m->line_len = m->cursor;
        } else if (m->csi_param == 2) {
            m->line_len = m->cursor = 0;
        } else if (m->cursor) { /* 1: erase to the cursor: blank it (no line yet: nothing) */
            memset(m->line, ' ', m->cursor);
        }
        break;
    case 'G': /* cursor to column 1 (the common use: redraw the line) */
        if (m->csi_param <= 1)
            m->cursor = 0;
        break;
    default: break;
    }
}

int shc_model_feed(shc_model *m, const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        switch (m->state) {
        case ST_ESC:
            if (c == '[') {
                m->state = ST_CSI;
                m->csi_param = 0;
                m->csi_private = false;
                m->csi_more = false;
            } else if (c == ']') {
                m->state = ST_OSC;
            } else if (c == 'P' || c == 'X' || c == '^' || c == '_') {
                m->state = ST_STR;
            } else if (c >= 0x20 && c <= 0x2f) {
                m->state = ST_ESC_INTER;
            } else if (c < 0x20 || c >= 0x80) {
                m->state = ST_TEXT;
                i--; /* not a sequence after all: handle the byte as text */
            } else {
                m->state = ST_TEXT; /* two-byte sequence, dropped */
            }
            continue;
        case ST_ESC_INTER:
            if (c >= 0x30 && c <= 0x7e)
                m->state = ST_TEXT;
            else if (!(c >= 0x20 && c <= 0x2f)) {
                m->state = ST_TEXT;
                i--;
            }
            continue;
        case ST_CSI:
            if (c >= '0' && c <= '9') {
                if (!m->csi_more && m->csi_param < 100000)
                    m->csi_param = m->csi_param * 10 + (unsigned)(c - '0');
            } else if (c == '?' || c == '>' || c == '<' || c == '=') {
                m->csi_private = true;
            } else if (c >= 0x20 && c <= 0x3f) {
                /* ; : and intermediates: only the first parameter matters to us */
                m->csi_more = true;
            } else if (c >= 0x40 && c <= 0x7e) {
                csi_final(m, c);
                m->state = ST_TEXT;
            } else {
                m->state = ST_TEXT; /* broken sequence: resume as text */
                i--;
            }
            continue;
        case ST_OSC:
            if (c == 0x07 || c == 0x18 || c == 0x1a)
                m->state = ST_TEXT;
            else if (c == 0x1b)
                m->state = ST_STR_ESC;
            continue;
        case ST_STR:
            if (c == 0x18 || c == 0x1a)
                m->state = ST_TEXT;
            else if (c == 0x1b)
                m->state = ST_STR_ESC;
            continue;
        case ST_STR_ESC:
            if (c == '\\') {
                m->state = ST_TEXT;
            } else {
                m->state = ST_ESC; /* ESC began another sequence */
                i--;
            }
            continue;
        default: break;
        }
        /* ST_TEXT.  Fastest path: a whole plain line ("text\n" or "text\r\n") at the start of
         * an empty line goes straight to the head/tail, without the line buffer. */
        if (m->line_len == 0 && c >= 0x20 && c < 0x7f) {
            size_t j = i + plain_run(s + i, n - i);
            size_t eol = j < n && s[j] == '\n'                           ? 1
                         : j + 1 < n && s[j] == '\r' && s[j + 1] == '\n' ? 2
                                                                         : 0;
            if (eol && j - i < LINE_MAX_BYTES) {
                commit(m, s + i, j - i);
                commit(m, (const unsigned char *)"\n", 1);
                i = j + eol - 1;
                continue;
            }
        }
        /* Fast path: a run of printable bytes appended at the end of the line. */
        if (c >= 0x20 && c != 0x7f && m->cursor == m->line_len && m->line_len < LINE_MAX_BYTES) {
            size_t j = i + 1;
            size_t lim = i + (LINE_MAX_BYTES - m->line_len);
            if (lim > n)
                lim = n;
            while (j < lim && s[j] >= 0x20 && s[j] != 0x7f)
                j++;
            /* end the run on a character boundary (input is valid UTF-8) */
            size_t run = shc_utf8_boundary((const char *)s + i, j - i);
            if (run) {
                if (line_reserve(m, run) != 0)
                    return SHC_E_NOMEM;
                memcpy(m->line + m->line_len, s + i, run);
                m->line_len += run;
                m->cursor = m->line_len;
                i += run - 1;
                continue;
            }
        }
        if (c >= 0x80) {
            size_t len = char_len(c);
            if (len > n - i)
                len = n - i;
            if (put_char(m, s + i, len) != 0)
                return SHC_E_NOMEM;
            i += len - 1;
        } else if (c >= 0x20 && c != 0x7f) {
            if (put_char(m, &c, 1) != 0)
                return SHC_E_NOMEM;
        } else if (c == '\n') {
            if (line_reserve(m, 1) != 0)
                return SHC_E_NOMEM;
            m->line[m->line_len++] = '\n';
            commit(m, m->line, m->line_len);
            m->line_len = m->cursor = 0;
        } else if (c == '\r') {
            m->cursor = 0;
        } else if (c == '\t') {
            if (put_char(m, &c, 1) != 0)
                return SHC_E_NOMEM;
        } else if (c == '\b') {
            while (m->cursor > 0) {
                m->cursor--;
                if ((m->line[m->cursor] & 0xc0) != 0x80)
                    break;
            }
        } else if (c == 0x1b) {
            m->state = ST_ESC;
        }
        /* other C0 controls (BEL, NUL, ...) and DEL are dropped */
    }
    return 0;
}

char *shc_model_render(const shc_model *m, size_t *len)
{
    size_t tlen = 0;
    bool cut = false;
    uint64_t dropped = 0;
    char *tail = shc_ring_copy(&m->tail, &tlen, &cut, &dropped);
    if (!tail)
        return NULL;
    char marker[64];
    int mk = 0;
    if (cut)
        mk = snprintf(marker, sizeof marker, "\n\xe2\x80\xa6 %llu bytes omitted \xe2\x80\xa6\n",
                      (unsigned long long)dropped);
    size_t mlen = mk > 0 ? (size_t)mk : 0;
    size_t total = m->head_len + mlen + tlen + m->line_len;
    char *out = malloc(total + 1);
    if (!out) {
        free(tail);
        return NULL;
    }
    char *o = out;
    memcpy(o, m->head, m->head_len);
    o += m->head_len;
    memcpy(o, marker, mlen);
    o += mlen;
    memcpy(o, tail, tlen);
    o += tlen;
    if (m->line_len)
        memcpy(o, m->line, m->line_len);
    o += m->line_len;
    *o = 0;
    free(tail);
    if (len)
        *len = total;
    return out;
}
