#include "official.h"
#include "base/util.h"

#include <string.h>

static const struct {
    const char *name;
    const char *sha256;
} official_archives[] = {
    {"cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip",
     "4f0105a51ac6ea947154e252c8b220baf3345803f55644b5aad84e22ae4f8986"},
    {"cudnn-windows-x86_64-8.8.0.121_cuda12-archive.zip",
     "e362e1fbf6b101ad71aa5314f21d00a4353b90efbe5cdedc5fcfb0f3b68cd791"},
    {"cudnn-linux-x86_64-8.8.0.121_cuda11-archive.tar.xz",
     "62046476076d1b455fb13fb78b38d3496bacafbfdbb0494fb3392240a04466ea"},
    {"cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz",
     "475333625c7e42a7af3ca0b2f7506a106e30c93b1aa0081cd9c13efb6e21e3bb"},
    {"cudnn-linux-x86_64-8.9.7.29_cuda11-archive.tar.xz",
     "a3e2509028cecda0117ce5a0f42106346e82e86d390f4bb9475afc976c77402e"},
    {"cudnn-linux-sbsa-8.9.7.29_cuda12-archive.tar.xz",
     "e98b7c80010785e5d5ca01ee4ce9b5b0c8c73587ea6f8648be34d3f8d1d47bd1"},
    {"cudnn-windows-x86_64-8.9.7.29_cuda12-archive.zip",
     "94fc17af8e83a26cc5d231ed23981b28c29c3fc2e87b1844ea3f46486f481df5"},
    {"cudnn-windows-x86_64-8.9.7.29_cuda11-archive.zip",
     "5e45478efe71a96329e6c0d2a3a2f79c747c15b2a51fead4b84c89b02cbf1671"},
    {"cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz",
     "fdc6d6f28217b82c400adfdae8f0364fa36c5fb6cb683933e8900a748e70b263"},
    {"cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip",
     "3083b5bf20b0b2b29305de088e0b2cdbb78b5190655a27e8a7c596e47042eedf"},
    {"cudnn-windows-x86_64-9.1.0.70_cuda11-archive.zip",
     "dbe7a9ac532c03bd6626753a6d97dccee3676917c046c67e00da09d857fde6e7"},
};

/* Sources: Linux, Spack's cudnn package (var/spack/repos/builtin/packages/cudnn/package.py:
 * the hashes, and its url_for_version for the folders and the platform names); Windows,
 * NVIDIA's published hashes, at the folders CuPy's installer downloads them from
 * (cupyx/tools/install_library.py). Newest first. */
const struct official_legacy official_legacy_archives[] = {
    {"v8.2.4", "cudnn-11.4-linux-x64-v8.2.4.15.tgz",
     "0e5d2df890b9967efa6619da421310d97323565a79f05a1a8cb9b7165baad0d7"},
    {"v8.2.4", "cudnn-11.4-linux-ppc64le-v8.2.4.15.tgz",
     "af8749ca83fd6bba117c8bee31b787b7f204946e864294030ee0091eb7d3577e"},
    {"v8.2.4", "cudnn-11.4-linux-aarch64sbsa-v8.2.4.15.tgz",
     "48b11f19e9cd3414ec3c6c357ad228aebbd43282aae372d42cab2af67c32a08b"},
    {"v8.2.1", "cudnn-11.3-windows-x64-v8.2.1.32.zip",
     "5b9bf2dc4670fb1519ef55e13da5123f0b6b39fac5e6138e31388b269808d5f2"},
    {"v8.2.0", "cudnn-11.3-linux-x64-v8.2.0.53.tgz",
     "7a195dc93a7cda2bdd4d9b73958d259c784be422cd941a9a625aab75309f19dc"},
    {"v8.2.0", "cudnn-11.3-linux-ppc64le-v8.2.0.53.tgz",
     "cfe06735671a41a5e25fc7542d740177ac8eab1ab146bd30f19e0fa836895611"},
    {"v8.2.0", "cudnn-11.3-linux-aarch64sbsa-v8.2.0.53.tgz",
     "0f44af94eef7826dc7b41f92aade3d5210891cdb10858bc0a28ba7167909ab7c"},
    {"v8.2.0", "cudnn-10.2-linux-x64-v8.2.0.53.tgz",
     "6ecbc98b3795e940ce0831ffb7cd2c0781830fdd6b1911f950bcaf6d569f807c"},
    {"v8.1.1", "cudnn-11.2-linux-x64-v8.1.1.33.tgz",
     "98a8784e92862f20018d20c281b30d4a0cd951f93694f6433ccf4ae9c502ba6a"},
    {"v8.1.1", "cudnn-11.2-linux-ppc64le-v8.1.1.33.tgz",
     "c3e535a5d633ad8f4d50be0b6f8efd084c6c6ed3525c07cbd89fc508b1d76c7a"},
    {"v8.1.1", "cudnn-11.2-linux-aarch64sbsa-v8.1.1.33.tgz",
     "4f7e4f5698539659d51f28dff0da11e5445a5ae58439af1d8a8e9f2d93535245"},
    {"v8.1.1", "cudnn-10.2-linux-x64-v8.1.1.33.tgz",
     "2a4a7b99a6e9bfa690eb19bb41e49553f2a7a491a5b3abfcae900e166c5b6ebd"},
    {"v8.1.0", "cudnn-11.2-windows-x64-v8.1.0.77.zip",
     "f5a23402ebed5b2add2ae0dc79df42f055f5851bbb3b1d0f6aa9dcdeeb9346ce"},
    {"v8.1.0", "cudnn-11.2-linux-x64-v8.1.0.77.tgz",
     "dbe82faf071d91ba9bcf00480146ad33f462482dfee56caf4479c1b8dabe3ecb"},
    {"v8.1.0", "cudnn-11.2-linux-ppc64le-v8.1.0.77.tgz",
     "0d3f8fa21959e9f94889841cc8445aecf41d2f3c557091b447313afb43034037"},
    {"v8.1.0", "cudnn-11.2-linux-aarch64sbsa-v8.1.0.77.tgz",
     "ba16ff486b68a8b50b69b32702612634954de529f39cfff68c12b8bfc1958499"},
    {"v8.1.0", "cudnn-10.2-linux-x64-v8.1.0.77.tgz",
     "c5bc617d89198b0fbe485156446be15a08aee37f7aff41c797b120912f2b14b4"},
    {"v7.6.5", "cudnn-10.2-windows10-x64-v7.6.5.32.zip",
     "fba812f60c61bc33b81db06cd55e8d769774d036186571d724295c71c9936064"},
    {"v7.6.5", "cudnn-10.2-linux-x64-v7.6.5.32.tgz",
     "600267f2caaed2fd58eb214ba669d8ea35f396a7d19b94822e6b36f9f7088c20"},
};
const size_t official_legacy_count = CDM_ARRAY_LEN(official_legacy_archives);

const char *official_archive_for(const char *sha256)
{
    for (size_t i = 0; i < CDM_ARRAY_LEN(official_archives); i++)
        if (!strcmp(official_archives[i].sha256, sha256))
            return official_archives[i].name;
    for (size_t i = 0; i < official_legacy_count; i++)
        if (!strcmp(official_legacy_archives[i].sha256, sha256))
            return official_legacy_archives[i].name;
    return NULL;
}
