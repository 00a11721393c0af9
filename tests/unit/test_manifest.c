/*
 * NVIDIA's redistrib JSON manifests (manifest.c) and the listing and label rules of
 * [fetch] base (redist.c): the real 8.9.7 manifest (argv[1]), and each shape seen in
 * NVIDIA's files, written here in the real schema.
 */
#include "engine/fetch/manifest.h"
#include "engine/fetch/redist.h"
#include "tap.h"

#include <stdlib.h>

static cdm_ctx *ctx;

static const struct manifest_entry *find(const struct manifest *m, const char *platform,
                                         const char *variant)
{
    for (size_t i = 0; i < m->count; i++)
        if (!strcmp(m->entries[i].platform, platform) && !strcmp(m->entries[i].variant, variant))
            return &m->entries[i];
    return NULL;
}

static int parse(const char *text, struct manifest *m)
{
    return manifest_parse(ctx, text, strlen(text), "cudnn", "test.json", m);
}

static void real_manifest(const char *path)
{
    FILE *f = fopen(path, "rb");
    ok(f != NULL, "the real redistrib_8.9.7.json is readable (%s)", path);
    if (!f)
        return;
    char *text = malloc(1 << 16);
    size_t n = fread(text, 1, (1 << 16) - 1, f);
    fclose(f);
    struct manifest m;
    ok(manifest_parse(ctx, text, n, "cudnn", path, &m) == CDM_OK, "it parses");
    is_str(m.label, "8.9.7", "release_label");
    is_str(m.release_date, "2024-03-15", "release_date");
    is_int(m.count, 8, "four platforms with cuda11 and cuda12 each");
    const struct manifest_entry *e = find(&m, "linux-x86_64", "cuda12");
    ok(e != NULL, "linux-x86_64 cuda12 is there");
    if (e) {
        is_str(e->version, "8.9.7.29", "version from the file name");
        is_int(e->cuda, 12, "cuda 12");
        is_str(e->name, "cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz", "file name");
        is_str(e->relative_path,
               "cudnn/linux-x86_64/cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz",
               "relative_path");
        is_str(e->sha256, "475333625c7e42a7af3ca0b2f7506a106e30c93b1aa0081cd9c13efb6e21e3bb",
               "sha256 (NVIDIA's published hash)");
        is_int(e->size, 864984964, "size, a string in the file");
        is_str(e->problem, "", "usable");
    }
    e = find(&m, "windows-x86_64", "cuda11");
    ok(e && !strcmp(e->sha256, "5e45478efe71a96329e6c0d2a3a2f79c747c15b2a51fead4b84c89b02cbf1671"),
       "windows-x86_64 cuda11 with its published hash");
    ok(find(&m, "linux-ppc64le", "cuda11") != NULL, "linux-ppc64le (8.x) is kept");
    manifest_free(&m);
    struct manifest s;
    bool none = manifest_parse(ctx, text, n, "cudnn_samples", path, &s) == CDM_OK;
    for (size_t i = 0; i < s.count; i++)
        none = none && s.entries[i].problem[0];
    ok(none, "cudnn_samples holds no archive cdm can install");
    manifest_free(&s);
    free(text);
}

/* 9.27.0's windows-arm64: a cuda13 variant and, beside it, a flat _cuda13.4 archive;
 * cuda_variant last among the keys; a jit component and sizes as strings. */
static const char mixed[] =
    "{\"release_date\":\"2025-11-20\",\"release_label\":\"9.27.0\",\"release_product\":\"cudnn\","
    "\"cudnn\":{\"name\":\"NVIDIA CUDA Deep Neural Network library\",\"license\":\"cudnn\","
    "\"license_path\":\"cudnn/LICENSE.txt\",\"version\":\"9.27.0.48\","
    "\"linux-x86_64\":{"
    " \"cuda12\":{\"relative_path\":\"cudnn/linux-x86_64/"
    "cudnn-linux-x86_64-9.27.0.48_cuda12-archive.tar.xz\",\"sha256\":"
    "\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\",\"md5\":\"x\","
    "\"size\":\"1234\"},"
    " \"cuda13\":{\"relative_path\":\"cudnn/linux-x86_64/"
    "cudnn-linux-x86_64-9.27.0.48_cuda13-archive.tar.xz\",\"sha256\":"
    "\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\",\"md5\":\"x\","
    "\"size\":\"5678\"}},"
    "\"windows-arm64\":{"
    " \"cuda13\":{\"relative_path\":\"cudnn/windows-arm64/"
    "cudnn-windows-arm64-9.27.0.48_cuda13-archive.zip\",\"sha256\":"
    "\"cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\",\"md5\":\"x\","
    "\"size\":\"99\"},"
    " \"relative_path\":\"cudnn/windows-arm64/cudnn-windows-arm64-9.27.0.48_cuda13.4-archive.zip\","
    " \"sha256\":\"dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd\","
    " \"md5\":\"x\",\"size\":\"100\"},"
    "\"cuda_variant\":[\"12\",\"13\"]},"
    "\"cudnn_jit\":{\"name\":\"jit\",\"version\":\"9.27.0.48\",\"linux-x86_64\":{\"cuda13\":"
    "{\"relative_path\":\"cudnn_jit/linux-x86_64/x.tar.xz\",\"sha256\":\"e\",\"size\":\"1\"}}}}";

static void mixed_shape(void)
{
    struct manifest m;
    ok(parse(mixed, &m) == CDM_OK, "a manifest of 9.27.0's shape parses");
    is_int(m.count, 4, "two linux variants, the arm64 variant and the flat arm64 archive");
    const struct manifest_entry *v = find(&m, "windows-arm64", "cuda13");
    const struct manifest_entry *flat = find(&m, "windows-arm64", "");
    ok(v && v->cuda == 13 && !v->problem[0], "windows-arm64 cuda13 (the variant)");
    ok(flat && flat->cuda == 13 && !flat->problem[0] && flat->size == 100,
       "and the flat entry beside it, cuda 13 taken from '_cuda13.4-archive'");
    if (flat)
        is_str(flat->name, "cudnn-windows-arm64-9.27.0.48_cuda13.4-archive.zip", "its name");
    const struct manifest_entry *l12 = find(&m, "linux-x86_64", "cuda12");
    ok(l12 &&
           !strcmp(l12->sha256, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
       "an upper-case hash is kept in lower case");
    is_str(m.version, "9.27.0.48", "the component's version");
    manifest_free(&m);
}

/* The per-build manifests of 8.5 to 8.9 (redistrib_8.9.7.29.json): flat platforms, no
 * cuda_variant, and here a size given as a JSON number. */
static void per_build(void)
{
    const char *text =
        "{\"release_date\":\"2023-12-01\",\"release_label\":\"8.9.7.29\","
        "\"release_product\":\"cudnn\",\"cudnn\":{\"name\":\"n\",\"license\":\"cudnn\","
        "\"version\":\"8.9.7.29\",\"linux-sbsa\":{\"relative_path\":\"cudnn/linux-sbsa/"
        "cudnn-linux-sbsa-8.9.7.29_cuda12-archive.tar.xz\",\"sha256\":"
        "\"e98b7c80010785e5d5ca01ee4ce9b5b0c8c73587ea6f8648be34d3f8d1d47bd1\",\"md5\":\"m\","
        "\"size\":863497272}}}";
    struct manifest m;
    ok(parse(text, &m) == CDM_OK && m.count == 1, "a flat per-build manifest parses");
    if (m.count == 1) {
        is_str(m.entries[0].variant, "", "no variant key");
        is_int(m.entries[0].cuda, 12, "cuda from the file name");
        is_int(m.entries[0].size, 863497272, "a numeric size is taken too");
        is_str(m.label, "8.9.7.29", "a four-part label");
    }
    manifest_free(&m);
}

static const char *problem_of(const char *relative_path, const char *sha, const char *size,
                              const char *key)
{
    static char problem[256];
    char text[2048];
    snprintf(text, sizeof(text),
             "{\"cudnn\":{\"version\":\"9.1.0.70\",\"linux-x86_64\":{\"%s\":{\"relative_path\":"
             "\"%s\",\"sha256\":\"%s\",\"size\":%s}}}}",
             key, relative_path, sha, size);
    struct manifest m;
    problem[0] = '\0';
    if (parse(text, &m) != CDM_OK)
        snprintf(problem, sizeof(problem), "(no parse)");
    else if (m.count != 1)
        snprintf(problem, sizeof(problem), "(%zu entries)", m.count);
    else
        snprintf(problem, sizeof(problem), "%s", m.entries[0].problem);
    manifest_free(&m);
    return problem;
}

static void bad_entries(void)
{
    const char *good = "cudnn/linux-x86_64/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz";
    const char *sha = "fdc6d6f28217b82c400adfdae8f0364fa36c5fb6cb683933e8900a748e70b263";
    is_str(problem_of(good, sha, "\"42\"", "cuda12"), "", "a good entry has no problem");
    ok(strstr(problem_of("../../cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz", sha, "\"1\"",
                         "cuda12"),
              "unsafe") != NULL,
       "a relative_path going up is refused");
    ok(strstr(problem_of("/etc/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz", sha, "\"1\"",
                         "cuda12"),
              "unsafe") != NULL,
       "an absolute relative_path is refused");
    ok(strstr(problem_of(good, "1234", "\"1\"", "cuda12"), "sha256") != NULL,
       "a short sha256 is refused");
    ok(strstr(problem_of(good, sha, "\"12a\"", "cuda12"), "size") != NULL,
       "a size that is no number is refused");
    ok(strstr(problem_of(good, sha, "-5", "cuda12"), "size") != NULL, "a negative size is refused");
    ok(strstr(problem_of(good, sha, "\"1\"", "cuda11"), "CUDA 11") != NULL,
       "a variant key that disagrees with the file name is refused");
    ok(strstr(problem_of("cudnn/linux-x86_64/notes.txt", sha, "\"1\"", "cuda12"), "archive name") !=
           NULL,
       "a file that is no cuDNN archive is refused");
    ok(strstr(problem_of("cudnn/linux-x86_64/cudnn-linux-x86_64-9.1.0.69_cuda12-archive.tar.xz",
                         sha, "\"1\"", "cuda12"),
              "9.1.0.70") != NULL,
       "a file of another version than the manifest's is refused");
    struct manifest m;
    ok(parse("{\"cudnn\": [", &m) == CDM_ENETWORK, "text that is not JSON is an error");
    ok(strstr(cdm_error_message(ctx), "test.json") != NULL, "naming the manifest");
    ok(parse("{\"release_label\":\"9.1.0\"}", &m) == CDM_ENETWORK, "no cudnn component: an error");
    manifest_free(&m);
}

static void paths(void)
{
    ok(manifest_path_safe("cudnn/linux-x86_64/a.tar.xz"), "a plain relative path is safe");
    ok(!manifest_path_safe("cudnn/../../a"), "'..' is not");
    ok(!manifest_path_safe("./a"), "'.' is not");
    ok(!manifest_path_safe("cudnn//a"), "an empty component is not");
    ok(!manifest_path_safe("cudnn\\a"), "a backslash is not");
    ok(!manifest_path_safe("C:/a"), "a drive is not");
    ok(!manifest_path_safe("https://evil/a"), "a URL is not");
    ok(!manifest_path_safe("a/"), "a trailing slash is not");
    ok(!manifest_path_safe("a\nb"), "a control character is not");
}

static void labels(void)
{
    /* an index page as NVIDIA's redist folder and nginx's autoindex write it */
    const char *html = "<html><body><a href='redistrib_8.9.7.29.json'>redistrib_8.9.7.29.json</a>"
                       "<a href=\"redistrib_9.8.0.json\">x</a> <a href=\"redistrib_8.9.7.json\">"
                       "<a href=\"redistrib_9.27.0.json\"> <a href=\"redistrib_9.10.2.json\">"
                       "<a href=\"redistrib_latest.json\"> <a href=\"redistrib_9.json\">"
                       "<a href=\"cudnn/\">cudnn/</a></body></html>";
    char **l = redist_labels_in(html, strlen(html));
    struct strbuf got = STRBUF_INIT;
    for (char **p = l; *p; p++)
        sb_addf(&got, "%s%s", p == l ? "" : " ", *p);
    is_str(sb_str(&got), "9.27.0 9.10.2 9.8.0 8.9.7 8.9.7.29",
           "labels from an index page, each once, newest first (9.10 after 9.8), a release "
           "label before its per-build one, no names that are not versions");
    sb_free(&got);
    cdm_strv_free(l);
    l = redist_labels_in("redistrib_9.1.0.json\nredistrib_9.1.0.json\nREADME\n", 41);
    ok(l[0] && !strcmp(l[0], "9.1.0") && !l[1], "a plain folder listing, duplicates once");
    cdm_strv_free(l);

    /* A long listing (each name twice, as an index page has it, out of order): every label
     * once, in order, whatever the count. */
    struct strbuf big = STRBUF_INIT;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 3000; i++)
            sb_addf(&big, "<a href=\"redistrib_9.%d.%d.json\">\n", (i * 7) % 3000 / 10, i % 10);
    l = redist_labels_in(sb_str(&big), big.len);
    size_t n = 0;
    bool ordered = true;
    for (; l[n]; n++) {
        struct version a, b;
        if (n && version_parse(l[n - 1], &a) && version_parse(l[n], &b))
            ordered &= a.part[1] > b.part[1] || (a.part[1] == b.part[1] && a.part[2] > b.part[2]);
    }
    ok(n == 3000 && ordered, "3000 labels named twice each: 3000, newest first (got %zu)", n);
    cdm_strv_free(l);
    sb_free(&big);
}

int main(int argc, char **argv)
{
    struct cdm_options options = {0};
    cdm_ctx_new(&ctx, &options);
    if (argc > 1)
        real_manifest(argv[1]);
    mixed_shape();
    per_build();
    bad_entries();
    paths();
    labels();
    cdm_ctx_free(ctx);
    return tap_done();
}
