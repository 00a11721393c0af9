/*
 * cdm modulefiles --into DIR: one modulefile per install of this machine's platform, for
 * Lmod (Lua, DIR/cudnn/<id>.lua) or Environment Modules (Tcl with --tcl, DIR/cudnn/<id>),
 * and DIR/cudnn/.version naming the newest as the default: `module use DIR; module load
 * cudnn` then sets what activating that install sets, and `module unload` takes it back.
 *
 * Unlike cdm activate, a module leaves CUDA_PATH alone: on a cluster the CUDA toolkit comes
 * from a module of its own, whose CUDA_PATH a cuDNN module must not take over. Every file
 * carries a first-line mark, and only marked files are replaced.
 */
#include "db.h"
#include "upstream.h"
#include "store.h"
#include "platform/fs.h"
#include "userstate.h"

#include <stdlib.h>
#include <string.h>

#define MARK "written by cdm modulefiles"

/* A value quoted for each language, in double quotes: Lua's string escapes \" and \\; Tcl's
 * also $, [ and ] (substitutions), which braces would not stop a '}' in the value from
 * ending. A store path may hold any of these (a Windows store's backslashes). */
static void quoted(struct strbuf *sb, const char *s, bool tcl)
{
    sb_addc(sb, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\' || (tcl && strchr("$[]", *s)))
            sb_addc(sb, '\\');
        sb_addc(sb, *s);
    }
    sb_addc(sb, '"');
}

/* A line break or other control character cannot be put in a line of either language (a
 * comment line included) without ending it: such a value is refused. */
static bool quotable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return false;
    return true;
}

static char *modulefile(const struct cdm_install_info *in, bool tcl)
{
    char *lib = path_join(in->path, in->lib_dir);
    char *include = path_join(in->path, in->include_dir);
    struct strbuf sb = STRBUF_INIT;
    const char *comment = tcl ? "#" : "--";
    if (tcl)
        sb_add(&sb, "#%Module1.0\n");
    sb_addf(&sb, "%s " MARK ": cuDNN %s for CUDA %d, in the store at '%s'\n", comment, in->version,
            in->cuda, in->path);
    struct {
        const char *verb_lua, *verb_tcl, *name, *value;
    } lines[] = {
        {"setenv", "setenv", "CUDNN_PATH", in->path},
        {"setenv", "setenv", "CUDNN_ROOT", in->path},
        {"setenv", "setenv", "CDM_ACTIVE", in->id},
        {"prepend_path", "prepend-path", "LD_LIBRARY_PATH", lib},
        {"prepend_path", "prepend-path", "CPATH", include},
        {"prepend_path", "prepend-path", "LIBRARY_PATH", lib},
    };
    if (tcl) {
        sb_addf(&sb, "module-whatis \"cuDNN %s (CUDA %d), from cdm's store\"\n", in->version,
                in->cuda);
        sb_add(&sb, "conflict cudnn\n");
    } else {
        sb_addf(&sb, "whatis(\"cuDNN %s (CUDA %d), from cdm's store\")\n", in->version, in->cuda);
        sb_add(&sb, "family(\"cudnn\")\n");
    }
    for (size_t i = 0; i < CDM_ARRAY_LEN(lines); i++) {
        if (tcl) {
            sb_addf(&sb, "%s %s ", lines[i].verb_tcl, lines[i].name);
            quoted(&sb, lines[i].value, true);
            sb_addc(&sb, '\n');
        } else {
            sb_addf(&sb, "%s(\"%s\", ", lines[i].verb_lua, lines[i].name);
            quoted(&sb, lines[i].value, false);
            sb_add(&sb, ")\n");
        }
    }
    free(include);
    free(lib);
    return sb_detach(&sb);
}

/* A file cdm wrote: its mark is on its first line, or its second after Tcl's "#%Module"
 * line; a site's own file that holds the words anywhere else is not cdm's. */
static bool marked(const char *text)
{
    if (str_starts_with(text, "#%Module")) {
        const char *nl = strchr(text, '\n');
        text = nl ? nl + 1 : "";
    }
    return str_starts_with(text, "-- " MARK) || str_starts_with(text, "# " MARK);
}

/* Write path unless something not marked as cdm's is there; *written counts. */
static int write_marked(cdm_ctx *ctx, const char *path, const char *text, unsigned *written)
{
    struct strbuf old = STRBUF_INIT;
    int rc = CDM_OK;
    enum fs_kind kind = fs_kind(path);
    if (kind != FS_NONE) {
        if (kind != FS_FILE || fs_read_regular(ctx, path, 1 << 16, &old) != CDM_OK ||
            !marked(sb_str(&old)))
            rc = cdm_error_set(ctx, CDM_EEXISTS,
                               "cannot write '%s': something cdm did not write is there; move "
                               "it away or give another --into",
                               path);
    }
    if (!rc && strcmp(sb_str(&old), text)) {
        rc = text_file_write(ctx, path, text);
        if (!rc)
            (*written)++;
    }
    sb_free(&old);
    return rc;
}

int cdm_modulefiles(cdm_ctx *ctx, const char *into, bool tcl, struct cdm_modulefiles_result *out)
{
    memset(out, 0, sizeof(*out));
    struct cdm_install_info *v = NULL;
    size_t n = 0;
    char *dir = path_join(into, "cudnn");
    int rc = store_open(ctx, STORE_READ, 0);
    if (!rc)
        rc = db_install_list(ctx, &v, &n);
    if (!rc) /* an upstream's installs get modulefiles too ([store] upstream) */
        upstream_add_installs(ctx, &v, &n);
    /* cdm writes into a folder it finds or makes, never through a link put there */
    if (!rc && fs_kind(dir) != FS_NONE && fs_kind(dir) != FS_DIR)
        rc = cdm_error_set(ctx, CDM_EEXISTS,
                           "cannot write modulefiles into '%s': it is not a folder (a link?); "
                           "cdm does not write through it: move it away or give another --into",
                           dir);
    if (!rc)
        rc = fs_mkdir_p(ctx, dir);
    if (!rc)
        rc = copy_path(ctx, out->dir, sizeof(out->dir), dir);
    const struct cdm_install_info *newest = NULL;
    for (size_t i = 0; i < n && !rc; i++) {
        if (v[i].state != CDM_INSTALL_OK || strcmp(v[i].platform, cdm_host_platform()))
            continue;
        if (!quotable(v[i].path)) {
            rc = cdm_error_set(ctx, CDM_EINVAL,
                               "cannot write a modulefile for %s: its store path '%s' holds a "
                               "line break or another control character, which no modulefile "
                               "line can hold; use a store whose path has none",
                               v[i].id, v[i].path);
            break;
        }
        char *name = xasprintf("%s%s", v[i].id, tcl ? "" : ".lua");
        char *path = path_join(dir, name);
        char *text = modulefile(&v[i], tcl);
        rc = write_marked(ctx, path, text, &out->written);
        out->files++;
        newest = &v[i]; /* the list is ordered by version */
        free(text);
        free(path);
        free(name);
    }
    if (!rc && newest) {
        /* the default, in the Tcl form both Lmod and Environment Modules read */
        char *path = path_join(dir, ".version");
        char *text = xasprintf("#%%Module1.0\n# " MARK ": the default cuDNN module\n"
                               "set ModulesVersion \"%s\"\n",
                               newest->id);
        rc = write_marked(ctx, path, text, &out->written);
        COPY_STR_ARRAY(out->default_id, newest->id);
        free(text);
        free(path);
    }
    free(v);
    free(dir);
    return rc;
}
