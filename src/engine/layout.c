/* The folder layout of an extracted archive: pure functions on relative paths. */
#include "cdm_archive.h"

#include <string.h>

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return !strncmp(path, dir, n) && path[n] == '/';
}

void layout_note(struct layout_scan *scan, const char *rel)
{
    if (under(rel, "bin/x64"))
        scan->bin_x64 = true;
    else if (under(rel, "bin"))
        scan->bin = true;
    if (under(rel, "lib/x64"))
        scan->lib_x64 = true;
    else if (under(rel, "lib"))
        scan->lib = true;
    if (under(rel, "lib64"))
        scan->lib64 = true;
    if (under(rel, "include"))
        scan->include = true;
    if (under(rel, "targets")) {
        /* targets/ppc64le-linux/lib/... */
        const char *arch = rel + strlen("targets/");
        const char *slash = strchr(arch, '/');
        if (slash) {
            const char *kind = slash + 1;
            size_t prefix = (size_t)(kind - rel);
            if (under(kind, "lib") && !scan->target_lib[0] && prefix + 4 < sizeof(scan->target_lib))
                copy_str(scan->target_lib, prefix + 4, rel);
            if (under(kind, "include") && !scan->target_include[0] &&
                prefix + 8 < sizeof(scan->target_include))
                copy_str(scan->target_include, prefix + 8, rel);
        }
    }
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    if (str_ends_with_icase(base, ".dll"))
        scan->dlls++;
    if (strstr(base, ".so") && (str_ends_with(base, ".so") || strstr(base, ".so.")))
        scan->shared_objects++;
}

void layout_result(const struct layout_scan *scan, char *bin, size_t bin_size, char *lib,
                   size_t lib_size, char *include, size_t include_size)
{
    copy_str(bin, bin_size, scan->bin_x64 ? "bin/x64" : scan->bin ? "bin" : "");
    copy_str(lib, lib_size,
             scan->lib_x64 ? "lib/x64"
             : scan->lib64 ? "lib64"
             : scan->lib   ? "lib"
                           : scan->target_lib);
    copy_str(include, include_size, scan->include ? "include" : scan->target_include);
}

const char *layout_os(const struct layout_scan *scan)
{
    if (scan->dlls && !scan->shared_objects)
        return "windows";
    if (scan->shared_objects && !scan->dlls)
        return "linux";
    return "";
}
