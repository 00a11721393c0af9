/* The DLL-directory hook of a Python environment on Windows: writing, reading, removing. */
#include "dll_hook.h"
#include "platform/fs.h"
#include "pyenv.h"

#include <stdlib.h>
#include <string.h>

/* The .pth line. site.py's addpackage runs a line that starts with "import " with its own
 * locals, sitedir among them (so in every CPython from 3.8 on); the checks make the line do
 * nothing where that or os.add_dll_directory (Windows only) is missing, or the list is gone.
 * Each folder also goes first on the process's PATH (once): cuDNN opens its sub-libraries
 * (cudnn_graph64_9.dll ...) with the standard search, which reads PATH and not the
 * add_dll_directory folders, and ends the process when it finds none. */
static const char hook_line[] =
    "import os; hasattr(os, 'add_dll_directory') and 'sitedir' in dir() and "
    "os.path.isfile(os.path.join(sitedir, '" DLL_HOOK_LIST "')) and "
    "[(os.add_dll_directory(d), d in os.environ.get('PATH', '').split(';') or "
    "os.environ.__setitem__('PATH', d + ';' + os.environ.get('PATH', ''))) "
    "for d in reversed(open(os.path.join(sitedir, '" DLL_HOOK_LIST "'), "
    "encoding='utf-8').read().splitlines()) if os.path.isdir(d)]\n";

char *dll_hook_site(const char *venv)
{
    size_t own = 0;
    char **sites = py_site_packages(venv, &own);
    char *site = own ? path_slashes_to(xstrdup(sites[0]), '\\') : NULL; /* Windows only */
    strv_free(sites);
    return site;
}

/* A file of the hook may be replaced: nothing there, or a regular file (for the .pth, one
 * holding cdm's line). Anything else is refused, naming it. */
static int check_replaceable(cdm_ctx *ctx, const char *path, bool is_pth)
{
    enum fs_kind kind = fs_kind(path);
    if (kind == FS_NONE)
        return CDM_OK;
    if (kind != FS_FILE)
        return cdm_error_set(ctx, CDM_EEXISTS,
                             "'%s' is %s, where cdm keeps a file of its own; cdm does not follow "
                             "or replace it: remove it and try again",
                             path, kind == FS_LINK ? "a link" : "not a regular file");
    struct strbuf text = STRBUF_INIT;
    bool ours = !is_pth || (fs_read_file(path, 4096, &text) && !strcmp(sb_str(&text), hook_line));
    sb_free(&text);
    if (!ours)
        return cdm_error_set(ctx, CDM_EEXISTS,
                             "'%s' is not the file cdm writes there; cdm leaves it as it is: "
                             "move it away, then attach again",
                             path);
    return CDM_OK;
}

/* Replace path by data unless it holds exactly that already. */
static int write_if_changed(cdm_ctx *ctx, const char *path, const char *data, bool is_pth)
{
    int rc = check_replaceable(ctx, path, is_pth);
    if (rc)
        return rc;
    struct strbuf now = STRBUF_INIT;
    bool same = fs_kind(path) == FS_FILE && fs_read_file(path, 1 << 16, &now) &&
                !strcmp(sb_str(&now), data);
    sb_free(&now);
    return same ? CDM_OK : fs_atomic_write_whole(ctx, path, data, strlen(data));
}

int dll_hook_write(cdm_ctx *ctx, const char *site, char *const *dirs)
{
    struct strbuf list = STRBUF_INIT;
    for (size_t i = 0; dirs[i]; i++)
        sb_addf(&list, "%s\n", dirs[i]);
    char *pth = path_join(site, DLL_HOOK_PTH), *txt = path_join(site, DLL_HOOK_LIST);
    int rc = check_replaceable(ctx, pth, true); /* before the list changes */
    if (!rc)
        rc = write_if_changed(ctx, txt, sb_str(&list), false);
    if (!rc)
        rc = write_if_changed(ctx, pth, hook_line, true);
    if (rc)
        cdm_error_wrap(ctx, rc, "cannot write the DLL folders hook into '%s'", site);
    free(txt);
    free(pth);
    sb_free(&list);
    return rc;
}

int dll_hook_remove(cdm_ctx *ctx, const char *site)
{
    char *pth = path_join(site, DLL_HOOK_PTH), *txt = path_join(site, DLL_HOOK_LIST);
    int rc = check_replaceable(ctx, pth, true);
    if (!rc)
        rc = check_replaceable(ctx, txt, false);
    if (!rc && fs_kind(pth) == FS_FILE)
        rc = fs_remove_file(ctx, pth);
    if (!rc && fs_kind(txt) == FS_FILE)
        rc = fs_remove_file(ctx, txt);
    if (!rc)
        fs_sync_dir(site);
    else
        cdm_error_wrap(ctx, rc, "cannot remove the DLL folders hook from '%s'", site);
    free(txt);
    free(pth);
    return rc;
}

char **dll_hook_read(const char *site)
{
    char *pth = path_join(site, DLL_HOOK_PTH), *txt = path_join(site, DLL_HOOK_LIST);
    struct strbuf line = STRBUF_INIT, list = STRBUF_INIT;
    char **dirs = NULL;
    if (fs_kind(pth) == FS_FILE && fs_read_file(pth, 4096, &line) &&
        !strcmp(sb_str(&line), hook_line) && fs_kind(txt) == FS_FILE &&
        fs_read_file(txt, 1 << 16, &list)) {
        size_t n = 0;
        dirs = xcalloc(1, sizeof(*dirs));
        for (char *s = list.buf; s && *s;) {
            char *end = strchr(s, '\n');
            size_t len = end ? (size_t)(end - s) : strlen(s);
            if (len && s[len - 1] == '\r')
                len--;
            if (len) {
                dirs = xrealloc(dirs, (n + 2) * sizeof(*dirs));
                dirs[n++] = xstrndup(s, len);
                dirs[n] = NULL;
            }
            s = end ? end + 1 : NULL;
        }
    }
    sb_free(&list);
    sb_free(&line);
    free(txt);
    free(pth);
    return dirs;
}

/* Does the ._pth file at path have the line "import site"? */
static bool pth_imports_site(const char *path)
{
    struct strbuf text = STRBUF_INIT;
    bool yes = false;
    if (fs_read_file(path, 1 << 16, &text))
        for (char *s = text.buf; s && *s && !yes;) {
            char *end = strchr(s, '\n');
            size_t len = end ? (size_t)(end - s) : strlen(s);
            while (len && (s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t'))
                len--;
            yes = len == 11 && !strncmp(s, "import site", 11);
            s = end ? end + 1 : NULL;
        }
    sb_free(&text);
    return yes;
}

bool dll_hook_blocked(const char *venv, char *why, size_t size)
{
    char **names = fs_list_names(venv);
    bool blocked = false;
    for (size_t i = 0; names && names[i] && !blocked; i++) {
        if (!str_ends_with_icase(names[i], "._pth"))
            continue;
        char *path = path_join(venv, names[i]);
        if (!pth_imports_site(path)) {
            blocked = true;
            snprintf(why, size, "%s", path);
        }
        free(path);
    }
    strv_free(names);
    return blocked;
}
