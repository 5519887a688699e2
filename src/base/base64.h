/* RFC 4648 base64 (standard alphabet, padded), for the byte chunks of ACP v2's display
 * terminals (`terminal_output_chunk.data`, `terminal_update.output.data`).  Each call encodes one
 * self-contained value: every output decodes on its own. */
#ifndef SHC_BASE64_H
#define SHC_BASE64_H

#include <stddef.h>

/* The encoded length of n bytes (without a terminating NUL). */
size_t shc_base64_len(size_t n);
/* Writes the encoding of in[0..n) and a NUL to out (shc_base64_len(n) + 1 bytes). */
void shc_base64_encode(const void *in, size_t n, char *out);
/* An owned NUL-terminated encoding, or NULL when out of memory (or n is too large). */
char *shc_base64(const void *in, size_t n);

#endif
