/*
 * The doctor's same-install layer: every cuDNN library that the install's libraries need,
 * imported (DT_NEEDED, the PE import table) or opened by name while they run (the
 * sub-libraries of cudnn_libs.c), must be found by the loader inside the install itself,
 * in the environment the project's programs run in (doctor_env.c). A copy found elsewhere
 * means one process running two cuDNN copies (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH at
 * best); one found nowhere, CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED.
 */
#include "cudnn_lib.h"
#include "doctor.h"
#include "libfile.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

/* One name to find, and who needs it. */
struct need {
    char *name;
    char *needer;       /* the install's library that imports or opens it */
    bool by_name;       /* opened by name at run time (else imported) */
    bool versioned;     /* the fully versioned name, asked first: reported only when outside */
    struct strbuf also; /* "; libcudnn_cnn.so.9 imports it too" */
};

static bool is_cudnn_name(const char *name)
{
    return str_starts_with_icase(name, "libcudnn") || str_starts_with_icase(name, "cudnn");
}

static struct need *need_of(struct need **v, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*v)[i].name, name))
            return &(*v)[i];
    ALLOC_GROW(*v, *n);
    struct need *x = &(*v)[(*n)++];
    memset(x, 0, sizeof(*x));
    x->name = xstrdup(name);
    return x;
}

static void add_need(struct need **v, size_t *n, const char *name, const char *needer, bool by_name)
{
    struct need *x = need_of(v, n, name);
    if (!x->needer) {
        x->needer = xstrdup(needer);
        x->by_name = by_name;
    } else if (strcmp(x->needer, needer)) {
        sb_addf(&x->also, "; %s %s it too", needer, by_name ? "opens" : "imports");
    }
}

static bool found_outside(struct doctor *d, const char *found)
{
    char *dir = path_dirname(found);
    bool outside = !fs_same_path(d->lib_dir, dir);
    free(dir);
    return outside;
}

static char *lacks_fix(const char *name, const char *id)
{
    return xasprintf("the install has no %s: 'cdm verify %s' says whether it went missing "
                     "(then install its archive again with --force); if not, its archive "
                     "lacks it: install a complete archive of this version",
                     name, id);
}

/* Where the loader finds x for the program: the needer's own search order (its RUNPATH
 * and $ORIGIN) with the program's path list. A DLL that opens a name at run time gets
 * the process's search order, which does not hold the DLL's own folder. */
static void check_need(struct doctor *d, const struct need *x, const char *path_list,
                       const char *path_var)
{
    char *needer_path = path_join(d->lib_dir, x->needer);
    struct bin_imports im;
    bool have_im = !loader_read_imports(needer_path, &im);
    struct search s;
    bool own_folder = !(d->windows && x->by_name);
    loader_search_order_with(own_folder ? needer_path : NULL, have_im ? &im : NULL, path_list, &s);
    size_t step = 0;
    char *found = search_find(&s, x->name, have_im ? &im : NULL, 0, &step);
    char *check = xasprintf("same.%s", x->name);
    const char *how = x->by_name ? "opens" : "imports";
    if (x->versioned && (!found || !found_outside(d, found))) {
        /* not there, or the install's own: the main library falls back to, or has, its own */
        free(check);
        free(found);
        search_free(&s);
        if (have_im)
            bin_imports_free(&im);
        free(needer_path);
        return;
    }
    struct strbuf who = STRBUF_INIT;
    sb_addf(&who, "%s %s %s%s%s", x->needer, how, x->name, x->by_name ? " by name" : "",
            sb_str(&x->also));
    char *own = path_join(d->lib_dir, x->name);
    bool shipped = fs_kind(own) != FS_NONE;
    char *found_dir = found ? path_dirname(found) : NULL;
    if (!found) {
        char *fix = shipped
                        ? xasprintf("put '%s' on %s (activate the project)", d->lib_dir, path_var)
                        : lacks_fix(x->name, d->install.id);
        doctor_add(d, check, CDM_CHECK_FAIL, fix, "%s, and the loader finds it nowhere%s",
                   sb_str(&who), shipped ? "" : " (the install has no such file)");
        free(fix);
    } else if (!fs_same_path(d->lib_dir, found_dir)) {
        struct lib_origin o;
        lib_origin(d->ctx, found, &o);
        const char *origin = s.steps[step].origin;
        char *fix = shipped
                        ? xasprintf("put '%s' first on %s (activate the project), or remove '%s' "
                                    "from it",
                                    d->lib_dir, path_var, o.folder)
                        : lacks_fix(x->name, d->install.id);
        doctor_add(d, check, CDM_CHECK_FAIL, fix,
                   "%s, and the loader takes '%s'%s%s%s via %s: outside the install '%s'%s, so "
                   "one process would run two cuDNN copies",
                   sb_str(&who), found, o.version[0] ? " (cuDNN " : "", o.version,
                   o.version[0] ? ")" : "", origin, d->lib_dir,
                   shipped ? "" : ", which has no such file");
        free(fix);
    } else {
        doctor_add(d, check, CDM_CHECK_OK, NULL, "%s: '%s', inside the install (%s)", sb_str(&who),
                   found, s.steps[step].origin);
    }
    free(found_dir);
    free(own);
    free(check);
    free(found);
    sb_free(&who);
    search_free(&s);
    if (have_im)
        bin_imports_free(&im);
    free(needer_path);
}

static void check_same_install(struct doctor *d)
{
    if (!doctor_need_install(d, "same"))
        return;
    if (!d->libs || !d->libs[0]) {
        doctor_add(d, "same", CDM_CHECK_SKIP, NULL, "no cuDNN libraries in '%s'", d->lib_dir);
        return;
    }
    struct need *v = NULL;
    size_t n = 0;
    struct cudnn_sublibs subs;
    cudnn_sublibs(d->major, d->minor, d->windows, d->lib_dir, &subs);
    for (size_t i = 0; i < subs.count; i++) {
        add_need(&v, &n, subs.v[i].file, subs.v[i].opener, true);
        /* cuDNN 9's main library asks for libcudnn_graph.so.9.14.0 before libcudnn_graph.so.9
         * (seen with 9.14): a copy of that name elsewhere beats the install's */
        if (!d->windows) {
            char *full = xasprintf("%s.%d.%d", subs.v[i].file, d->minor, d->patch);
            add_need(&v, &n, full, subs.v[i].opener, true);
            v[n - 1].versioned = true;
            free(full);
        }
    }
    cudnn_sublibs_free(&subs);

    for (char **lib = d->libs; *lib; lib++) {
        char *path = path_join(d->lib_dir, *lib);
        struct bin_imports im;
        if (!loader_read_imports(path, &im)) {
            for (size_t i = 0; i < im.count; i++)
                if (is_cudnn_name(im.needed[i]))
                    add_need(&v, &n, im.needed[i], *lib, false);
            bin_imports_free(&im);
        }
        free(path);
    }
    const struct doctor_env *env = doctor_env(d);
    for (size_t i = 0; i < n; i++)
        check_need(d, &v[i], env->path_list, env->path_var);
    if (!n)
        doctor_add(d, "same", CDM_CHECK_OK, NULL, "cuDNN %d needs no other cuDNN library",
                   d->major);
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].needer);
        sb_free(&v[i].also);
    }
    free(v);
}

static const doctor_check_fn same_checks[] = {check_same_install};
const struct doctor_layer doctor_same_layer = {"same", same_checks, CDM_ARRAY_LEN(same_checks)};
