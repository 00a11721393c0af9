/* The frameworks' rules on the cuDNN they load: the table, and the check against it. */
#include "frameworks.h"
#include "platform/binfmt.h"
#include "platform/fs.h"
#include "pyenv.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

enum fw_rule_kind {
    FW_BUILD_MINOR, /* the build's major (its Requires-Dist on the nvidia-cudnn wheel), and a
                     * minor at least the build's */
    FW_SAME_MAJOR,  /* the build's major, any minor */
    FW_MAJOR,       /* the row's major, whatever the framework pins */
    FW_FEATURE,     /* the row's exact version serves one feature: a warning only */
};

struct fw_rule {
    const char *dist;        /* the distribution, as PEP 503 normalizes it */
    const char *from, *upto; /* its versions [from, upto); NULL: no bound */
    enum fw_rule_kind kind;
    int major, minor, patch; /* FW_MAJOR, FW_FEATURE */
    const char *override;
    const char *source;
};

/* Each row names its source; docs/choosing.md says how resolve uses them. How to add one:
 * a row per distribution and version range, in the kind of rule its maintainers state
 * (their release notes or the wheel's Requires-Dist: the source field says where), with the
 * rows of one distribution in the order of their versions; tests/cli/frameworks.sh checks
 * a version on each side of every bound it adds. */
static const struct fw_rule rules[] = {
    {"torch", NULL, NULL, FW_BUILD_MINOR, 0, 0, 0,
     "PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 in torch's environment; --force in cdm",
     "torch/backends/cudnn/__init__.py"},
    {"jax-cuda13-plugin", NULL, NULL, FW_BUILD_MINOR, 0, 0, 0,
     "JAX_SKIP_CUDA_CONSTRAINTS_CHECK=1 in JAX's environment; --force in cdm",
     "jax_plugins/cuda/__init__.py"},
    {"jax-cuda12-plugin", NULL, NULL, FW_BUILD_MINOR, 0, 0, 0,
     "JAX_SKIP_CUDA_CONSTRAINTS_CHECK=1 in JAX's environment; --force in cdm",
     "jax_plugins/cuda/__init__.py"},
    {"tensorflow", NULL, NULL, FW_BUILD_MINOR, 0, 0, 0,
     "none in TensorFlow (XLA stops at start-up); --force in cdm",
     "xla/stream_executor/cuda/cuda_dnn.cc"},
    {"onnxruntime-gpu", NULL, NULL, FW_SAME_MAJOR, 0, 0, 0,
     "none in ONNX Runtime (its CUDA provider fails to load); --force in cdm",
     "ONNX Runtime's CUDA execution provider requirements"},
    {"paddlepaddle-gpu", NULL, NULL, FW_SAME_MAJOR, 0, 0, 0, "--force in cdm",
     "PaddlePaddle's installation requirements"},
    {"ctranslate2", "4.4", "4.5", FW_MAJOR, 8, 0, 0, "--force in cdm",
     "CTranslate2 4.4 and 4.5 release notes"},
    {"ctranslate2", "4.5", NULL, FW_MAJOR, 9, 0, 0, "--force in cdm",
     "CTranslate2 4.4 and 4.5 release notes"},
    {"tensorrt", "10", "11", FW_FEATURE, 8, 9, 7,
     "leave cuDNN tactics off (the default since TensorRT 10)", "TensorRT 10 support matrix"},
    {"tensorrt-cu12", "10", "11", FW_FEATURE, 8, 9, 7,
     "leave cuDNN tactics off (the default since TensorRT 10)", "TensorRT 10 support matrix"},
};

/* cuDNN versions a framework refuses whatever its build. */
static const struct {
    const char *dist;
    const char *version; /* a prefix of the cuDNN version: "9.10.0" */
    const char *why;
} known_bad[] = {
    {"jax-cuda12-plugin", "9.10.0", "JAX refuses cuDNN 9.10.0, which changed an enum it uses"},
};

/* The leading numbers of a framework's version ("2.11.0+cu130" -> 2.11.0); false if none. */
static bool leading_version(const char *s, struct version *v)
{
    char buf[64];
    size_t n = 0;
    while (n + 1 < sizeof(buf) && (s[n] == '.' || (s[n] >= '0' && s[n] <= '9')))
        n++;
    memcpy(buf, s, n);
    buf[n] = '\0';
    while (n && buf[n - 1] == '.')
        buf[--n] = '\0';
    /* version_parse takes at most 4 parts */
    int dots = 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '.' && ++dots == 4)
            buf[i] = '\0';
    return version_parse(buf, v);
}

static bool in_range(const char *version, const char *from, const char *upto)
{
    struct version v, bound;
    if (!leading_version(version, &v))
        return !from && !upto;
    if (from && version_parse(from, &bound) && version_compare(&v, &bound) < 0)
        return false;
    if (upto && version_parse(upto, &bound) && version_compare(&v, &bound) >= 0)
        return false;
    return true;
}

/* One row against the install: the rule in words, and the problem when there is one. */
/* Windows torch names no nvidia-cudnn wheel: its build's cuDNN is the one it ships,
 * torch\lib\cudnn64_<N>.dll, read from the DLL's version resource ("9.1.0.70"), as a
 * requirement. A file with other names (cdm's hard link to the store, attached) is the
 * project's, not the build's: undecided then. */
static bool torch_own_build(const struct py_dist *dist, struct py_requirement *req)
{
    char *site = path_dirname(dist->path);
    bool found = false;
    for (int major = 9; major >= 8 && !found; major--) {
        char *dll = xasprintf("%s/torch/lib/cudnn64_%d.dll", site, major);
        char version[64];
        struct version v;
        if (fs_link_count(dll) == 1 && pe_file_version_at(dll, version, sizeof(version)) &&
            version_parse(version, &v) && v.count >= 2 && v.part[0] == major) {
            memset(req, 0, sizeof(*req));
            snprintf(req->framework, sizeof(req->framework), "%s %s", dist->name, dist->version);
            snprintf(req->text, sizeof(req->text), "torch\\lib\\cudnn64_%d.dll is %s", major,
                     version);
            const char *cu = strstr(dist->version, "+cu");
            req->cuda = cu ? atoi(cu + 3) / 10 : 0; /* +cu124: CUDA 12 */
            req->major = v.part[0];
            req->minor = v.part[1];
            found = true;
        }
        free(dll);
    }
    free(site);
    return found;
}

static void judge(const struct fw_rule *r, const struct py_dist *dist, const struct version *have,
                  const struct cdm_install_info *in, struct fw_verdict *out)
{
    struct py_requirement req;
    bool pinned = py_dist_requirement(dist, &req) ||
                  (!strcmp(r->dist, "torch") && torch_own_build(dist, &req));
    const char *id = in->id;
    switch (r->kind) {
    case FW_BUILD_MINOR:
    case FW_SAME_MAJOR:
        if (!pinned) {
            snprintf(out->rule, sizeof(out->rule),
                     "the cuDNN of its build (its METADATA names no nvidia-cudnn wheel)");
            return;
        }
        out->wants_major = req.major;
        if (r->kind == FW_BUILD_MINOR)
            snprintf(out->rule, sizeof(out->rule),
                     "cuDNN %d.x at %d.%d or newer, as it was built with %d.%d", req.major,
                     req.major, req.minor, req.major, req.minor);
        else
            snprintf(out->rule, sizeof(out->rule), "cuDNN %d.x, as it was built with", req.major);
        if (have->part[0] != req.major)
            snprintf(out->problem, sizeof(out->problem),
                     "%s was built with cuDNN %d.%d and %s is cuDNN %d, another major",
                     out->framework, req.major, req.minor, id, have->part[0]);
        else if (r->kind == FW_BUILD_MINOR && have->part[1] < req.minor)
            snprintf(out->problem, sizeof(out->problem),
                     "%s was built with cuDNN %d.%d and %s is older (%d.%d)", out->framework,
                     req.major, req.minor, id, have->part[0], have->part[1]);
        else if (req.cuda && in->cuda && req.cuda != in->cuda)
            snprintf(out->problem, sizeof(out->problem),
                     "%s was built with the CUDA %d build of cuDNN and %s is built for CUDA %d",
                     out->framework, req.cuda, id, in->cuda);
        return;
    case FW_MAJOR:
        out->wants_major = r->major;
        snprintf(out->rule, sizeof(out->rule), "cuDNN %d.x", r->major);
        if (have->part[0] != r->major)
            snprintf(out->problem, sizeof(out->problem), "%s needs cuDNN %d and %s is cuDNN %d",
                     out->framework, r->major, id, have->part[0]);
        return;
    case FW_FEATURE:
        snprintf(out->rule, sizeof(out->rule), "cuDNN %d.%d.%d for its cuDNN tactics", r->major,
                 r->minor, r->patch);
        out->warn_only = true;
        if (have->part[0] != r->major || have->part[1] != r->minor || have->part[2] != r->patch)
            snprintf(out->problem, sizeof(out->problem),
                     "%s runs its cuDNN tactics only with cuDNN %d.%d.%d, and %s is another",
                     out->framework, r->major, r->minor, r->patch, id);
        return;
    }
}

size_t fw_check(char *const *sites, const struct cdm_install_info *in, struct fw_verdict **out)
{
    *out = NULL;
    struct version have;
    if (!version_parse(in->version, &have) || have.count < 3)
        return 0;
    size_t n = 0;
    for (size_t r = 0; r < CDM_ARRAY_LEN(rules); r++) {
        struct py_dist dist;
        bool found = false;
        for (size_t s = 0; sites && sites[s] && !found; s++)
            found = py_find_dist(sites[s], rules[r].dist, true, &dist);
        if (!found || !in_range(dist.version, rules[r].from, rules[r].upto))
            continue;
        ALLOC_GROW(*out, n);
        struct fw_verdict *v = &(*out)[n++];
        memset(v, 0, sizeof(*v));
        snprintf(v->framework, sizeof(v->framework), "%s %s", dist.name, dist.version);
        v->override = rules[r].override;
        v->source = rules[r].source;
        judge(&rules[r], &dist, &have, in, v);
        v->decided = rules[r].kind != FW_BUILD_MINOR && rules[r].kind != FW_SAME_MAJOR
                         ? true
                         : !str_starts_with(v->rule, "the cuDNN of its build");
        for (size_t b = 0; b < CDM_ARRAY_LEN(known_bad) && !v->problem[0]; b++)
            if (!strcmp(known_bad[b].dist, rules[r].dist) &&
                str_starts_with(in->version, known_bad[b].version))
                snprintf(v->problem, sizeof(v->problem), "%s: %s", known_bad[b].why, in->id);
    }
    return n;
}

const struct fw_verdict *fw_first_refusal(const struct fw_verdict *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].problem[0] && !v[i].warn_only)
            return &v[i];
    return NULL;
}
