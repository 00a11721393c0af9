/* cuDNN's library files (cudnn_lib.h). */
#include "cudnn_lib.h"
#include "header.h"
#include "platform/fs.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

char *cudnn_lib_name(bool windows, int major)
{
    return windows ? xasprintf("cudnn64_%d.dll", major) : xasprintf("libcudnn.so.%d", major);
}

char **cudnn_libs_in(cdm_ctx *ctx, const char *dir, bool windows, int major)
{
    char **names = NULL, **libs = xcalloc(1, sizeof(char *));
    size_t n = 0;
    if (fs_list_dir(ctx, dir, &names) != CDM_OK)
        return libs;
    char *suffix = xasprintf(".so.%d", major);
    for (char **p = names; *p; p++) {
        bool take = windows ? str_starts_with_icase(*p, "cudnn") && str_ends_with_icase(*p, ".dll")
                            : str_starts_with(*p, "libcudnn") && str_ends_with(*p, suffix);
        if (take) {
            libs = xrealloc(libs, (n + 2) * sizeof(char *));
            libs[n++] = xstrdup(*p);
            libs[n] = NULL;
        }
    }
    free(suffix);
    strv_free(names);
    return libs;
}

void cudnn_version_of_file(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    char *real = fs_realpath(path);
    const char *base = real ? path_basename(real) : "";
    const char *so = strstr(base, ".so.");
    if (so && strchr(so + 4, '.') && copy_str(out, size, so + 4)) {
        free(real);
        return;
    }
    out[0] = '\0'; /* a name too long for a version: ask the headers */
    char *dir = path_dirname(real ? real : path);
    static const char *const headers[] = {"../include/cudnn_version.h",
                                          "../../include/cudnn_version.h", "../include/cudnn.h"};
    for (size_t i = 0; i < CDM_ARRAY_LEN(headers) && !out[0]; i++) {
        char *h = path_join(dir, headers[i]);
        struct strbuf text = STRBUF_INIT;
        int ma, mi, pa;
        if (fs_read_file(h, 16384, &text) &&
            cudnn_header_version(sb_str(&text), text.len, &ma, &mi, &pa))
            snprintf(out, size, "%d.%d.%d", ma, mi, pa);
        sb_free(&text);
        free(h);
    }
    free(dir);
    free(real);
}
