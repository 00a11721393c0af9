/* The compatibility tables (NVIDIA's support matrices, docs/choosing.md), and the questions asked
 * of them. */
#ifndef CDM_COMPAT_H
#define CDM_COMPAT_H

#include <stdbool.h>
#include <stddef.h>

enum compat_verdict { COMPAT_OK, COMPAT_WARN, COMPAT_FAIL, COMPAT_UNKNOWN };

/* cuDNN version (major.minor.patch) built for CUDA major `variant`, used with a toolkit
 * tk_major.tk_minor. FAIL when the majors differ or the table rules it out, WARN when
 * the toolkit is newer than NVIDIA's matrix lists for that release, UNKNOWN without a
 * table row (only the majors were compared). why gets one line. */
enum compat_verdict compat_toolkit(int major, int minor, int patch, int variant, int tk_major,
                                   int tk_minor, char *why, size_t why_size);

/* The same for an install's version text ("9.1.0.70") built for CUDA major cuda, with a
 * toolkit's ("12.4"): OK when either cannot be read as a version (nothing to compare). The
 * one verdict on a pair that linking, activation and deploy share. */
enum compat_verdict compat_install_toolkit(const char *version, int cuda,
                                           const char *toolkit_version, char *why, size_t why_size);

/* Driver version text ("580.159.04") against the minimum for a CUDA toolkit: OK at or above
 * the toolkit's minimum, WARN between the minor-version-compatibility floor and it, FAIL
 * below the floor, UNKNOWN for a toolkit the table does not know. */
enum compat_verdict compat_driver(const char *driver, int tk_major, int tk_minor, bool windows,
                                  char *why, size_t why_size);

/* The cuDNN releases (major.minor) NVIDIA builds for CUDA major `cuda`, from the first to
 * the last (99.0 for "still built"); false for a CUDA major the table does not know. */
bool compat_variant_span(int cuda, int *first_major, int *first_minor, int *last_major,
                         int *last_minor);

/* Compare dotted driver versions numerically: <0, 0, >0. */
int compat_driver_compare(const char *a, const char *b);

#endif
