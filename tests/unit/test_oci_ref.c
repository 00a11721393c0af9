/*
 * The pieces of the registry client that need no registry: base64 (credentials), oci://
 * references (what is accepted, what is refused), the config's [fetch] sources and
 * insecure_registries, and the tag cdm push gives an install.
 */
#include "base/base64.h"
#include "engine/fetch/oci_artifact.h"
#include "engine/fetch/oci_creds.h"
#include "platform/fs.h"
#include "tap.h"
#include "testenv.h"

#include <stdlib.h>

static cdm_ctx *ctx;

static void base64(void)
{
    const char *plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar", "alice:s3cret"};
    const char *coded[] = {"",         "Zg==",     "Zm8=",     "Zm9v",
                           "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy", "YWxpY2U6czNjcmV0"};
    for (size_t i = 0; i < CDM_ARRAY_LEN(plain); i++) {
        struct strbuf out = STRBUF_INIT, back = STRBUF_INIT;
        base64_encode(plain[i], strlen(plain[i]), &out);
        is_str(sb_str(&out), coded[i], "base64 of '%s' (RFC 4648's vectors)", plain[i]);
        ok(base64_decode(coded[i], &back) && !strcmp(sb_str(&back), plain[i]), "and back: '%s'",
           coded[i]);
        sb_free(&out);
        sb_free(&back);
    }
    const char *bad[] = {"Zm9v!", "Z", "Zm9 v", "Zm\n9v"};
    for (size_t i = 0; i < CDM_ARRAY_LEN(bad); i++) {
        struct strbuf back = STRBUF_INIT;
        ok(!base64_decode(bad[i], &back) && back.len == 0, "'%s' is not base64, nothing added",
           bad[i]);
        sb_free(&back);
    }
}

static void references(void)
{
    struct oci_ref r;
    ok(oci_ref_parse(ctx, "oci://127.0.0.1:5000/team/cudnn:9.1.0.70-cuda12-linux-x86_64", &r) ==
           CDM_OK,
       "a registry with a port, a repository of two parts and a tag");
    is_str(r.registry, "127.0.0.1:5000", "the registry");
    is_str(r.repo, "team/cudnn", "the repository");
    is_str(r.tag, "9.1.0.70-cuda12-linux-x86_64", "the tag");
    ok(r.digest == NULL, "no digest");
    oci_ref_free(&r);
    const char *digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    char text[200];
    snprintf(text, sizeof(text), "oci://ghcr.io/ml/cudnn@%s", digest);
    ok(oci_ref_parse(ctx, text, &r) == CDM_OK, "a digest");
    is_str(r.digest, digest, "kept as written");
    ok(r.tag == NULL, "and no tag");
    oci_ref_free(&r);
    ok(oci_ref_parse(ctx, "oci://reg.example.com/cudnn", &r) == CDM_OK && !r.tag && !r.digest,
       "no tag: a repository for [fetch] sources");
    oci_ref_free(&r);
    const char *bad[] = {
        "oci://reg.example.com",               /* no repository */
        "oci://reg.example.com/",              /* an empty one */
        "oci://reg.example.com/Team/x",        /* capitals */
        "oci://reg.example.com/a//b",          /* an empty part */
        "oci://reg.example.com/a/../b",        /* a part of dots */
        "oci://reg.example.com/a:-x",          /* a tag that starts with '-' */
        "oci://reg.example.com/a@sha256:1234", /* a short digest */
        "oci://reg.example.com/a@md5:0123456789abcdef0123456789abcdef",
        "oci://user@reg.example.com/a:1", /* credentials in the reference */
        "https://reg.example.com/a:1",    /* not oci:// */
        "oci://reg example.com/a:1",      /* a space */
    };
    for (size_t i = 0; i < CDM_ARRAY_LEN(bad); i++) {
        ok(oci_ref_parse(ctx, bad[i], &r) == CDM_EINVAL, "refused: %s", bad[i]);
        ok(strstr(cdm_error_message(ctx), bad[i]) != NULL, "naming it");
    }
}

static void docker_hub(void)
{
    struct oci o;
    ok(oci_open(ctx, "oci://docker.io/cudnn:9", false, &o) == CDM_OK, "Docker Hub by its name");
    is_str(o.v2, "https://registry-1.docker.io/v2/library/cudnn",
           "its API's host, a one-part repository under library/");
    oci_close(&o);
    ok(oci_open(ctx, "oci://docker.io/team/cudnn:9", true, &o) == CDM_OK, "a user's repository");
    is_str(o.v2, "https://registry-1.docker.io/v2/team/cudnn", "kept as it is");
    oci_close(&o);
    ok(oci_open(ctx, "oci://ghcr.io/team/cudnn:9", false, &o) == CDM_OK, "another registry");
    is_str(o.v2, "https://ghcr.io/v2/team/cudnn", "its own host, https");
    oci_close(&o);
    ok(oci_open(ctx, "oci://localhost:5000/cudnn:9", false, &o) == CDM_OK, "a loopback one");
    is_str(o.v2, "http://localhost:5000/v2/cudnn", "plain http, no library/");
    oci_close(&o);
}

/* docker login's file: Docker Hub's entry is kept under https://index.docker.io/v1/ */
static void docker_login(void)
{
    const char *dir = "test_oci_ref.docker";
    fs_mkdir(ctx, dir);
    char *path = path_join(dir, "config.json");
    FILE *f = fs_fopen(path, "wb");
    fputs("{\"auths\": {\"https://index.docker.io/v1/\": {\"auth\": \"YWxpY2U6czNjcmV0\"},"
          " \"reg.example.com:5000\": {\"auth\": \"Ym9iOnB3\"}}}\n",
          f);
    fclose(f);
    testenv_setenv("CDM_REGISTRY_USERNAME", NULL);
    testenv_setenv("REGISTRY_AUTH_FILE", NULL);
    testenv_setenv("DOCKER_CONFIG", dir);
    char *header = NULL;
    ok(oci_creds_basic(ctx, "docker.io", &header) == CDM_OK, "Docker Hub's credentials found");
    is_str(header, "Authorization: Basic YWxpY2U6czNjcmV0", "under index.docker.io/v1/");
    free(header);
    ok(oci_creds_basic(ctx, "reg.example.com:5000", &header) == CDM_OK, "another registry's");
    is_str(header, "Authorization: Basic Ym9iOnB3", "under its host and port");
    free(header);
    ok(oci_creds_basic(ctx, "reg.example.com", &header) == CDM_ENOTFOUND,
       "none for the same host on another port");
    testenv_setenv("DOCKER_CONFIG", NULL);
    fs_remove_file(ctx, path);
    fs_remove_if_empty_dir(dir);
    free(path);
}

/* A manifest as a hostile registry could send it: cdm takes a layer only with a plain file
 * name for downloads/, a sha256 digest, a size, and cdm's artifact type. */
static const char *manifest_with(char *buf, size_t size, const char *type, const char *digest,
                                 const char *length, const char *title, int layers)
{
    int n = snprintf(buf, size,
                     "{\"artifactType\":\"%s\",\"layers\":[{\"digest\":\"%s\",\"size\":%s,"
                     "\"annotations\":{\"org.opencontainers.image.title\":\"%s\"}}",
                     type, digest, length, title);
    for (int i = 1; i < layers; i++)
        n += snprintf(buf + n, size - (size_t)n, ",{}");
    snprintf(buf + n, size - (size_t)n, "]}");
    return buf;
}

static void hostile_manifests(void)
{
    const char *type = OCI_ARTIFACT_TYPE,
               *name = "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz";
    const char *digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    char buf[1024];
    struct manifest_entry e;
    const char *text = manifest_with(buf, sizeof(buf), type, digest, "599136", name, 1);
    ok(oci_manifest_layer(text, strlen(text), &e), "cdm's manifest gives its layer");
    is_str(e.name, name, "named by its title");
    is_int(e.size, 599136, "its size");
    const struct {
        const char *type, *digest, *size, *title;
        int layers;
        const char *why;
    } bad[] = {
        {type, digest, "1", "../cudnn.tar.xz", 1, "a title that climbs out of downloads/"},
        {type, digest, "1", "x/cudnn.tar.xz", 1, "a title with a folder"},
        {type, digest, "1", "x\\\\cudnn.tar.xz", 1, "a title with a backslash"},
        {type, digest, "1", "C:cudnn.tar.xz", 1, "a title with a drive"},
        {type, digest, "1", "..", 1, "a title of dots"},
        {type, digest, "1", "", 1, "an empty title"},
        {type, digest, "-1", name, 1, "a negative size"},
        {type, digest, "1e300", name, 1, "a size past any file"},
        {type, "sha512:00", "1", name, 1, "another digest"},
        {type, "sha256:0123", "1", name, 1, "a short digest"},
        {"application/vnd.oci.image.layer.v1.tar", digest, "1", name, 1, "an image, not cdm's"},
        {type, digest, "1", name, 2, "two layers"},
    };
    for (size_t i = 0; i < CDM_ARRAY_LEN(bad); i++) {
        text = manifest_with(buf, sizeof(buf), bad[i].type, bad[i].digest, bad[i].size,
                             bad[i].title, bad[i].layers);
        ok(!oci_manifest_layer(text, strlen(text), &e), "refused: %s", bad[i].why);
    }
    ok(!oci_manifest_layer("{\"layers\":", 11, &e), "refused: JSON cut short");
    struct manifest_entry layer = {0};
    copy_text(layer.sha256, sizeof(layer.sha256), digest + 7);
    copy_text(layer.name, sizeof(layer.name), name);
    char config[512];
    const char *configs[] = {"12", "0", "1e300", "\"12\""};
    for (size_t i = 0; i < CDM_ARRAY_LEN(configs); i++) {
        snprintf(config, sizeof(config),
                 "{\"cdm\":{\"version\":\"9.1.0.70\",\"cuda\":%s,\"platform\":"
                 "\"linux-x86_64\",\"archive\":\"%s\",\"sha256\":\"%s\"}}",
                 configs[i], name, digest + 7);
        ok(oci_config_describes(config, strlen(config), &layer) == (i == 0),
           "a config whose CUDA major is %s is %s", configs[i], i == 0 ? "taken" : "refused");
    }
    snprintf(config, sizeof(config),
             "{\"cdm\":{\"version\":\"9.1.0.70\",\"cuda\":12,\"platform\":\"linux-x86_64\","
             "\"archive\":\"other.tar.xz\",\"sha256\":\"%s\"}}",
             digest + 7);
    ok(!oci_config_describes(config, strlen(config), &layer), "refused: a config of another file");
    char *realm =
        oci_challenge_param("realm=\"https://a/t\",service=\"r\",scope=\"repository:a:pull,"
                            "push\"",
                            "scope");
    is_str(realm, "repository:a:pull,push", "a challenge's quoted value, its comma kept");
    free(realm);
    realm = oci_challenge_param("realm=\"https://a/t", "realm");
    is_str(realm, "https://a/t", "an unterminated quote ends at the text's end");
    free(realm);
    ok(oci_challenge_param("service=x", "realm") == NULL, "no realm: none");
}

static void tags(void)
{
    char tag[128];
    oci_tag_for("9.1.0.70", 12, "linux-x86_64", tag, sizeof(tag));
    is_str(tag, "9.1.0.70-cuda12-linux-x86_64", "cdm push's tag: VERSION-cudaN-PLATFORM");
}

int main(void)
{
    struct cdm_options options = {.config_path = fs_host_is_windows() ? "NUL" : "/dev/null"};
    cdm_ctx_new(&ctx, &options);
    base64();
    references();
    docker_hub();
    docker_login();
    hostile_manifests();
    tags();
    cdm_ctx_free(ctx);
    return tap_done();
}
