/* The seccomp programs' builder, shared by the watch (sysfilter.c) and the sandbox's filters
 * (attrs.c, procfilter.c, netfilter.c): a buffer that counts what it could not hold, so a dry
 * run measures a block, and the three instruction spellings every block uses.  Internal to
 * confine/. */
#ifndef SHC_CONFINE_BPFBUF_H
#define SHC_CONFINE_BPFBUF_H

#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fbuf {
    struct sock_filter *f;
    size_t n, cap;
} fbuf;

static inline void emit(fbuf *b, unsigned short code, unsigned char jt, unsigned char jf,
                        uint32_t k)
{
    if (b->n < b->cap)
        b->f[b->n] = (struct sock_filter){code, jt, jf, k};
    b->n++;
}

#define LD_ABS (BPF_LD | BPF_W | BPF_ABS)
#define JEQ (BPF_JMP | BPF_JEQ | BPF_K)
#define RET (BPF_RET | BPF_K)

#endif
