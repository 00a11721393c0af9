/* cudnn.lock, the file: read, written as text, one platform's archive found. See lock.h
 * (what other commands read) and lock_file.h (what cdm lock shares). */
#include "lock_file.h"
#include "inifile.h"
#include "platform/fs.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

#define LOCK_FILE CDM_LOCK_FILE

struct lock_entry *lock_entry_for(struct lock *l, const char *platform, bool add)
{
    for (size_t i = 0; i < l->count; i++)
        if (!strcmp(l->entries[i].platform, platform))
            return &l->entries[i];
    if (!add || l->count == CDM_ARRAY_LEN(l->entries))
        return NULL;
    struct lock_entry *e = &l->entries[l->count];
    memset(e, 0, sizeof(*e));
    if (!copy_str(e->platform, sizeof(e->platform), platform))
        return NULL; /* no platform has so long a name: passed over, as a 17th one is */
    l->count++;
    return e;
}

/* A value into its field; one that does not fit stops the reading (lock_read names it). */
static int keep_value(struct lock *l, char *field, size_t size, const char *value, int line)
{
    if (copy_str(field, size, value))
        return 0;
    l->long_line = line;
    return 1;
}

static int on_value(void *arg, const char *section, const char *name, const char *value, int line)
{
    struct lock *l = arg;
    if (!strcmp(section, "cudnn")) {
        if (!strcmp(name, "version"))
            return keep_value(l, l->version, sizeof(l->version), value, line);
        else if (!strcmp(name, "cuda"))
            l->cuda = atoi(value);
        return 0;
    }
    struct lock_entry *e = lock_entry_for(l, section, true);
    if (!e)
        return 0;
    if (!strcmp(name, "archive"))
        return keep_value(l, e->archive, sizeof(e->archive), value, line);
    else if (!strcmp(name, "size"))
        e->size = strtoull(value, NULL, 10);
    else if (!strcmp(name, "sha256"))
        return keep_value(l, e->sha256, sizeof(e->sha256), value, line);
    return 0;
}

char *lock_path(const char *project)
{
    return path_join(project, LOCK_FILE);
}

/* Read the project's lock; CDM_ENOTFOUND (no message) when it has none. */
int lock_read(cdm_ctx *ctx, const char *project, struct lock *l)
{
    memset(l, 0, sizeof(*l));
    char *path = lock_path(project);
    int rc = CDM_OK;
    FILE *f = fs_fopen_read(path);
    if (!f) {
        rc = fs_kind(path) == FS_NONE
                 ? CDM_ENOTFOUND
                 : cdm_error_set(ctx, CDM_ECONFIG,
                                 "cannot read '%s': it is not a regular file; remove it and run "
                                 "'cdm lock' again",
                                 path);
        free(path);
        return rc;
    }
    int bad_line = 0;
    int got = inifile_read(f, on_value, l, &bad_line);
    fclose(f);
    struct version v;
    if (l->long_line)
        rc = cdm_error_set(ctx, CDM_ECONFIG,
                           "cannot read '%s': the value on line %d is longer than any a lock "
                           "holds; write it again with 'cdm lock'",
                           path, l->long_line);
    else if (got || !version_parse(l->version, &v) || v.count != 4 || l->cuda <= 0)
        rc = cdm_error_set(ctx, CDM_ECONFIG,
                           "cannot read '%s'%s: it names no full cuDNN version and CUDA major "
                           "([cudnn] version, cuda); write it again with 'cdm lock'",
                           path, got == -1 ? " (a line that is not INI)" : "");
    for (size_t i = 0; !rc && i < l->count; i++) {
        const struct lock_entry *e = &l->entries[i];
        if (strlen(e->sha256) != 64 || strspn(e->sha256, "0123456789abcdef") != 64 ||
            !e->archive[0] || strchr(e->archive, '/') || strchr(e->archive, '\\'))
            rc = cdm_error_set(ctx, CDM_ECONFIG,
                               "cannot read '%s': [%s] needs an archive file name and a "
                               "SHA-256 of 64 hex digits; write it again with 'cdm lock'",
                               path, e->platform);
    }
    free(path);
    return rc;
}

int lock_archive_for(cdm_ctx *ctx, const char *dir, const char *platform, struct lock_archive *out)
{
    memset(out, 0, sizeof(*out));
    struct lock l;
    int rc = lock_read(ctx, dir, &l);
    const struct lock_entry *e = rc ? NULL : lock_entry_for(&l, platform, false);
    if (rc == CDM_ENOTFOUND || (!rc && !e)) {
        char *path = lock_path(dir);
        if (rc)
            rc = cdm_error_set(ctx, CDM_ENOTFOUND, "there is no '%s'; write it with 'cdm lock'",
                               path);
        else
            rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                               "'%s' names no archive for %s; add it with 'cdm lock --platform "
                               "%s'",
                               path, platform, platform);
        free(path);
    }
    if (rc)
        return rc;
    COPY_STR_ARRAY(out->version, l.version);
    out->cuda = l.cuda;
    COPY_STR_ARRAY(out->archive, e->archive);
    out->size = e->size;
    COPY_STR_ARRAY(out->sha256, e->sha256);
    return CDM_OK;
}

int lock_install_id(cdm_ctx *ctx, const char *project, char *id, size_t size)
{
    struct lock *l = xcalloc(1, sizeof(*l));
    int rc = lock_read(ctx, project, l);
    if (!rc && !install_id_format(l->version, l->cuda, id, size))
        rc = cdm_error_set(ctx, CDM_ECONFIG, "the version in '%s/%s' is too long", project,
                           LOCK_FILE);
    free(l);
    return rc;
}

char *lock_text(const struct lock *l)
{
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb,
            "# written by cdm lock: the archive of this project's cuDNN for each platform.\n"
            "# 'cdm link' installs exactly these bytes and refuses others; 'cdm lock' again\n"
            "# after a link to another version.\n"
            "[cudnn]\nversion = %s\ncuda = %d\n",
            l->version, l->cuda);
    for (size_t i = 0; i < l->count; i++)
        sb_addf(&sb, "\n[%s]\narchive = %s\nsize = %llu\nsha256 = %s\n", l->entries[i].platform,
                l->entries[i].archive, l->entries[i].size, l->entries[i].sha256);
    return sb_detach(&sb);
}
