/*
 * What a program loads, on glibc: the program runs with LD_AUDIT naming cdm-audit.so
 * (ld_audit.c), which appends a line per mapped object to a file in a private temporary
 * folder; children inherit the two variables and append to the same file. The file is
 * read once the program has exited.
 */
#define _GNU_SOURCE /* mkdtemp, environ */
#include "fs.h"
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define AUDIT_NAME "cdm-audit.so"
/* glibc's LA_SER_* values (<link.h>, a stable ABI), as ld_audit.c writes them */
enum { SER_LIBPATH = 0x02, SER_RUNPATH = 0x04, SER_CONFIG = 0x08, SER_DEFAULT = 0x40 };

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

/* environ with the request's changes, LD_AUDIT (appended to one already set) and
 * CDM_TRACE_FILE. Every string malloc'd; the array NULL-terminated. */
static char **child_environment(const struct trace_request *req, const char *audit,
                                const char *file)
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
                        (len == 14 && !strncmp(environ[i], "CDM_TRACE_FILE", 14));
        if (len == 8 && !strncmp(environ[i], "LD_AUDIT", 8) && eq && eq[1])
            old_audit = eq + 1;
        for (size_t c = 0; c < req->env_count && !replaced; c++)
            replaced =
                strlen(req->env[c].name) == len && !strncmp(req->env[c].name, environ[i], len);
        if (!replaced)
            env[out++] = xstrdup(environ[i]);
    }
    for (size_t c = 0; c < req->env_count; c++)
        if (req->env[c].value)
            env[out++] = xasprintf("%s=%s", req->env[c].name, req->env[c].value);
    env[out++] =
        old_audit ? xasprintf("LD_AUDIT=%s:%s", old_audit, audit) : xasprintf("LD_AUDIT=%s", audit);
    env[out++] = xasprintf("CDM_TRACE_FILE=%s", file);
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

/* argv[0] as execvp would find it: a name with a slash as it is, else the first
 * executable file of that name on PATH. NULL when there is none. */
static char *find_program(const char *name, const char *path)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
    for (const char *p = path;;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char *dir = n ? xstrndup(p, n) : xstrdup(".");
        char *candidate = path_join(dir, name);
        free(dir);
        if (fs_kind(candidate) != FS_DIR && access(candidate, X_OK) == 0)
            return candidate;
        free(candidate);
        if (!end)
            return NULL;
        p = end + 1;
    }
}

/* Undo ld_audit.c's escapes in place. */
static void unescape(char *s)
{
    char *w = s;
    for (const char *r = s; *r; r++) {
        if (*r == '\\' && r[1]) {
            r++;
            *w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : *r;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

static enum trace_how how_of(const char *text)
{
    if (!strcmp(text, "main"))
        return TRACE_MAIN;
    if (!strcmp(text, "path"))
        return TRACE_PATH;
    switch (atoi(text)) {
    case SER_LIBPATH:
        return TRACE_LIBPATH;
    case SER_RUNPATH:
        return TRACE_RUNPATH;
    case SER_CONFIG:
        return TRACE_CACHE;
    case SER_DEFAULT:
        return TRACE_DEFAULT;
    default:
        return TRACE_UNKNOWN;
    }
}

static void add_object(struct trace_result *r, char **fields)
{
    ALLOC_GROW(r->objects, r->count);
    struct trace_object *o = &r->objects[r->count++];
    o->pid = strtoull(fields[0], NULL, 10);
    o->how = how_of(fields[1]);
    o->path = xstrdup(fields[2]);
    o->real_path = xstrdup(fields[3]);
    o->asked = xstrdup(fields[4]);
    o->asker = xstrdup(fields[5]);
    if (o->how == TRACE_MAIN)
        r->processes++;
}

static void read_trace(const char *file, struct trace_result *r)
{
    FILE *f = fs_fopen_read(file); /* the child may have put a fifo there */
    if (!f)
        return;
    struct strbuf line = STRBUF_INIT;
    int c;
    do {
        c = fgetc(f);
        if (c != '\n' && c != EOF) {
            sb_addc(&line, (char)c);
            continue;
        }
        /* "O" and six fields; anything else (a line cut by a full disk) is skipped */
        char *fields[6];
        size_t n = 0;
        char *p = line.buf;
        if (p && p[0] == 'O' && p[1] == '\t') {
            p += 2;
            while (n < 6) {
                fields[n++] = p;
                char *tab = strchr(p, '\t');
                if (!tab)
                    break;
                *tab = '\0';
                p = tab + 1;
            }
        }
        if (n == 6) {
            for (size_t i = 0; i < n; i++)
                unescape(fields[i]);
            add_object(r, fields);
        }
        sb_reset(&line);
    } while (c != EOF);
    sb_free(&line);
    fclose(f);
}

int trace_run(cdm_ctx *ctx, const struct trace_request *req, struct trace_result *out)
{
    memset(out, 0, sizeof(*out));
    struct strbuf looked = STRBUF_INIT;
    char *audit = trace_audit_library(&looked);
    char *program = NULL, *dir = NULL, *file = NULL;
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
    /* mkdtemp fills in the X's: a private folder for the audit library's report */
    char *pattern = path_join(tmp && *tmp ? tmp : "/tmp", "cdm-trace.XXXXXX");
    dir = mkdtemp(pattern) ? pattern : NULL;
    if (!dir) {
        rc = cdm_error_set(ctx, CDM_EIO, "cannot make a temporary folder '%s': %s", pattern,
                           strerror(errno));
        free(pattern);
        goto out;
    }
    file = path_join(dir, "loads");
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        rc = cdm_error_set(ctx, CDM_EIO, "cannot create '%s': %s", file, strerror(errno));
        goto out;
    }
    close(fd);
    env = child_environment(req, audit, file);

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    if (req->stdout_to_stderr)
        posix_spawn_file_actions_adddup2(&actions, 2, 1);
    /* cdm ignores ^C while it waits (as system() does); the program gets the defaults. */
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGQUIT);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGQUIT, &ignore, &old_quit);
    fflush(NULL);
    pid_t pid;
    int err = posix_spawn(&pid, program, &actions, &attr, req->argv, env);
    int status = 0;
    if (!err)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (err) {
        rc = cdm_error_set(ctx, CDM_EIO, "cannot run '%s': %s", program, strerror(err));
        goto out;
    }
    if (WIFSIGNALED(status)) {
        out->signal = WTERMSIG(status);
        out->exit_code = 128 + out->signal;
    } else {
        out->exit_code = WEXITSTATUS(status);
    }
    read_trace(file, out);

out:
    if (file)
        unlink(file);
    if (dir)
        rmdir(dir);
    for (char **e = env; e && *e; e++)
        free(*e);
    free(env);
    free(file);
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
            return cdm_error_set(ctx, CDM_EIO, "cannot set %s for '%s': %s", req->env[c].name,
                                 req->argv[0], strerror(errno));
    }
    fflush(NULL);
    execvp(req->argv[0], req->argv);
    int e = errno;
    *exit_code = e == ENOENT ? 127 : 126; /* as shells say it */
    return cdm_error_set(ctx, e == ENOENT ? CDM_ENOTFOUND : CDM_EIO, "cannot run '%s': %s",
                         req->argv[0], strerror(e));
}
