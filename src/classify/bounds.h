/* The numbers that bound what one option may ask of a tool: widths, echoed strings, pattern
 * sizes and costs per engine, counts and threads (docs/classifier.md). */
#ifndef SHC_CLASSIFY_BOUNDS_H
#define SHC_CLASSIFY_BOUNDS_H

#define SHC_MAX_ARGS  64
#define SHC_MAX_TABS 16     /* the widest tab stop bat --tabs may ask for */
#define SHC_MAX_WIDTH 256 /* the widest field an option may ask for: the padding every line or
                            entry may get (nl -w 4096 made 1 byte of input 4,097 bytes) */
#define SHC_MAX_FORMAT_DIRECTIVES 16 /* %-directives in find's -printf formats together */
#define SHC_MAX_ECHO 256   /* the longest SHC_ROLE_ECHO value (`nl -s` of 60 KB turned 2 MB into
                              1.5 GB in 5 s; `rg -r` of 40 KB, 2 MB into ~80 GB) */
#define SHC_MAX_ECHO_REFS 4 /* '$' (rg -r: a reference to the match) in a SHC_ROLE_ECHO value */
#define SHC_MAX_BT_BYTES 256  /* the longest pattern a backtracking engine is given */
#define SHC_MAX_BT_WORK 1024  /* 2^(choices that multiply) x bytes of such a pattern */
#define SHC_MAX_GLIBC_BYTES 64 /* the bytes of glibc-matched patterns (git grep, nl -bp) together */
#define SHC_MAX_BT_BRANCHES 16 /* the most alternatives (every `|` counts) in such a pattern */
#define SHC_MAX_WIDE_ATOMS 8  /* classes, '.' and grouped '|' in all of a glibc/GNU regex's patterns */
#define SHC_MAX_DOUBLESTARS 2  /* `**` in one wildmatch pattern (a git ignore line, ls-files -x) */
#define SHC_MAX_RG_CLASS_COUNT 17 /* copies of Unicode classes in rg's patterns (\w{16} is 16,
                                     \w\w\w is 3) */
#define SHC_MAX_PROCS 64      /* the most threads or processes a SHC_ROLE_PROCS option may ask for */
#define SHC_MAX_NUMBER 10000 /* the largest count, depth or limit a SHC_ROLE_NUMBER option may
                                take (ag -B 2147483647 took 75 s over 8 small files; 1000000
                                took 0.6 s, 10000 0.1 s) */

#endif
