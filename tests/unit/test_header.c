/* The version a header gives, as the compiler would see it (header.c). */
#include "engine/extract/header.h"
#include "tap.h"

#include <string.h>

static const char *version(const char *text)
{
    static char out[64];
    int a, b, c;
    if (!cudnn_header_version(text, strlen(text), &a, &b, &c))
        return "none";
    snprintf(out, sizeof(out), "%d.%d.%d", a, b, c);
    return out;
}

#define REAL "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n"

int main(void)
{
    is_str(version("#ifndef CUDNN_VERSION_H_\n#define CUDNN_VERSION_H_\n" REAL
                   "#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + "
                   "CUDNN_PATCHLEVEL)\n#endif /* CUDNN_VERSION_H */\n"),
           "9.19.0", "NVIDIA's cudnn_version.h");
    is_str(version("#  define CUDNN_MAJOR 9\n#define\tCUDNN_MINOR\t1\n#define CUDNN_PATCHLEVEL 0"),
           "9.1.0", "spaces, tabs, no final newline");
    is_str(version("#define CUDNN_MAJOR 9\n"), "none", "needs all three");
    is_str(version("#define CUDNN_MAJORX 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n"),
           "none", "a longer name is not CUDNN_MAJOR");

    /* comments */
    is_str(version("/*\n#define CUDNN_MAJOR 1\n*/\n" REAL), "9.19.0", "a block comment");
    is_str(version(REAL "/* #undef CUDNN_MAJOR\n#define CUDNN_MAJOR 1 */\n"), "9.19.0",
           "a block comment after");
    is_str(version(REAL "// #define CUDNN_MAJOR 1\n"), "9.19.0", "a line comment");
    is_str(version(REAL "// a comment \\\n#define CUDNN_MAJOR 1\n"), "9.19.0",
           "a line comment continued onto the next line");
    is_str(version("#define CUDNN_MAJOR /* 1 */ 9 // 2\n#define CUDNN_MINOR 19\n"
                   "#define CUDNN_PATCHLEVEL 0\n"),
           "9.19.0", "comments inside a #define");
    is_str(version(
               "#define CUDNN_MAJOR \\\n  9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n"),
           "9.19.0", "a line splice inside a #define");
    is_str(
        version("#def\\\nine CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n"),
        "9.19.0", "a line splice inside a word");
    is_str(version(REAL "/* never closed\n#define CUDNN_MAJOR 1\n"), "none",
           "an unterminated comment: not a header");

    /* strings */
    is_str(version(REAL "static const char *s = \"x\\\n#define CUDNN_MAJOR 1\";\n"), "9.19.0",
           "a macro inside a string literal");
    is_str(version(REAL "char c = '\"';\n#undef CUDNN_MINOR\n#define CUDNN_MINOR 2\n"), "9.2.0",
           "a quote in a character literal opens no string");

    /* conditions */
    is_str(version("#if 0\n#define CUDNN_MAJOR 1\n#else\n#define CUDNN_MAJOR 9\n#endif\n"
                   "#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n"),
           "9.19.0", "#if 0 / #else");
    is_str(version(REAL "#if 0\n#if 1\n#undef CUDNN_MAJOR\n#define CUDNN_MAJOR 1\n#endif\n"
                        "#else\n#endif\n"),
           "9.19.0", "a nested #if 1 inside #if 0 stays off");
    is_str(version(REAL "#if 0\n#elif 1\n#undef CUDNN_PATCHLEVEL\n#define CUDNN_PATCHLEVEL 4\n"
                        "#elif 1\n#undef CUDNN_PATCHLEVEL\n#define CUDNN_PATCHLEVEL 5\n#endif\n"),
           "9.19.4", "only the first true #elif");
    is_str(version("#define GUARD\n#ifdef GUARD\n" REAL "#endif\n"), "9.19.0", "#ifdef");
    is_str(version("#ifndef CUDNN_MAJOR\n" REAL "#endif\n#ifndef CUDNN_MAJOR\n#undef CUDNN_MINOR\n"
                   "#endif\n"),
           "9.19.0", "#ifndef");
    is_str(version("#if defined(X) || !defined Y && (2 * 3 - 6 == 0) && 0x10 == 16 && 3 > 2\n" REAL
                   "#endif\n"),
           "9.19.0", "expressions: defined, !, arithmetic, hex, comparison");
    is_str(version("#if _WIN32\n#define CUDNN_MAJOR 8\n#else\n#define CUDNN_MAJOR 9\n#endif\n"
                   "#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n"),
           "9.19.0", "an unknown name is 0");
    is_str(version("#if 1\n" REAL), "none", "an unterminated #if: not a header");
    is_str(version(REAL "#endif\n"), "none", "an #endif without #if: not a header");
    is_str(version(REAL "#if 1 +\n#endif\n"), "none", "an #if that does not parse");
    is_str(version(REAL "#if 1 / 0\n#endif\n"), "none", "division by zero");

    /* definitions */
    is_str(version(REAL "#undef CUDNN_MAJOR\n#define CUDNN_MAJOR 10\n"), "10.19.0",
           "#undef then #define: the last one counts");
    is_str(version("#define BASE 4\n#define CUDNN_MAJOR (BASE * 2 + 1)\n#define CUDNN_MINOR 0x13\n"
                   "#define CUDNN_PATCHLEVEL 0u\n"),
           "9.19.0", "values are expressions, expanded");
    is_str(
        version(
            "#define CUDNN_MAJOR CUDNN_MAJOR\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n"),
        "0.1.0", "a macro naming itself stops (its name is then 0)");
    is_str(version("#define CUDNN_MAJOR -1\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n"),
           "none", "a negative version is refused");
    is_str(version("#define CUDNN_MAJOR 99999999999999999999\n#define CUDNN_MINOR 1\n"
                   "#define CUDNN_PATCHLEVEL 0\n"),
           "none", "a number too large is refused");
    return tap_done();
}
