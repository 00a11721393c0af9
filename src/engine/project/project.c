/* Projects: finding them, reading their link and pin, writing the pin. */
#include "db.h"
#include "project.h"
#include "upstream.h"
#include "userstate.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "platform/link.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* A pin file holds an install id and a line break; anything past this is not one. */
#define PIN_MAX 4096

/* The first line of dir's pin file, trimmed; false when there is none. The prompt hook
 * reads it at every prompt, so nothing that could block is opened (fs_read_regular): a
 * fifo, a device, a huge or unreadable file, or a link to one, is skipped with a warning. */
static bool read_pin(cdm_ctx *ctx, const char *dir, char *out, size_t size)
{
    char *path = path_join(dir, CDM_PIN_FILE);
    struct strbuf text = STRBUF_INIT;
    int rc = fs_kind(path) == FS_NONE ? CDM_ENOTFOUND : fs_read_regular(ctx, path, PIN_MAX, &text);
    if (rc && rc != CDM_ENOTFOUND)
        cdm_warn(ctx, "ignoring the pin file: %s", cdm_error_message(ctx));
    free(path);
    sb_add(&text, ""); /* a buffer to cut, also when nothing was read */
    char *p = text.buf;
    p[strcspn(p, "\r\n")] = '\0';
    while (isspace((unsigned char)*p))
        p++;
    size_t n = strlen(p);
    while (n && isspace((unsigned char)p[n - 1]))
        p[--n] = '\0';
    bool ok = !rc && n > 0 && copy_str(out, size, p);
    sb_free(&text);
    return ok;
}

/* The link name a project uses: the one its newest generation recorded, else the config's
 * (which must be a name a link may have). */
static int project_link_name(cdm_ctx *ctx, struct cdm_project *p)
{
    struct cdm_generation newest;
    if (db_open_read(ctx) == CDM_OK && db_generation_newest(ctx, p->path, &newest) == CDM_OK) {
        COPY_STR_ARRAY(p->link_name, newest.link_name);
        return CDM_OK;
    }
    const char *name = cdm_link_name(ctx);
    if (!project_link_name_valid(name) || !copy_str(p->link_name, sizeof(p->link_name), name))
        return cdm_error_set(ctx, CDM_ECONFIG,
                             "[link] name '%s' in config '%s' cannot name a link: give a plain "
                             "file name such as cuda_link",
                             name, ctx->config.path ? ctx->config.path : "?");
    return CDM_OK;
}

/* A project without a link whose current generation was recorded so, because no kind of
 * link can be made in its folder: the install (or view) that generation names, used in
 * place (activation points at the store's folder itself). */
static int project_no_link(cdm_ctx *ctx, struct cdm_project *p)
{
    struct cdm_generation cur;
    if (db_open_read(ctx) != CDM_OK || db_generation_get(ctx, p->path, 0, &cur) != CDM_OK ||
        !*cur.no_link || !*cur.install_id)
        return CDM_OK;
    char *target =
        *cur.view ? store_view_path(ctx, cur.view) : upstream_install_path(ctx, cur.install_id);
    int rc = copy_path(ctx, p->target, sizeof(p->target), target);
    free(target);
    if (!rc) {
        COPY_STR_ARRAY(p->linked_id, cur.install_id);
        COPY_STR_ARRAY(p->view, cur.view);
        COPY_STR_ARRAY(p->no_link, cur.no_link);
    }
    return rc;
}

int cdm_project_open(cdm_ctx *ctx, const char *dir, struct cdm_project *out)
{
    memset(out, 0, sizeof(*out));
    char *real = fs_realpath(dir);
    if (!real || fs_kind(real) != FS_DIR) {
        free(real);
        return cdm_error_set(ctx, CDM_ENOTFOUND, "no project folder '%s': no such folder", dir);
    }
    int rc = copy_path(ctx, out->path, sizeof(out->path), real);
    if (!rc)
        rc = project_link_name(ctx, out);
    char *link_path = path_join(real, out->link_name);
    if (!rc)
        rc = copy_path(ctx, out->link_path, sizeof(out->link_path), link_path);
    free(link_path);
    free(real);
    enum link_kind kind;
    char *target = NULL;
    if (rc || (rc = link_read(ctx, out->link_path, &kind, &target)))
        return rc;
    out->has_link = kind == LINK_OURS;
    out->link_foreign = kind == LINK_FOREIGN;
    if (target) {
        rc = copy_path(ctx, out->target, sizeof(out->target), target);
        store_install_of(ctx, target, out->linked_id, sizeof(out->linked_id));
        if (!rc && *out->linked_id && store_is_view_name(target))
            rc = copy_path(ctx, out->view, sizeof(out->view), path_basename(target));
        free(target);
        if (rc)
            return rc;
    }
    if (kind == LINK_NONE && (rc = project_no_link(ctx, out)))
        return rc;
    out->has_pin = read_pin(ctx, out->path, out->pinned_id, sizeof(out->pinned_id));
    return CDM_OK;
}

/* A folder with a link, or a pin file that can be read (one that cannot is warned about). */
static bool looks_like_project(cdm_ctx *ctx, const char *dir)
{
    char *link = path_join(dir, cdm_link_name(ctx));
    char pinned[64];
    bool found = fs_kind(link) == FS_LINK || read_pin(ctx, dir, pinned, sizeof(pinned));
    free(link);
    return found;
}

char *project_nearest(cdm_ctx *ctx, const char *start)
{
    char *dir = start ? fs_realpath(start) : fs_getcwd();
    while (dir && !looks_like_project(ctx, dir)) {
        char *parent = path_dirname(dir);
        bool top = !strcmp(parent, dir);
        free(dir);
        dir = top ? NULL : parent;
        if (top)
            free(parent);
    }
    return dir;
}

int cdm_project_find(cdm_ctx *ctx, const char *start, struct cdm_project *out)
{
    char *dir = project_nearest(ctx, start);
    if (dir) {
        int rc = cdm_project_open(ctx, dir, out);
        free(dir);
        return rc;
    }
    char *first = start ? fs_realpath(start) : fs_getcwd();
    if (!first)
        return cdm_error_set(ctx, CDM_ENOTFOUND, "no project folder '%s': no such folder", start);
    int rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "no project in '%s' or above: no '%s' link or %s pin file; run "
                           "'cdm link %s VERSION'",
                           first, cdm_link_name(ctx), CDM_PIN_FILE, start ? start : ".");
    free(first);
    return rc;
}

void cdm_projects_gone(const char *const *projects, size_t n, bool *gone)
{
    enum fs_kind *kinds = xmalloc((n ? n : 1) * sizeof(*kinds));
    fs_kinds(projects, n, kinds);
    for (size_t i = 0; i < n; i++)
        gone[i] = kinds[i] == FS_NONE  ? true
                  : kinds[i] == FS_DIR ? false
                                       : cdm_project_gone(projects[i]); /* a link: resolve it */
    free(kinds);
}

bool cdm_project_gone(const char *project)
{
    /* Recorded projects are canonical paths, so one lstat answers (cdm list asks it of
     * every project); a path through a link is resolved first. */
    enum fs_kind kind = fs_kind(project);
    if (kind == FS_DIR || kind == FS_NONE)
        return kind == FS_NONE;
    char *real = fs_realpath(project);
    bool gone = !real || fs_kind(real) != FS_DIR;
    free(real);
    return gone;
}

char *project_key(const char *path)
{
    char *real = fs_realpath(path);
    if (real)
        return real;
    char *abs = fs_absolute(path);
    char *parent = path_dirname(abs);
    char *real_parent = fs_realpath(parent);
    char *key = real_parent ? path_join(real_parent, path_basename(abs)) : xstrdup(abs);
    free(real_parent);
    free(parent);
    free(abs);
    return key;
}

bool project_link_name_valid(const char *name)
{
    return config_link_name_problem(name) == NULL;
}

int project_pin_write(cdm_ctx *ctx, const struct cdm_project *p, const char *id)
{
    if (p->has_pin && !strcmp(p->pinned_id, id))
        return CDM_OK;
    char *pin = path_join(p->path, CDM_PIN_FILE);
    /* A repository may ship the pin as a link (to ~/.bashrc, say): never written through */
    enum fs_kind kind = fs_kind(pin);
    int rc = kind == FS_NONE || kind == FS_FILE
                 ? CDM_OK
                 : cdm_error_set(ctx, CDM_EIO,
                                 "cannot write the pin '%s': it is %s, and cdm writes its pin "
                                 "only as a file of its own; remove it (or replace it by a file "
                                 "holding the version), then run the command again",
                                 pin, kind == FS_LINK ? "a link" : "no regular file");
    char *text = xasprintf("%s\n", id);
    if (!rc)
        rc = text_file_write(ctx, pin, text);
    free(text);
    free(pin);
    return rc;
}

void project_clean_leftovers(cdm_ctx *ctx, const char *dir, const char *link_name)
{
    char **names = NULL;
    if (fs_list_dir(ctx, dir, &names) != CDM_OK)
        return;
    char *link_prefix = xasprintf("%s.cdm-", link_name);
    char *pin_prefix = xasprintf("%s.cdm-", CDM_PIN_FILE);
    for (char **n = names; *n; n++) {
        if (!str_ends_with(*n, ".tmp"))
            continue;
        char *path = path_join(dir, *n);
        if (str_starts_with(*n, link_prefix) && fs_kind(path) == FS_LINK)
            link_remove(ctx, path);
        else if (str_starts_with(*n, pin_prefix) && fs_kind(path) == FS_FILE)
            fs_remove_file(ctx, path);
        free(path);
    }
    free(pin_prefix);
    free(link_prefix);
    strv_free(names);
}

/* The pid a temporary file "<file>.cdm-<pid>.tmp" of prefix "<file>.cdm-" names; 0 when
 * name is not one. */
unsigned project_clean_stale_temps(cdm_ctx *ctx, const char *dir)
{
    return fs_clean_stale_temps(ctx, dir, CDM_LOCK_FILE) +
           fs_clean_stale_temps(ctx, dir, CDM_PIN_FILE);
}

int project_pin_remove(cdm_ctx *ctx, const struct cdm_project *p)
{
    char *pin = path_join(p->path, CDM_PIN_FILE);
    int rc = fs_remove_file(ctx, pin);
    free(pin);
    return rc;
}
