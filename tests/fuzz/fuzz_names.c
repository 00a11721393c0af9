/* libFuzzer: the parsers of names and versions: NVIDIA's archive and wheel names, versions, version
 * specs, an entry's path and a link's target. */
#include "engine/extract/entry_check.h"
#include "engine/core/version.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0';
    struct archive_name name;
    if (archive_name_parse(s, &name)) {
        char out[32];
        version_format(&name.version, out, sizeof(out));
        layout_for_version(&name.version);
    }
    if (wheel_name_parse(s, &name)) {
        char out[32];
        version_format(&name.version, out, sizeof(out));
    }
    struct version v, w;
    if (version_parse(s, &v) && version_parse("9.1.0.70", &w))
        version_compare(&v, &w);
    struct version_spec spec;
    if (version_spec_parse(s, &spec))
        version_spec_matches(&spec, &w, 12);
    archive_has_known_extension(s);
    char path[4096];
    entry_path_check(s, path, sizeof(path));
    link_name_check(s);
    free(s);
    return 0;
}
