/* The terminal, the clock and interrupts on Windows, below every command that uses them;
 * chosen by meson, as term_posix.c is elsewhere. */
#include "cli.h"

#include <time.h>
#include <windows.h>

/* The one context the console's control handler (another thread) may reach. */
static cdm_ctx *volatile interrupt_ctx;

static BOOL WINAPI on_console_event(DWORD type)
{
    cdm_ctx *ctx = interrupt_ctx;
    if (!ctx || (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT && type != CTRL_CLOSE_EVENT))
        return FALSE;
    interrupt_ctx = NULL; /* a second one kills as usual */
    cdm_interrupt(ctx);
    if (type == CTRL_CLOSE_EVENT)
        Sleep(3000); /* the process ends when this returns: give the clean-up its time */
    return TRUE;
}

void cli_catch_interrupts(cdm_ctx *ctx)
{
    interrupt_ctx = ctx;
    SetConsoleCtrlHandler(on_console_event, TRUE);
}

static bool is_console(DWORD which)
{
    DWORD mode;
    HANDLE h = GetStdHandle(which);
    return h && h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode);
}

bool cli_stderr_is_terminal(void)
{
    return is_console(STD_ERROR_HANDLE);
}

void cli_now(struct timespec *now)
{
    /* milliseconds are plenty for ten progress updates a second */
    ULONGLONG ms = GetTickCount64();
    now->tv_sec = (time_t)(ms / 1000);
    now->tv_nsec = (long)(ms % 1000) * 1000000L;
}

bool cli_stdout_is_terminal(void)
{
    return is_console(STD_OUTPUT_HANDLE);
}

/* The console's code page as the shell that started cdm has it, before cdm shows its own
 * output in UTF-8 (main_win32.c); 0 without a console. */
static UINT shell_output_cp;

void cli_remember_shell_code_page(void)
{
    shell_output_cp = GetConsoleOutputCP();
}

unsigned cli_shell_code_page(void)
{
    return shell_output_cp ? shell_output_cp : GetOEMCP();
}

/* The character of text (UTF-8) that starts at byte i: its length in bytes. */
static size_t utf8_len_at(const char *text, size_t i)
{
    unsigned char c = (unsigned char)text[i];
    return c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
}

/* The first character of text that code page cp cannot carry (NULL: none), one character at
 * a time: a character that has no place there comes back as the default character, never
 * as a look-alike (WC_NO_BEST_FIT_CHARS: 'e' for 'é' would name another folder). */
static const char *first_unmapped(const char *text, UINT cp)
{
    for (size_t i = 0; text[i]; i += utf8_len_at(text, i)) {
        size_t n = utf8_len_at(text, i);
        wchar_t wide[4];
        char out[16];
        BOOL lost = FALSE;
        int w = n > 1
                    ? MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text + i, (int)n, wide, 4)
                    : 1;
        if (n > 1 && (w <= 0 ||
                      WideCharToMultiByte(cp, WC_NO_BEST_FIT_CHARS, wide, w, out, sizeof(out), NULL,
                                          &lost) <= 0 ||
                      lost))
            return text + i;
    }
    return NULL;
}

char *cli_text_for_cmd(const char *text, unsigned *code_page, const char **bad)
{
    UINT cp = cli_shell_code_page();
    *code_page = cp;
    *bad = NULL;
    if (cp == CP_UTF8)
        return xstrdup(text);
    if ((*bad = first_unmapped(text, cp)))
        return NULL;
    int wn = MultiByteToWideChar(CP_UTF8, 0, text, -1, NULL, 0);
    wchar_t *wide = xcalloc((size_t)wn, sizeof(wchar_t));
    MultiByteToWideChar(CP_UTF8, 0, text, -1, wide, wn);
    int n = WideCharToMultiByte(cp, WC_NO_BEST_FIT_CHARS, wide, -1, NULL, 0, NULL, NULL);
    char *out = xcalloc(n > 0 ? (size_t)n : 1, 1);
    if (n > 0)
        WideCharToMultiByte(cp, WC_NO_BEST_FIT_CHARS, wide, -1, out, n, NULL, NULL);
    free(wide);
    return out;
}
