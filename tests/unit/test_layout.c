#include "engine/extract/cdm_archive.h"
#include "engine/extract/entry_check.h"
#include "tap.h"

static void entry_paths(void)
{
    char out[256];
    is_str(entry_path_check("top/lib/x", out, sizeof(out)), NULL, "plain path accepted");
    is_str(out, "top/lib/x", "kept as it is");
    ok(!entry_path_check("./top//bin\\x64\\a.dll", out, sizeof(out)) &&
           !strcmp(out, "top/bin/x64/a.dll"),
       "'./', '//' and backslashes normalised");
    ok(!entry_path_check("top/include/", out, sizeof(out)) && !strcmp(out, "top/include"),
       "trailing slash dropped");
    ok(entry_path_check("/etc/passwd", out, sizeof(out)) != NULL, "absolute refused");
    ok(entry_path_check("\\Windows\\x", out, sizeof(out)) != NULL, "absolute backslash refused");
    ok(entry_path_check("C:/Windows/x", out, sizeof(out)) != NULL, "drive refused");
    ok(entry_path_check("top/../../x", out, sizeof(out)) != NULL, "'..' refused");
    ok(entry_path_check("top\\..\\x", out, sizeof(out)) != NULL, "'..' with backslashes refused");
    ok(entry_path_check("top/a:stream", out, sizeof(out)) != NULL, "NTFS stream refused");
    ok(entry_path_check("", out, sizeof(out)) != NULL, "empty refused");
    ok(entry_path_check("./", out, sizeof(out)) != NULL, "only '.' refused");
    char tiny[4];
    ok(entry_path_check("toolong", tiny, sizeof(tiny)) != NULL, "too long refused");
}

static void links(void)
{
    static const char beside[] = "does not point to a name beside it";
    static const char absolute[] = "points to an absolute path";
    static const char drive[] = "points to a drive or an NTFS stream";
    static const struct {
        const char *target, *why, *what;
    } cases[] = {
        {"libcudnn.so.9", NULL, "a name beside the link"},
        {"../b", beside, "up one"},
        {"sub/b", beside, "down one"},
        {"sub\\b", beside, "down one with '\\'"},
        {".", beside, "'.'"},
        {"..", beside, "'..'"},
        {"/etc/passwd", absolute, "absolute"},
        {"C:\\Windows", absolute, "a drive's root"},
        {"c:/x", absolute, "a drive with '/'"},
        {"\\\\server\\share", absolute, "UNC"},
        {"\\\\?\\C:\\x", absolute, "a long path"},
        {"C:x.dll", drive, "drive-relative"},
        {"x:stream", drive, "a stream"},
        {"", "has an empty target", "empty"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        const char *why = link_name_check(cases[i].target);
        ok(cases[i].why ? why && !strcmp(why, cases[i].why) : !why, "link to %s: %s", cases[i].what,
           cases[i].why ? cases[i].why : "accepted");
    }
}

static void layouts(void)
{
    struct layout_scan s = {0};
    const char *win9[] = {"bin/x64/cudnn64_9.dll", "lib/x64/cudnn.lib", "include/cudnn.h"};
    for (size_t i = 0; i < 3; i++)
        layout_note(&s, win9[i]);
    struct cdm_install_info in;
    layout_result(&s, &in);
    ok(!strcmp(in.bin_dir, "bin/x64") && !strcmp(in.lib_dir, "lib/x64") &&
           !strcmp(in.include_dir, "include"),
       "9.18+ windows: bin/x64, lib/x64");
    is_str(layout_os(&s), "windows", "windows from the dlls");

    struct layout_scan l = {0};
    layout_note(&l, "lib/libcudnn.so.9.1.0");
    layout_note(&l, "include/cudnn_version.h");
    layout_result(&l, &in);
    ok(!strcmp(in.bin_dir, "") && !strcmp(in.lib_dir, "lib"), "linux current: no bin, lib");
    is_str(layout_os(&l), "linux", "linux from the .so");

    struct layout_scan o = {0};
    layout_note(&o, "lib64/libcudnn.so.8");
    layout_result(&o, &in);
    is_str(in.lib_dir, "lib64", "old linux: lib64");

    struct layout_scan p = {0};
    layout_note(&p, "targets/ppc64le-linux/lib/libcudnn.so.8");
    layout_note(&p, "targets/ppc64le-linux/include/cudnn.h");
    layout_result(&p, &in);
    ok(!strcmp(in.lib_dir, "targets/ppc64le-linux/lib") &&
           !strcmp(in.include_dir, "targets/ppc64le-linux/include"),
       "ppc64le targets folders");

    struct layout_scan t = {0};
    layout_note(&t, "targets/a-very-long-architecture-name/lib/libcudnn.so.8");
    layout_result(&t, &in);
    is_str(in.lib_dir, "", "a targets folder too long for the record is not cut short");

    struct layout_scan w = {0};
    layout_note(&w, "bin/cudnn64_8.dll");
    layout_note(&w, "lib/cudnn.lib");
    layout_result(&w, &in);
    ok(!strcmp(in.bin_dir, "bin") && !strcmp(in.lib_dir, "lib"),
       "disputed windows zips: bin and lib");

    struct layout_scan mixed = {0};
    layout_note(&mixed, "bin/cudnn64_8.dll");
    layout_note(&mixed, "lib/libcudnn.so.8");
    is_str(layout_os(&mixed), "", "both kinds: no verdict");
}

int main(void)
{
    entry_paths();
    links();
    layouts();
    return tap_done();
}
