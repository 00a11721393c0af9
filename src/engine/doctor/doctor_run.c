/*
 * The doctor's last layer, cdm doctor -- CMD: run a real program in the environment the
 * project's activation gives it, and report every cuDNN library (and CUDA runtime, cuBLAS,
 * NVRTC) its processes loaded: where from, which install or folder, which version, and why
 * the loader took that file. cuDNN from more than one folder or version, or from outside the
 * project's install, fails: that is the mix the static layers cannot see (a framework's
 * RPATH beating LD_LIBRARY_PATH for the main library while the sub-libraries it opens by
 * name come from LD_LIBRARY_PATH).
 */
#include "cudnn_lib.h"
#include "doctor.h"
#include "ran_on_gpu.h"
#include "libfile.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

/* The object that asked, for people: the program itself when it was the main one. */
static const char *asker_of(const struct trace_object *o)
{
    return o->asker[0] ? o->asker : "the program";
}

/* Which RPATH or RUNPATH entry of the object that asked names dir. */
static void rpath_reason(const struct trace_object *o, const char *dir, struct strbuf *why)
{
    struct bin_imports im;
    bool have = o->asker[0] && !loader_read_imports(o->asker, &im);
    if (have) {
        struct search s;
        loader_search_order_with(o->asker, &im, NULL, &s);
        for (size_t i = 0; i < s.count; i++) {
            const char *origin = s.steps[i].origin;
            if (s.steps[i].dir && (!strcmp(origin, "RPATH") || !strcmp(origin, "RUNPATH")) &&
                fs_same_path(s.steps[i].dir, dir)) {
                sb_addf(why, "the %s of '%s' names '%s'%s", origin, o->asker, s.steps[i].dir,
                        strcmp(origin, "RPATH") ? ""
                                                : " (an RPATH is searched before LD_LIBRARY_PATH)");
                search_free(&s);
                bin_imports_free(&im);
                return;
            }
        }
        search_free(&s);
        bin_imports_free(&im);
    }
    sb_addf(why,
            "an RPATH of the program, or of a library that loaded '%s', names '%s' (an "
            "RPATH is searched before LD_LIBRARY_PATH)",
            asker_of(o), dir);
}

/* Is dir an entry of the path list? */
static bool on_list(const char *list, char sep, const char *dir)
{
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, sep);
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char *entry = xstrndup(p, n);
        bool same = n && fs_same_path(entry, dir);
        free(entry);
        if (same)
            return true;
        if (!end)
            break;
        p = end + 1;
    }
    return false;
}

/* The main program of the process pid, from the trace. */
static const char *program_of(const struct trace_result *r, uint64_t pid)
{
    for (size_t i = 0; i < r->count; i++)
        if (r->objects[i].pid == pid && r->objects[i].how == TRACE_MAIN)
            return r->objects[i].path;
    return NULL;
}

/* Why the loader took o: the loader's own word on POSIX, the search order on Windows. */
static char *explain(struct doctor *d, const struct trace_result *r, size_t index)
{
    const struct trace_object *o = &r->objects[index];
    const struct doctor_env *env = doctor_env(d);
    char *dir = path_dirname(o->path);
    struct strbuf why = STRBUF_INIT;
    const char *name = o->asked[0] ? o->asked : path_basename(o->path);
    switch (o->how) {
    case TRACE_PATH:
        sb_addf(&why, "'%s' opened it by its path", asker_of(o));
        break;
    case TRACE_LIBPATH:
        sb_addf(&why, "'%s' is on LD_LIBRARY_PATH%s, and '%s' asked for %s by name", dir,
                env->activated && fs_same_path(dir, env->activation) ? " (put there by activation)"
                                                                     : "",
                asker_of(o), name);
        break;
    case TRACE_RUNPATH:
        rpath_reason(o, dir, &why);
        break;
    case TRACE_CACHE:
        sb_addf(&why, "the loader cache (/etc/ld.so.cache) maps %s to it", name);
        break;
    case TRACE_DEFAULT:
        sb_addf(&why, "'%s' is one of the loader's default folders", dir);
        break;
    default: {
        const char *program = program_of(r, o->pid);
        char *program_dir = program ? path_dirname(program) : NULL;
        if (program_dir && fs_same_path(program_dir, dir))
            sb_addf(&why, "it is in the program's own folder, which Windows searches first");
        else if (on_list(env->path_list, ';', dir))
            sb_addf(&why, "'%s' is on PATH%s", dir,
                    env->activated && fs_same_path(dir, env->activation)
                        ? " (put there by activation)"
                        : "");
        else
            sb_addf(&why, "loaded by its path, or from a folder the program added "
                          "(os.add_dll_directory, SetDllDirectory)");
        free(program_dir);
        break;
    }
    }
    /* A library already loaded under a name is what a later request by that name gets. */
    const char *base = path_basename(o->path);
    const char *kind = cuda_lib_kind(base);
    if (kind && !strcmp(kind, "cudnn")) {
        for (size_t j = index + 1; j < r->count; j++) {
            const struct trace_object *f = &r->objects[j];
            const char *fb = path_basename(f->path);
            bool front = f->pid == o->pid && (str_starts_with(fb, "libcudnn.so.") ||
                                              str_starts_with_icase(fb, "cudnn64_"));
            char *fdir = front ? path_dirname(f->path) : NULL;
            if (front && !fs_same_path(fdir, dir))
                sb_addf(&why,
                        "; it was loaded before '%s', so when that asks for %s by name "
                        "the loader hands it this copy",
                        f->path, base);
            free(fdir);
            if (front)
                break;
        }
    }
    free(dir);
    return sb_detach(&why);
}

static void add_loaded(struct doctor *d, const struct trace_result *r, size_t index,
                       const char *kind)
{
    const struct trace_object *o = &r->objects[index];
    struct cdm_doctor_report *rep = d->report;
    for (size_t i = 0; i < rep->loaded_count; i++)
        if (!strcmp(rep->loaded[i].path, o->path) &&
            !strcmp(rep->loaded[i].real_path, o->real_path))
            return; /* another process loaded the same file: once is enough */
    struct lib_origin origin;
    lib_origin(d->ctx, o->real_path[0] ? o->real_path : o->path, &origin);
    ALLOC_GROW(rep->loaded, rep->loaded_count);
    struct cdm_loaded *l = &rep->loaded[rep->loaded_count++];
    l->path = xstrdup(o->path);
    l->real_path = xstrdup(o->real_path[0] ? o->real_path : o->path);
    l->kind = xstrdup(kind);
    l->install = origin.install_id[0] ? xstrdup(origin.install_id) : NULL;
    l->folder = xstrdup(origin.folder);
    l->version = xstrdup(origin.version);
    l->why = explain(d, r, index);
    l->pid = o->pid;
}

/* The environment a wheel's file belongs to: the folder above lib/python3.X/site-packages
 * (or Lib\site-packages); NULL when path is not in one. */
static char *venv_of(const char *path)
{
    const char *markers[] = {"/site-packages/", "\\site-packages\\"};
    for (size_t i = 0; i < CDM_ARRAY_LEN(markers); i++) {
        const char *m = strstr(path, markers[i]);
        if (!m)
            continue;
        char *above = xstrndup(path, (size_t)(m - path)); /* .../lib/python3.X or ...\Lib */
        char *lib = path_dirname(above);
        char *venv = str_starts_with(path_basename(above), "python") ? path_dirname(lib) : lib;
        if (venv != lib)
            free(lib);
        free(above);
        return venv;
    }
    return NULL;
}

/* The cuDNN major of a loaded library: its version's, else its soname's (.so.9, 64_9.dll). */
static int loaded_major(const struct cdm_loaded *l)
{
    const char *b = path_basename(l->path), *so = strstr(b, ".so."), *dll = strstr(b, "64_");
    return l->version[0] ? atoi(l->version) : so ? atoi(so + 4) : dll ? atoi(dll + 3) : 0;
}

/* Per cuDNN major, the first library of it seen: one process may hold two majors (a
 * project's second, cdm link --also), but each from one folder and one version. */
struct major_seen {
    int major;
    const struct cdm_loaded *first;
};

static const struct cdm_loaded *first_of_major(struct major_seen *seen, size_t *n,
                                               const struct cdm_loaded *l)
{
    int major = loaded_major(l);
    for (size_t i = 0; i < *n; i++)
        if (seen[i].major == major)
            return seen[i].first;
    if (*n < 8)
        seen[(*n)++] = (struct major_seen){major, l};
    return NULL;
}

static void judge_cudnn(struct doctor *d, const struct trace_result *r)
{
    const struct cdm_doctor_report *rep = d->report;
    struct strbuf folders = STRBUF_INIT, outside = STRBUF_INIT;
    size_t nfolders = 0, ncudnn = 0, noutside = 0, nmajors = 0;
    struct major_seen seen[8];
    char *venv = NULL;
    bool versions_differ = false, folders_differ = false;
    char also[64];
    cdm_pair_view_also(d->have_project ? d->project.view : NULL, also, sizeof(also));
    for (size_t i = 0; i < rep->loaded_count; i++) {
        const struct cdm_loaded *l = &rep->loaded[i];
        if (strcmp(l->kind, "cudnn"))
            continue;
        ncudnn++;
        const struct cdm_loaded *first = first_of_major(seen, &nmajors, l);
        if (first && l->version[0] && first->version[0] &&
            !lib_same_version(first->version, l->version))
            versions_differ = true;
        if (first && strcmp(first->folder, l->folder))
            folders_differ = true;
        bool seen_folder = false;
        for (size_t j = 0; j < i && !seen_folder; j++)
            seen_folder =
                !strcmp(rep->loaded[j].kind, "cudnn") && !strcmp(rep->loaded[j].folder, l->folder);
        if (!seen_folder) {
            nfolders++;
            sb_addf(&folders, "%s'%s' (cuDNN %s, %s%s)", nfolders > 1 ? " and " : "", l->folder,
                    l->version[0] ? l->version : "of unknown version",
                    l->install ? "the store's " : "outside the store",
                    l->install ? l->install : "");
        }
        bool mine = l->install && (!strcmp(l->install, d->install.id) || !strcmp(l->install, also));
        if (d->have_install && !mine) {
            if (!noutside++)
                sb_addf(&outside, "'%s' (%s)", l->path, l->why);
            if (!venv)
                venv = venv_of(l->path);
        }
    }
    if (!ncudnn) {
        doctor_add(d, "run.cudnn", CDM_CHECK_WARN,
                   r->processes ? "check that the command uses cuDNN (it may load it later, or "
                                  "not on this input)"
                                : "run a dynamically linked program: the loader reported "
                                  "nothing (a static or set-user-ID program, or one of "
                                  "another word size than cdm's audit library)",
                   "the command loaded no cuDNN library%s",
                   r->processes ? "" : " that the loader reported");
    } else if (folders_differ || versions_differ || noutside) {
        struct strbuf fix = STRBUF_INIT;
        if (venv)
            sb_addf(&fix,
                    "run 'cdm attach %s%s%s' so the environment's wheel folder leads to "
                    "the project's cuDNN",
                    venv, d->have_project ? " " : "", d->have_project ? d->project.path : "");
        else
            sb_addf(&fix,
                    "make the program take cuDNN from '%s' only: see why each library "
                    "was loaded",
                    d->have_install ? d->lib_dir : "one folder");
        doctor_add(d, "run.cudnn", CDM_CHECK_FAIL, sb_str(&fix),
                   "%u cuDNN libraries from %u folder%s: %s%s%s%s%s%s", (unsigned)ncudnn,
                   (unsigned)nfolders, nfolders == 1 ? "" : "s", sb_str(&folders),
                   versions_differ ? "; two versions in one process" : "",
                   noutside ? "; outside the project's install " : "",
                   noutside ? d->install.id : "", noutside ? ", first " : "", sb_str(&outside));
        sb_free(&fix);
    } else {
        doctor_add(d, "run.cudnn", CDM_CHECK_OK, NULL, "%u cuDNN libraries, all from %s",
                   (unsigned)ncudnn, sb_str(&folders));
    }
    free(venv);
    sb_free(&folders);
    sb_free(&outside);
}

/* How the command ended: killed at the limit, by a signal, its exit status. */
static void report_command(struct doctor *d, const struct trace_result *r)
{
    if (r->timed_out)
        doctor_add(d, "run.command", CDM_CHECK_FAIL,
                   "give it more time with --timeout SECONDS, or find out where it waits; "
                   "the libraries below are those it had loaded by then",
                   "'%s' ran past the doctor's limit of %u s and was killed with its process "
                   "group",
                   d->req->command[0], d->req->timeout_s);
    else if (r->signal)
        doctor_add(d, "run.command", CDM_CHECK_FAIL, "see the loaded libraries below",
                   "'%s' was killed by signal %d", d->req->command[0], r->signal);
    else if (r->exit_code)
        doctor_add(d, "run.command", CDM_CHECK_WARN, "see the command's own messages",
                   "'%s' exited with status %d", d->req->command[0], r->exit_code);
    else
        doctor_add(d, "run.command", CDM_CHECK_OK, NULL,
                   "'%s' exited with status 0 (%u "
                   "process%s)",
                   d->req->command[0], (unsigned)r->processes, r->processes == 1 ? "" : "es");
}

/* A linked project's program that loaded no cuDNN or no driver ran on the CPU, which is
 * what most "it is slow" reports turn out to be. */
static void judge_gpu(struct doctor *d, const struct trace_result *r)
{
    struct strbuf why = STRBUF_INIT;
    bool linked = d->have_project && (d->project.has_link || *d->project.linked_id);
    if (!linked)
        doctor_add(d, "run.gpu", CDM_CHECK_SKIP, NULL, "no linked project to hold it to the GPU");
    else if (ran_on_gpu(r, &why))
        doctor_add(d, "run.gpu", CDM_CHECK_OK, NULL, "it loaded cuDNN and the CUDA driver");
    else
        doctor_add(d, "run.gpu", d->req->allow_cpu ? CDM_CHECK_WARN : CDM_CHECK_FAIL,
                   d->req->allow_cpu ? NULL
                                     : "see the driver and machine checks above; pass "
                                       "--allow-cpu when a CPU run is what you want",
                   "%s%s", sb_str(&why), d->req->allow_cpu ? " (accepted: --allow-cpu)" : "");
    sb_free(&why);
}

static void check_run(struct doctor *d)
{
    if (!d->req || !d->req->command || !d->req->command[0])
        return;
    const struct doctor_env *env = doctor_env(d);
    if (env->activated)
        doctor_add(d, "run.environment", CDM_CHECK_OK, NULL,
                   "the command ran with the project activated ('%s' first on %s), as 'cdm "
                   "%s' sets it",
                   env->activation, env->path_var, d->req->exec ? "exec" : "activate");
    else
        doctor_add(d, "run.environment", CDM_CHECK_WARN,
                   "link a project ('cdm link PROJECT VERSION') and run the doctor there",
                   "the command ran in this environment as it is: %s", env->activation);
    /* --exec, or an activation with [activate] redirect: the redirect too (the audit
     * library watching is the one that redirects, ld_audit.c), in place of the plan's
     * CDM_REDIRECT_DIR */
    bool redirect = (d->req->exec || env->redirect) && env->activated;
    struct trace_env *vars = xcalloc(env->count + 1, sizeof(*vars));
    size_t nvars = 0;
    for (size_t i = 0; i < env->count; i++)
        if (!redirect || strcmp(env->vars[i].name, "CDM_REDIRECT_DIR"))
            vars[nvars++] = env->vars[i];
    if (redirect)
        vars[nvars++] = (struct trace_env){"CDM_REDIRECT_DIR", env->activation};
    struct trace_request tr = {d->req->command, vars, nvars, d->req->command_stdout_to_stderr,
                               d->req->timeout_s};
    struct trace_result r;
    int traced = trace_run(d->ctx, &tr, &r);
    free(vars);
    if (traced != CDM_OK) {
        doctor_add(d, "run.command", CDM_CHECK_FAIL, "check the command and cdm's installation",
                   "%s", cdm_error_message(d->ctx));
        return;
    }
    struct cdm_doctor_report *rep = d->report;
    rep->ran = true;
    rep->exit_code = r.exit_code;
    rep->exit_signal = r.signal;
    for (size_t i = 0; i < r.count; i++) {
        const char *kind = cuda_lib_kind(path_basename(r.objects[i].path));
        if (kind && r.objects[i].how != TRACE_MAIN)
            add_loaded(d, &r, i, kind);
    }
    report_command(d, &r);
    /* the channel's own word (ld_audit.c, trace_channel_posix.c): what is missing from
     * the report, and what was not believed */
    if (r.cut)
        doctor_add(d, "run.trace", CDM_CHECK_WARN,
                   "run the doctor on a smaller part of the work: what came after the cut is "
                   "not in this report",
                   "the trace was cut: the command's processes reported more than the doctor "
                   "keeps (%u objects, %u MiB, or %u processes at once)",
                   TRACE_MAX_OBJECTS, TRACE_MAX_MIB, TRACE_MAX_CONNECTIONS);
    if (r.ignored)
        doctor_add(d, "run.trace", CDM_CHECK_WARN,
                   "find which process of the command writes to the doctor's channel",
                   "%zu message%s or connection%s on the doctor's channel did not come from a "
                   "process's own audit library and %s ignored",
                   r.ignored, r.ignored == 1 ? "" : "s", r.ignored == 1 ? "" : "s",
                   r.ignored == 1 ? "was" : "were");
    judge_cudnn(d, &r);
    judge_gpu(d, &r);
    trace_result_free(&r);
}

static const doctor_check_fn run_checks[] = {check_run};
const struct doctor_layer doctor_run_layer = {"run", run_checks, CDM_ARRAY_LEN(run_checks)};
