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
    {"cudnn-11.3-windows-x64-v8.2.1.32.zip",
     "5b9bf2dc4670fb1519ef55e13da5123f0b6b39fac5e6138e31388b269808d5f2"},
    {"cudnn-11.2-windows-x64-v8.1.0.77.zip",
     "f5a23402ebed5b2add2ae0dc79df42f055f5851bbb3b1d0f6aa9dcdeeb9346ce"},
    {"cudnn-10.2-windows10-x64-v7.6.5.32.zip",
     "fba812f60c61bc33b81db06cd55e8d769774d036186571d724295c71c9936064"},
};

const char *official_archive_for(const char *sha256)
{
    for (size_t i = 0; i < CDM_ARRAY_LEN(official_archives); i++)
        if (!strcmp(official_archives[i].sha256, sha256))
            return official_archives[i].name;
    return NULL;
}
