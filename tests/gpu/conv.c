/*
 * One convolution forward through cuDNN, built against a project's cuda_link:
 *   cc -I LINK/include -I CUDA/include conv.c -L LINK/lib -l:libcudnn.so.9 -L CUDA/lib64 -lcudart
 * Prints the cuDNN version it loaded and the file it came from; exits 1 on any failure.
 * A 1x1x5x5 input of ones convolved with a 1x1x3x3 filter of ones gives 3x3 nines.
 */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <stdio.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudnnStatus_t s_ = (call);                                                                 \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                          \
            fprintf(stderr, "conv: %s failed: %s\n", #call, cudnnGetErrorString(s_));              \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
#define CUDA(call)                                                                                 \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "conv: %s failed: %s\n", #call, cudaGetErrorString(e_));               \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(void)
{
    Dl_info info;
    size_t v = cudnnGetVersion();
    printf("cuDNN %zu (header %d), loaded from %s, CUDA runtime %zu\n", v, CUDNN_VERSION,
           dladdr((void *)cudnnGetVersion, &info) && info.dli_fname ? info.dli_fname : "?",
           cudnnGetCudartVersion());
    cudnnHandle_t h;
    CHECK(cudnnCreate(&h));
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    CHECK(cudnnCreateTensorDescriptor(&xd));
    CHECK(cudnnCreateTensorDescriptor(&yd));
    CHECK(cudnnCreateFilterDescriptor(&wd));
    CHECK(cudnnCreateConvolutionDescriptor(&cd));
    CHECK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 5, 5));
    CHECK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 3, 3));
    CHECK(cudnnSetConvolution2dDescriptor(cd, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                          CUDNN_DATA_FLOAT));
    int n, c, hh, ww;
    CHECK(cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &n, &c, &hh, &ww));
    CHECK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, hh, ww));
    cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    size_t ws = 0;
    CHECK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, algo, &ws));
    float x[25], w[9], y[9] = {0};
    for (int i = 0; i < 25; i++)
        x[i] = 1.0f;
    for (int i = 0; i < 9; i++)
        w[i] = 1.0f;
    float *dx, *dw, *dy;
    void *dws = NULL;
    CUDA(cudaMalloc((void **)&dx, sizeof(x)));
    CUDA(cudaMalloc((void **)&dw, sizeof(w)));
    CUDA(cudaMalloc((void **)&dy, sizeof(y)));
    if (ws)
        CUDA(cudaMalloc(&dws, ws));
    CUDA(cudaMemcpy(dx, x, sizeof(x), cudaMemcpyHostToDevice));
    CUDA(cudaMemcpy(dw, w, sizeof(w), cudaMemcpyHostToDevice));
    float alpha = 1.0f, beta = 0.0f;
    CHECK(cudnnConvolutionForward(h, &alpha, xd, dx, wd, dw, cd, algo, dws, ws, &beta, yd, dy));
    CUDA(cudaMemcpy(y, dy, sizeof(y), cudaMemcpyDeviceToHost));
    int good = n * c * hh * ww == 9;
    for (int i = 0; i < 9; i++)
        good = good && y[i] == 9.0f;
    printf("convolution forward %dx%dx%dx%d: y[0]=%g y[8]=%g: %s\n", n, c, hh, ww, y[0], y[8],
           good ? "correct" : "WRONG");
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(dy);
    cudaFree(dws);
    cudnnDestroy(h);
    return good ? 0 : 1;
}
