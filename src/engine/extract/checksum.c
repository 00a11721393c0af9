/* Checksums given with an archive: --sha256, a .sha256 file beside it, SHA256SUMS. */
#include "checksum.h"
#include "platform/fs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* A SHA256SUMS of a whole download folder is some kilobytes; this is far past any. */
#define SUMS_MAX (16u << 20)

static bool is_sha256_hex(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!isxdigit((unsigned char)s[n]))
            return false;
    return n == 64;
}

static void lower(char *s)
{
    for (; *s; s++)
        *s = (char)tolower((unsigned char)*s);
}

/* Whether a checksum line's file name (len bytes) is base, alone or as a path's last part. */
static bool line_names(const char *name, size_t len, const char *base)
{
    size_t b = strlen(base);
    if (len < b || strncmp(name + len - b, base, b))
        return false;
    return len == b || name[len - b - 1] == '/';
}

/* The hash on a line "HEX  name" or "HEX *name" of text whose name is base (or any name
 * when base is NULL, for a .sha256 file that holds only the hash). */
static bool sums_lookup(const char *text, const char *base, char out[65])
{
    for (const char *line = text; *line; line += strcspn(line, "\n"), line += *line == '\n') {
        char hex[65];
        size_t i = 0;
        while (i < 64 && isxdigit((unsigned char)line[i]))
            hex[i] = line[i], i++;
        hex[i] = '\0';
        if (i != 64 || (line[64] && !isspace((unsigned char)line[64])))
            continue;
        const char *name = line + 64;
        while (*name == ' ' || *name == '\t')
            name++;
        if (*name == '*')
            name++;
        size_t len = strcspn(name, "\r\n");
        if (base && !line_names(name, len, base))
            continue;
        lower(hex);
        memcpy(out, hex, 65);
        return true;
    }
    return false;
}

/* A checksum file's text. Fails closed: a file that is there (a link, even to nothing)
 * but cannot be read stops the install rather than letting it go on unverified. */
static int read_sums(cdm_ctx *ctx, const char *file, const char *archive, struct strbuf *text,
                     bool *present)
{
    *present = fs_kind(file) != FS_NONE;
    if (!*present)
        return CDM_OK;
    int rc = fs_read_regular(ctx, file, SUMS_MAX, text);
    if (rc)
        rc = cdm_error_set(ctx, CDM_ECHECKSUM,
                           "%s; it should hold the checksum of '%s': fix or delete it, nothing "
                           "was installed",
                           cdm_error_message(ctx), archive);
    return rc;
}

/* Keep the next one: its hex is filled, source is taken (malloc'd). */
static void keep(struct checksums *c, char *source)
{
    c->want[c->count++].source = source;
}

int checksums_find(cdm_ctx *ctx, const char *archive, const char *given, struct checksums *out)
{
    memset(out, 0, sizeof(*out));
    if (given) {
        if (!is_sha256_hex(given))
            return cdm_error_set(ctx, CDM_EINVAL, "--sha256 '%s' is not a SHA-256 (64 hex digits)",
                                 given);
        memcpy(out->want[0].hex, given, 65);
        lower(out->want[0].hex);
        keep(out, xstrdup("--sha256"));
    }
    char *side = xasprintf("%s.sha256", archive);
    char *dir = path_dirname(archive);
    char *sums = path_join(dir, "SHA256SUMS");
    struct strbuf text = STRBUF_INIT;
    bool present;
    int rc = read_sums(ctx, side, archive, &text, &present);
    if (!rc && present) {
        if (!sums_lookup(sb_str(&text), NULL, out->want[out->count].hex)) {
            rc = cdm_error_set(ctx, CDM_ECHECKSUM,
                               "cannot read a SHA-256 from '%s'; fix or delete that file", side);
        } else {
            keep(out, side);
            side = NULL;
        }
    }
    sb_reset(&text);
    if (!rc && !(rc = read_sums(ctx, sums, archive, &text, &present)) && present &&
        sums_lookup(sb_str(&text), path_basename(archive), out->want[out->count].hex)) {
        keep(out, sums);
        sums = NULL;
    }
    if (rc)
        checksums_free(out);
    sb_free(&text);
    free(sums);
    free(dir);
    free(side);
    return rc;
}

void checksums_add(struct checksums *c, const char hex[65], const char *source)
{
    memcpy(c->want[c->count].hex, hex, sizeof(c->want[0].hex)); /* as --sha256's, above */
    lower(c->want[c->count].hex);
    keep(c, xstrdup(source));
}

int checksums_check(cdm_ctx *ctx, const struct checksums *c, const char *archive,
                    const char *actual)
{
    for (int i = 0; i < c->count; i++)
        if (strcmp(c->want[i].hex, actual))
            return cdm_error_set(ctx, CDM_ECHECKSUM,
                                 "checksum mismatch for '%s': %s says %s but the file hashes "
                                 "to %s; download it again; nothing was installed",
                                 archive, c->want[i].source, c->want[i].hex, actual);
    return CDM_OK;
}

void checksums_free(struct checksums *c)
{
    for (int i = 0; i < c->count; i++)
        free(c->want[i].source);
    c->count = 0;
}
