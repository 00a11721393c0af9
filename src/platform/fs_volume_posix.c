/* Network file systems on Linux: statfs's magic number names most of them; a FUSE file
 * system says only "FUSE" there, and its kind ("fuse.sshfs") is read from the mount table. */
#include "fs_volume.h"
#include "fs.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif

#ifdef __linux__
/* The magic numbers of <linux/magic.h> and the file systems' own headers (not all are there). */
static const struct {
    unsigned long magic;
    const char *name;
} network_magics[] = {
    {0x6969, "nfs"},        {0x517B, "smb"},        {0xFF534D42, "cifs"},     {0xFE534D42, "smb2"},
    {0x0BD00BD0, "lustre"}, {0x00C36400, "ceph"},   {0x47504653, "gpfs"},     {0x5346414F, "afs"},
    {0x6B414653, "afs"},    {0x73757245, "coda"},   {0x564C, "ncp"},          {0x01021997, "9p"},
    {0xAAD7AAEA, "panfs"},  {0x19830326, "beegfs"}, {0x20030528, "orangefs"},
};
#define FUSE_SUPER_MAGIC 0x65735546UL

/* FUSE file systems that reach another machine. */
static const char *const network_fuse[] = {
    "sshfs", "s3fs",     "gcsfuse",    "rclone", "glusterfs", "ceph-fuse", "juicefs", "curlftpfs",
    "davfs", "smbnetfs", "gvfsd-fuse", "beegfs", "lustre",    "nfs",       "goofys",
};

/* A mount table field with its \ooo escapes decoded in place. */
static void unescape(char *s)
{
    char *out = s;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
            s[3] >= '0' && s[3] <= '7') {
            *out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        } else
            *out++ = *s;
    }
    *out = '\0';
}

/* The type ("fuse.sshfs") of the mount that holds real_path: the longest mount point above
 * it, the last of equal ones (a later mount hides an earlier one on the same point). */
static bool fuse_kind(const char *real_path, char *kind, size_t kind_size)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return false;
    char line[4096];
    size_t best = 0;
    bool found = false;
    while (fgets(line, sizeof(line), f)) {
        /* ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER */
        char *fields[16];
        int n = 0;
        for (char *p = line; *p && n < (int)CDM_ARRAY_LEN(fields);) {
            while (*p == ' ' || *p == '\n')
                *p++ = '\0';
            if (*p)
                fields[n++] = p;
            while (*p && *p != ' ' && *p != '\n')
                p++;
        }
        char *mount_point = n > 4 ? fields[4] : NULL, *type = NULL;
        for (int i = 5; i + 1 < n && !type; i++)
            if (!strcmp(fields[i], "-"))
                type = fields[i + 1];
        if (!mount_point || !type)
            continue;
        unescape(mount_point);
        size_t len = strlen(mount_point);
        if (path_within(real_path, mount_point) && len >= best) {
            best = len;
            found = copy_str(kind, kind_size, type);
        }
    }
    fclose(f);
    return found;
}

static bool fuse_is_network(const char *kind)
{
    const char *sub = !strncmp(kind, "fuse.", 5) ? kind + 5 : kind;
    for (size_t i = 0; i < CDM_ARRAY_LEN(network_fuse); i++)
        if (!strcmp(sub, network_fuse[i]))
            return true;
    return false;
}
#endif

bool fs_volume_is_network(const char *path, char *kind, size_t kind_size)
{
#ifdef __linux__
    /* The nearest existing folder: a new index's file is not there yet. */
    char *dir = xstrdup(path);
    char *real = NULL;
    while (!(real = fs_realpath(dir))) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) {
            free(dir);
            return false;
        }
        *slash = '\0';
    }
    free(dir);
    struct statfs st;
    bool network = false;
    if (statfs(real, &st) == 0) {
        unsigned long magic = (unsigned long)(unsigned int)st.f_type;
        for (size_t i = 0; i < CDM_ARRAY_LEN(network_magics) && !network; i++)
            if (magic == network_magics[i].magic)
                network = copy_str(kind, kind_size, network_magics[i].name);
        if (magic == FUSE_SUPER_MAGIC)
            network = fuse_kind(real, kind, kind_size) && fuse_is_network(kind);
    }
    free(real);
    return network;
#else
    /* Other systems: no known way here; the config's [store] journal decides. */
    (void)path, (void)kind, (void)kind_size;
    return false;
#endif
}

char *fs_cloud_sync(const char *path)
{
    (void)path; /* no sync client here keeps placeholders cdm could tell */
    return NULL;
}
