/* libFuzzer: what a registry (or anyone on its way) sends cdm install oci://...: a
 * manifest's text, read as cdm's artifact (its one layer: type, digest, size, a title that
 * becomes a file name in downloads/); a config's text, held to that layer; and a
 * WWW-Authenticate challenge's parameters. The first byte chooses which. */
#include "engine/core/internal.h"
#include "engine/fetch/oci_artifact.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    size_t n = size - 1;
    char *text = xmalloc(n + 1);
    memcpy(text, data + 1, n);
    text[n] = '\0';
    struct manifest_entry e;
    switch (data[0] % 3) {
    case 0:
        if (oci_manifest_layer(text, n, &e) && (strchr(e.name, '/') || strchr(e.name, '\\') ||
                                                !strcmp(e.name, "..") || strlen(e.sha256) != 64))
            abort(); /* a layer cdm would take must name a plain file and a sha256 */
        break;
    case 1:
        memset(&e, 0, sizeof(e));
        COPY_STR_ARRAY(e.sha256,
                       "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
        COPY_STR_ARRAY(e.name, "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz");
        if (oci_config_describes(text, n, &e) && (e.cuda < 1 || e.cuda > 99))
            abort();
        break;
    default:
        for (const char *key = "realm\0service\0scope\0"; *key; key += strlen(key) + 1)
            free(oci_challenge_param(text, key));
    }
    free(text);
    return 0;
}
