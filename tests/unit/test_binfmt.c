/* ELF and PE import reading, and the loader cache parser.
 *   test_binfmt STUB_SO [STUB_DLL]: STUB_SO is a shared library built for the test (soname
 *   libstubcudnn.so.9, RUNPATH $ORIGIN/deps); STUB_DLL a mingw-w64 DLL, or "" when none. */
#include "platform/binfmt.h"
#include "platform/fs.h"
#include "tap.h"
#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <strings.h>

static bool has_needed(const struct bin_imports *im, const char *name, bool icase)
{
    for (size_t i = 0; i < im->count; i++)
        if (icase ? !strcasecmp(im->needed[i], name) : !strcmp(im->needed[i], name))
            return true;
    return false;
}

static void test_elf(const char *path)
{
    FILE *f = fopen(path, "rb");
    ok(f != NULL, "open the stand-in library %s", path);
    if (!f)
        return;
    ok(bin_detect(f) == BIN_ELF, "it is detected as ELF");
    struct bin_imports im;
    const char *why = bin_read_imports(f, &im);
    fclose(f);
    is_str(why, NULL, "its dynamic section reads");
    if (why)
        return;
    is_str(im.soname, "libstubcudnn.so.9", "DT_SONAME");
    ok(has_needed(&im, "libc.so.6", false), "DT_NEEDED has libc.so.6");
    ok(im.runpath && strstr(im.runpath, "$ORIGIN/deps"), "DT_RUNPATH has $ORIGIN/deps (%s)",
       im.runpath ? im.runpath : "none");
    is_int(im.bits, (int)(sizeof(void *) * 8), "its class matches this build");
    bin_imports_free(&im);
}

static void test_pe(const char *path)
{
    if (!path || !*path) {
        printf("ok %d - PE import table # SKIP no x86_64-w64-mingw32-gcc to build a DLL\n",
               ++tap_count);
        return;
    }
    FILE *f = fopen(path, "rb");
    ok(f != NULL, "open the test DLL");
    if (!f)
        return;
    ok(bin_detect(f) == BIN_PE, "it is detected as PE");
    struct bin_imports im;
    const char *why = bin_read_imports(f, &im);
    fclose(f);
    is_str(why, NULL, "its import table reads");
    if (why)
        return;
    ok(has_needed(&im, "KERNEL32.dll", true), "it imports KERNEL32.dll (%u imports)",
       (unsigned)im.count);
    is_int(im.machine, 0x8664, "machine is x86-64");
    is_int(im.bits, 64, "PE32+");
    bin_imports_free(&im);
    char version[64];
    f = fopen(path, "rb");
    is_str(f ? pe_read_file_version(f, version, sizeof(version)) : "no file", NULL,
           "its version resource reads");
    if (f)
        fclose(f);
    is_str(version, "9.1.0.70", "FileVersion 9.1.0.70, as stub_pe.rc gives it");
}

/* The DLL with 5 GiB of (sparse) data after it, as a large archive member or an installer
 * carries: its size and positions need 64 bits (long is 32 bits on Win64). */
static void test_pe_past_4gib(const char *path)
{
    if (!path || !*path)
        return;
    FILE *in = fopen(path, "rb"), *f = tmpfile();
    unsigned char buf[4096];
    size_t n;
    while (in && f && (n = fread(buf, 1, sizeof(buf), in)) > 0)
        fwrite(buf, 1, n, f);
    if (in)
        fclose(in);
    if (!f)
        return;
    ok(fs_seek(f, 5LL << 30, SEEK_SET) == 0 && fputc(0, f) == 0 && fflush(f) == 0,
       "the test DLL grown past 5 GiB (sparse)");
    struct bin_imports im;
    const char *why = bin_read_imports(f, &im);
    is_str(why, NULL, "its import table still reads");
    if (!why) {
        ok(has_needed(&im, "KERNEL32.dll", true), "and names KERNEL32.dll");
        bin_imports_free(&im);
    }
    fclose(f);
}

static void test_garbage(void)
{
    FILE *f = tmpfile();
    if (!f)
        return;
    static const char truncated[] = "\x7f"
                                    "ELF\x02\x01\x01 this is not a real header";
    fwrite(truncated, 1, sizeof(truncated) - 1, f);
    struct bin_imports im;
    ok(bin_read_imports(f, &im) != NULL, "a truncated ELF is refused, not read");
    rewind(f);
    fwrite("MZ\0\0\0\0", 1, 6, f);
    ok(pe_read_imports(f, &im) != NULL, "a truncated PE is refused, not read");
    char version[64];
    ok(pe_read_file_version(f, version, sizeof(version)) != NULL && !version[0],
       "and has no version");
    fclose(f);
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void test_ldcache_synthetic(void)
{
    /* header (48) + one entry (24) + strings */
    unsigned char buf[256] = {0};
    memcpy(buf, "glibc-ld.so.cache1.1", 20);
    put32(buf + 20, 1);
    const char *name = "libcudnn.so.9", *path = "/opt/x/libcudnn.so.9";
    uint32_t strings = 48 + 24;
    put32(buf + 24, (uint32_t)(strlen(name) + strlen(path) + 2));
    put32(buf + 48, 0x0303);
    put32(buf + 52, strings);
    put32(buf + 56, strings + (uint32_t)strlen(name) + 1);
    memcpy(buf + strings, name, strlen(name) + 1);
    memcpy(buf + strings + strlen(name) + 1, path, strlen(path) + 1);
    struct ldcache c;
    ok(ldcache_parse(buf, strings + strlen(name) + strlen(path) + 2, &c),
       "a synthetic cache parses");
    is_int(c.count, 1, "with one entry");
    if (c.count == 1) {
        is_str(c.entries[0].name, name, "its name");
        is_str(c.entries[0].path, path, "its path");
    }
    ldcache_free(&c);
    ok(!ldcache_parse(buf, 60, &c), "a cache cut short is refused");
    put32(buf + 52, 5000);
    ok(!ldcache_parse(buf, sizeof(buf), &c), "a string offset outside the file is refused");
}

static void test_ldcache_real(void)
{
    FILE *f = fopen("/etc/ld.so.cache", "rb");
    if (!f) {
        printf("ok %d - the machine's loader cache # SKIP no /etc/ld.so.cache here\n", ++tap_count);
        return;
    }
    struct strbuf sb = STRBUF_INIT;
    char b[65536];
    size_t n;
    while ((n = fread(b, 1, sizeof(b), f)) > 0)
        sb_addn(&sb, b, n);
    fclose(f);
    struct ldcache c;
    ok(ldcache_parse((const unsigned char *)sb.buf, sb.len, &c), "/etc/ld.so.cache parses");
    bool libc = false;
    for (size_t i = 0; i < c.count; i++)
        libc = libc || !strcmp(c.entries[i].name, "libc.so.6");
    ok(libc, "and names libc.so.6 (%u entries)", (unsigned)c.count);
    ldcache_free(&c);
    sb_free(&sb);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_binfmt STUB_SO [STUB_DLL]\n");
        return 2;
    }
    test_elf(argv[1]);
    test_pe(argc > 2 ? argv[2] : NULL);
    test_pe_past_4gib(argc > 2 ? argv[2] : NULL);
    test_garbage();
    test_ldcache_synthetic();
    test_ldcache_real();
    return tap_done();
}
