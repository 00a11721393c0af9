/*
 * The doctor's Windows Python layer: for each framework of an environment that loads cuDNN
 * DLLs (torch, ONNX Runtime, CTranslate2, PaddlePaddle), the cudnn64_<major>.dll it will
 * load and why. Python 3.8 and later load the DLLs an extension module imports from the
 * module's own folder and the folders given to os.add_dll_directory, never from PATH:
 *   1. a copy in the framework's own folder wins (torch\lib is loaded by path; the others
 *      search their folder first);
 *   2. else cdm's DLL folders hook (dll_hook.h) names the project's folder;
 *   3. else torch adds the nvidia wheels' bin folders itself;
 *   4. else nothing: "Could not locate cudnn_ops64_9.dll", whatever PATH says.
 * Several frameworks of one environment taking different copies is a warning: one process
 * that imports two of them holds two cuDNNs, or fails on the second.
 */
#include "cudnn_lib.h"
#include "dll_hook.h"
#include "doctor.h"
#include "doctor_dll_routes.h"
#include "libfile.h"
#include "platform/fs.h"
#include "platform/link.h"
#include "pyenv.h"

#include <stdlib.h>
#include <string.h>

struct route {
    char *file; /* the DLL it will load; NULL: none */
    const char *why;
    bool project; /* it is the project's file */
    char version[64];
};

/* The first of dirs that holds name: a new path, or NULL. */
static char *first_holding(char *const *dirs, const char *name)
{
    for (size_t i = 0; dirs && dirs[i]; i++) {
        char *path = path_join(dirs[i], name);
        if (fs_kind(path) != FS_NONE)
            return path;
        free(path);
    }
    return NULL;
}

static void find_route(struct doctor *d, const struct py_dll_framework *f, char *const *hook,
                       const char *wheel_dir, const char *name, struct route *r)
{
    char *own = path_join(f->folder, name);
    char *wheel[] = {(char *)wheel_dir, NULL};
    memset(r, 0, sizeof(*r));
    if (f->own && fs_kind(own) != FS_NONE) {
        r->file = own;
        own = NULL;
        r->why = "its own copy, which it loads first";
    } else if ((r->file = first_holding(hook, name))) {
        r->why = "cdm's DLL folders hook (os.add_dll_directory)";
    } else if (f->adds_wheel_dirs && wheel_dir && (r->file = first_holding(wheel, name))) {
        r->why = "the nvidia-cudnn wheel's folder, which torch adds itself";
    }
    free(own);
    if (!r->file)
        return;
    struct lib_origin o;
    lib_origin(d->ctx, r->file, &o);
    snprintf(r->version, sizeof(r->version), "%s", o.version);
    if (d->have_install) {
        char *mine = path_join(d->lib_dir, name);
        r->project = !strcmp(o.install_id, d->install.id) || link_same_file(r->file, mine);
        free(mine);
    }
}

void doctor_dll_routes(struct doctor *d, const char *check, const char *prefix, const char *site,
                       const char *wheel_dir)
{
    struct py_dll_framework fw[8];
    size_t n = py_dll_frameworks(site, fw, 8);
    if (!n)
        return;
    char **hook = dll_hook_read(site);
    char *name = cudnn_lib_file("", d->have_install ? d->major : 9, true);
    char *check_name = xasprintf("%s.dlls", check);
    struct strbuf text = STRBUF_INIT;
    enum cdm_check_status status = CDM_CHECK_OK;
    const char *first = NULL;
    bool differ = false;
    struct route r[8];
    for (size_t i = 0; i < n; i++) {
        find_route(d, &fw[i], hook, wheel_dir, name, &r[i]);
        if (!r[i].file || (d->have_install && !r[i].project))
            status = CDM_CHECK_WARN;
        if (r[i].file && first && !link_same_file(first, r[i].file) && strcmp(first, r[i].file))
            differ = true;
        if (r[i].file && !first)
            first = r[i].file;
        sb_addf(&text, "%s%s %s: ", i ? "; " : "", fw[i].dist.name, fw[i].dist.version);
        if (!r[i].file)
            sb_addf(&text, "no %s in the folders it searches (Python 3.8+ does not search PATH)",
                    name);
        else
            sb_addf(&text, "'%s'%s%s%s, %s", r[i].file, r[i].version[0] ? " (cuDNN " : "",
                    r[i].version, r[i].version[0] ? ")" : "",
                    r[i].project ? "the project's" : r[i].why);
        if (r[i].file && r[i].project)
            sb_addf(&text, " through %s", r[i].why);
    }
    if (differ)
        sb_addf(&text, "; these are different copies: a program importing two of them holds "
                       "two cuDNNs in one process");
    char *fix = status == CDM_CHECK_OK && !differ
                    ? NULL
                    : xasprintf("run 'cdm attach %s%s%s'", prefix, d->have_project ? " " : "",
                                d->have_project ? d->project.path : "");
    doctor_add(d, check_name, differ ? CDM_CHECK_WARN : status, fix, "'%s': %s", prefix,
               sb_str(&text));
    for (size_t i = 0; i < n; i++)
        free(r[i].file);
    free(fix);
    sb_free(&text);
    free(check_name);
    free(name);
    strv_free(hook);
}
