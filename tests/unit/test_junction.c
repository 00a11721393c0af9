/* The junction buffer, byte by byte (junction.c): what link_win32.c hands to
 * FSCTL_SET_REPARSE_POINT, checked here on every platform. */
#include "platform/junction.h"
#include "tap.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* Expected buffers, written out by hand from the layout of Microsoft's REPARSE_DATA_BUFFER. */
/* A worked example: C:\cudnn_archive\8.8.0\cuda, SubLen 62, PrintNameOffset 64, PrintLen 54, length
 * 128
 */
static const unsigned char worked_example[136] = {
    0x03, 0x00, 0x00, 0xa0, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3e, 0x00, 0x40, 0x00, 0x36, 0x00,
    0x5c, 0x00, 0x3f, 0x00, 0x3f, 0x00, 0x5c, 0x00, 0x43, 0x00, 0x3a, 0x00, 0x5c, 0x00, 0x63, 0x00,
    0x75, 0x00, 0x64, 0x00, 0x6e, 0x00, 0x6e, 0x00, 0x5f, 0x00, 0x61, 0x00, 0x72, 0x00, 0x63, 0x00,
    0x68, 0x00, 0x69, 0x00, 0x76, 0x00, 0x65, 0x00, 0x5c, 0x00, 0x38, 0x00, 0x2e, 0x00, 0x38, 0x00,
    0x2e, 0x00, 0x30, 0x00, 0x5c, 0x00, 0x63, 0x00, 0x75, 0x00, 0x64, 0x00, 0x61, 0x00, 0x00, 0x00,
    0x43, 0x00, 0x3a, 0x00, 0x5c, 0x00, 0x63, 0x00, 0x75, 0x00, 0x64, 0x00, 0x6e, 0x00, 0x6e, 0x00,
    0x5f, 0x00, 0x61, 0x00, 0x72, 0x00, 0x63, 0x00, 0x68, 0x00, 0x69, 0x00, 0x76, 0x00, 0x65, 0x00,
    0x5c, 0x00, 0x38, 0x00, 0x2e, 0x00, 0x38, 0x00, 0x2e, 0x00, 0x30, 0x00, 0x5c, 0x00, 0x63, 0x00,
    0x75, 0x00, 0x64, 0x00, 0x61, 0x00, 0x00, 0x00,
};

/* The ntfs-3g check's example: C:\store\8.8.0, 84 bytes */
static const unsigned char ntfs3g_example[84] = {
    0x03, 0x00, 0x00, 0xa0, 0x4c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x24, 0x00, 0x26, 0x00,
    0x1c, 0x00, 0x5c, 0x00, 0x3f, 0x00, 0x3f, 0x00, 0x5c, 0x00, 0x43, 0x00, 0x3a, 0x00,
    0x5c, 0x00, 0x73, 0x00, 0x74, 0x00, 0x6f, 0x00, 0x72, 0x00, 0x65, 0x00, 0x5c, 0x00,
    0x38, 0x00, 0x2e, 0x00, 0x38, 0x00, 0x2e, 0x00, 0x30, 0x00, 0x00, 0x00, 0x43, 0x00,
    0x3a, 0x00, 0x5c, 0x00, 0x73, 0x00, 0x74, 0x00, 0x6f, 0x00, 0x72, 0x00, 0x65, 0x00,
    0x5c, 0x00, 0x38, 0x00, 0x2e, 0x00, 0x38, 0x00, 0x2e, 0x00, 0x30, 0x00, 0x00, 0x00,
};

/* D:\Zoe-diaeresis\(Cyrillic "proekt")\U+1F600: a surrogate pair */
static const unsigned char non_ascii[92] = {
    0x03, 0x00, 0x00, 0xa0, 0x54, 0x00, 0x00, 0x00, 0x00, 0x00, 0x28, 0x00, 0x2a, 0x00, 0x20, 0x00,
    0x5c, 0x00, 0x3f, 0x00, 0x3f, 0x00, 0x5c, 0x00, 0x44, 0x00, 0x3a, 0x00, 0x5c, 0x00, 0x5a, 0x00,
    0x6f, 0x00, 0xeb, 0x00, 0x5c, 0x00, 0x3f, 0x04, 0x40, 0x04, 0x3e, 0x04, 0x35, 0x04, 0x3a, 0x04,
    0x42, 0x04, 0x5c, 0x00, 0x3d, 0xd8, 0x00, 0xde, 0x00, 0x00, 0x44, 0x00, 0x3a, 0x00, 0x5c, 0x00,
    0x5a, 0x00, 0x6f, 0x00, 0xeb, 0x00, 0x5c, 0x00, 0x3f, 0x04, 0x40, 0x04, 0x3e, 0x04, 0x35, 0x04,
    0x3a, 0x04, 0x42, 0x04, 0x5c, 0x00, 0x3d, 0xd8, 0x00, 0xde, 0x00, 0x00,
};

static void is_bytes(const char *target, const unsigned char *want, size_t want_size,
                     const char *what)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    const char *why = junction_build(target, &buf, &size);
    bool same = !why && size == want_size && !memcmp(buf, want, size);
    ok(same, "%s: %zu bytes, byte-exact", what, want_size);
    if (why)
        printf("#   refused: %s\n", why);
    else if (!same)
        for (size_t i = 0; i < size && i < want_size; i++)
            if (buf[i] != want[i]) {
                printf("#   size %zu; first difference at byte %zu: 0x%02x, want 0x%02x\n", size, i,
                       buf[i], want[i]);
                break;
            }
    free(buf);
}

static unsigned u16(const unsigned char *p)
{
    return (unsigned)p[0] | ((unsigned)p[1] << 8);
}

static void is_refused(const char *target, const char *reason_part, const char *what)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    const char *why = junction_build(target, &buf, &size);
    ok(why && strstr(why, reason_part) && !buf, "%s is refused (%s)", what, reason_part);
    if (!why)
        printf("#   it was accepted (%zu bytes)\n", size);
    else if (!strstr(why, reason_part))
        printf("#   reason: %s\n", why);
    free(buf);
}

static void is_normalised(const char *in, const char *want)
{
    char *out = NULL;
    const char *why = junction_normalise(in, &out);
    is_str(why ? why : out, want, "'%s' is stored as '%s'", in, want);
    free(out);
}

static void test_exact(void)
{
    is_bytes("C:\\cudnn_archive\\8.8.0\\cuda", worked_example, sizeof(worked_example),
             "the worked example");
    ok(u16(worked_example + 10) == 62 && u16(worked_example + 12) == 64 &&
           u16(worked_example + 14) == 54 && u16(worked_example + 4) == 128,
       "the hand-written example carries the worked numbers (62, 64, 54, 128)");
    is_bytes("C:\\store\\8.8.0", ntfs3g_example, sizeof(ntfs3g_example), "the ntfs-3g example");
    is_bytes("D:\\Zo\xc3\xab\\\xd0\xbf\xd1\x80\xd0\xbe\xd0\xb5\xd0\xba\xd1\x82\\\xf0\x9f\x98\x80",
             non_ascii, sizeof(non_ascii), "non-ASCII with a character outside the BMP");
}

static void test_inputs_normalised(void)
{
    is_bytes("\\\\?\\C:\\cudnn_archive\\8.8.0\\cuda", worked_example, sizeof(worked_example),
             "a \\\\?\\ prefix is dropped");
    is_bytes("C:/cudnn_archive/8.8.0/cuda", worked_example, sizeof(worked_example),
             "'/' becomes '\\'");
    is_bytes("c:\\cudnn_archive\\\\8.8.0\\cuda\\", worked_example, sizeof(worked_example),
             "lower-case drive, doubled and trailing separators");
    is_bytes("\\??\\C:/cudnn_archive/8.8.0/cuda", worked_example, sizeof(worked_example),
             "an NT \\??\\ prefix is dropped");
    is_normalised("C:\\", "C:\\");
    is_normalised("//?/d:/a//b/", "D:\\a\\b");
    is_normalised("C:\\a.b\\..c\\c..", "C:\\a.b\\..c\\c..");
}

static void test_refused(void)
{
    is_refused("C:\\store\\.\\8.8.0", "'.' or '..'", "a '.' component");
    is_refused("C:\\store\\..\\8.8.0", "'.' or '..'", "a '..' component");
    is_refused("\\\\?\\C:\\store\\..", "'.' or '..'", "'..' after \\\\?\\");
    is_refused("\\\\server\\share\\cudnn", "network path", "a UNC path");
    is_refused("//server/share/cudnn", "network path", "a UNC path with '/'");
    is_refused("\\\\?\\UNC\\server\\share", "network path", "a \\\\?\\UNC\\ path");
    is_refused("store\\8.8.0", "drive letter", "a relative path");
    is_refused("\\store\\8.8.0", "drive letter", "a path without a drive");
    is_refused("C:store", "drive letter", "a drive-relative path");
    is_refused("/home/user/store", "drive letter", "a POSIX path");
    is_refused("C:\\bad\xc3(", "UTF-8", "invalid UTF-8");
    is_refused("C:\\bad\xed\xa0\x80", "UTF-8", "an encoded surrogate");
    is_refused("C:\\bad\xc0\xaf", "UTF-8", "an over-long encoding");
}

static char *long_path(size_t chars)
{
    /* "C:\" then components of 99 'a' and a separator: 3 + 100k characters, then 'b's. */
    char *p = xmalloc(chars + 1);
    memcpy(p, "C:\\", 3);
    for (size_t i = 3; i < chars; i++)
        p[i] = (i - 3) % 100 == 99 ? '\\' : 'a';
    if (p[chars - 1] == '\\')
        p[chars - 1] = 'b';
    p[chars] = '\0';
    return p;
}

static void test_long(void)
{
    char *p = long_path(300); /* past MAX_PATH (260): fine for a junction */
    unsigned char *buf = NULL;
    size_t size = 0;
    const char *why = junction_build(p, &buf, &size);
    ok(!why && size == 28 + 4 * 300, "a 300-character target builds (%zu bytes)", size);
    ok(buf && u16(buf + 10) == 2 * 304 && u16(buf + 12) == 2 * 305 && u16(buf + 14) == 600 &&
           u16(buf + 4) == size - 8,
       "with the lengths and offsets of 300 characters");
    char *back = NULL;
    ok(buf && junction_parse(buf, size, &back) == JUNCTION_OURS && back && !strcmp(back, p),
       "and reads back as the same path");
    free(back);
    free(buf);
    free(p);

    p = long_path(4089); /* 28 + 4 * 4089 = 16384: exactly the maximum */
    why = junction_build(p, &buf, &size);
    ok(!why && size == 16384, "a 4089-character target fills the 16 KiB maximum exactly");
    free(buf);
    free(p);
    p = long_path(4090);
    is_refused(p, "too long", "a 4090-character target");
    free(p);
}

static void test_parse(void)
{
    char *t = NULL;
    is_int(junction_parse(worked_example, sizeof(worked_example), &t), JUNCTION_OURS,
           "the worked example parses as a junction");
    is_str(t, "C:\\cudnn_archive\\8.8.0\\cuda", "to its target");
    free(t);
    is_int(junction_parse(non_ascii, sizeof(non_ascii), &t), JUNCTION_OURS,
           "the non-ASCII buffer parses");
    is_str(t, "D:\\Zo\xc3\xab\\\xd0\xbf\xd1\x80\xd0\xbe\xd0\xb5\xd0\xba\xd1\x82\\\xf0\x9f\x98\x80",
           "back to the same UTF-8");
    free(t);
    t = NULL;

    unsigned char b[sizeof(worked_example)];
    memcpy(b, worked_example, sizeof(b));
    b[3] = 0xa0, b[0] = 0x0c;
    is_int(junction_parse(b, sizeof(b), &t), JUNCTION_SYMLINK, "tag 0xA000000C is a symlink");
    ok(t == NULL, "with no target");
    memcpy(b, worked_example, sizeof(b));
    b[0] = 0x17; /* another Microsoft tag */
    is_int(junction_parse(b, sizeof(b), &t), JUNCTION_OTHER, "another tag is not ours");
    is_int(junction_parse(worked_example, 40, &t), JUNCTION_INVALID,
           "a truncated buffer is invalid");
    memcpy(b, worked_example, sizeof(b));
    b[10] = 0xff; /* substitute length past the end */
    is_int(junction_parse(b, sizeof(b), &t), JUNCTION_INVALID, "a name past the end is invalid");

    /* A volume mount point: \??\Volume{GUID}\ as substitute name. */
    const char *vol = "\\??\\Volume{0e8f4a3c-0000-0000-0000-100000000000}\\";
    size_t n = strlen(vol);
    unsigned char v[256] = {0};
    v[0] = 0x03, v[3] = 0xa0;
    v[4] = (unsigned char)(8 + 2 * n + 2 + 2);
    v[10] = (unsigned char)(2 * n);
    v[12] = (unsigned char)(2 * n + 2);
    for (size_t i = 0; i < n; i++)
        v[16 + 2 * i] = (unsigned char)vol[i];
    is_int(junction_parse(v, 16 + 2 * n + 4, &t), JUNCTION_VOLUME,
           "\\??\\Volume{...} is a volume mount point, not ours");
    ok(t == NULL, "with no target");
}

/* A directory symbolic link's buffer as CreateSymbolicLinkW writes it: a junction's names
 * with the tag 0xA000000C and a u32 of flags before them. */
static unsigned char *symlink_buffer(const char *target, unsigned flags, size_t *size)
{
    unsigned char *j = NULL;
    size_t n = 0;
    junction_build(target, &j, &n);
    unsigned char *b = xcalloc(1, n + 4);
    memcpy(b, j, 16);
    memcpy(b + 20, j + 16, n - 16);
    b[0] = 0x0c;
    size_t data = (size_t)(j[4] | j[5] << 8) + 4;
    b[4] = (unsigned char)(data & 0xff), b[5] = (unsigned char)(data >> 8);
    b[16] = (unsigned char)flags;
    free(j);
    *size = n + 4;
    return b;
}

/* The directory symbolic links cdm makes where junctions cannot be made are read back to
 * their target; relative ones (never cdm's) and cut ones are not. */
static void test_symlink(void)
{
    char *t = NULL;
    size_t n = 0;
    unsigned char *b = symlink_buffer("C:\\cudnn_archive\\9.1.0.70-cuda12", 0, &n);
    is_int(junction_parse(b, n, &t), JUNCTION_SYMLINK, "a directory symbolic link parses");
    is_str(t, "C:\\cudnn_archive\\9.1.0.70-cuda12", "to its absolute target");
    free(t);
    t = NULL;
    is_int(junction_parse(b, n - 40, &t), JUNCTION_SYMLINK, "a cut one is still a symlink");
    ok(t == NULL, "with no target");
    free(b);
    b = symlink_buffer("C:\\cudnn_archive\\9.1.0.70-cuda12", 1, &n);
    is_int(junction_parse(b, n, &t), JUNCTION_SYMLINK, "a relative symbolic link parses");
    ok(t == NULL, "with no target: cdm never makes one");
    free(b);
}

int main(void)
{
    test_exact();
    test_inputs_normalised();
    test_refused();
    test_long();
    test_parse();
    test_symlink();
    return tap_done();
}
