/* Asking a cuDNN library on Windows: in a child process, cdm.exe run again as
 * `cdm.exe --cdm-probe-child PATH` (Windows has no fork), so that a library which exits or
 * crashes inside cudnnGetVersion (cuDNN 9 exits when a sub-library is not on the search
 * path) ends the child, not the doctor (probe.h). */
#include "app_dirs.h"
#include "cdm_checks.h"
#include "fs.h"
#include "probe.h"
#include "win32_util.h"

#include <stdio.h>
#include <string.h>

/* What the child's exit code says: the NTSTATUS of a crash, else the status it exited with. */
static void describe_exit(DWORD code, char *out, size_t size)
{
    static const struct {
        DWORD code;
        const char *what;
    } known[] = {
        {0xC0000005, "an access violation"},
        {0xC0000409, "a fail-fast exit (abort or a stack buffer overrun)"},
        {0xC0000135, "a DLL not found"},
        {0xC0000139, "an entry point not found"},
        {0xC0000142, "a DLL failing to initialise"},
        {0xC00000FD, "a stack overflow"},
        {0xC000001D, "an illegal instruction"},
    };
    if (code < 0xC0000000) {
        snprintf(out, size, "ended the process with status %lu", (unsigned long)code);
        return;
    }
    for (size_t i = 0; i < CDM_ARRAY_LEN(known); i++)
        if (known[i].code == code) {
            snprintf(out, size, "crashed the process with exception 0x%08lX (%s)",
                     (unsigned long)code, known[i].what);
            return;
        }
    snprintf(out, size, "crashed the process with exception 0x%08lX", (unsigned long)code);
}

/* The lines the library wrote itself (to stdout or stderr), not the probe's answers. */
static void keep_said(const char *lines, struct cudnn_probe *out)
{
    struct strbuf said = STRBUF_INIT;
    for (const char *l = lines; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) : strlen(l);
        while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
            n--;
        char one[640];
        snprintf(one, sizeof(one), "%.*s", (int)(n < sizeof(one) ? n : sizeof(one) - 1), l);
        if (*one && !probe_line_known(one))
            sb_addf(&said, "%s%s", said.len ? " " : "", one);
        l = nl ? nl + 1 : NULL;
    }
    snprintf(out->said, sizeof(out->said), "%s", sb_str(&said));
    sb_free(&said);
}

static bool start_child(const char *self, const char *path, HANDLE out, PROCESS_INFORMATION *pi)
{
    struct strbuf line = STRBUF_INIT;
    win_quote_arg(&line, self);
    sb_addc(&line, ' ');
    win_quote_arg(&line, CDM_PROBE_CHILD_ARG);
    sb_addc(&line, ' ');
    win_quote_arg(&line, path);
    wchar_t *wself = win_wide(self), *wline = win_wide(sb_str(&line));
    sb_free(&line);
    STARTUPINFOW si = {0};
    si.cb = sizeof(si);
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    si.hStdOutput = out;
    si.hStdError = out;
    BOOL ok = CreateProcessW(wself, wline, NULL, NULL, TRUE, CREATE_NO_WINDOW, NULL, NULL, &si, pi);
    free(wself);
    free(wline);
    return ok;
}

void cudnn_probe(const char *path, unsigned timeout_ms, struct cudnn_probe *out)
{
    memset(out, 0, sizeof(*out));
    char *self = app_self_path();
    HANDLE rd = NULL, wr = NULL;
    SECURITY_ATTRIBUTES sa = {sizeof(sa), NULL, TRUE};
    PROCESS_INFORMATION pi = {0};
    if (!self || !CreatePipe(&rd, &wr, &sa, 0)) {
        snprintf(out->death, sizeof(out->death), "could not be asked: no pipe to a child");
        free(self);
        return;
    }
    SetHandleInformation(rd, HANDLE_FLAG_INHERIT, 0);
    bool started = start_child(self, path, wr, &pi);
    DWORD start_error = GetLastError();
    CloseHandle(wr); /* the child holds the only writing end: a read ends when it exits */
    free(self);
    if (!started) {
        char *why = win_error_text(start_error);
        snprintf(out->death, sizeof(out->death), "could not be asked: cdm cannot start itself: %s",
                 why);
        free(why);
        CloseHandle(rd);
        return;
    }
    struct strbuf lines = STRBUF_INIT;
    ULONGLONG deadline = GetTickCount64() + timeout_ms;
    bool timed_out = false, exited = false;
    for (;;) {
        DWORD avail = 0;
        if (!PeekNamedPipe(rd, NULL, 0, NULL, &avail, NULL))
            break; /* every writer is gone */
        if (avail) {
            char buf[4096];
            DWORD got = 0;
            if (!ReadFile(rd, buf, avail < sizeof(buf) ? avail : sizeof(buf), &got, NULL) || !got)
                break;
            if (lines.len < (1u << 20))
                sb_addn(&lines, buf, got);
            continue;
        }
        if (exited)
            break; /* exited, and its last words read */
        if (GetTickCount64() >= deadline) {
            timed_out = true;
            break;
        }
        /* a grandchild may hold the pipe open: the child's own end is what counts */
        exited = WaitForSingleObject(pi.hProcess, 20) == WAIT_OBJECT_0;
    }
    CloseHandle(rd);
    if (timed_out)
        TerminateProcess(pi.hProcess, 1);
    WaitForSingleObject(pi.hProcess, INFINITE);
    DWORD code = 0;
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    probe_parse(sb_str(&lines), out);
    keep_said(sb_str(&lines), out);
    sb_free(&lines);
    if (out->stopped == PROBE_DONE)
        return;
    if (timed_out)
        probe_note_timeout(out, timeout_ms);
    else
        describe_exit(code, out->death, sizeof(out->death));
}
