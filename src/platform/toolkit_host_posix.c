/* Where CUDA toolkits are installed on Linux and other POSIX systems (toolkit_host.h). */
#include "toolkit_host.h"
#include "base/util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* NVIDIA's installers and packages put each toolkit in /usr/local/cuda-X.Y, with
 * /usr/local/cuda pointing at the newest; Arch puts it in /opt/cuda. */
size_t toolkit_host_places(struct toolkit_place **out)
{
    static const char *const vars[] = {"CUDA_HOME", "CUDA_PATH"};
    struct toolkit_place *v = NULL;
    size_t n = 0;
    for (size_t i = 0; i < CDM_ARRAY_LEN(vars); i++) {
        const char *value = getenv(vars[i]);
        if (value && *value)
            toolkit_place_add(&v, &n, xstrdup(value), xstrdup(vars[i]));
    }
    toolkit_place_add(&v, &n, xstrdup("/usr/local/cuda"), xstrdup("/usr/local"));
    DIR *d = opendir("/usr/local");
    char **names = NULL;
    size_t count = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (str_starts_with(e->d_name, "cuda-")) {
            ALLOC_GROW(names, count);
            names[count++] = xstrdup(e->d_name);
        }
    }
    if (d)
        closedir(d);
    if (count)
        qsort(names, count, sizeof(*names), by_name);
    for (size_t i = 0; i < count; i++) {
        toolkit_place_add(&v, &n, path_join("/usr/local", names[i]), xstrdup("/usr/local"));
        free(names[i]);
    }
    free(names);
    toolkit_place_add(&v, &n, xstrdup("/opt/cuda"), xstrdup("/opt"));
    *out = v;
    return n;
}
