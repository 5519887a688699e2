#include "base/fmt.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct out {
    char *buf;
    size_t cap, n; /* n counts every byte, also those past cap (as vsnprintf's return does) */
} out;

static void put(out *o, const char *s, size_t k)
{
    if (o->n + 1 < o->cap) {
        size_t room = o->cap - 1 - o->n;
        memcpy(o->buf + o->n, s, k < room ? k : room);
    }
    o->n += k;
}

void shc_vformat(char *buf, size_t cap, const char *fmt, va_list ap)
{
    for (const char *p = strchr(fmt, '%'); p; p = strchr(p + 2, '%'))
        if (p[1] != 's' && p[1] != 'c' && p[1] != 'd' && p[1] != '%') {
            vsnprintf(buf, cap, fmt, ap);
            return;
        }
    out o = {buf, cap, 0};
    const char *p = fmt;
    for (;;) {
        const char *pc = strchr(p, '%');
        if (!pc) {
            put(&o, p, strlen(p));
            break;
        }
        put(&o, p, (size_t)(pc - p));
        switch (pc[1]) {
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            put(&o, s, strlen(s));
            break;
        }
        case 'c': {
            char ch = (char)va_arg(ap, int);
            put(&o, &ch, 1);
            break;
        }
        case 'd': {
            int v = va_arg(ap, int);
            char t[16], *e = t + sizeof t, *q = e;
            unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
            do {
                *--q = (char)('0' + u % 10);
                u /= 10;
            } while (u);
            if (v < 0)
                *--q = '-';
            put(&o, q, (size_t)(e - q));
            break;
        }
        default: put(&o, "%", 1); break; /* "%%" */
        }
        p = pc + 2;
    }
    if (cap)
        buf[o.n < cap ? o.n : cap - 1] = '\0';
}
