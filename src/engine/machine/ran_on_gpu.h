/*
 * Whether a traced run used the GPU: the largest group of reports is a program that ran on
 * the CPU without a word (ONNX Runtime "falling back" to its CPU provider, a CUDA runtime
 * that found no driver). cdm doctor -- CMD and cdm exec --check ask this of what the
 * program loaded.
 */
#ifndef CDM_RAN_ON_GPU_H
#define CDM_RAN_ON_GPU_H

#include "base/util.h"
#include "platform/trace.h"

/* true when the run loaded a cuDNN library and the CUDA driver; else false, and why says
 * what is missing and what the program loaded instead ("ran without the GPU: ..."). */
bool ran_on_gpu(const struct trace_result *r, struct strbuf *why);

#endif
