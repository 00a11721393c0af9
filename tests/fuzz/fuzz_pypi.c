/* libFuzzer: a package index's project page read (pypi.c: PEP 691 JSON or PEP 503 HTML, its
 * links resolved against the page's URL, file names and sha256 fragments taken), as cdm
 * install and cdm available read a page an index (or anyone on its way) sends; then each
 * file's name read as a wheel's, as the choice of a wheel does. */
#include "engine/core/internal.h"
#include "engine/fetch/pypi.h"
#include "engine/core/version.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = xmalloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    struct cdm_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    struct index_file *files = NULL;
    size_t count = 0;
    /* the page's URL: the first byte chooses one with or without a path to resolve against */
    const char *page = size && (data[0] & 1) ? "https://pypi.example/simple/nvidia-cudnn-cu12/"
                                             : "http://127.0.0.1:8/x";
    if (!pypi_parse_page(&ctx, page, text, size, &files, &count)) {
        for (size_t i = 0; i < count; i++) {
            struct archive_name n;
            wheel_name_parse(files[i].name, &n);
        }
    }
    index_files_free(files, count);
    error_state_free(&ctx.err);
    free(text);
    return 0;
}
