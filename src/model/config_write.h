/* Changing shcard's config file (the one config.h reads): keys set or removed, every other line
 * kept, the file replaced atomically with mode 0600 (it may hold the API key).  `shcard login`
 * writes through here. */
#ifndef SHC_CONFIG_WRITE_H
#define SHC_CONFIG_WRITE_H

#include <stddef.h>

#define SHC_CONFIG_MAX_SET   16            /* keys in one call */
#define SHC_CONFIG_MAX_VALUE 900           /* bytes of a value */

/* One key: value NULL removes every line of the key. */
typedef struct shc_config_set {
    const char *key;
    const char *value;
} shc_config_set;

/* Sets (or removes) the n keys of set in the file at path: the first line of a key gets the new
 * value, its other lines go, keys not in the file are appended; comments, blank lines and other
 * keys stay as they were.  The directories are made (0700) when missing; the new file is written
 * beside the old one with mode 0600, synced, and renamed over it, all under a lock on path.lock.
 * A symlink, device, FIFO or directory at path is refused, not replaced.  A value must be
 * 1..SHC_CONFIG_MAX_VALUE bytes without '#', control characters, or spaces at its ends (what
 * config.c reads back as it was).  Returns 0, or a negative SHC_E_* with a message in err (which
 * never holds a value); the file is then unchanged. */
int shc_config_write(const char *path, const shc_config_set *set, size_t n, char *err,
                     size_t errlen);

#endif
