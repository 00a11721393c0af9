/*
 * Activation as changes to the environment, computed from the environment as it is (cdm.h
 * names the variables that carry the state). Pure: the environment comes through a
 * callback, so the unit tests can play any sequence of activate/deactivate;
 * activation_host.c runs them over this process's environment.
 */
#include "base/error.h"
#include "platform/fs.h"
#include "env_plan.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define SAVED_SET   "set:"
#define SAVED_UNSET "unset"

/* The variables activation replaces, with where their old value is kept: the plain ones,
 * and the path list, whose name each system gives (platform/shell_host.h). */
struct saved_var {
    const char *name, *saved;
};
static const struct saved_var plain_vars[] = {
    {"CUDA_PATH", "CDM_SAVED_CUDA_PATH"}, /* first: activation_plan sets it apart */
    {"CUDNN_PATH", "CDM_SAVED_CUDNN_PATH"},
};
static const struct saved_var list_vars[] = {
    {"LD_LIBRARY_PATH", "CDM_SAVED_LD_LIBRARY_PATH"},
    {"PATH", "CDM_SAVED_PATH"},
};

/* Set by every activation, not needed to tell one is on (an older cdm did not set them):
 * each is saved and restored on its own. */
static const struct saved_var root_vars[] = {
    {"CUDNN_ROOT", "CDM_SAVED_CUDNN_ROOT"}, /* FindCUDNN.cmake modules read these */
    {"CUDNN_ROOT_DIR", "CDM_SAVED_CUDNN_ROOT_DIR"},
};
static const struct saved_var redirect_var = {"CDM_REDIRECT_DIR", "CDM_SAVED_CDM_REDIRECT_DIR"};

/* Lists that activation adds one entry to when asked, each saved and restored on its own,
 * the entry remembered so that another activation replaces it. */
struct list_var {
    const char *name, *saved, *entry;
    bool last; /* the entry goes after the list's own */
};
enum { BUILD_PREFIX, BUILD_INCLUDE, BUILD_LIB, BUILD_COUNT };
static const struct list_var build_lists[] = {
    [BUILD_PREFIX] = {"CMAKE_PREFIX_PATH", "CDM_SAVED_CMAKE_PREFIX_PATH",
                      "CDM_CMAKE_PREFIX_PATH_ENTRY", false},
    [BUILD_INCLUDE] = {"CPATH", "CDM_SAVED_CPATH", "CDM_CPATH_ENTRY", false},
    [BUILD_LIB] = {"LIBRARY_PATH", "CDM_SAVED_LIBRARY_PATH", "CDM_LIBRARY_PATH_ENTRY", false},
};
_Static_assert(CDM_ARRAY_LEN(build_lists) == BUILD_COUNT, "one row per build path");
/* Last, as cdm exec puts it: an audit library already there sees each name first, and
 * cdm-audit.so has the last word on which file the loader opens. */
static const struct list_var audit_list = {"LD_AUDIT", "CDM_SAVED_LD_AUDIT", "CDM_LD_AUDIT_ENTRY",
                                           true};

static const char *saved_list_var(const struct shell_platform *pf)
{
    for (size_t i = 0; i < CDM_ARRAY_LEN(list_vars); i++)
        if (!strcmp(list_vars[i].name, pf->path_var))
            return list_vars[i].saved;
    abort(); /* a system whose path list has no row above: a bug */
}

static void add(struct cdm_env_plan *plan, const char *name, char *value, char *first)
{
    /* The plan's size is fixed by the variables above; overflowing it is a bug. */
    if (plan->n >= CDM_ARRAY_LEN(plan->v))
        abort();
    plan->v[plan->n++] = (struct cdm_env_change){name, value, first};
}

static void add_set(struct cdm_env_plan *plan, const char *name, const char *value)
{
    add(plan, name, value ? xstrdup(value) : NULL, NULL);
}

/* A saved value: true when it is well formed; *was_set and *value (into the string) out. */
static bool parse_saved(const char *saved, bool *was_set, const char **value)
{
    if (!saved)
        return false;
    if (!strcmp(saved, SAVED_UNSET)) {
        *was_set = false;
        *value = NULL;
        return true;
    }
    if (str_starts_with(saved, SAVED_SET)) {
        *was_set = true;
        *value = saved + strlen(SAVED_SET);
        return true;
    }
    return false;
}

static char *saved_form(const char *value)
{
    return value ? xasprintf(SAVED_SET "%s", value) : xstrdup(SAVED_UNSET);
}

bool activation_is_on(const struct shell_platform *pf, env_get_fn get, void *arg)
{
    bool set = false;
    const char *v = NULL;
    for (size_t i = 0; i < CDM_ARRAY_LEN(plain_vars); i++)
        if (!parse_saved(get(arg, plain_vars[i].saved), &set, &v))
            return false;
    return parse_saved(get(arg, saved_list_var(pf)), &set, &v);
}

/* Entries compare as the platform's file system would: case folded on Windows, and a
 * trailing separator does not make another folder. */
static size_t entry_len(const struct shell_platform *pf, const char *e, size_t n)
{
    while (n > 1 && (e[n - 1] == pf->dir_sep || e[n - 1] == '/'))
        n--;
    return n;
}

static bool same_entry(const struct shell_platform *pf, const char *a, size_t an, const char *b)
{
    size_t bn = entry_len(pf, b, strlen(b));
    an = entry_len(pf, a, an);
    if (an != bn || !bn)
        return false;
    for (size_t i = 0; i < an; i++) {
        char x = a[i], y = b[i];
        if (pf->fold_case) {
            x = (char)tolower((unsigned char)x);
            y = (char)tolower((unsigned char)y);
            if (x == '/')
                x = '\\';
            if (y == '/')
                y = '\\';
        }
        if (x != y)
            return false;
    }
    return true;
}

/* list without any entry equal to one of drop[0..n) (NULL entries ignored); malloc'd. */
static char *list_without(const struct shell_platform *pf, const char *list,
                          const char *const *drop, size_t ndrop)
{
    struct strbuf sb = STRBUF_INIT;
    bool first = true;
    sb_add(&sb, "");
    const char *p = list ? list : "";
    if (!*p)
        return sb_detach(&sb);
    for (;;) {
        const char *end = strchr(p, pf->list_sep);
        size_t n = end ? (size_t)(end - p) : strlen(p);
        bool dropped = false;
        for (size_t i = 0; i < ndrop && !dropped; i++)
            dropped = drop[i] && same_entry(pf, p, n, drop[i]);
        if (!dropped) {
            if (!first)
                sb_addc(&sb, pf->list_sep);
            sb_addn(&sb, p, n);
            first = false;
        }
        if (!end)
            break;
        p = end + 1;
    }
    return sb_detach(&sb);
}

/* entry, then rest when it is not empty: an empty list item would mean "the current folder"
 * to the loader, so an empty or unset list becomes the entry alone. */
static char *list_with_first(const struct shell_platform *pf, const char *entry, const char *rest)
{
    return *rest ? xasprintf("%s%c%s", entry, pf->list_sep, rest) : xstrdup(entry);
}

static char *list_with_last(const struct shell_platform *pf, const char *rest, const char *entry)
{
    return *rest ? xasprintf("%s%c%s", rest, pf->list_sep, entry) : xstrdup(entry);
}

static char *native_path(const struct shell_platform *pf, const char *path)
{
    return path_slashes_to(xstrdup(path), pf->dir_sep);
}

/* What CUDA_PATH and CUDA_HOME name, and its programs' folder: the link's unless a toolkit
 * is kept apart from it (a target without cuda_path has none). */
static const char *cuda_path_of(const struct activation_target *t)
{
    return t->cuda_path ? t->cuda_path : t->link_path;
}

static const char *cuda_bin_of(const struct activation_target *t)
{
    return t->cuda_path ? t->cuda_bin : t->bin_dir;
}

/* Where the loader's list is not PATH (POSIX), a toolkit's programs need PATH too. */
static bool programs_apart(const struct shell_platform *pf)
{
    return strcmp(pf->path_var, "PATH") != 0;
}

static char *restored_list(const struct shell_platform *pf, const char *current, const char *entry,
                           bool was_set, const char *saved, bool last);

static bool saved_is_on(env_get_fn get, void *arg, const char *saved)
{
    bool set = false;
    const char *v = NULL;
    return parse_saved(get(arg, saved), &set, &v);
}

/* With a toolkit, activation also keeps CUDA_HOME (and PATH, programs_apart) in
 * CDM_SAVED_CUDA_HOME (CDM_SAVED_PATH), and the PATH entry it added in CDM_BIN_ENTRY. */
static bool toolkit_is_on(env_get_fn get, void *arg)
{
    return saved_is_on(get, arg, "CDM_SAVED_CUDA_HOME");
}

static void toolkit_plan(const struct shell_platform *pf, env_get_fn get, void *arg, bool was_on,
                         const struct activation_target *t, struct cdm_env_plan *out)
{
    if (!was_on)
        add(out, "CDM_SAVED_CUDA_HOME", saved_form(get(arg, "CUDA_HOME")), NULL);
    add(out, "CUDA_HOME", native_path(pf, cuda_path_of(t)), NULL);
    if (!programs_apart(pf))
        return;
    if (!was_on)
        add(out, "CDM_SAVED_PATH", saved_form(get(arg, "PATH")), NULL);
    char *joined = xasprintf("%s/%s", cuda_path_of(t), cuda_bin_of(t));
    char *entry = native_path(pf, joined);
    const char *drop[] = {entry, was_on ? get(arg, "CDM_BIN_ENTRY") : NULL};
    add(out, "PATH", list_without(pf, get(arg, "PATH"), drop, CDM_ARRAY_LEN(drop)), xstrdup(entry));
    add(out, "CDM_BIN_ENTRY", entry, NULL);
    free(joined);
}

/* CUDA_HOME and PATH as they were before a toolkit was activated. */
static void toolkit_restore(const struct shell_platform *pf, env_get_fn get, void *arg,
                            struct cdm_env_plan *out)
{
    bool set = false;
    const char *value = NULL;
    parse_saved(get(arg, "CDM_SAVED_CUDA_HOME"), &set, &value);
    add_set(out, "CUDA_HOME", value);
    add(out, "CDM_SAVED_CUDA_HOME", NULL, NULL);
    if (!programs_apart(pf) || !parse_saved(get(arg, "CDM_SAVED_PATH"), &set, &value))
        return;
    add(out, "PATH",
        restored_list(pf, get(arg, "PATH"), get(arg, "CDM_BIN_ENTRY"), set, value, false), NULL);
    add(out, "CDM_SAVED_PATH", NULL, NULL);
    add(out, "CDM_BIN_ENTRY", NULL, NULL);
}

/* A variable set to value (saved first, unless it was already), or with value NULL put back
 * as it was before, when activation had saved it. */
static void plain_change(env_get_fn get, void *arg, const struct saved_var *v, const char *value,
                         struct cdm_env_plan *out)
{
    bool set = false;
    const char *old = NULL;
    bool on = parse_saved(get(arg, v->saved), &set, &old);
    if (value) {
        if (!on)
            add(out, v->saved, saved_form(get(arg, v->name)), NULL);
        add_set(out, v->name, value);
    } else if (on) {
        add_set(out, v->name, old);
        add(out, v->saved, NULL, NULL);
    }
}

/* The same for a list: entry in it once (the previous activation's entry dropped), or with
 * entry NULL the list as restored_list gives it back. */
static void list_change(const struct shell_platform *pf, env_get_fn get, void *arg,
                        const struct list_var *v, const char *entry, struct cdm_env_plan *out)
{
    bool set = false;
    const char *old = NULL;
    bool on = parse_saved(get(arg, v->saved), &set, &old);
    if (entry) {
        if (!on)
            add(out, v->saved, saved_form(get(arg, v->name)), NULL);
        const char *drop[] = {entry, on ? get(arg, v->entry) : NULL};
        char *rest = list_without(pf, get(arg, v->name), drop, CDM_ARRAY_LEN(drop));
        if (v->last) {
            add(out, v->name, list_with_last(pf, rest, entry), NULL);
            free(rest);
        } else {
            add(out, v->name, rest, xstrdup(entry));
        }
        add_set(out, v->entry, entry);
    } else if (on) {
        add(out, v->name,
            restored_list(pf, get(arg, v->name), get(arg, v->entry), set, old, v->last), NULL);
        add(out, v->saved, NULL, NULL);
        add(out, v->entry, NULL, NULL);
    }
}

/* CUDNN_ROOT and CUDNN_ROOT_DIR, the build paths and the redirect, as t asks (t NULL: each
 * put back as it was). */
static void extras_plan(const struct shell_platform *pf, env_get_fn get, void *arg,
                        const struct activation_target *t, struct cdm_env_plan *out)
{
    char *link = t ? native_path(pf, t->link_path) : NULL;
    for (size_t i = 0; i < CDM_ARRAY_LEN(root_vars); i++)
        plain_change(get, arg, &root_vars[i], link, out);
    char *build[BUILD_COUNT] = {NULL};
    if (t && t->build_paths) {
        char *include = xasprintf("%s/include", t->link_path);
        char *lib = xasprintf("%s/%s", t->link_path, t->lib_folder);
        build[BUILD_PREFIX] = xstrdup(link);
        build[BUILD_INCLUDE] = native_path(pf, include);
        build[BUILD_LIB] = native_path(pf, lib);
        free(include);
        free(lib);
    }
    for (size_t i = 0; i < BUILD_COUNT; i++) {
        list_change(pf, get, arg, &build_lists[i], build[i], out);
        free(build[i]);
    }
    const char *audit = t ? t->audit : NULL;
    char *joined = audit ? xasprintf("%s/%s", t->link_path, t->lib_folder) : NULL;
    char *redirect_dir = joined ? native_path(pf, joined) : NULL;
    list_change(pf, get, arg, &audit_list, audit, out);
    plain_change(get, arg, &redirect_var, redirect_dir, out);
    free(redirect_dir);
    free(joined);
    free(link);
}

char *activation_entry(const struct shell_platform *pf, const struct activation_target *t)
{
    char *joined =
        *t->lib_dir ? xasprintf("%s/%s", t->link_path, t->lib_dir) : xstrdup(t->link_path);
    char *entry = native_path(pf, joined);
    free(joined);
    return entry;
}

bool activation_plan(const struct shell_platform *pf, env_get_fn get, void *arg,
                     const struct activation_target *t, struct cdm_env_plan *out)
{
    out->n = 0;
    char *entry = activation_entry(pf, t);
    if (strchr(entry, pf->list_sep)) {
        free(entry);
        return false;
    }
    bool on = activation_is_on(pf, get, arg);
    if (!on) {
        for (size_t i = 0; i < CDM_ARRAY_LEN(plain_vars); i++)
            add(out, plain_vars[i].saved, saved_form(get(arg, plain_vars[i].name)), NULL);
        add(out, saved_list_var(pf), saved_form(get(arg, pf->path_var)), NULL);
    }
    /* CUDA_PATH names the toolkit with the project's cuDNN when there is one, CUDNN_PATH the
     * project's cuDNN */
    char *cuda = native_path(pf, cuda_path_of(t)), *link = native_path(pf, t->link_path);
    add_set(out, plain_vars[0].name, cuda);
    add_set(out, plain_vars[1].name, link);
    free(cuda);
    free(link);
    /* The previous activation's entry goes too, so switching projects never stacks. */
    const char *drop[] = {entry, on ? get(arg, "CDM_PATH_ENTRY") : NULL};
    char *rest = list_without(pf, get(arg, pf->path_var), drop, CDM_ARRAY_LEN(drop));
    add(out, pf->path_var, rest, xstrdup(entry));
    add_set(out, "CDM_PATH_ENTRY", entry);
    add(out, "CDM_PROJECT", native_path(pf, t->project), NULL);
    add_set(out, "CDM_ACTIVE", t->id);
    free(entry);
    extras_plan(pf, get, arg, t, out);
    if (t->toolkit)
        toolkit_plan(pf, get, arg, on && toolkit_is_on(get, arg), t, out);
    else if (on && toolkit_is_on(get, arg))
        toolkit_restore(pf, get, arg, out); /* from a project with a toolkit to one without */
    return true;
}

/* The path list's value after deactivation (NULL: unset). When nobody touched the list
 * since activation, the saved value comes back byte for byte; otherwise only our entry
 * leaves and the user's own changes stay. */
static char *restored_list(const struct shell_platform *pf, const char *current, const char *entry,
                           bool was_set, const char *saved, bool last)
{
    const char *drop[] = {entry};
    char *saved_rest = list_without(pf, saved, drop, 1);
    char *as_activated = !entry ? xstrdup(saved_rest)
                         : last ? list_with_last(pf, saved_rest, entry)
                                : list_with_first(pf, entry, saved_rest);
    bool untouched = current && !strcmp(current, as_activated);
    free(as_activated);
    free(saved_rest);
    if (untouched || !current)
        return was_set ? xstrdup(saved) : NULL;
    char *rest = list_without(pf, current, drop, 1);
    if (!*rest && !was_set) {
        free(rest);
        return NULL;
    }
    return rest;
}

void deactivation_plan(const struct shell_platform *pf, env_get_fn get, void *arg,
                       struct cdm_env_plan *out)
{
    out->n = 0;
    if (!activation_is_on(pf, get, arg))
        return;
    bool set = false;
    const char *value = NULL;
    for (size_t i = 0; i < CDM_ARRAY_LEN(plain_vars); i++) {
        parse_saved(get(arg, plain_vars[i].saved), &set, &value);
        add_set(out, plain_vars[i].name, value);
    }
    parse_saved(get(arg, saved_list_var(pf)), &set, &value);
    add(out, pf->path_var,
        restored_list(pf, get(arg, pf->path_var), get(arg, "CDM_PATH_ENTRY"), set, value, false),
        NULL);
    for (size_t i = 0; i < CDM_ARRAY_LEN(plain_vars); i++)
        add(out, plain_vars[i].saved, NULL, NULL);
    add(out, saved_list_var(pf), NULL, NULL);
    add(out, "CDM_PATH_ENTRY", NULL, NULL);
    add(out, "CDM_PROJECT", NULL, NULL);
    add(out, "CDM_ACTIVE", NULL, NULL);
    extras_plan(pf, get, arg, NULL, out);
    if (toolkit_is_on(get, arg))
        toolkit_restore(pf, get, arg, out);
}

char *env_change_value(const struct shell_platform *pf, const struct cdm_env_change *c)
{
    if (!c->value)
        return NULL;
    if (c->first && *c->value)
        return xasprintf("%s%c%s", c->first, pf->list_sep, c->value);
    return xstrdup(c->first ? c->first : c->value);
}

/* Whether get() shows t active as activation_plan would leave it: the same install through
 * the same entry, a toolkit exactly when t has one, and what t adds (the build paths; the
 * redirect when redirect) there, nothing more. */
bool activation_current(const struct shell_platform *pf, env_get_fn get, void *arg,
                        const struct activation_target *t, bool redirect)
{
    char *entry = activation_entry(pf, t), *cuda = native_path(pf, cuda_path_of(t));
    const char *active = get(arg, "CDM_ACTIVE"), *had = get(arg, "CDM_PATH_ENTRY");
    const char *cuda_now = get(arg, "CUDA_PATH");
    bool current = activation_is_on(pf, get, arg) && active && !strcmp(active, t->id) && had &&
                   !strcmp(had, entry) && cuda_now && !strcmp(cuda_now, cuda) &&
                   toolkit_is_on(get, arg) == t->toolkit &&
                   saved_is_on(get, arg, root_vars[0].saved) &&
                   saved_is_on(get, arg, build_lists[0].saved) == t->build_paths &&
                   saved_is_on(get, arg, audit_list.saved) == redirect;
    free(cuda);
    free(entry);
    return current;
}
