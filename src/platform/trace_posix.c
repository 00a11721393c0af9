/*
 * What a program loads, on glibc: the program runs with LD_AUDIT naming cdm-audit.so
 * (ld_audit.c), whose instance in each process connects to a socket in a private temporary
 * folder (trace_channel_posix.c) and sends a message per mapped object; children inherit
 * the two variables and connect too. cdm reads while the program runs, so a process never
 * waits on a full channel, and stops at the program's exit or its timeout.
 */
#define _GNU_SOURCE /* mkdtemp, environ */
#include "fs.h"
#include "trace.h"
#include "trace_channel.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define AUDIT_NAME "cdm-audit.so"
/* after the program's exit, how long its remaining children may keep cdm reading */
#define DRAIN_MS 2000

#ifndef CDM_AUDIT_DIR
#define CDM_AUDIT_DIR "../lib/cdm"
#endif

/* CDM_AUDIT_DIR is relative to the program's folder unless absolute. */
char *trace_audit_library(struct strbuf *looked)
{
    const char *given = getenv("CDM_AUDIT_LIBRARY");
    if (given && *given) {
        sb_addf(looked, "'%s' (CDM_AUDIT_LIBRARY)", given);
        return fs_kind(given) == FS_FILE || fs_kind(given) == FS_LINK ? fs_realpath(given) : NULL;
    }
    char *exe = fs_realpath("/proc/self/exe");
    if (!exe)
        return NULL;
    char *dir = path_dirname(exe);
    char *installed_dir =
        CDM_AUDIT_DIR[0] == '/' ? xstrdup(CDM_AUDIT_DIR) : path_join(dir, CDM_AUDIT_DIR);
    char *candidates[] = {path_join(dir, AUDIT_NAME), path_join(installed_dir, AUDIT_NAME)};
    char *found = NULL;
    for (size_t i = 0; i < CDM_ARRAY_LEN(candidates); i++) {
        if (!found && fs_kind(candidates[i]) != FS_NONE)
            found = fs_realpath(candidates[i]);
        sb_addf(looked, "%s'%s'", i ? ", " : "", candidates[i]);
        free(candidates[i]);
    }
    free(installed_dir);
    free(dir);
    free(exe);
    return found;
}

/* environ with the request's changes, LD_AUDIT (appended to the one the changes leave, which
 * never holds audit twice: a shell activated with --redirect has it already) and
 * CDM_TRACE_SOCKET. Every string malloc'd; the array NULL-terminated. */
static char **child_environment(const struct trace_request *req, const char *audit,
                                const char *socket)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = xcalloc(n + req->env_count + 3, sizeof(char *));
    size_t out = 0;
    const char *old_audit = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t len = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        bool replaced = (len == 8 && !strncmp(environ[i], "LD_AUDIT", 8)) ||
                        (len == 16 && !strncmp(environ[i], "CDM_TRACE_SOCKET", 16));
        if (len == 8 && !strncmp(environ[i], "LD_AUDIT", 8) && eq && eq[1])
            old_audit = eq + 1;
        for (size_t c = 0; c < req->env_count && !replaced; c++)
            replaced =
                strlen(req->env[c].name) == len && !strncmp(req->env[c].name, environ[i], len);
        if (!replaced)
            env[out++] = xstrdup(environ[i]);
    }
    for (size_t c = 0; c < req->env_count; c++) {
        if (!strcmp(req->env[c].name, "LD_AUDIT"))
            old_audit = req->env[c].value;
        else if (req->env[c].value)
            env[out++] = xasprintf("%s=%s", req->env[c].name, req->env[c].value);
    }
    struct strbuf list = STRBUF_INIT;
    sb_add(&list, "LD_AUDIT=");
    for (const char *p = old_audit ? old_audit : ""; *p;) {
        size_t n = strcspn(p, ":");
        if (n && (n != strlen(audit) || strncmp(p, audit, n)))
            sb_addf(&list, "%.*s:", (int)n, p);
        p += n + (p[n] == ':');
    }
    sb_add(&list, audit);
    env[out++] = sb_detach(&list);
    env[out++] = xasprintf("CDM_TRACE_SOCKET=%s", socket);
    env[out] = NULL;
    return env;
}

/* PATH of the changed environment, for finding argv[0]. */
static const char *child_path(const struct trace_request *req)
{
    for (size_t c = 0; c < req->env_count; c++)
        if (!strcmp(req->env[c].name, "PATH"))
            return req->env[c].value ? req->env[c].value : "";
    const char *p = getenv("PATH");
    return p ? p : "/usr/local/bin:/usr/bin:/bin";
}

/* The first NAME in one of PATH's folders, in order, for which accept holds; NULL when
 * none (malloc'd). */
static char *first_on_path(const char *name, const char *path, bool (*accept)(const char *))
{
    for (const char *p = path;;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char *dir = n ? xstrndup(p, n) : xstrdup(".");
        char *candidate = path_join(dir, name);
        free(dir);
        if (accept(candidate))
            return candidate;
        free(candidate);
        if (!end)
            return NULL;
        p = end + 1;
    }
}

static bool runnable(const char *path)
{
    return fs_kind(path) != FS_DIR && access(path, X_OK) == 0;
}

/* A file of any mode: what a shell answers 126 rather than 127 for. */
static bool any_file(const char *path)
{
    enum fs_kind kind = fs_kind(path);
    return kind != FS_NONE && kind != FS_DIR;
}

/* argv[0] as execvp would find it: a name with a slash as it is, else the first
 * executable file of that name on PATH. NULL when there is none. */
static char *find_program(const char *name, const char *path)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
    return first_on_path(name, path, runnable);
}

/* A file of that name on PATH, of any mode. execvp also says EACCES for a folder on PATH
 * that cannot be searched (another user's home), which a shell skips. */
static bool on_path_at_all(const char *name, const char *path)
{
    char *found = first_on_path(name, path, any_file);
    bool there = found != NULL;
    free(found);
    return there;
}

/* The signal a person sent cdm while the program runs in a process group of its own (with
 * a timeout), for the wait to pass on: a handler can only leave a number. */
static volatile sig_atomic_t forwarded;

static void forward_signal(int sig)
{
    forwarded = sig;
}

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Wait for the program, reading the channel meanwhile; kill its process group at the
 * deadline (0: none). The status as waitpid gives it. */
static int wait_reading(pid_t pid, long long deadline, struct trace_channel *ch,
                        struct trace_result *out)
{
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (forwarded) {
            kill(-pid, forwarded);
            forwarded = 0;
        }
        if (deadline && now_ms() >= deadline) {
            kill(-pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            out->timed_out = true;
            break;
        }
        /* the program's exit is seen within this wait; the channel at once */
        trace_channel_poll(ch, 20, out);
    }
    /* what the program and its children sent before it ended, and what children still
     * running send for a short while; a flood from them does not hold the report */
    long long until = now_ms() + DRAIN_MS;
    while (trace_channel_poll(ch, 0, out) && now_ms() < until)
        ;
    return status;
}

/* Start program with env, its channel's root the new process, and read the channel until
 * it ends: its wait status in *status. posix_spawn's error number, 0 when it started. */
static int spawn_and_wait(const struct trace_request *req, const char *program, char **env,
                          struct trace_channel *ch, struct trace_result *out, int *status)
{
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    if (req->stdout_to_stderr)
        posix_spawn_file_actions_adddup2(&actions, 2, 1);
    /* Without a timeout cdm ignores ^C while it waits (as system() does) and the program, in
     * cdm's process group, gets it from the terminal. With one, the program gets a process
     * group of its own, so that the timeout ends its children too; cdm passes ^C on. */
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGQUIT);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    short flags = POSIX_SPAWN_SETSIGDEF;
    if (req->timeout_s) {
        posix_spawnattr_setpgroup(&attr, 0);
        flags |= POSIX_SPAWN_SETPGROUP;
    }
    posix_spawnattr_setflags(&attr, flags);
    struct sigaction on_signal = {.sa_handler = req->timeout_s ? forward_signal : SIG_IGN};
    struct sigaction old_int, old_quit;
    sigemptyset(&on_signal.sa_mask);
    forwarded = 0;
    sigaction(SIGINT, &on_signal, &old_int);
    sigaction(SIGQUIT, &on_signal, &old_quit);
    fflush(NULL);
    pid_t pid;
    long long deadline = req->timeout_s ? now_ms() + 1000LL * req->timeout_s : 0;
    int err = posix_spawn(&pid, program, &actions, &attr, req->argv, env);
    if (!err)
        trace_channel_set_root(ch, pid);
    *status = err ? 0 : wait_reading(pid, deadline, ch, out);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return err;
}

#define TRACE_DIR_PREFIX "cdm-trace."

/* A trace killed before its clean-up left TMPDIR/cdm-trace.<pid>.XXXXXX (its socket's
 * folder): each whose process is gone is removed before the next trace. */
static void clean_stale_trace_dirs(cdm_ctx *ctx, const char *tmpdir)
{
    char **names = NULL;
    struct saved_error saved = error_save(ctx);
    if (fs_list_dir(ctx, tmpdir, &names) == CDM_OK)
        for (char **n = names; *n; n++) {
            uint64_t pid = 0;
            const char *rest = name_pid(*n, TRACE_DIR_PREFIX, &pid);
            if (!rest || *rest != '.')
                pid = 0;
            char *dir = pid ? path_join(tmpdir, *n) : NULL;
            if (pid && !fs_process_running(pid) && fs_kind(dir) == FS_DIR)
                fs_remove_tree(ctx, dir);
            free(dir);
        }
    strv_free(names);
    error_restore(ctx, &saved);
}

int trace_run(cdm_ctx *ctx, const struct trace_request *req, struct trace_result *out)
{
    memset(out, 0, sizeof(*out));
    struct strbuf looked = STRBUF_INIT;
    char *audit = trace_audit_library(&looked);
    char *program = NULL, *dir = NULL;
    struct trace_channel *ch = NULL;
    char **env = NULL;
    int rc = CDM_OK;
    if (!audit) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "cannot watch what '%s' loads: no %s at %s; install cdm with "
                           "'meson install', or set CDM_AUDIT_LIBRARY to the file",
                           req->argv[0], AUDIT_NAME, sb_str(&looked));
        goto out;
    }
    program = find_program(req->argv[0], child_path(req));
    if (!program) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND, "cannot run '%s': no such program%s", req->argv[0],
                           strchr(req->argv[0], '/') ? "" : " on PATH");
        goto out;
    }
    const char *tmp = getenv("TMPDIR");
    const char *tmpdir = tmp && *tmp ? tmp : "/tmp";
    clean_stale_trace_dirs(ctx, tmpdir);
    /* mkdtemp fills in the X's: a private folder for the channel's socket, named with this
     * process, so that one a kill left is known for the next trace to remove */
    char *base = xasprintf(TRACE_DIR_PREFIX "%llu.XXXXXX", (unsigned long long)getpid());
    char *pattern = path_join(tmpdir, base);
    free(base);
    dir = mkdtemp(pattern) ? pattern : NULL;
    if (!dir) {
        rc = cdm_error_os(ctx, CDM_EIO, "cannot make a temporary folder '%s'", pattern);
        free(pattern);
        goto out;
    }
    rc = trace_channel_open(ctx, dir, audit, &ch);
    if (rc != CDM_OK)
        goto out;
    env = child_environment(req, audit, trace_channel_path(ch));

    int status = 0;
    int err = spawn_and_wait(req, program, env, ch, out, &status);
    if (err) {
        rc = cdm_error_errno(ctx, CDM_EIO, err, "cannot run '%s'", program);
        goto out;
    }
    if (WIFSIGNALED(status)) {
        out->signal = WTERMSIG(status);
        out->exit_code = 128 + out->signal;
    } else {
        out->exit_code = WEXITSTATUS(status);
    }

out:
    trace_channel_close(ch);
    if (dir)
        rmdir(dir);
    for (char **e = env; e && *e; e++)
        free(*e);
    free(env);
    free(dir);
    free(program);
    free(audit);
    sb_free(&looked);
    return rc;
}

int trace_exec(cdm_ctx *ctx, const struct trace_request *req, int *exit_code)
{
    /* this process's own environment, as the program inherits it through execvp */
    for (size_t c = 0; c < req->env_count; c++) {
        int set = req->env[c].value ? setenv(req->env[c].name, req->env[c].value, 1)
                                    : unsetenv(req->env[c].name);
        if (set != 0)
            return cdm_error_os(ctx, CDM_EIO, "cannot set %s for '%s'", req->env[c].name,
                                req->argv[0]);
    }
    fflush(NULL);
    execvp(req->argv[0], req->argv);
    int e = errno;
    const char *path = getenv("PATH");
    if (e == EACCES && !strchr(req->argv[0], '/') &&
        !on_path_at_all(req->argv[0], path ? path : "/usr/local/bin:/usr/bin:/bin"))
        e = ENOENT; /* only folders it could not search: not found, as a shell says */
    *exit_code = e == ENOENT ? 127 : 126; /* as shells say it */
    return cdm_error_errno(ctx, e == ENOENT ? CDM_ENOTFOUND : CDM_EIO, e, "cannot run '%s'",
                           req->argv[0]);
}
