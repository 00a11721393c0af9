/*
 * NVIDIA's licence for cuDNN, accepted on record: `cdm install --accept-license` or
 * `[install] accept_license = nvidia-cudnn` records it for each install it installs (or
 * finds installed), and `[install] require_license = true` (a site's config) refuses an
 * install without it before anything is read or downloaded. cdm sbom reads the record.
 */
#include "db_license.h"
#include "install.h"
#include "store.h"

/* Where an acceptance comes from: the option, else the config; NULL for none. */
static const char *accepted_by(const cdm_ctx *ctx, const struct cdm_install_request *req)
{
    return req->accept_license ? "option" : ctx->config.accept_license ? "config" : NULL;
}

int license_check(cdm_ctx *ctx, const struct cdm_install_request *req)
{
    if (!ctx->config.require_license || accepted_by(ctx, req))
        return CDM_OK;
    return cdm_error_set(ctx, CDM_EINVAL,
                         "cannot install '%s': config '%s' sets [install] require_license, and "
                         "NVIDIA's cuDNN licence (the software license agreement in each archive, "
                         "https://docs.nvidia.com/deeplearning/cudnn/latest/reference/eula.html) "
                         "was not accepted; read it, then give --accept-license (or set [install] "
                         "accept_license = " CDM_LICENSE_NVIDIA_CUDNN ")",
                         req->what, ctx->config.path ? ctx->config.path : "(none)");
}

int license_record(cdm_ctx *ctx, const struct cdm_install_request *req, const char *id)
{
    const char *how = accepted_by(ctx, req);
    if (!how)
        return CDM_OK;
    int rc = store_open(ctx, STORE_WRITE, 0);
    if (!rc)
        rc = db_license_accept(ctx, id, CDM_LICENSE_NVIDIA_CUDNN, how);
    if (rc)
        rc = cdm_error_wrap(ctx, rc,
                            "%s is installed, but the licence accepted for it could not be "
                            "recorded; run the same 'cdm install' again",
                            id);
    return rc;
}
