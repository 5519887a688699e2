/* Special and network file systems by type, not by name, when the real directory is known.
 * A procfs mounted at ./p made `cat p/kmsg` block (its kmsg is a "regular empty file") and
 * `grep -r foo p` walk the kernel's tables: the names /proc, /sys, /dev and /run (paths.c) say
 * nothing of where such a file system is mounted.  So every resolved path is statfs()ed, and a
 * walked root must hold no mount point of such a type below it (/proc/self/mountinfo, read
 * within a bound).  Network file systems (NFS, SMB, FUSE, autofs) are refused the same way:
 * reading them touches the network and may block for as long as the server wants. */
#define _DEFAULT_SOURCE
#include "classify/policy.h"

#include <stdio.h>
#include <string.h>
#ifndef __wasi__
#include <sys/vfs.h>
#endif

#define SHC_MOUNTINFO_MAX (1L << 20) /* bytes of /proc/self/mountinfo read */

#ifndef __wasi__
/* statfs() f_type values (linux/magic.h) and the names mountinfo gives the same file systems */
static const struct {
    unsigned long magic;
    const char *name;
} special_fs[] = {
    {0x9fa0UL, "proc"},          {0x62656572UL, "sysfs"},       {0x1cd1UL, "devpts"},
    {0x74726163UL, "tracefs"},   {0x64626720UL, "debugfs"},     {0x27e0ebUL, "cgroup"},
    {0x63677270UL, "cgroup2"},   {0xcafe4a11UL, "bpf"},         {0x73636673UL, "securityfs"},
    {0x62656570UL, "configfs"},  {0x65735543UL, "fusectl"},     {0xde5e81e4UL, "efivarfs"},
    {0x19800202UL, "mqueue"},    {0x6165676cUL, "pstore"},      {0x42494e4dUL, "binfmt_misc"},
    {0x67596969UL, "rpc_pipefs"}, {0x6e736673UL, "nsfs"},       {0x6969UL, "nfs"},
    {0x6969UL, "nfs4"},          {0xff534d42UL, "cifs"},        {0xfe534d42UL, "smb2"},
    {0xfe534d42UL, "smb3"},      {0x517bUL, "smbfs"},           {0x65735546UL, "fuse"},
    {0x0187UL, "autofs"},        {0x564cUL, "ncpfs"},          {0x6b414653UL, "afs"},
    {0x00c36400UL, "ceph"},
};
#endif

const char *shc__fs_special(const char *abs)
{
#ifdef __wasi__ /* the host answers stat() and realpath() only */
    (void)abs;
    return NULL;
#else
    struct statfs sf;
    if (statfs(abs, &sf) != 0)
        return NULL; /* missing: judged as the tools find it */
    unsigned long t = (unsigned long)sf.f_type & 0xffffffffUL;
    for (size_t i = 0; i < sizeof special_fs / sizeof *special_fs; i++)
        if (special_fs[i].magic == t)
            return special_fs[i].name;
    return NULL;
#endif
}

#ifndef __wasi__
/* mountinfo's escapes (\040 for a space, \011, \012, \134) decoded in place */
static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
            s[3] >= '0' && s[3] <= '7') {
            *o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

static bool special_name(const char *type)
{
    if (!strncmp(type, "fuse", 4))
        return true; /* fuse, fuseblk, fuse.sshfs, ... */
    for (size_t i = 0; i < sizeof special_fs / sizeof *special_fs; i++)
        if (!strcmp(type, special_fs[i].name))
            return true;
    return false;
}
#endif

const char *shc__fs_mounts_below(const char *dir, char *where, size_t cap)
{
#ifdef __wasi__
    (void)dir, (void)where, (void)cap;
    return NULL;
#else
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return "the mount table cannot be read here";
    size_t dn = strlen(dir);
    while (dn > 1 && dir[dn - 1] == '/')
        dn--;
    char line[8192];
    long seen = 0;
    const char *why = NULL;
    while (!why && fgets(line, sizeof line, f)) {
        size_t ln = strlen(line);
        if ((seen += (long)ln) > SHC_MOUNTINFO_MAX || (ln == sizeof line - 1 && line[ln - 1] != '\n')) {
            why = "a mount table too large to judge";
            break;
        }
        /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER */
        char *fields[5], *save = NULL, *tok = strtok_r(line, " \n", &save);
        size_t nf = 0;
        for (; tok && nf < 5; tok = strtok_r(NULL, " \n", &save))
            fields[nf++] = tok;
        while (tok && strcmp(tok, "-") != 0)
            tok = strtok_r(NULL, " \n", &save);
        char *type = tok ? strtok_r(NULL, " \n", &save) : NULL;
        if (nf < 5 || !type)
            continue;
        char *mp = fields[4];
        unescape(mp);
        bool below = dn == 1 ? mp[0] == '/'
                             : !strncmp(mp, dir, dn) && (mp[dn] == '/' || mp[dn] == '\0');
        if (below && special_name(type)) {
            snprintf(where, cap, "%s (%s)", mp, type);
            why = "a mount point of a special or network file system";
        }
    }
    fclose(f);
    return why;
#endif
}
