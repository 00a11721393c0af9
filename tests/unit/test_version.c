#include "engine/fetch/official.h"
#include "tap.h"
#include "engine/core/version.h"

static void versions(void)
{
    struct version v, w;
    ok(version_parse("8.8.0.121", &v) && v.count == 4 && v.part[3] == 121, "four parts");
    ok(version_parse("9", &v) && v.count == 1, "one part");
    ok(!version_parse("8.8.", &v), "trailing dot refused");
    ok(!version_parse("8..8", &v), "empty part refused");
    ok(!version_parse("v8.8", &v), "a letter refused");
    ok(!version_parse("8.8.0.121.5", &v), "five parts refused");
    version_parse("8.9.7.29", &v);
    version_parse("8.10.0", &w);
    ok(version_compare(&v, &w) < 0, "8.9.7.29 < 8.10.0 (numeric, not text)");
    version_parse("8.8", &w);
    ok(version_has_prefix(&v, &w) == 0, "8.9.7.29 is not 8.8.x");
    version_parse("8.9", &w);
    ok(version_has_prefix(&v, &w), "8.9.7.29 is 8.9.x");
    char buf[32];
    version_format(&v, buf, sizeof(buf));
    is_str(buf, "8.9.7.29", "format round trip");
}

static void specs(void)
{
    struct version_spec s;
    struct version v;
    version_parse("8.8.0.121", &v);
    ok(version_spec_parse("8.8.0", &s) && version_spec_matches(&s, &v, 11), "8.8.0 matches");
    ok(version_spec_parse("8.8.0.121-cuda11", &s) && s.cuda == 11, "id as spec");
    ok(version_spec_matches(&s, &v, 11) && !version_spec_matches(&s, &v, 12),
       "id spec checks the CUDA variant");
    ok(version_spec_parse("8.8.0.121_cuda12", &s) && s.cuda == 12, "archive spelling _cuda12");
    ok(version_spec_parse("latest", &s) && s.latest && version_spec_matches(&s, &v, 12),
       "latest matches anything");
    ok(!version_spec_parse("8.8-cuda", &s), "cuda without a number refused");
    ok(!version_spec_parse("newest", &s), "a word refused");
    ok(!version_spec_parse("8.8.0.121-cuda11x", &s), "junk after cuda refused");
}

static void encodings(void)
{
    is_int(cudnn_version_encode(8, 8, 0), 8800, "8.8.0 encodes as 8800");
    is_int(cudnn_version_encode(8, 9, 7), 8907, "8.9.7 encodes as 8907");
    is_int(cudnn_version_encode(9, 1, 0), 90100, "9.1.0 encodes as 90100");
    is_int(cudnn_version_encode(9, 19, 0), 91900, "9.19.0 encodes as 91900");
    int a, b, c;
    cudnn_version_decode(8907, &a, &b, &c);
    ok(a == 8 && b == 9 && c == 7, "8907 decodes as 8.9.7");
    cudnn_version_decode(91900, &a, &b, &c);
    ok(a == 9 && b == 19 && c == 0, "91900 decodes as 9.19.0");
    cudnn_version_decode(7605, &a, &b, &c);
    ok(a == 7 && b == 6 && c == 5, "7605 decodes as 7.6.5");
}

static void names(void)
{
    struct archive_name n;
    ok(archive_name_parse("cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip", &n), "8.8 zip");
    is_str(n.platform, "windows-x86_64", "platform");
    ok(n.version.part[3] == 121 && n.cuda_major == 11 && n.cuda_minor == -1 && n.layout == 'C',
       "version, cuda and layout C");
    is_str(n.stem, "cudnn-windows-x86_64-8.8.0.121_cuda11-archive", "stem");
    ok(archive_name_parse("cudnn-windows-x86_64-8.8.0.121-cuda11-archive.zip", &n) &&
           n.cuda_major == 11,
       "dash before cuda (the seed's renamed copy)");
    ok(!archive_name_parse("cudnn-linux-sbsa-8.9.7.29_cuda00-archive.tar.xz", &n) &&
           !archive_name_parse("cudnn-0.2-linux-x64-v8.2.1.32.tgz", &n),
       "no archive is for CUDA 0 (a manifest named one, found by fuzz_manifest)");
    ok(archive_name_parse("cudnn-linux-x86_64-8.3.2.44_cuda11.5-archive.tar.xz", &n), "8.3.2");
    ok(n.cuda_major == 11 && n.cuda_minor == 5 && n.layout == 'B', "transitional layout B");
    ok(archive_name_parse("cudnn-linux-sbsa-8.9.7.29_cuda12-archive.tar.xz", &n) &&
           !strcmp(n.platform, "linux-sbsa"),
       "sbsa");
    ok(archive_name_parse("cudnn-11.3-linux-x64-v8.2.1.32.tgz", &n), "old linux tgz");
    ok(n.layout == 'A' && n.cuda_major == 11 && n.cuda_minor == 3 &&
           !strcmp(n.platform, "linux-x86_64"),
       "old names map to the current platform spelling");
    ok(archive_name_parse("cudnn-10.2-windows10-x64-v7.6.5.32.zip", &n) &&
           !strcmp(n.platform, "windows-x86_64") && n.version.part[0] == 7,
       "windows10 old name");
    ok(archive_name_parse("cudnn-11.3-linux-aarch64sbsa-v8.2.1.32.tgz", &n) &&
           !strcmp(n.platform, "linux-sbsa"),
       "aarch64sbsa old name");
    ok(!archive_name_parse("cudnn-linux-x86_64-8.8.0_cuda11-archive.tar.xz", &n),
       "three-part version refused");
    ok(!archive_name_parse("cudnn.zip", &n), "no version refused");
    ok(!archive_name_parse("cudnn-linux-x86_64-9.1.0.70_cuda12-archive.rar", &n),
       "unknown extension refused");
    ok(archive_has_known_extension("x.TGZ"), "extensions ignore case");
}

static void official(void)
{
    is_str(official_archive_for("4f0105a51ac6ea947154e252c8b220baf3345803f55644b5aad84e22ae4f8986"),
           "cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip",
           "NVIDIA's 8.8.0 cuda11 zip is known");
    is_str(official_archive_for("fba812f60c61bc33b81db06cd55e8d769774d036186571d724295c71c9936064"),
           "cudnn-10.2-windows10-x64-v7.6.5.32.zip", "the 7.6.5 zip is known");
    is_str(official_archive_for("0000000000000000000000000000000000000000000000000000000000000000"),
           NULL, "an unknown hash is not official");
}

/* The install id: written by install, fetch, lock and resolve, read back by history. */
static void install_ids(void)
{
    char id[64], v[32];
    ok(install_id_format("9.1.0.70", 12, id, sizeof(id)), "an install id fits");
    is_str(id, "9.1.0.70-cuda12", "version, '-cuda', the CUDA major");
    ok(!install_id_format("9.1.0.70", 12, id, 10), "one that does not fit is refused");
    ok(install_id_version("9.1.0.70-cuda12", v, sizeof(v)), "its version is read back");
    is_str(v, "9.1.0.70", "the part before '-cuda'");
    ok(!install_id_version("9.1.0.70-cuda12", v, 4) && !*v, "too long a version gives ''");
}

int main(void)
{
    official();
    install_ids();
    versions();
    specs();
    encodings();
    names();
    return tap_done();
}
