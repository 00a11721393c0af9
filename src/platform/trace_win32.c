/*
 * What a program loads, on Windows: the program runs under the debug API
 * (CreateProcessW with DEBUG_PROCESS, so its child processes too); every
 * LOAD_DLL_DEBUG_EVENT carries a handle to the DLL's file, whose final path names the file
 * the loader mapped. Every event is continued (ContinueDebugEvent) and every file handle
 * closed; the watch ends when the last watched process has exited. The debug API says
 * nothing of why the loader chose a file: that is left TRACE_UNKNOWN for the engine.
 */
#include "fs.h"
#include "trace.h"
#include "win32_util.h"

#include <windows.h>

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* The final path of an open file, for people (no \\?\ prefix); NULL when unknown. */
static char *handle_path(HANDLE file)
{
    if (!file)
        return NULL;
    DWORD n = GetFinalPathNameByHandleW(file, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    if (!n)
        return NULL;
    wchar_t *w = xmalloc((n + 1) * sizeof(wchar_t));
    DWORD got = GetFinalPathNameByHandleW(file, w, n + 1, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    char *path = got && got <= n ? win_display_path(w) : NULL;
    free(w);
    return path;
}

static int compare_names(const void *a, const void *b)
{
    const wchar_t *x = *(const wchar_t *const *)a, *y = *(const wchar_t *const *)b;
    /* names compare without case; "=C:" entries (the drives' folders) sort first */
    const wchar_t *ex = wcschr(x + 1, L'='), *ey = wcschr(y + 1, L'=');
    size_t nx = ex ? (size_t)(ex - x) : wcslen(x), ny = ey ? (size_t)(ey - y) : wcslen(y);
    int c = _wcsnicmp(x, y, nx < ny ? nx : ny);
    return c ? c : (nx > ny) - (nx < ny);
}

static bool names_entry(const wchar_t *entry, const wchar_t *name)
{
    size_t n = wcslen(name);
    return !_wcsnicmp(entry, name, n) && entry[n] == L'=';
}

/* The parent's environment with the request's changes, sorted as CreateProcessW wants
 * it, as one block. *path_out gets the changed PATH (malloc'd, NULL when unset). */
static wchar_t *child_environment(const struct trace_request *req, wchar_t **path_out)
{
    wchar_t *block = GetEnvironmentStringsW();
    size_t n = 0, cap = 64;
    wchar_t **entries = xmalloc(cap * sizeof(*entries));
    wchar_t **changed = xcalloc(req->env_count + 1, sizeof(*changed));
    for (size_t c = 0; c < req->env_count; c++)
        changed[c] = win_wide(req->env[c].name);
    for (const wchar_t *e = block; e && *e; e += wcslen(e) + 1) {
        bool replaced = false;
        for (size_t c = 0; c < req->env_count && !replaced; c++)
            replaced = names_entry(e, changed[c]);
        if (replaced)
            continue;
        if (n + req->env_count + 1 >= cap)
            entries = xrealloc(entries, (cap *= 2) * sizeof(*entries));
        entries[n++] = _wcsdup(e);
    }
    if (block)
        FreeEnvironmentStringsW(block);
    entries = xrealloc(entries, (n + req->env_count + 1) * sizeof(*entries));
    for (size_t c = 0; c < req->env_count; c++) {
        if (!req->env[c].value)
            continue;
        char *entry = xasprintf("%s=%s", req->env[c].name, req->env[c].value);
        entries[n++] = win_wide(entry);
        free(entry);
    }
    qsort(entries, n, sizeof(*entries), compare_names);
    size_t total = 1;
    *path_out = NULL;
    for (size_t i = 0; i < n; i++) {
        total += wcslen(entries[i]) + 1;
        if (names_entry(entries[i], L"PATH"))
            *path_out = _wcsdup(entries[i] + 5);
    }
    wchar_t *out = xmalloc((total + 1) * sizeof(wchar_t));
    wchar_t *w = out;
    for (size_t i = 0; i < n; i++) {
        size_t len = wcslen(entries[i]) + 1;
        memcpy(w, entries[i], len * sizeof(wchar_t));
        w += len;
        free(entries[i]);
    }
    *w++ = L'\0';
    if (!n)
        *w = L'\0';
    for (size_t c = 0; c < req->env_count; c++)
        free(changed[c]);
    free(changed);
    free(entries);
    return out;
}

/* argv[0] as a full path: as given when it names a folder, else searched on the changed
 * PATH (".exe" added when it has no extension). NULL when nowhere. */
static wchar_t *find_program(const char *name, const wchar_t *path)
{
    wchar_t *w = win_wide(name);
    if (strchr(name, '\\') || strchr(name, '/') || strchr(name, ':')) {
        wchar_t *full = win_path(name);
        free(w);
        if (GetFileAttributesW(full) == INVALID_FILE_ATTRIBUTES) {
            free(full);
            return NULL;
        }
        return full;
    }
    wchar_t found[32768];
    DWORD n = SearchPathW(path, w, L".exe", 32768, found, NULL);
    free(w);
    return n && n < 32768 ? _wcsdup(found) : NULL;
}

static void add_object(struct trace_result *r, DWORD pid, enum trace_how how, char *path)
{
    ALLOC_GROW(r->objects, r->count);
    struct trace_object *o = &r->objects[r->count++];
    o->pid = pid;
    o->how = how;
    o->path = path;
    /* the final path is the file the loader mapped, links and junctions resolved */
    o->real_path = xstrdup(path);
    o->asked = xstrdup("");
    o->asker = xstrdup("");
}

/* Continue every event until the last watched process has exited. */
static void watch(DWORD main_pid, struct trace_result *out)
{
    size_t alive = 0;
    DWORD *first_break = NULL; /* processes whose loader breakpoint has been seen */
    size_t nbreaks = 0;
    for (;;) {
        DEBUG_EVENT ev;
        if (!WaitForDebugEvent(&ev, INFINITE))
            break;
        DWORD how = DBG_CONTINUE;
        bool done = false;
        switch (ev.dwDebugEventCode) {
        case CREATE_PROCESS_DEBUG_EVENT: {
            char *exe = handle_path(ev.u.CreateProcessInfo.hFile);
            if (ev.u.CreateProcessInfo.hFile)
                CloseHandle(ev.u.CreateProcessInfo.hFile);
            add_object(out, ev.dwProcessId, TRACE_MAIN, exe ? exe : xstrdup(""));
            out->processes++;
            alive++;
            break;
        }
        case LOAD_DLL_DEBUG_EVENT: {
            char *dll = handle_path(ev.u.LoadDll.hFile);
            if (ev.u.LoadDll.hFile)
                CloseHandle(ev.u.LoadDll.hFile);
            if (dll)
                add_object(out, ev.dwProcessId, TRACE_UNKNOWN, dll);
            break;
        }
        case EXIT_PROCESS_DEBUG_EVENT:
            if (ev.dwProcessId == main_pid)
                out->exit_code = (int)ev.u.ExitProcess.dwExitCode;
            done = alive <= 1;
            if (alive)
                alive--;
            break;
        case EXCEPTION_DEBUG_EVENT: {
            /* The loader's breakpoint, once per process, is for the debugger; any other
             * exception goes back to the program as if nobody watched. */
            bool seen = false;
            for (size_t i = 0; i < nbreaks && !seen; i++)
                seen = first_break[i] == ev.dwProcessId;
            if (ev.u.Exception.ExceptionRecord.ExceptionCode == EXCEPTION_BREAKPOINT && !seen) {
                ALLOC_GROW(first_break, nbreaks);
                first_break[nbreaks++] = ev.dwProcessId;
            } else {
                how = DBG_EXCEPTION_NOT_HANDLED;
            }
            break;
        }
        default:
            break;
        }
        ContinueDebugEvent(ev.dwProcessId, ev.dwThreadId, how);
        if (done)
            break;
    }
    free(first_break);
}

/* What CreateProcessW takes for the request: the environment block, the program found
 * on the changed PATH and the command line, each malloc'd (NULL until made). */
struct launch {
    wchar_t *env, *program, *line;
};

static int launch_prepare(cdm_ctx *ctx, const struct trace_request *req, struct launch *l)
{
    wchar_t *path = NULL;
    l->env = child_environment(req, &path);
    l->program = find_program(req->argv[0], path);
    l->line = NULL;
    free(path);
    if (!l->program)
        return cdm_error_set(ctx, CDM_ENOTFOUND, "cannot run '%s': no such program%s", req->argv[0],
                             strpbrk(req->argv[0], "\\/:") ? "" : " on PATH");
    struct strbuf line = STRBUF_INIT;
    for (char *const *a = req->argv; *a; a++) {
        if (a != req->argv)
            sb_addc(&line, ' ');
        win_quote_arg(&line, *a);
    }
    l->line = win_wide(sb_str(&line));
    sb_free(&line);
    return CDM_OK;
}

static void launch_free(struct launch *l)
{
    free(l->env);
    free(l->program);
    free(l->line);
}

int trace_run(cdm_ctx *ctx, const struct trace_request *req, struct trace_result *out)
{
    memset(out, 0, sizeof(*out));
    struct launch l;
    int rc = launch_prepare(ctx, req, &l);
    if (rc)
        goto out;
    STARTUPINFOW si;
    memset(&si, 0, sizeof(si));
    si.cb = sizeof(si);
    BOOL inherit = FALSE;
    if (req->stdout_to_stderr) {
        si.dwFlags = STARTF_USESTDHANDLES;
        si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
        si.hStdOutput = GetStdHandle(STD_ERROR_HANDLE);
        si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
        inherit = TRUE;
    }
    PROCESS_INFORMATION pi;
    fflush(NULL);
    if (!CreateProcessW(l.program, l.line, NULL, NULL, inherit,
                        DEBUG_PROCESS | CREATE_UNICODE_ENVIRONMENT, l.env, NULL, &si, &pi)) {
        rc = win_error(ctx, CDM_EIO, GetLastError(), "cannot run '%s'", req->argv[0]);
        goto out;
    }
    watch(pi.dwProcessId, out);
    CloseHandle(pi.hThread);
    CloseHandle(pi.hProcess);

out:
    launch_free(&l);
    return rc;
}

char *trace_audit_library(struct strbuf *looked)
{
    sb_add(looked, "nowhere: Windows has no LD_AUDIT");
    return NULL;
}

int trace_exec(cdm_ctx *ctx, const struct trace_request *req, int *exit_code)
{
    *exit_code = 127;
    struct launch l;
    int rc = launch_prepare(ctx, req, &l);
    if (rc)
        goto out;
    STARTUPINFOW si;
    memset(&si, 0, sizeof(si));
    si.cb = sizeof(si);
    PROCESS_INFORMATION pi;
    fflush(NULL);
    if (!CreateProcessW(l.program, l.line, NULL, NULL, FALSE, CREATE_UNICODE_ENVIRONMENT, l.env,
                        NULL, &si, &pi)) {
        *exit_code = 126;
        rc = win_error(ctx, CDM_EIO, GetLastError(), "cannot run '%s'", req->argv[0]);
        goto out;
    }
    WaitForSingleObject(pi.hProcess, INFINITE);
    DWORD code = 1;
    GetExitCodeProcess(pi.hProcess, &code);
    *exit_code = (int)code;
    CloseHandle(pi.hThread);
    CloseHandle(pi.hProcess);

out:
    launch_free(&l);
    return rc;
}
