/* The folder layout of an extracted archive: pure functions on relative paths. */
#include "cdm_archive.h"

#include <string.h>

/* Keep the first n bytes of rel in dst, when they fit (else leave it ""). */
static void keep_prefix(char *dst, size_t size, const char *rel, size_t n)
{
    if (n < size) {
        memcpy(dst, rel, n);
        dst[n] = '\0';
    }
}

/* Below dir, not dir itself. */
static bool under(const char *path, const char *dir)
{
    return path_within(path, dir) && path[strlen(dir)];
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
            if (under(kind, "lib") && !scan->target_lib[0])
                keep_prefix(scan->target_lib, sizeof(scan->target_lib), rel, prefix + 3);
            if (under(kind, "include") && !scan->target_include[0])
                keep_prefix(scan->target_include, sizeof(scan->target_include), rel, prefix + 7);
        }
    }
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    if (str_ends_with_icase(base, ".dll"))
        scan->dlls++;
    if (strstr(base, ".so") && (str_ends_with(base, ".so") || strstr(base, ".so.")))
        scan->shared_objects++;
}

void layout_result(const struct layout_scan *scan, struct cdm_install_info *in)
{
    if (scan->bin_x64)
        COPY_STR_ARRAY(in->bin_dir, "bin/x64");
    else if (scan->bin)
        COPY_STR_ARRAY(in->bin_dir, "bin");
    else
        in->bin_dir[0] = '\0';
    if (scan->lib_x64)
        COPY_STR_ARRAY(in->lib_dir, "lib/x64");
    else if (scan->lib64)
        COPY_STR_ARRAY(in->lib_dir, "lib64");
    else if (scan->lib)
        COPY_STR_ARRAY(in->lib_dir, "lib");
    else
        COPY_STR_ARRAY(in->lib_dir, scan->target_lib);
    if (scan->include)
        COPY_STR_ARRAY(in->include_dir, "include");
    else
        COPY_STR_ARRAY(in->include_dir, scan->target_include);
}

const char *layout_os(const struct layout_scan *scan)
{
    if (scan->dlls && !scan->shared_objects)
        return "windows";
    if (scan->shared_objects && !scan->dlls)
        return "linux";
    return "";
}
