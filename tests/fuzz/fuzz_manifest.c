/* libFuzzer: what a download base sends back: a redistrib JSON manifest (manifest.c, through
 * cJSON) and a folder listing's manifest names (redist.c), on the same bytes. Beyond the
 * sanitizers, what the parsers promise is checked: an entry without a problem is one
 * install could download as named (a safe relative path ending in its name, a lower-case
 * SHA-256, a four-part version), and the labels are versions, each once. */
#include "engine/fetch/manifest.h"
#include "engine/fetch/redist.h"
#include "engine/core/version.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TERMINATED(field) (memchr((field), '\0', sizeof(field)) != NULL)

static void check_entry(const struct manifest_entry *e)
{
    if (!TERMINATED(e->platform) || !TERMINATED(e->variant) || !TERMINATED(e->version) ||
        !TERMINATED(e->relative_path) || !TERMINATED(e->name) || !TERMINATED(e->sha256) ||
        !TERMINATED(e->problem))
        abort();
    if (e->problem[0])
        return;
    struct version v;
    size_t rel = strlen(e->relative_path), name = strlen(e->name);
    if (!manifest_path_safe(e->relative_path) || name == 0 || name > rel ||
        strcmp(e->relative_path + rel - name, e->name) || strchr(e->name, '/'))
        abort();
    if (strlen(e->sha256) != 64 || strspn(e->sha256, "0123456789abcdef") != 64)
        abort();
    if (e->cuda <= 0 || !version_parse(e->version, &v) || v.count != 4)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cdm_ctx *ctx;
    if (!ctx) {
        struct cdm_options options = {.root = "/nonexistent/cdm-fuzz-store",
                                      .config_path = "/dev/null"};
        if (cdm_ctx_new(&ctx, &options) != CDM_OK)
            abort();
    }
    /* not NUL-terminated: the parsers are given a length and must keep to it */
    struct manifest m;
    if (manifest_parse(ctx, (const char *)data, size, "cudnn", "fuzz.json", &m) == CDM_OK)
        for (size_t i = 0; i < m.count; i++)
            check_entry(&m.entries[i]);
    else if (m.count || m.entries)
        abort(); /* a refused manifest hands back nothing */
    manifest_free(&m);

    char **labels = redist_labels_in((const char *)data, size);
    for (size_t i = 0; labels[i]; i++) {
        struct version v;
        if (!version_parse(labels[i], &v) || v.count < 3)
            abort();
        for (size_t j = 0; j < i; j++)
            if (!strcmp(labels[i], labels[j]))
                abort();
    }
    cdm_strv_free(labels);
    return 0;
}
