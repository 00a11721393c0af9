/*
 * config.h for libarchive 3.6.2 built by mingw-w64 (gcc 12, mingw-w64 10)
 * for Windows 7 or later, x86_64.
 *
 * Hand-written instead of running build/cmake/config.h.in through CMake's
 * checks: those run-checks need Wine in a cross build and took minutes.
 * Values follow what mingw-w64's headers and msvcrt provide, after
 * contrib/android/config/windows_host.h. Only zlib is used: no xz, bzip2,
 * zstd, lz4, iconv, OpenSSL, libxml2 or expat.
 */
#ifndef CDM_LIBARCHIVE_CONFIG_H
#define CDM_LIBARCHIVE_CONFIG_H
#define __LIBARCHIVE_CONFIG_H_INCLUDED 1

/* Windows 7: BCrypt (zip encryption, HMAC) needs Vista or later. */
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601
#endif
#ifndef WINVER
#define WINVER _WIN32_WINNT
#endif
#ifndef NTDDI_VERSION
#define NTDDI_VERSION 0x06010000
#endif

#define LIBARCHIVE_STATIC 1

/* Integer types: all of <stdint.h>. */
#define HAVE_INT16_T 1
#define HAVE_INT32_T 1
#define HAVE_INT64_T 1
#define HAVE_INTMAX_T 1
#define HAVE_UINT8_T 1
#define HAVE_UINT16_T 1
#define HAVE_UINT32_T 1
#define HAVE_UINT64_T 1
#define HAVE_UINTMAX_T 1
#define HAVE_LONG_LONG_INT 1
#define HAVE_UNSIGNED_LONG_LONG 1
#define HAVE_UNSIGNED_LONG_LONG_INT 1
#define HAVE_WCHAR_T 1
#define SIZEOF_SHORT 2
#define SIZEOF_INT 4
#define SIZEOF_LONG 4
#define SIZEOF_LONG_LONG 8
#define SIZEOF_UNSIGNED_SHORT 2
#define SIZEOF_UNSIGNED 4
#define SIZEOF_UNSIGNED_LONG 4
#define SIZEOF_UNSIGNED_LONG_LONG 8
#define SIZEOF_WCHAR_T 2
#define HAVE_DECL_SIZE_MAX 1
#define HAVE_DECL_SSIZE_MAX 1
#define HAVE_DECL_INT32_MAX 1
#define HAVE_DECL_INT32_MIN 1
#define HAVE_DECL_INT64_MAX 1
#define HAVE_DECL_INT64_MIN 1
#define HAVE_DECL_INTMAX_MAX 1
#define HAVE_DECL_INTMAX_MIN 1
#define HAVE_DECL_UINT32_MAX 1
#define HAVE_DECL_UINT64_MAX 1
#define HAVE_DECL_UINTMAX_MAX 1

/* mingw-w64 has pid_t, mode_t, off_t, ssize_t but no POSIX owner ids. */
#define uid_t short
#define gid_t short
#define id_t unsigned long

/* Headers mingw-w64 ships. */
#define HAVE_BCRYPT_H 1
#define HAVE_CTYPE_H 1
#define HAVE_DIRECT_H 1
#define HAVE_DIRENT_H 1
#define HAVE_ERRNO_H 1
#define HAVE_FCNTL_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_IO_H 1
#define HAVE_LIMITS_H 1
#define HAVE_LOCALE_H 1
#define HAVE_MEMORY_H 1
#define HAVE_PROCESS_H 1
#define HAVE_SIGNAL_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRINGS_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_UTIME_H 1
#define HAVE_TIME_H 1
#define HAVE_UNISTD_H 1
#define HAVE_UTIME_H 1
#define HAVE_WCHAR_H 1
#define HAVE_WCTYPE_H 1
#define HAVE_WINCRYPT_H 1
#define HAVE_WINDOWS_H 1
#define HAVE_WINIOCTL_H 1
#define STDC_HEADERS 1

/* Functions msvcrt provides. */
#define HAVE_EILSEQ 1
#define HAVE_FSTAT 1
#define HAVE_FTRUNCATE 1
#define HAVE_GETPID 1
#define HAVE_MBRTOWC 1
#define HAVE_MEMMOVE 1
#define HAVE_MEMSET 1
#define HAVE_MKDIR 1
#define HAVE_SETLOCALE 1
#define HAVE_STRCHR 1
#define HAVE_STRDUP 1
#define HAVE_STRERROR 1
#define HAVE_STRFTIME 1
#define HAVE_STRNCPY_S 1
#define HAVE_STRRCHR 1
#define HAVE_TZSET 1
#define HAVE_UTIME 1
#define HAVE_VPRINTF 1
#define HAVE_WCRTOMB 1
#define HAVE_WCSCMP 1
#define HAVE_WCSCPY 1
#define HAVE_WCSLEN 1
#define HAVE_WCTOMB 1
#define HAVE_WMEMCMP 1
#define HAVE_WMEMCPY 1
#define HAVE_WMEMMOVE 1
#define HAVE__CTIME64_S 1
#define HAVE__FSEEKI64 1
#define HAVE__LOCALTIME64_S 1
#define HAVE__MKGMTIME64 1

/* Digests through the Windows CryptoAPI (advapi32). */
#define ARCHIVE_CRYPTO_MD5_WIN 1
#define ARCHIVE_CRYPTO_SHA1_WIN 1
#define ARCHIVE_CRYPTO_SHA256_WIN 1
#define ARCHIVE_CRYPTO_SHA384_WIN 1
#define ARCHIVE_CRYPTO_SHA512_WIN 1

/* Compression: zlib only (gzip filter, zip deflate). */
#define HAVE_ZLIB_H 1
#define HAVE_LIBZ 1

#endif
