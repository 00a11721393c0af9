/*
 * Functions cdm never calls, as git's banned.h has it: they write without a bound
 * (strcpy, strcat, sprintf, vsprintf, gets), cut short without saying so (strncpy,
 * strncat), keep hidden state (strtok; gmtime, localtime, ctime and asctime return one
 * static buffer that another thread's call overwrites), or race another process for a
 * name (mktemp). Use copy_str, COPY_STR_ARRAY, a struct strbuf, snprintf with its result
 * checked, or xasprintf; gmtime_r and localtime_r with a struct tm of the caller's, and
 * strftime; a name made with O_EXCL (fs.h's atomic writes) or mkdtemp. A call expands to
 * an undeclared name, so the build fails at the caller.
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
#undef gmtime
#define gmtime(...) BANNED(gmtime)
#undef localtime
#define localtime(...) BANNED(localtime)
#undef ctime
#define ctime(...) BANNED(ctime)
#undef asctime
#define asctime(...) BANNED(asctime)
#undef mktemp
#define mktemp(...) BANNED(mktemp)

#endif
