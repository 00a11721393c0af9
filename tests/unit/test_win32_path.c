/* The path form every Win32 call gets (win32_util.c): Windows only. */
#include "platform/fs.h"
#include "tap.h"
#include "base/util.h"
#include "platform/win32_util.h"

#include <stdlib.h>

static void path_is(const char *in, const char *want, const char *what)
{
    wchar_t *w = win_path(in);
    char *got = win_narrow(w);
    is_str(got, want, "%s: '%s'", what, in);
    free(got);
    free(w);
}

int main(void)
{
    path_is("C:\\cudnn_archive\\8.8.0.121-cuda11", "\\\\?\\C:\\cudnn_archive\\8.8.0.121-cuda11",
            "a drive path gets the prefix");
    path_is("C:/a/./b//c/../d/", "\\\\?\\C:\\a\\b\\d", "'/', '.', '..' and '//' resolved by name");
    path_is("C:\\..\\..\\x", "\\\\?\\C:\\x", "'..' stops at the root");
    path_is("C:", "\\\\?\\C:\\", "C: alone is C:\\ ... or the drive's folder");
    path_is("c:\\", "\\\\?\\c:\\", "a root keeps its separator");
    path_is("\\\\server\\share\\dir\\f", "\\\\?\\UNC\\server\\share\\dir\\f", "UNC");
    path_is("//server/share/dir", "\\\\?\\UNC\\server\\share\\dir", "UNC with '/'");
    path_is("\\\\?\\C:\\x\\y", "\\\\?\\C:\\x\\y", "a verbatim path stays");
    path_is("\\\\.\\NUL", "\\\\.\\NUL", "a device path stays");
    path_is("C:\\a\\CON", "\\\\?\\C:\\a\\CON", "a device name is just a name");
    path_is("C:\\a\\name. ", "\\\\?\\C:\\a\\name. ", "a trailing dot and space are kept");

    wchar_t cwd[4096];
    GetCurrentDirectoryW(4096, cwd);
    char *cwd8 = win_narrow(cwd);
    wchar_t *w = win_path("rel\\x");
    char *got = win_narrow(w);
    char *want = xasprintf("\\\\?\\%s%srel\\x", cwd8, str_ends_with(cwd8, "\\") ? "" : "\\");
    is_str(got, want, "a relative path starts at the current folder");
    free(want);
    free(got);
    free(w);
    w = win_path("\\top");
    got = win_narrow(w);
    want = xasprintf("\\\\?\\%.2s\\top", cwd8);
    is_str(got, want, "'\\top' starts at the current drive's root");
    free(got);
    free(w);
    free(cwd8);

    char *shown = win_display_path(L"\\\\?\\C:\\x\\y");
    is_str(shown, "C:\\x\\y", "shown without the prefix");
    free(shown);
    shown = win_display_path(L"\\\\?\\UNC\\srv\\sh\\x");
    is_str(shown, "\\\\srv\\sh\\x", "UNC shown as \\\\server\\share");
    free(shown);
    char *mixed = win_narrow(L"\x65e5\x672c-\xe9");
    is_str(mixed, "\xe6\x97\xa5\xe6\x9c\xac-\xc3\xa9", "UTF-16 to UTF-8");
    wchar_t *back = win_wide(mixed);
    ok(!wcscmp(back, L"\x65e5\x672c-\xe9"), "and back");
    free(back);
    free(mixed);

    ok(win_is_root("C:") && win_is_root("C:\\") && win_is_root("\\") &&
           win_is_root("\\\\srv\\share") && win_is_root("\\\\srv\\share\\"),
       "roots");
    ok(!win_is_root("C:\\x") && !win_is_root("\\\\srv\\share\\x") && !win_is_root("x"),
       "not roots");
    /* A walk upwards (git_worktree_of, project_nearest) stops where dirname gives the path
     * back: at "C:\\", never going on to "C:" (the drive's current folder) and ".". */
    char *up = path_dirname("C:\\x"), *top = path_dirname("C:\\"), *mid = path_dirname("C:\\x\\y");
    is_str(up, "C:\\", "the folder above 'C:\\x' is the drive's root");
    is_str(top, "C:\\", "and the root's is the root itself");
    is_str(mid, "C:\\x", "below the root, the text before the last separator");
    free(up);
    free(top);
    free(mid);
    char *root = fs_default_root();
    is_str(root, "C:\\cudnn_archive", "the default store");
    free(root);
    char *appdata = fs_getenv("APPDATA");
    char *config = fs_default_config();
    char *want_config = xasprintf("%s\\cdm\\config.ini", appdata ? appdata : "");
    is_str(config, want_config, "the default config is in %%APPDATA%%");
    free(want_config);
    free(config);
    free(appdata);
    is_str(fs_host_platform(), "windows-x86_64", "the platform");
    char *text = win_error_text(ERROR_ACCESS_DENIED);
    ok(strstr(text, "(error 5)") && text[0] != 'A', "error text: '%s'", text);
    free(text);
    return tap_done();
}
