/* The checks on archive entries (entry_check.c), one archive's entries at a time. */
#include "engine/entry_check.h"
#include "tap.h"

/* A fresh checker that has seen the top folder "top/". */
static void start(struct entry_checker *c)
{
    struct entry_verdict v;
    *c = (struct entry_checker){.max_entries = 100};
    entry_check(c, "top/", ENTRY_DIR, NULL, &v);
}

static const char *why(struct entry_checker *c, const char *raw, enum entry_kind kind,
                       const char *target)
{
    static struct entry_verdict v;
    entry_check(c, raw, kind, target, &v);
    return v.why;
}

static void top_folder(void)
{
    struct entry_checker c = {.max_entries = 100};
    struct entry_verdict v;
    entry_check(&c, "./cudnn-x/", ENTRY_DIR, NULL, &v);
    ok(!v.why && !v.rel, "the top folder is accepted and is no part of the version folder");
    is_str(c.top, "cudnn-x", "it is remembered");
    entry_check(&c, "cudnn-x/lib/a.so", ENTRY_FILE, NULL, &v);
    ok(!v.why && !strcmp(v.rel, "lib/a.so"), "a file below it is accepted, relative to it");
    is_str(why(&c, "other/lib/a.so", ENTRY_FILE, NULL),
           "is not below the archive's top folder (a cuDNN archive has one)",
           "a second top folder is refused");
    entry_checker_free(&c);

    struct entry_checker u = {.max_entries = 100};
    ok(!why(&u, "top", ENTRY_UNTYPED, NULL), "an untyped top folder entry is accepted");
    is_str(why(&u, "top/x", ENTRY_UNTYPED, NULL), "is of an unknown type",
           "but not an untyped entry below it");
    entry_checker_free(&u);

    struct entry_checker f = {.max_entries = 100};
    is_str(why(&f, "readme", ENTRY_FILE, NULL), "is a file where the top folder should be",
           "a file as the top folder is refused");
    entry_checker_free(&f);
}

static void names(void)
{
    struct entry_checker c;
    start(&c);
    struct entry_verdict v;
    entry_check(&c, "/etc/passwd", ENTRY_FILE, NULL, &v);
    ok(v.why && !strcmp(v.name, "/etc/passwd"), "an absolute path is refused, named as stored");
    entry_check(&c, NULL, ENTRY_FILE, NULL, &v);
    ok(v.why && !strcmp(v.name, "(no name)"), "an entry without a name is refused");
    is_str(why(&c, "top/../../x", ENTRY_FILE, NULL), "goes up with '..'", "'..' is refused");
    is_str(why(&c, "top/dev", ENTRY_DEVICE, NULL), "is a device", "a device is refused");
    is_str(why(&c, "top/fifo", ENTRY_FIFO, NULL), "is a fifo", "a fifo is refused");
    is_str(why(&c, "top/sock", ENTRY_SOCKET, NULL), "is a socket", "a socket is refused");
    entry_checker_free(&c);
}

static void links(void)
{
    struct entry_checker c;
    start(&c);
    struct entry_verdict v;
    entry_check(&c, "top/lib/libx.so", ENTRY_SYMLINK, "libx.so.9", &v);
    ok(!v.why, "a symbolic link inside the version folder is accepted");
    entry_check(&c, "top/lib/evil", ENTRY_SYMLINK, "../../../etc", &v);
    ok(v.why && !strcmp(v.name, "lib/evil"), "one pointing outside is refused, named below top");
    is_str(why(&c, "top/lib/none", ENTRY_SYMLINK, NULL), "is a link without a target",
           "one without a target is refused");
    is_str(why(&c, "top/lib/libx.so/inner", ENTRY_FILE, NULL),
           "lies below a symbolic link of the archive", "nothing is written through a link");
    entry_check(&c, "top/lib/hard", ENTRY_HARDLINK, "top/lib/libx.so.9", &v);
    ok(!v.why && !strcmp(v.target, "lib/libx.so.9"), "a hard link below top is accepted");
    is_str(why(&c, "top/lib/h2", ENTRY_HARDLINK, "/etc/shadow"),
           "is a hard link to a file outside the version folder", "one outside is refused");
    is_str(why(&c, "top/lib/h3", ENTRY_HARDLINK, "top/lib/libx.so/inner"),
           "is a hard link through a symbolic link", "one through a link is refused");
    entry_checker_free(&c);
}

static void limits(void)
{
    struct entry_checker c;
    start(&c);
    c.max_entries = 2;
    struct entry_verdict v;
    entry_check(&c, "top/a", ENTRY_FILE, NULL, &v);
    entry_check(&c, "top/b", ENTRY_FILE, NULL, &v);
    ok(!v.why && !v.too_many, "entries up to max_entries are accepted");
    entry_check(&c, "top/c", ENTRY_FILE, NULL, &v);
    ok(v.too_many && !v.why, "one more is too many");
    entry_checker_free(&c);
}

int main(void)
{
    top_folder();
    names();
    links();
    limits();
    return tap_done();
}
