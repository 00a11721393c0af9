/*
 * Functions cdm never calls, as git's banned.h has it: they write without a bound
 * (strcpy, strcat, sprintf, vsprintf, gets), cut short without saying so (strncpy,
 * strncat), or keep hidden state (strtok). Use copy_str, COPY_ARRAY, a struct strbuf,
 * snprintf with its result checked, or xasprintf. A call expands to an undeclared name,
 * so the build fails at the caller.
 *
 * Included last by base/util.h, after the system headers that declare these functions,
 * so that their declarations are read before the macros exist. A header with inline
 * functions that call one (mingw's io.h, which libarchive's headers bring in on Windows)
 * goes before the first of cdm's headers in the file that needs it. The wide wcscpy and
 * wcscat are not listed: windows.h, which the Win32 files include after this, calls
 * them in inline functions of its own (stralign.h); cdm's code does not.
 */
#ifndef CDM_BANNED_H
#define CDM_BANNED_H

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(...) BANNED(strcpy)
#undef strcat
#define strcat(...) BANNED(strcat)
#undef strncpy
#define strncpy(...) BANNED(strncpy)
#undef strncat
#define strncat(...) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(...) BANNED(gets)
#undef strtok
#define strtok(...) BANNED(strtok)
#undef strtok_r
#define strtok_r(...) BANNED(strtok_r)

#endif
