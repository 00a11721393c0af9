/* Asking a cuDNN library its answers, and reading them back (probe.h). */
#include "loader.h"
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef size_t (*size_fn)(void);
typedef int (*create_fn)(void **);
typedef int (*destroy_fn)(void *);
typedef const char *(*error_string_fn)(int);

void probe_ask(const char *path, void (*emit)(void *arg, const char *line), void *arg)
{
    char line[640];
    char *why = NULL;
    struct loader_lib *lib = loader_open(path, &why);
    if (!lib) {
        snprintf(line, sizeof(line), "load-failed %s", why ? why : "");
        for (char *p = line; *p; p++)
            if (*p == '\n')
                *p = ' ';
        emit(arg, line);
        free(why);
        emit(arg, "done");
        return;
    }
    emit(arg, "loaded");
    size_fn version = (size_fn)loader_sym(lib, "cudnnGetVersion");
    if (version) {
        snprintf(line, sizeof(line), "version %ld", (long)version());
        emit(arg, line);
    }
    emit(arg, "step cudart");
    size_fn cudart = (size_fn)loader_sym(lib, "cudnnGetCudartVersion");
    if (cudart) {
        snprintf(line, sizeof(line), "cudart %ld", (long)cudart());
        emit(arg, line);
    }
    emit(arg, "step create");
    create_fn create = (create_fn)loader_sym(lib, "cudnnCreate");
    destroy_fn destroy = (destroy_fn)loader_sym(lib, "cudnnDestroy");
    error_string_fn name_of = (error_string_fn)loader_sym(lib, "cudnnGetErrorString");
    if (create && destroy) {
        void *handle = NULL;
        int status = create(&handle);
        const char *name = name_of ? name_of(status) : NULL;
        snprintf(line, sizeof(line), "create %d %.60s", status, name ? name : "");
        emit(arg, line);
        if (status == 0)
            emit(arg, destroy(handle) == 0 ? "destroyed" : "destroy-failed");
    }
    /* kept loaded: a library that started threads (cuDNN, the CUDA runtime) is not safe to
     * unload */
    loader_keep(lib);
    emit(arg, "done");
}

void probe_note_timeout(struct cudnn_probe *out, unsigned timeout_ms)
{
    snprintf(out->death, sizeof(out->death), "gave no answer within %u s (stopped)",
             (timeout_ms + 999) / 1000);
}

void probe_parse(const char *lines, struct cudnn_probe *out)
{
    memset(out, 0, sizeof(*out));
    out->stopped = PROBE_LOAD;
    for (const char *l = lines; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) : strlen(l);
        char one[640];
        snprintf(one, sizeof(one), "%.*s", (int)(n < sizeof(one) ? n : sizeof(one) - 1), l);
        if (!strncmp(one, "load-failed ", 12)) {
            snprintf(out->why, sizeof(out->why), "%.500s", one + 12);
        } else if (!strcmp(one, "loaded")) {
            out->loaded = true;
            out->stopped = PROBE_VERSION;
        } else if (!strncmp(one, "version ", 8)) {
            out->has_version = true;
            out->version = strtol(one + 8, NULL, 10);
        } else if (!strcmp(one, "step cudart")) {
            out->stopped = PROBE_CUDART;
        } else if (!strncmp(one, "cudart ", 7)) {
            out->has_cudart = true;
            out->cudart = strtol(one + 7, NULL, 10);
        } else if (!strcmp(one, "step create")) {
            out->stopped = PROBE_CREATE;
        } else if (!strncmp(one, "create ", 7)) {
            char *rest;
            out->has_create = true;
            out->create_status = (int)strtol(one + 7, &rest, 10);
            snprintf(out->create_name, sizeof(out->create_name), "%s", *rest ? rest + 1 : "");
        } else if (!strcmp(one, "destroyed")) {
            out->destroyed = true;
        } else if (!strcmp(one, "done")) {
            out->stopped = PROBE_DONE;
        }
        l = nl ? nl + 1 : NULL;
    }
}

bool probe_line_known(const char *line)
{
    static const char *const exact[] = {"loaded",    "step cudart",    "step create",
                                        "destroyed", "destroy-failed", "done"};
    static const char *const prefixes[] = {"load-failed ", "version ", "cudart ", "create "};
    for (size_t i = 0; i < CDM_ARRAY_LEN(exact); i++)
        if (!strcmp(line, exact[i]))
            return true;
    for (size_t i = 0; i < CDM_ARRAY_LEN(prefixes); i++)
        if (str_starts_with(line, prefixes[i]))
            return true;
    return false;
}

const char *probe_step_name(enum probe_step step)
{
    static const char *const names[] = {
        [PROBE_LOAD] = "while loading it",
        [PROBE_VERSION] = "in cudnnGetVersion",
        [PROBE_CUDART] = "in cudnnGetCudartVersion",
        [PROBE_CREATE] = "in cudnnCreate or cudnnDestroy",
        [PROBE_DONE] = "after its last answer",
    };
    return names[step];
}
