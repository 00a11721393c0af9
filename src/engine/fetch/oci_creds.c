/* Registry credentials: see oci_creds.h. */
#include "oci_creds.h"
#include "base/base64.h"
#include "platform/fs.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

const char *oci_creds_hint(void)
{
    return "set CDM_REGISTRY_USERNAME and CDM_REGISTRY_PASSWORD, or log in with 'docker login' "
           "(or skopeo login, with REGISTRY_AUTH_FILE)";
}

bool oci_docker_hub(const char *registry)
{
    return !strcmp(registry, "docker.io") || !strcmp(registry, "index.docker.io") ||
           !strcmp(registry, "registry-1.docker.io");
}

static char *basic_header(const char *user_colon_password)
{
    struct strbuf sb = STRBUF_INIT;
    sb_add(&sb, "Authorization: Basic ");
    base64_encode(user_colon_password, strlen(user_colon_password), &sb);
    return sb_detach(&sb);
}

/* The "auth" of the auths entry for registry (also written with https:// or http:// before
 * it, or a / after it). */
static const cJSON *auth_of(const cJSON *auths, const char *registry)
{
    const cJSON *entry;
    cJSON_ArrayForEach(entry, auths)
    {
        const char *key = entry->string ? entry->string : "";
        if (!strncmp(key, "https://", 8))
            key += 8;
        else if (!strncmp(key, "http://", 7))
            key += 7;
        size_t n = strlen(registry);
        if (!strncmp(key, registry, n) && (!key[n] || !strcmp(key + n, "/"))) {
            const cJSON *auth = cJSON_GetObjectItemCaseSensitive(entry, "auth");
            if (cJSON_IsString(auth) && *auth->valuestring)
                return auth;
        }
    }
    return NULL;
}

/* The registry's credentials in the auth file at path, if it has them. */
static int from_file(cdm_ctx *ctx, const char *path, const char *registry, char **header)
{
    struct strbuf text = STRBUF_INIT, plain = STRBUF_INIT;
    int rc = fs_read_regular(ctx, path, 1u << 20, &text); /* never a fifo that blocks */
    if (rc) {
        sb_free(&text);
        return rc; /* CDM_ENOTFOUND: none there */
    }
    rc = CDM_ENOTFOUND;
    cJSON *doc = cJSON_ParseWithLength(text.buf, text.len);
    const cJSON *auth = auth_of(cJSON_GetObjectItemCaseSensitive(doc, "auths"), registry);
    if (!doc)
        rc = cdm_error_set(ctx, CDM_ECONFIG,
                           "'%s' is not JSON; it should be a registry auth file (docker login "
                           "writes one): fix or remove it",
                           path);
    else if (auth && (!base64_decode(auth->valuestring, &plain) || !strchr(sb_str(&plain), ':') ||
                      strpbrk(sb_str(&plain), "\r\n")))
        rc = cdm_error_set(ctx, CDM_ECONFIG,
                           "the entry for '%s' in '%s' is not base64 of USER:PASSWORD; log in "
                           "again",
                           registry, path);
    else if (auth) {
        *header = basic_header(sb_str(&plain));
        rc = CDM_OK;
    }
    cJSON_Delete(doc);
    sb_free(&text);
    sb_free(&plain);
    return rc;
}

int oci_creds_basic(cdm_ctx *ctx, const char *registry, char **header)
{
    *header = NULL;
    char *user = fs_getenv("CDM_REGISTRY_USERNAME"), *password = fs_getenv("CDM_REGISTRY_PASSWORD");
    int rc = CDM_ENOTFOUND;
    if (user && password && *user) {
        char *both = xasprintf("%s:%s", user, password);
        *header = basic_header(both);
        free(both);
        rc = CDM_OK;
    }
    free(user);
    free(password);
    char *files[3] = {fs_getenv("REGISTRY_AUTH_FILE"), NULL, NULL};
    char *docker = fs_getenv("DOCKER_CONFIG");
    char *home = fs_getenv(fs_host_is_windows() ? "USERPROFILE" : "HOME");
    if (docker && *docker)
        files[1] = path_join(docker, "config.json");
    else if (home && *home)
        files[1] = path_join(home, ".docker/config.json");
    for (size_t i = 0; i < 2 && rc == CDM_ENOTFOUND; i++)
        if (files[i] && *files[i])
            rc = from_file(ctx, files[i],
                           oci_docker_hub(registry) ? "index.docker.io/v1" : registry, header);
    for (size_t i = 0; i < 2; i++)
        free(files[i]);
    free(docker);
    free(home);
    return rc;
}
