/* What a library file is: its install, wheel or folder, and its cuDNN version. */
#include "libfile.h"
#include "upstream.h"
#include "cudnn_lib.h"
#include "db.h"
#include "platform/fs.h"
#include "pyenv.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

bool lib_same_version(const char *a, const char *b)
{
    struct version va, vb;
    if (!version_parse(a, &va) || !version_parse(b, &vb))
        return !strcmp(a, b);
    int parts = va.count < vb.count ? va.count : vb.count;
    if (parts > 3)
        parts = 3;
    for (int i = 0; i < parts; i++)
        if (va.part[i] != vb.part[i])
            return false;
    return true;
}

/* The install id when real (a resolved path) lies inside a version folder of the store. */
static bool in_install(cdm_ctx *ctx, const char *real, struct cdm_install_info *in)
{
    char *root = fs_realpath(cdm_root(ctx));
    size_t n = root ? strlen(root) : 0;
    bool inside = root && path_within(real, root) && real[n]; /* below the root, not it */
    free(root);
    if (!inside || !ctx->db)
        return false;
    const char *rest = real + n + 1;
    char id[64];
    size_t idn = strcspn(rest, "/\\");
    if (idn == 0 || idn >= sizeof(id) || !rest[idn])
        return false;
    memcpy(id, rest, idn);
    id[idn] = '\0';
    return db_install_find(ctx, id, in) == CDM_OK && in->state == CDM_INSTALL_OK;
}

void lib_origin(cdm_ctx *ctx, const char *path, struct lib_origin *out)
{
    memset(out, 0, sizeof(*out));
    char *real = fs_realpath(path);
    char *dir = path_dirname(real ? real : path);
    bool whole = copy_str(out->folder, sizeof(out->folder), dir);
    free(dir);
    if (!whole) { /* a Windows path past 4096 bytes: said, not guessed at */
        COPY_STR_ARRAY(out->source, "nothing: its folder's name is too long for cdm");
        free(real);
        return;
    }
    struct cdm_install_info in;
    struct py_dist dist;
    if (real && in_install(ctx, real, &in)) {
        COPY_STR_ARRAY(out->install_id, in.id);
        COPY_STR_ARRAY(out->version, in.version);
        snprintf(out->source, sizeof(out->source), "the store's install %s", in.id);
    } else if ((py_owner_of(path, &dist) || (real && py_owner_of(real, &dist))) &&
               (str_starts_with(dist.name, "nvidia_cudnn") || !strcmp(dist.name, "cudnn"))) {
        /* a cuDNN wheel's version is its files'; torch's (torch\lib) says nothing of them */
        COPY_STR_ARRAY(out->version, dist.version);
        snprintf(out->source, sizeof(out->source), "the wheel %s %s", dist.name, dist.version);
    } else {
        cudnn_version_of_file(path, out->version, sizeof(out->version));
        if (out->version[0])
            COPY_STR_ARRAY(out->source, "its file name, version resource or cudnn_version.h");
    }
    free(real);
}
