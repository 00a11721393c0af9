/*
 * Run a program and watch what its processes load: every shared object the loader maps
 * in the process and its children, in order, and the program's exit status. Facts only:
 * what the objects are and whether that is good is the engine's business.
 *
 * trace_posix.c: glibc's audit interface (LD_AUDIT with cdm-audit.so, ld_audit.c).
 * trace_win32.c: the debug API (CreateProcessW with DEBUG_PROCESS, LOAD_DLL_DEBUG_EVENT).
 */
#ifndef CDM_TRACE_H
#define CDM_TRACE_H

#include "cdm.h"
#include "base/error.h"

#include <stdbool.h>
#include <stdint.h>

/* How the loader found an object, where the platform says (POSIX); else TRACE_UNKNOWN. */
enum trace_how {
    TRACE_UNKNOWN,
    TRACE_MAIN,    /* the program itself */
    TRACE_PATH,    /* asked for by a path (dlopen("/x/lib.so"), LoadLibrary("C:\\x.dll")) */
    TRACE_LIBPATH, /* a folder of LD_LIBRARY_PATH */
    TRACE_RUNPATH, /* a folder of an RPATH or RUNPATH */
    TRACE_CACHE,   /* the loader cache (/etc/ld.so.cache) */
    TRACE_DEFAULT, /* a default folder (/lib, /usr/lib ...) */
};

struct trace_object {
    uint64_t pid;
    enum trace_how how;
    char *path;      /* as the loader opened it */
    char *real_path; /* links resolved; "" when that failed */
    char *asked;     /* the name asked for; "" when unknown */
    char *asker;     /* the path of the object that asked; "" for the main program or unknown */
};

struct trace_result {
    struct trace_object *objects; /* in the order they were loaded */
    size_t count;
    size_t processes; /* processes that reported (the program and its children) */
    int exit_code;    /* the program's exit status (POSIX: 128 + N when killed by signal N) */
    int signal;       /* the signal that killed it, 0 when it exited */
    bool timed_out;   /* it ran past the request's timeout: killed with its process group */
    bool cut;         /* the channel's bounds were reached (POSIX): later objects are missing */
    size_t ignored;   /* messages and connections that did not come from a process's own
                       * audit library, so were not believed (POSIX) */
};

/* What a trace keeps (POSIX): beyond either bound the trace is cut (trace_result.cut) and
 * the rest is read and dropped, so a flood neither fills cdm's memory nor blocks the
 * program. */
#define TRACE_MAX_OBJECTS     100000u
#define TRACE_MAX_MIB         64u
#define TRACE_MAX_BYTES       ((size_t)TRACE_MAX_MIB << 20)
#define TRACE_MAX_CONNECTIONS 4096u /* processes connected at once */

/* One change to the program's environment: value NULL unsets name. */
struct trace_env {
    const char *name;
    const char *value;
};

struct trace_request {
    char *const *argv; /* argv[0] is looked up on PATH (of the changed environment) */
    const struct trace_env *env;
    size_t env_count;
    bool stdout_to_stderr; /* the program's standard output goes to cdm's standard error */
    unsigned timeout_s;    /* trace_run: kill it (and its process group) after this; 0: never */
};

/* Run the program, wait for it (and, on Windows, its children), and fill *out. CDM_OK
 * when the program ran, whatever its exit status; an error (set in ctx) when it could not
 * be started or watched. */
int trace_run(cdm_ctx *ctx, const struct trace_request *req, struct trace_result *out);
void trace_result_free(struct trace_result *r);

/* The audit library the loader is given (cdm-audit.so, ld_audit.c): $CDM_AUDIT_LIBRARY,
 * else beside the running program, else where meson installs it. malloc'd; NULL, with
 * *looked listing the places, when it is nowhere (always on Windows, which has no
 * LD_AUDIT). */
char *trace_audit_library(struct strbuf *looked);

/* Run the program in the request's environment without watching it (cdm exec): on POSIX it
 * replaces this process (execvp), so this returns only when it could not start; on Windows
 * cdm waits for it and *exit_code gets its status (CDM_OK). */
int trace_exec(cdm_ctx *ctx, const struct trace_request *req, int *exit_code);

#endif
