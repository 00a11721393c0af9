/*
 * The version a cuDNN header gives, as a compiler would see it: comments, line splices and
 * string literals removed, #if/#ifdef/#ifndef/#elif/#else/#endif honoured (nested), #define
 * and #undef followed, and CUDNN_MAJOR, CUDNN_MINOR and CUDNN_PATCHLEVEL evaluated as the
 * preprocessor would (macros expanded, an unknown name is 0). Nothing is predefined: no
 * platform, no compiler. A pure function, bounded in time and memory for any input.
 */
#ifndef CDM_HEADER_H
#define CDM_HEADER_H

#include <stdbool.h>
#include <stddef.h>

/* False when the text does not define all three, or cannot be read as a header (an
 * unterminated comment or #if, an expression that does not parse, a value out of range). */
bool cudnn_header_version(const char *text, size_t len, int *major, int *minor, int *patch);

#endif
