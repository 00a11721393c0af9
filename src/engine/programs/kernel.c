/*
 * cdm kernel install / remove: a Jupyter kernelspec whose kernel starts through cdm exec,
 * so that a notebook (which no shell's activation reaches) runs with the project's cuDNN.
 *
 * <data dir>/kernels/<name>/kernel.json, with
 *   "argv": [cdm, "exec", PROJECT, "--", PYTHON, "-m", "ipykernel_launcher", "-f",
 *            "{connection_file}"]
 * and "metadata": {"cdm": {"project", "install"}}: that mark is how remove knows the
 * kernelspec is cdm's; one without it is never overwritten or removed.
 */
#include "internal.h"
#include "platform/app_dirs.h"
#include "platform/fs.h"
#include "pyenv.h"
#include "userstate.h"
#include "base/name.h"

#include <cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Jupyter's kernel names: letters, digits, '.', '_', '-' (jupyter_client's pattern), one
 * plain path component (not '.' or '..', which would name kernels/ or its parent), and short
 * enough for out (a result's name), where a valid one is copied. */
static bool take_kernel_name(const char *name, char *out, size_t size)
{
    if (name_component_problem(name) || !copy_str(out, size, name))
        return false;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
            return false;
    return true;
}

/* cdm-<the project folder's name>, lower case, other characters as '-'. */
static void default_name(const char *project, char *out, size_t size)
{
    snprintf(out, size, "cdm-%s", path_basename(project));
    for (char *p = out; *p; p++)
        *p = isalnum((unsigned char)*p) || strchr("._-", *p) ? (char)tolower((unsigned char)*p)
                                                             : '-';
}

/* Jupyter's user data folder's kernels/, or <prefix>/share/jupyter/kernels. */
static char *kernels_dir(const char *prefix)
{
    const char *share = fs_host_is_windows() ? "share\\jupyter" : "share/jupyter";
    char *data = prefix ? path_join(prefix, share) : app_jupyter_data_dir();
    char *dir = path_join(data, "kernels");
    free(data);
    return dir;
}

/* The interpreter of the first environment of the project (.venv, venv, VIRTUAL_ENV, ...),
 * else python3 (python.exe on Windows) on PATH; malloc'd, NULL when none is found. */
static char *find_python(const char *project)
{
    const char *exe = fs_host_is_windows() ? "Scripts\\python.exe" : "bin/python";
    struct py_env *envs = NULL;
    size_t n = 0;
    py_envs_find(project, &envs, &n);
    char *found = NULL;
    for (size_t i = 0; i < n && !found; i++) {
        char *candidate = path_join(envs[i].prefix, exe);
        if (envs[i].kind == PY_VENV && fs_kind(candidate) != FS_NONE)
            found = candidate;
        else
            free(candidate);
    }
    free(envs);
    char *path = found ? NULL : fs_getenv("PATH");
    char sep = fs_host_is_windows() ? ';' : ':';
    for (char *dir = path; dir && *dir && !found;) {
        char *end = strchr(dir, sep);
        char *one = end ? xstrndup(dir, (size_t)(end - dir)) : xstrdup(dir);
        char *candidate = path_join(one, fs_host_is_windows() ? "python.exe" : "python3");
        if (*one && fs_kind(candidate) != FS_NONE)
            found = fs_absolute(candidate);
        free(candidate);
        free(one);
        dir = end ? end + 1 : NULL;
    }
    free(path);
    return found;
}

/* The kind of the entry name in dir. */
static enum fs_kind fs_kind_of(const char *dir, const char *name)
{
    char *path = path_join(dir, name);
    enum fs_kind kind = fs_kind(path);
    free(path);
    return kind;
}

/* Is the kernelspec folder dir one cdm wrote (its kernel.json marked metadata.cdm)? */
static bool written_by_cdm(cdm_ctx *ctx, const char *dir)
{
    char *file = path_join(dir, "kernel.json");
    struct strbuf text = STRBUF_INIT;
    bool ours = false;
    /* a kernel.json that is a link is none cdm wrote: never read, written or removed
     * through */
    if (fs_kind(dir) == FS_DIR && fs_kind(file) == FS_FILE &&
        fs_read_regular(ctx, file, 1 << 20, &text) == CDM_OK) {
        cJSON *doc = cJSON_Parse(sb_str(&text));
        const cJSON *meta = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
        ours = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(meta, "cdm"));
        cJSON_Delete(doc);
    }
    sb_free(&text);
    free(file);
    return ours;
}

static char *kernel_json(const char *cdm, const struct cdm_kernel_result *r)
{
    const char *argv[] = {cdm,
                          "exec",
                          r->project,
                          "--",
                          r->python,
                          "-m",
                          "ipykernel_launcher",
                          "-f",
                          "{connection_file}"};
    cJSON *doc = cJSON_CreateObject();
    cJSON *args = cJSON_AddArrayToObject(doc, "argv");
    for (size_t i = 0; i < CDM_ARRAY_LEN(argv); i++)
        cJSON_AddItemToArray(args, cJSON_CreateString(argv[i]));
    cJSON_AddStringToObject(doc, "display_name", r->display_name);
    cJSON_AddStringToObject(doc, "language", "python");
    cJSON *meta = cJSON_AddObjectToObject(doc, "metadata");
    cJSON *mark = cJSON_AddObjectToObject(meta, "cdm");
    cJSON_AddStringToObject(mark, "project", r->project);
    cJSON_AddStringToObject(mark, "install", r->install_id);
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    if (!text)
        abort(); /* out of memory, as xmalloc would */
    char *out = xasprintf("%s\n", text);
    cJSON_free(text);
    return out;
}

int cdm_kernel_install(cdm_ctx *ctx, const struct cdm_kernel_request *req,
                       struct cdm_kernel_result *out)
{
    memset(out, 0, sizeof(*out));
    struct cdm_activation act;
    int rc = cdm_activation_find(ctx, req->project, req->project == NULL, &act);
    if (rc)
        return rc;
    char *cdm = app_self_path(), *python = NULL, *dir = NULL, *json = NULL, *file = NULL;
    if (!cdm) {
        rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                           "cannot tell where this cdm is, for the "
                           "kernel to start it");
        goto out;
    }
    COPY_STR_ARRAY(out->project, act.project);
    COPY_STR_ARRAY(out->install_id, act.id);
    if (req->name && !take_kernel_name(req->name, out->name, sizeof(out->name))) {
        rc = cdm_error_set(ctx, CDM_EINVAL,
                           "'%s' cannot name a Jupyter kernel: use letters, digits, '.', '_' "
                           "and '-', not '.' or '..' alone",
                           req->name);
        goto out;
    }
    if (!req->name)
        default_name(act.project, out->name, sizeof(out->name));
    python = req->python ? fs_absolute(req->python) : find_python(act.project);
    if (!python || fs_kind(python) == FS_NONE) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "cannot write a kernel for '%s': %s; give one with --python "
                           "(an interpreter with ipykernel installed)",
                           act.project,
                           req->python ? "no such interpreter"
                                       : "no Python environment in the "
                                         "project and no python3 on PATH");
        goto out;
    }
    if ((rc = copy_path(ctx, out->python, sizeof(out->python), python)))
        goto out;
    snprintf(out->display_name, sizeof(out->display_name), "Python (%s, cuDNN %s)",
             path_basename(act.project), act.id);
    char *kernels = kernels_dir(req->prefix);
    dir = path_join(kernels, out->name);
    free(kernels);
    if ((rc = copy_path(ctx, out->path, sizeof(out->path), dir)))
        goto out;
    enum fs_kind kind = fs_kind(dir);
    if (kind != FS_NONE && !written_by_cdm(ctx, dir)) {
        rc = cdm_error_set(ctx, CDM_EEXISTS,
                           "cannot write the kernel '%s': '%s' is %s that cdm did not write; "
                           "give another --name",
                           out->name, dir,
                           kind != FS_DIR ? "something"
                           : fs_kind_of(dir, "kernel.json") == FS_LINK
                               ? "a kernelspec whose kernel.json is a link"
                               : "a kernelspec");
        goto out;
    }
    json = kernel_json(cdm, out);
    file = path_join(dir, "kernel.json");
    struct strbuf old = STRBUF_INIT;
    out->changed =
        fs_read_regular(ctx, file, 1 << 20, &old) != CDM_OK || strcmp(sb_str(&old), json);
    sb_free(&old);
    if (out->changed && !(rc = fs_mkdir_p(ctx, dir)))
        rc = text_file_write(ctx, file, json);
out:
    free(file);
    free(json);
    free(dir);
    free(python);
    free(cdm);
    return rc;
}

int cdm_kernel_remove(cdm_ctx *ctx, const char *name, const char *prefix,
                      struct cdm_kernel_result *out)
{
    memset(out, 0, sizeof(*out));
    if (!take_kernel_name(name, out->name, sizeof(out->name)))
        return cdm_error_set(ctx, CDM_EINVAL, "'%s' is not a Jupyter kernel name", name);
    char *kernels = kernels_dir(prefix);
    char *dir = path_join(kernels, name);
    free(kernels);
    int rc = copy_path(ctx, out->path, sizeof(out->path), dir);
    enum fs_kind kind = rc ? FS_NONE : fs_kind(dir);
    if (kind == FS_NONE)
        ; /* nothing to remove */
    else if (!written_by_cdm(ctx, dir))
        rc = cdm_error_set(ctx, CDM_EEXISTS,
                           "cannot remove the kernel '%s': '%s' is not a kernelspec cdm wrote; "
                           "remove it with 'jupyter kernelspec remove %s'",
                           name, dir, name);
    else if (!(rc = fs_remove_tree(ctx, dir)))
        out->changed = true;
    free(dir);
    return rc;
}
