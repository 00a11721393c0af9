/* What a run loaded, read as "did it use the GPU". */
#include "ran_on_gpu.h"
#include "cudnn_lib.h"
#include "platform/fs.h"

#include <string.h>

/* Libraries that say what a program did instead of using cuDNN on the GPU; each one is
 * named when its partner (the library that would have meant the GPU) is absent. */
static const struct {
    const char *prefix;  /* the file's name starts so (case aside: Windows) */
    const char *partner; /* its GPU counterpart; NULL: the CUDA driver */
    const char *what;
} instead[] = {
    {"onnxruntime_pybind11_state", "libonnxruntime_providers_cuda",
     "ONNX Runtime without its CUDA provider (it falls back to the CPU provider)"},
    {"libonnxruntime.so", "libonnxruntime_providers_cuda",
     "ONNX Runtime without its CUDA provider (it falls back to the CPU provider)"},
    {"onnxruntime.dll", "onnxruntime_providers_cuda",
     "ONNX Runtime without its CUDA provider (it falls back to the CPU provider)"},
    {"libcudart.so", NULL, "a CUDA runtime that found no driver"},
    {"cudart64_", NULL, "a CUDA runtime that found no driver"},
    {"libtorch_cuda.so", NULL, "PyTorch's CUDA library, with no driver to run it on"},
    {"torch_cuda.dll", NULL, "PyTorch's CUDA library, with no driver to run it on"},
};

static bool is_driver(const char *name)
{
    return str_starts_with(name, "libcuda.so") || str_starts_with_icase(name, "nvcuda.dll");
}

static bool loaded(const struct trace_result *r, const char *prefix)
{
    for (size_t i = 0; i < r->count; i++)
        if (str_starts_with_icase(path_basename(r->objects[i].path), prefix))
            return true;
    return false;
}

bool ran_on_gpu(const struct trace_result *r, struct strbuf *why)
{
    bool cudnn = false, driver = false;
    for (size_t i = 0; i < r->count; i++) {
        const char *name = path_basename(r->objects[i].path);
        const char *kind = cuda_lib_kind(name);
        cudnn = cudnn || (kind && !strcmp(kind, "cudnn"));
        driver = driver || is_driver(name);
    }
    if (cudnn && driver)
        return true;
    sb_addf(why, "ran without the GPU: it loaded %s",
            !cudnn && !driver ? "no cuDNN library and "
                                "no CUDA driver"
            : !cudnn          ? "no cuDNN library"
                              : "no CUDA driver");
    size_t said = 0;
    for (size_t k = 0; k < CDM_ARRAY_LEN(instead); k++) {
        bool partner = instead[k].partner ? loaded(r, instead[k].partner) : driver;
        bool repeat = k && !strcmp(instead[k].what, instead[k - 1].what) && said &&
                      loaded(r, instead[k - 1].prefix);
        if (!partner && !repeat && loaded(r, instead[k].prefix))
            sb_addf(why, "%s%s", said++ ? "; " : "; instead: ", instead[k].what);
    }
    return false;
}
