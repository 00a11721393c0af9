/*
 * An OCI registry (the distribution API: Harbor, Artifactory, GHCR, ECR, the CNCF
 * registry) as a place for cuDNN archives: a reference oci://REGISTRY/REPO[:TAG][@DIGEST]
 * read, the registry's token auth answered, manifests and blobs fetched and stored.
 *
 * cdm's artifact is an OCI image manifest of one layer, the archive's very bytes (so the
 * layer's digest is the archive's sha256, the one cudnn.lock names), with artifactType
 * OCI_ARTIFACT_TYPE and a small JSON config that says which install it is (oci_push.c in
 * install/ writes it, fetch.c's from_oci reads it).
 *
 * Plain HTTP only for a loopback registry or one named in [fetch] insecure_registries, as
 * container tools do; https everywhere else, with [fetch] ca_file and the proxy rules of
 * every other download.
 */
#ifndef CDM_OCI_H
#define CDM_OCI_H

#include "net.h"

#define OCI_MANIFEST_TYPE "application/vnd.oci.image.manifest.v1+json"
#define OCI_ARTIFACT_TYPE "application/vnd.cdm.cudnn.v1"
#define OCI_CONFIG_TYPE   "application/vnd.oci.image.config.v1+json"
#define OCI_TITLE         "org.opencontainers.image.title"

struct oci_ref {
    char *registry; /* host[:port] */
    char *repo;     /* the repository's path: "team/cudnn" */
    char *tag;      /* NULL when none was given */
    char *digest;   /* "sha256:<hex>", NULL when none was given */
};

bool oci_is_ref(const char *text);
/* Parse text (oci://REGISTRY/REPO[:TAG][@sha256:HEX]); CDM_EINVAL naming it when it is not
 * one. */
int oci_ref_parse(cdm_ctx *ctx, const char *text, struct oci_ref *out);
void oci_ref_free(struct oci_ref *ref);
/* "sha256:" and 64 lowercase hex digits. */
bool oci_digest_valid(const char *digest);

/* A session with one repository of one registry. */
struct oci {
    cdm_ctx *ctx;
    struct net net;
    struct oci_ref ref;
    char *text;          /* the reference as given, for messages */
    char *v2;            /* http(s)://REGISTRY/v2/REPO */
    const char *actions; /* what the token asks for: "pull" or "pull,push" */
    char *authorization; /* "Authorization: ..." once the registry's challenge was answered */
    const char *headers[2];
};

/* Open text for pulling, or for pushing too (push). */
int oci_open(cdm_ctx *ctx, const char *text, bool push, struct oci *o);
void oci_close(struct oci *o);

/* The value of key in a WWW-Authenticate challenge's parameters (key="value" or key=value,
 * comma-separated), malloc'd; NULL when there is none. */
char *oci_challenge_param(const char *params, const char *key);

/* One request to the registry (req->url absolute), its auth challenge answered once: a
 * token from the realm it names (with the credentials of oci_creds.c), or Basic. CDM_OK
 * when a response came; r says its status, its 2xx body went to req's callbacks. */
int oci_send(struct oci *o, struct http_request *req, struct http_result *r);

/* An http_request's head and body callbacks that keep a response's body whole in the strbuf
 * given as arg (at most 4 MiB); a try after a cut starts it again. */
int oci_collect_head(void *arg, const struct http_head *head);
int oci_collect_body(void *arg, const void *data, size_t n);

/* The manifest reference names (a tag or a digest) into body (at most 4 MiB), its sha256
 * as "sha256:<hex>" into digest; CDM_ENOTFOUND when the registry has none. */
int oci_get_manifest(struct oci *o, const char *reference, struct strbuf *body, char digest[80]);

/* The URL a blob is read from. */
char *oci_blob_url(const struct oci *o, const char *digest);

/* Store a blob of size bytes, given by read (as http_request's upload_read, from the start
 * each call), unless the registry has it already (*sent false then). */
int oci_put_blob(struct oci *o, const char *digest, uint64_t size,
                 size_t (*read)(void *arg, void *buf, size_t n), void *arg, bool *sent);

/* oci_put_blob of a small text (a config). */
int oci_put_text_blob(struct oci *o, const char *digest, const char *text, bool *sent);

/* Store manifest (JSON of OCI_MANIFEST_TYPE) under tag. */
int oci_put_manifest(struct oci *o, const char *tag, const char *manifest);

#endif
