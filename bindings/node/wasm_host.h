/* Force-included in every file of the WebAssembly build (Makefile WASM_FLAGS): the two file
 * system calls the classifier makes with a cwd, stat() and realpath(), are shcard_wasm.c's,
 * answered by the host (index.js, with Node's fs).
 *
 * wasi-libc declares no realpath() (WASI has no absolute paths); this does.  And wasi-libc gives
 * FIFOs and sockets the same S_IFMT value (0xc000), which would make the classifier name a
 * socket "a FIFO"; its stat() is not used, so the build takes the traditional Unix values, the
 * ones Node's fs.Stats.mode holds. */
#ifndef SHC_WASM_HOST_H
#define SHC_WASM_HOST_H

#include <stdlib.h>
#include <sys/stat.h>

char *realpath(const char *restrict path, char *restrict resolved);

#undef S_IFMT
#undef S_IFBLK
#undef S_IFCHR
#undef S_IFDIR
#undef S_IFLNK
#undef S_IFREG
#undef S_IFSOCK
#undef S_IFIFO
#define S_IFMT 0170000
#define S_IFIFO 0010000
#define S_IFCHR 0020000
#define S_IFDIR 0040000
#define S_IFBLK 0060000
#define S_IFREG 0100000
#define S_IFLNK 0120000
#define S_IFSOCK 0140000

#endif
