/* A field of an RFC 822 style header (rfc822.h). */
#include "rfc822.h"
#include "base/util.h"

#include <ctype.h>
#include <string.h>

bool rfc822_field(const char *text, const char *key, char *out, size_t size)
{
    size_t klen = strlen(key);
    for (const char *line = text; *line && *line != '\n' && *line != '\r';) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > klen && str_starts_with_icase(line, key) && line[klen] == ':') {
            const char *v = line + klen + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            size_t vlen = (size_t)(line + len - v);
            while (vlen && isspace((unsigned char)v[vlen - 1]))
                vlen--;
            if (vlen >= size)
                return false;
            memcpy(out, v, vlen);
            out[vlen] = '\0';
            return true;
        }
        if (!end)
            break;
        line = end + 1;
    }
    return false;
}
