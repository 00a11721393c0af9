/*
 * cdm default --persist and --unpersist. Linux: a file of our own in environment.d (read
 * by systemd's user session, so graphical programs get it) and a marked block in the
 * login shell's ~/.profile (for logins without systemd: ssh, a console). Windows: the
 * values of HKCU\Environment, PATH edited as a list of entries. A record in the user's
 * state folder says what was there before (whether ~/.profile existed, the registry's
 * former values), written before anything else is touched, so that a persist cut short is
 * finished by the next one and --unpersist restores exactly what was found.
 */
#include "persist.h"
#include "activate_toolkit.h"
#include "userstate.h"
#include "platform/fs.h"
#include "platform/userenv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORD     "persisted"
#define ENVD_FILE  "60-cdm-default.conf"
#define MARK_BEGIN "# >>> cdm default >>>\n"
#define MARK_END   "# <<< cdm default <<<\n"
/* cmd.exe ignores a PATH longer than this (setx would cut it at 1024). */
#define CMD_PATH_MAX 8191

bool persist_is_on(cdm_ctx *ctx)
{
    struct strbuf text = STRBUF_INIT;
    bool on = userstate_read(ctx, RECORD, &text) == CDM_OK;
    sb_free(&text);
    return on;
}

void persist_where(const cdm_ctx *ctx, char *out, size_t size)
{
    struct strbuf text = STRBUF_INIT;
    char *where = NULL, *path = userstate_path(ctx, RECORD);
    if (fs_read_file(path, 64 * 1024, &text))
        where = userstate_get(sb_str(&text), "where");
    free(path);
    copy_text(out, size, where ? where : ""); /* where the default is kept, for people */
    free(where);
    sb_free(&text);
}

/* ---- Linux: environment.d and ~/.profile ---------------------------------------------- */

/* Characters environment.d and a single-quoted shell word both take as they are. */
static int check_plain(cdm_ctx *ctx, const char *path)
{
    if (strpbrk(path, "$\\\"'`\n\r\t ;#"))
        return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                             "cannot persist '%s': the path holds a space, quote, '$', '\\', ';' "
                             "or '#', which environment.d files cannot carry; move the store "
                             "(--root) to a plainer path",
                             path);
    return CDM_OK;
}

/* What CUDA_PATH is to name in new sessions: the install's folder, or, where a CUDA toolkit
 * is there (the user's CUDA_PATH or CUDA_HOME, else one cdm finds that the tables allow),
 * a view of it with the install on top: the default never hides a toolkit either
 * (toolkit_kept.c). sep: the system's separator. malloc'd. */
static char *persist_cuda_path(cdm_ctx *ctx, const struct cdm_install_info *in, char sep)
{
    struct cdm_activation *a = xcalloc(1, sizeof(*a));
    char *state = userstate_dir(ctx);
    char *cuda = NULL;
    if (copy_str(a->project, sizeof(a->project), state) &&
        copy_str(a->link_path, sizeof(a->link_path), in->path)) {
        activation_keep_toolkit(ctx, in, a);
        cuda = xstrdup(*a->cuda_path ? a->cuda_path : in->path);
    }
    free(state);
    free(a);
    return path_slashes_to(cuda ? cuda : xstrdup(in->path), sep);
}

static char *profile_block(const char *cuda, const char *dir, const char *lib)
{
    return xasprintf(MARK_BEGIN "# written by 'cdm default --persist'; 'cdm default --unpersist' "
                                "removes this block\n"
                                "export CUDA_PATH='%s'\n"
                                "export CUDNN_PATH='%s'\n"
                                "case \":${LD_LIBRARY_PATH-}:\" in\n"
                                "*':%s:'*) ;;\n"
                                "*) export LD_LIBRARY_PATH='%s'\"${LD_LIBRARY_PATH:+:$LD_LIBRARY_"
                                "PATH}\" ;;\n"
                                "esac\n" MARK_END,
                     cuda, dir, lib, lib);
}

/* The first line of text that is mark (mark holds its line break), or NULL. */
static const char *line_with(const char *text, const char *mark)
{
    const char *m = strstr(text, mark);
    while (m && m != text && m[-1] != '\n')
        m = strstr(m + 1, mark);
    return m;
}

/* Where our block starts and ends in text (end: past its last line): 1; 0 when there is
 * none; -1 when a begin line has no end line after it, or an end line stands alone (the
 * user's own edit: changing the file then could take the user's lines with it). */
static int find_block(const char *text, size_t *start, size_t *end)
{
    const char *b = line_with(text, MARK_BEGIN);
    const char *e = line_with(b ? b : text, MARK_END);
    if (!b || !e)
        return !b && !e ? 0 : -1;
    *start = (size_t)(b - text);
    *end = (size_t)(e - text) + strlen(MARK_END);
    return 1;
}

static int refuse_marks(cdm_ctx *ctx, const char *profile)
{
    return cdm_error_set(ctx, CDM_EINVAL,
                         "cannot change '%s': it has a line '%.*s' without its pair '%.*s' "
                         "around cdm's block; remove that line or add its pair, then run the "
                         "command again",
                         profile, (int)strlen(MARK_BEGIN) - 1, MARK_BEGIN,
                         (int)strlen(MARK_END) - 1, MARK_END);
}

/* The lines between start and end that cdm does not write (a user's, added inside the
 * block), appended to out: they stay when the block goes. */
static void user_lines(const char *text, size_t start, size_t end, struct strbuf *out)
{
    static const char *const ours[] = {MARK_BEGIN,
                                       MARK_END,
                                       "# written by 'cdm default --persist'",
                                       "export CUDA_PATH='",
                                       "export CUDNN_PATH='",
                                       "case \":${LD_LIBRARY_PATH-}:\" in\n",
                                       "*':",
                                       "*) export LD_LIBRARY_PATH='",
                                       "esac\n"};
    for (size_t at = start; at < end;) {
        const char *line = text + at;
        size_t n = strcspn(line, "\n");
        n += line[n] == '\n';
        bool cdm = false;
        for (size_t i = 0; i < CDM_ARRAY_LEN(ours) && !cdm; i++)
            cdm = !strncmp(line, ours[i], strlen(ours[i]));
        if (!cdm)
            sb_addn(out, line, n);
        at += n;
    }
}

static int read_text(cdm_ctx *ctx, const char *path, struct strbuf *out, bool *exists)
{
    *exists = fs_kind(path) != FS_NONE;
    return *exists ? fs_read_regular(ctx, path, 1024 * 1024, out) : CDM_OK;
}

static int files_apply(cdm_ctx *ctx, const struct cdm_install_info *in, const char *record,
                       bool dry_run, bool *changed, char *where, size_t size)
{
    char *envd_dir = userenv_envd_dir(), *profile = userenv_profile();
    char *envd = path_join(envd_dir, ENVD_FILE);
    char *lib = *in->lib_dir ? path_join(in->path, in->lib_dir) : xstrdup(in->path);
    char *cuda = persist_cuda_path(ctx, in, '/');
    char *envd_text = NULL, *block = NULL, *rec = NULL, *was_created = NULL, *was_nl = NULL;
    struct strbuf old_envd = STRBUF_INIT, text = STRBUF_INIT, next = STRBUF_INIT;
    bool envd_exists, profile_exists;
    int rc;
    if ((rc = check_plain(ctx, in->path)) || (rc = check_plain(ctx, lib)) ||
        (rc = check_plain(ctx, cuda)))
        goto out;
    envd_text = xasprintf("# written by 'cdm default --persist' for new sessions; 'cdm default "
                          "--unpersist' removes this file\n"
                          "CUDA_PATH=%s\nCUDNN_PATH=%s\n"
                          "LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\n",
                          cuda, in->path, lib);
    block = profile_block(cuda, in->path, lib);
    snprintf(where, size, "%s and %s", envd, profile);
    if ((rc = read_text(ctx, envd, &old_envd, &envd_exists)) ||
        (rc = read_text(ctx, profile, &text, &profile_exists)))
        goto out;
    /* What was there before: from the first persist's record when one is in place. */
    was_created = record ? userstate_get(record, "profile_created") : NULL;
    was_nl = record ? userstate_get(record, "profile_newline") : NULL;
    bool created = was_created ? !strcmp(was_created, "1") : !profile_exists;
    bool newline = was_nl ? !strcmp(was_nl, "1") : false;
    size_t start, end;
    const char *t = sb_str(&text);
    int found = find_block(t, &start, &end);
    if (found < 0) {
        rc = refuse_marks(ctx, profile);
        goto out;
    } else if (found) {
        sb_addn(&next, t, start);
        sb_add(&next, block);
        user_lines(t, start, end, &next); /* a user's lines move out of the block */
        sb_add(&next, t + end);
    } else {
        newline = *t && t[strlen(t) - 1] != '\n';
        sb_add(&next, t);
        if (newline)
            sb_addc(&next, '\n');
        sb_add(&next, block);
    }
    *changed = strcmp(sb_str(&old_envd), envd_text) || strcmp(t, sb_str(&next)) || !record;
    if (dry_run || !*changed)
        goto out;
    rec = xasprintf("# what 'cdm default --persist' changed; 'cdm default --unpersist' reads it\n"
                    "kind=files\nwhere=%s and %s\nenvd=%s\nprofile=%s\nprofile_created=%d\n"
                    "profile_newline=%d\n",
                    envd, profile, envd, profile, created, newline);
    if ((rc = userstate_write(ctx, RECORD, rec)) || (rc = fs_mkdir_p(ctx, envd_dir)) ||
        (rc = text_file_write(ctx, envd, envd_text)))
        goto out;
    fs_crash_point("persist-envd");
    rc = text_file_write_through(ctx, profile, sb_str(&next));
out:
    sb_free(&next);
    sb_free(&text);
    sb_free(&old_envd);
    free(was_nl);
    free(was_created);
    free(rec);
    free(block);
    free(envd_text);
    free(cuda);
    free(lib);
    free(envd);
    free(profile);
    free(envd_dir);
    return rc;
}

/* The record's name for a file persist writes, which must be where persist writes it:
 * a record naming another file (edited, or of another HOME) is not acted on. */
static int recorded_as(cdm_ctx *ctx, const char *key, const char *recorded, const char *expected)
{
    if (!recorded || !strcmp(recorded, expected))
        return CDM_OK;
    return cdm_error_set(ctx, CDM_EMISMATCH,
                         "cannot unpersist: the record of 'cdm default --persist' names '%s' as "
                         "its %s, but persist writes '%s'; nothing was changed: remove cdm's "
                         "lines from that file by hand, then run 'cdm default --unpersist' "
                         "again",
                         recorded, key, expected);
}

static int files_remove(cdm_ctx *ctx, const char *record, bool dry_run, bool *changed)
{
    char *envd = userstate_get(record, "envd"), *profile = userstate_get(record, "profile");
    char *created = userstate_get(record, "profile_created");
    char *nl = userstate_get(record, "profile_newline");
    char *envd_dir = userenv_envd_dir(), *own_profile = userenv_profile();
    char *own_envd = path_join(envd_dir, ENVD_FILE);
    struct strbuf text = STRBUF_INIT, next = STRBUF_INIT;
    bool exists;
    size_t start, end;
    *changed = true;
    int rc = recorded_as(ctx, "environment.d file", envd, own_envd);
    if (!rc)
        rc = recorded_as(ctx, "login profile", profile, own_profile);
    if (rc || dry_run)
        goto out;
    int found = 0;
    if (profile && !(rc = read_text(ctx, profile, &text, &exists)) && exists &&
        (found = find_block(sb_str(&text), &start, &end)) < 0)
        rc = refuse_marks(ctx, profile);
    if (rc || (envd && fs_kind(envd) != FS_NONE && (rc = fs_remove_file(ctx, envd))))
        goto out;
    if (found > 0) {
        const char *t = sb_str(&text);
        struct strbuf kept = STRBUF_INIT;
        user_lines(t, start, end, &kept);
        if (nl && !strcmp(nl, "1") && start > 0 && t[start - 1] == '\n' && !t[end] && !kept.len)
            start--; /* the line break persist added after an unfinished last line */
        sb_addn(&next, t, start);
        sb_add(&next, sb_str(&kept));
        sb_add(&next, t + end);
        sb_free(&kept);
        if (created && !strcmp(created, "1") && !next.len)
            rc = fs_remove_file(ctx, profile);
        else
            rc = text_file_write_through(ctx, profile, sb_str(&next));
    }
out:
    sb_free(&next);
    sb_free(&text);
    free(own_envd);
    free(own_profile);
    free(envd_dir);
    free(nl);
    free(created);
    free(profile);
    free(envd);
    return rc;
}

/* ---- Windows: HKCU\Environment -------------------------------------------------------- */

/* Two PATH entries are one folder to Windows when they differ only in (ASCII) case. */
static bool same_entry(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char x = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] - 'A' + 'a') : a[i];
        char y = b[i] >= 'A' && b[i] <= 'Z' ? (char)(b[i] - 'A' + 'a') : b[i];
        if (x != y)
            return false;
    }
    return true;
}

/* A list without entry, joined; empty entries go too. */
static void list_without(struct strbuf *out, const char *list, const char *entry)
{
    size_t n = strlen(entry);
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ";");
        if (!(len == n && same_entry(p, entry, n)) && len) {
            if (out->len)
                sb_addc(out, ';');
            sb_addn(out, p, len);
        }
        p += len;
        p += *p == ';';
    }
}

/* "set:VALUE" or "unset", as activation keeps a replaced value. */
static char *saved_form(const char *value)
{
    return value ? xasprintf("set:%s", value) : xstrdup("unset");
}

static int reg_apply(cdm_ctx *ctx, const struct cdm_install_info *in, const char *record,
                     bool dry_run, bool *changed, char *where, size_t size)
{
    /* the install's folder and the loader path entry, in the system's own form */
    char *dir = path_slashes_to(xstrdup(in->path), '\\');
    char *cuda_dir = persist_cuda_path(ctx, in, '\\');
    char *bin_rel = path_slashes_to(xstrdup(in->bin_dir), '\\');
    char *entry = *bin_rel ? path_join(dir, bin_rel) : xstrdup(dir);
    char *old_entry = record ? userstate_get(record, "entry") : NULL;
    char *cuda = NULL, *cudnn = NULL, *path = NULL, *rec = NULL;
    char *saved_cuda = NULL, *saved_cudnn = NULL, *saved_path = NULL;
    bool cuda_x, cudnn_x, path_x;
    struct strbuf list = STRBUF_INIT;
    int rc;
    copy_text(where, size, "HKCU\\Environment");
    if ((rc = userenv_reg_get(ctx, "CUDA_PATH", &cuda, &cuda_x)) ||
        (rc = userenv_reg_get(ctx, "CUDNN_PATH", &cudnn, &cudnn_x)) ||
        (rc = userenv_reg_get(ctx, "PATH", &path, &path_x)))
        goto out;
    sb_add(&list, entry);
    struct strbuf rest = STRBUF_INIT;
    list_without(&rest, path, entry);
    if (old_entry) {
        struct strbuf r2 = STRBUF_INIT;
        list_without(&r2, sb_str(&rest), old_entry);
        sb_free(&rest);
        rest = r2;
    }
    if (rest.len)
        sb_addf(&list, ";%s", sb_str(&rest));
    sb_free(&rest);
    if (list.len > CMD_PATH_MAX) {
        rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                           "cannot persist: the user PATH in HKCU\\Environment would be %zu "
                           "characters, over the %d that cmd reads; remove entries from it "
                           "first (nothing was changed)",
                           list.len, CMD_PATH_MAX);
        goto out;
    }
    *changed = !cuda || strcmp(cuda, cuda_dir) || !cudnn || strcmp(cudnn, dir) || !path ||
               strcmp(path, sb_str(&list)) || !path_x || !record;
    if (dry_run || !*changed)
        goto out;
    saved_cuda = record ? userstate_get(record, "CUDA_PATH") : saved_form(cuda);
    saved_cudnn = record ? userstate_get(record, "CUDNN_PATH") : saved_form(cudnn);
    saved_path = record ? userstate_get(record, "PATH")
                        : (path ? xstrdup(path_x ? "expand" : "sz") : xstrdup("unset"));
    rec = xasprintf("# what 'cdm default --persist' changed; 'cdm default --unpersist' reads it\n"
                    "kind=registry\nwhere=HKCU\\Environment\nvalue=%s\ncuda_value=%s\nentry=%s\n"
                    "CUDA_PATH=%s\nCUDNN_PATH=%s\nPATH=%s\n",
                    dir, cuda_dir, entry, saved_cuda ? saved_cuda : "unset",
                    saved_cudnn ? saved_cudnn : "unset", saved_path ? saved_path : "unset");
    if ((rc = userstate_write(ctx, RECORD, rec)) ||
        (rc = userenv_reg_set(ctx, "CUDA_PATH", cuda_dir, false)) ||
        (rc = userenv_reg_set(ctx, "CUDNN_PATH", dir, false)))
        goto out;
    fs_crash_point("persist-registry");
    rc = userenv_reg_set(ctx, "PATH", sb_str(&list), true);
    userenv_broadcast();
out:
    sb_free(&list);
    free(rec);
    free(saved_path);
    free(saved_cudnn);
    free(saved_cuda);
    free(path);
    free(cudnn);
    free(cuda);
    free(old_entry);
    free(entry);
    free(bin_rel);
    free(cuda_dir);
    free(dir);
    return rc;
}

/* Put back a variable we set, unless someone changed it since (theirs then stays). */
static int reg_restore(cdm_ctx *ctx, const char *name, const char *ours, const char *saved)
{
    char *now = NULL;
    bool x;
    int rc = userenv_reg_get(ctx, name, &now, &x);
    if (!rc && now && ours && !strcmp(now, ours)) {
        if (saved && str_starts_with(saved, "set:"))
            rc = userenv_reg_set(ctx, name, saved + 4, false);
        else
            rc = userenv_reg_set(ctx, name, NULL, false);
    }
    free(now);
    return rc;
}

static int reg_remove(cdm_ctx *ctx, const char *record, bool dry_run, bool *changed)
{
    char *value = userstate_get(record, "value"), *entry = userstate_get(record, "entry");
    char *cuda_value = userstate_get(record, "cuda_value"); /* older records: value */
    char *saved_cuda = userstate_get(record, "CUDA_PATH");
    char *saved_cudnn = userstate_get(record, "CUDNN_PATH");
    char *saved_path = userstate_get(record, "PATH");
    char *path = NULL;
    bool path_x;
    struct strbuf list = STRBUF_INIT;
    int rc = CDM_OK;
    *changed = true;
    if (dry_run)
        goto out;
    if ((rc = reg_restore(ctx, "CUDA_PATH", cuda_value ? cuda_value : value, saved_cuda)) ||
        (rc = reg_restore(ctx, "CUDNN_PATH", value, saved_cudnn)) ||
        (rc = userenv_reg_get(ctx, "PATH", &path, &path_x)))
        goto out;
    list_without(&list, path, entry ? entry : "");
    bool was = saved_path && strcmp(saved_path, "unset");
    if (!list.len && !was)
        rc = userenv_reg_set(ctx, "PATH", NULL, false);
    else if (path)
        rc = userenv_reg_set(ctx, "PATH", sb_str(&list),
                             saved_path ? strcmp(saved_path, "sz") != 0 : path_x);
    userenv_broadcast();
out:
    sb_free(&list);
    free(path);
    free(saved_path);
    free(saved_cudnn);
    free(saved_cuda);
    free(entry);
    free(cuda_value);
    free(value);
    return rc;
}

/* ---- both ------------------------------------------------------------------------------ */

int persist_apply(cdm_ctx *ctx, const struct cdm_install_info *in, bool dry_run, bool *changed,
                  char *where, size_t size)
{
    struct strbuf record = STRBUF_INIT;
    *changed = false;
    int rc = userstate_read(ctx, RECORD, &record);
    bool have = rc == CDM_OK;
    if (rc == CDM_ENOTFOUND)
        rc = CDM_OK;
    if (!rc)
        rc = userenv_uses_registry()
                 ? reg_apply(ctx, in, have ? sb_str(&record) : NULL, dry_run, changed, where, size)
                 : files_apply(ctx, in, have ? sb_str(&record) : NULL, dry_run, changed, where,
                               size);
    sb_free(&record);
    return rc;
}

int persist_remove(cdm_ctx *ctx, bool dry_run, bool *changed)
{
    struct strbuf record = STRBUF_INIT;
    *changed = false;
    int rc = userstate_read(ctx, RECORD, &record);
    if (rc == CDM_ENOTFOUND) {
        sb_free(&record);
        return CDM_OK;
    }
    char *kind = rc ? NULL : userstate_get(sb_str(&record), "kind");
    if (!rc)
        rc = kind && !strcmp(kind, "registry")
                 ? reg_remove(ctx, sb_str(&record), dry_run, changed)
                 : files_remove(ctx, sb_str(&record), dry_run, changed);
    if (!rc && !dry_run)
        rc = userstate_write(ctx, RECORD, NULL);
    free(kind);
    sb_free(&record);
    return rc;
}
