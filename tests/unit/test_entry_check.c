/* The checks on archive entries (entry_check.c), one archive's entries at a time. */
#include "engine/extract/entry_check.h"
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

/* The verdict of entry_links_check on the links held so far. */
static const char *links_why(struct entry_checker *c, const char **name)
{
    static struct entry_verdict v;
    const char *why = entry_links_check(c, &v);
    *name = why ? v.name : NULL;
    return why;
}

static void links(void)
{
    struct entry_checker c;
    const char *name;
    start(&c);
    struct entry_verdict v;
    entry_check(&c, "top/lib/libx.so", ENTRY_SYMLINK, "libx.so.9", &v);
    ok(!v.why, "a link to a name beside it is accepted, before what it names");
    entry_check(&c, "top/lib/libx.so.9", ENTRY_SYMLINK, "libx.so.9.1.0", &v);
    ok(!v.why, "so is a link to a link");
    entry_check(&c, "top/lib/libx.so.9.1.0", ENTRY_FILE, NULL, &v);
    entry_check(&c, "top/lib/evil", ENTRY_SYMLINK, "../../../etc", &v);
    ok(v.why && !strcmp(v.name, "lib/evil") && !strcmp(v.link_target, "../../../etc"),
       "one pointing outside is refused, named below top with its target");
    is_str(why(&c, "top/lib/none", ENTRY_SYMLINK, NULL), "is a link without a target",
           "one without a target is refused");
    is_str(why(&c, "top/lib/libx.so/inner", ENTRY_FILE, NULL), "lies below a link of the archive",
           "nothing is written through a link");
    is_str(why(&c, "top/lib/libx.so.9.1.0/inner", ENTRY_FILE, NULL),
           "lies below a file of the archive", "nor below a file");
    entry_check(&c, "top/lib/hard", ENTRY_HARDLINK, "top/lib/libx.so.9.1.0", &v);
    ok(!v.why, "a hard link to a file beside it is accepted");
    is_str(why(&c, "top/lib/h2", ENTRY_HARDLINK, "/etc/shadow"), "points to an absolute path",
           "a hard link outside is refused");
    is_str(why(&c, "top/lib/h3", ENTRY_HARDLINK, "top/include/x.h"),
           "does not point to a name beside it", "a hard link to another folder is refused");
    is_str(why(&c, "top/lib/libx.so", ENTRY_FILE, NULL), "appears twice in the archive",
           "an entry given twice is refused");
    ok(!links_why(&c, &name), "at the end, links beside their files pass");
    is_str(c.links[2].target, "lib/libx.so.9.1.0", "the hard link shares the file");
    entry_checker_free(&c);

    start(&c);
    entry_check(&c, "top/lib/a", ENTRY_SYMLINK, "b", &v);
    entry_check(&c, "top/lib/b", ENTRY_SYMLINK, "a", &v);
    is_str(links_why(&c, &name), "is part of a loop of links", "a loop is refused");
    is_str(name, "lib/a", "naming its first link");
    entry_checker_free(&c);

    start(&c);
    entry_check(&c, "top/lib/a", ENTRY_SYMLINK, "missing", &v);
    is_str(links_why(&c, &name), "points to nothing beside it in the archive",
           "a link to nothing is refused");
    entry_checker_free(&c);

    start(&c);
    entry_check(&c, "top/lib/a", ENTRY_SYMLINK, "sub", &v);
    entry_check(&c, "top/lib/sub/f", ENTRY_FILE, NULL, &v);
    is_str(links_why(&c, &name), "points to a folder", "a link to a folder is refused");
    entry_checker_free(&c);

    start(&c);
    entry_check(&c, "top/lib/f", ENTRY_FILE, NULL, &v);
    entry_check(&c, "top/lib/s", ENTRY_SYMLINK, "f", &v);
    entry_check(&c, "top/lib/h", ENTRY_HARDLINK, "top/lib/s", &v);
    is_str(links_why(&c, &name), "points to a symbolic link", "a hard link to a link is refused");
    entry_checker_free(&c);

    start(&c);
    entry_check(&c, "top/lib/up/x", ENTRY_FILE, NULL, &v);
    is_str(why(&c, "top/lib/up", ENTRY_SYMLINK, "x"), "is also a folder of the archive",
           "a link where a folder was is refused");
    entry_checker_free(&c);
}

/* A link refused is not held: a link held that names it finds nothing there, neither an
 * index past the links held (found by fuzz_entry) nor the next link held at that index. */
static void refused_links(void)
{
    struct entry_checker c;
    const char *name;
    start(&c);
    struct entry_verdict v;
    entry_check(&c, "top/up", ENTRY_SYMLINK, "gone", &v);
    ok(!v.why, "a link to a name that comes later is held");
    is_str(why(&c, "top/gone", ENTRY_SYMLINK, NULL), "is a link without a target",
           "the name it points to is a link refused");
    is_str(links_why(&c, &name), "points to nothing beside it in the archive",
           "the link held finds nothing there");
    entry_checker_free(&c);

    start(&c);
    entry_check(&c, "top/up", ENTRY_SYMLINK, "gone", &v);
    why(&c, "top/gone", ENTRY_SYMLINK, "/etc/passwd");
    entry_check(&c, "top/b", ENTRY_SYMLINK, "file", &v);
    entry_check(&c, "top/file", ENTRY_FILE, NULL, &v);
    ok(!v.why, "another link and its file are held after the refused one");
    is_str(links_why(&c, &name), "points to nothing beside it in the archive",
           "and the first link does not follow the refused name to that other link");
    is_str(name, "up", "naming the first link");
    entry_checker_free(&c);

    start(&c);
    c.max_entries = 1;
    entry_check(&c, "top/up", ENTRY_SYMLINK, "late", &v);
    entry_check(&c, "top/late", ENTRY_SYMLINK, "x", &v);
    ok(v.too_many, "a link past max_entries is too many");
    is_str(links_why(&c, &name), "points to nothing beside it in the archive",
           "and is not held either");
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

/* Another store's rows (install --from-store): the same checks, on paths below the install
 * folder written as cdm records them. */
static void store_rows(void)
{
    struct entry_checker c = {.max_entries = 100};
    struct entry_verdict v;
    entry_check_row(&c, "lib", false, NULL, &v);
    ok(!v.why && !strcmp(v.rel, "lib"), "a folder row is accepted, relative to the install");
    entry_check_row(&c, "lib/libcudnn.so.9.1.0", true, NULL, &v);
    ok(!v.why && !strcmp(v.rel, "lib/libcudnn.so.9.1.0"), "a file row too");
    entry_check_row(&c, "lib/libcudnn.so", false, "libcudnn.so.9.1.0", &v);
    ok(!v.why, "and a link to a file beside it");
    entry_check_row(&c, "lib/../../../../x", true, NULL, &v);
    is_str(v.why, "goes up with '..'", "a row that goes up is refused");
    is_str(v.name, "lib/../../../../x", "named as recorded");
    entry_check_row(&c, "/etc/x", true, NULL, &v);
    is_str(v.why, "is an absolute path", "an absolute row is refused");
    entry_check_row(&c, "lib//y", true, NULL, &v);
    is_str(v.why, "is not written as cdm records a path", "so is one not written as cdm writes");
    entry_check_row(&c, "lib/a", false, "/etc/passwd", &v);
    is_str(v.why, "points to an absolute path", "a link to an absolute path is refused");
    is_str(v.name, "lib/a", "named below the install");
    entry_check_row(&c, "lib/b", false, "../../../../etc/shadow", &v);
    is_str(v.why, "does not point to a name beside it", "a link leading up is refused");
    entry_check_row(&c, "lib/libcudnn.so.9.1.0/z", true, NULL, &v);
    is_str(v.why, "lies below a file of the archive", "a row below a file is refused");
    entry_check_row(&c, "lib/c", false, "nothing", &v);
    ok(!v.why, "a link to a name not recorded is held");
    ok(entry_links_check(&c, &v) && !strcmp(v.name, "lib/c"), "and refused once every row is seen");
    entry_checker_free(&c);
}

int main(void)
{
    top_folder();
    names();
    links();
    refused_links();
    limits();
    store_rows();
    return tap_done();
}
