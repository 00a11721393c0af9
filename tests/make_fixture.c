/*
 * Writes cuDNN archives for the tests, in the real layouts and with the real file names
 * (docs/sources.md, the table of forms), with small stand-in libraries; and the
 * hostile variants. Nothing binary is committed: every archive is made at test time.
 *
 *   make_fixture OUT [--version A.B.C.D] [--header A.B.C] [--evil KIND] [--pad BYTES]
 *                    [--lib-dir lib|lib/x64] [--bin-dir bin|bin/x64] [--zeros BYTES]
 *                    [--file REL=PATH]... [--many-links N] [--many-files N]
 *
 * The format follows OUT's extension (.zip, .tar.xz, .tgz/.tar.gz), the layout and
 * platform follow OUT's name as NVIDIA spells it: "cudnn-11.3-linux-x64-v8.2.1.32.tgz" is
 * an old cuda/ archive, "cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip" a current one.
 * KIND: absolute, dotdot, drive, device, fifo, symlink-out, hardlink-out, two-tops,
 * no-header, so-in-windows, the headers of header_evil, the links of links_evil below; links-first
 * is no attack but the .so chains with every link before the file it names. --file puts the bytes
 * of the real file PATH (a library built by the tests) at REL below the top folder, in place of
 * that entry's stand-in bytes.
 */
#include <archive.h>
#include <archive_entry.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fixture {
    struct archive *a;
    const char *top;
    int major, minor, patch;    /* header version */
    int hmajor, hminor, hpatch; /* what the header says (--header) */
    size_t pad;
    unsigned long long zeros; /* a large, very compressible library, for slow installs */
    const char *evil;
    const char *file_rel[8], *file_path[8]; /* --file REL=PATH */
    size_t nfiles;
    unsigned long many_links, many_files; /* --many-links N, --many-files N */
};

static void die(const char *what, struct archive *a)
{
    fprintf(stderr, "make_fixture: %s: %s\n", what, a ? archive_error_string(a) : "");
    exit(1);
}

static void add_entry(struct fixture *f, const char *rel, unsigned type, const char *data,
                      size_t len, const char *link)
{
    struct archive_entry *e = archive_entry_new();
    char path[1024];
    if (rel[0] == '!') /* a raw path, not below the top folder */
        snprintf(path, sizeof(path), "%s", rel + 1);
    else
        snprintf(path, sizeof(path), "%s/%s", f->top, rel);
    archive_entry_set_pathname(e, path);
    archive_entry_set_filetype(e, type);
    archive_entry_set_perm(e, type == AE_IFDIR ? 0755 : (strstr(rel, ".so") ? 0755 : 0644));
    archive_entry_set_mtime(e, 1700000000, 0);
    if (type == AE_IFLNK)
        archive_entry_set_symlink(e, link);
    if (type == AE_IFCHR)
        archive_entry_set_rdev(e, 0x0101);
    archive_entry_set_size(e, type == AE_IFREG ? (la_int64_t)len : 0);
    if (archive_write_header(f->a, e) != ARCHIVE_OK)
        die(path, f->a);
    if (type == AE_IFREG && len && archive_write_data(f->a, data, len) != (la_ssize_t)len)
        die(path, f->a);
    archive_entry_free(e);
}

static void add_hardlink(struct fixture *f, const char *rel, const char *target_path)
{
    struct archive_entry *e = archive_entry_new();
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", f->top, rel);
    archive_entry_set_pathname(e, path);
    archive_entry_set_hardlink(e, target_path);
    archive_entry_set_size(e, 0);
    if (archive_write_header(f->a, e) != ARCHIVE_OK)
        die(path, f->a);
    archive_entry_free(e);
}

static void add_dir(struct fixture *f, const char *rel)
{
    add_entry(f, rel, AE_IFDIR, NULL, 0, NULL);
}

/* The whole file at path, or exit: the library --file asked for. */
static char *read_file(const char *path, size_t *len)
{
    FILE *in = fopen(path, "rb");
    if (!in) {
        fprintf(stderr, "make_fixture: cannot open '%s'\n", path);
        exit(1);
    }
    size_t cap = 1 << 16, n = 0, got;
    char *data = malloc(cap);
    while (data && (got = fread(data + n, 1, cap - n, in)) > 0)
        if ((n += got) == cap)
            data = realloc(data, cap *= 2);
    if (!data || ferror(in)) {
        fprintf(stderr, "make_fixture: cannot read '%s'\n", path);
        exit(1);
    }
    fclose(in);
    *len = n;
    return data;
}

/* A stand-in library: a recognisable line, then padding so sizes look like something;
 * or the real file --file named for rel. */
static void add_library(struct fixture *f, const char *rel)
{
    for (size_t i = 0; i < f->nfiles; i++) {
        if (strcmp(f->file_rel[i], rel))
            continue;
        size_t n;
        char *bytes = read_file(f->file_path[i], &n);
        add_entry(f, rel, AE_IFREG, bytes, n, NULL);
        free(bytes);
        f->file_rel[i] = ""; /* used: main checks that every --file found its entry */
        return;
    }
    size_t len = 64 + f->pad;
    char *data = malloc(len);
    int n =
        snprintf(data, len, "stand-in for %s, cuDNN %d.%d.%d\n", rel, f->major, f->minor, f->patch);
    unsigned x = 2166136261u;
    for (const char *p = rel; *p; p++)
        x = (x ^ (unsigned char)*p) * 16777619u;
    for (size_t i = (size_t)n; i < len; i++) {
        x = x * 1103515245u + 12345u;
        data[i] = (char)(x >> 16);
    }
    add_entry(f, rel, AE_IFREG, data, len, NULL);
    free(data);
}

static void add_text(struct fixture *f, const char *rel, const char *text)
{
    add_entry(f, rel, AE_IFREG, text, strlen(text), NULL);
}

/* Headers that a line-by-line search for the macros misreads: the name's version sits in
 * a comment, an #if 0 block or a string, and the one the compiler sees is one minor up. */
static bool header_evil(struct fixture *f, bool version_macros, char *text, size_t size)
{
    const char *k = f->evil ? f->evil : "";
    int ma = f->hmajor, mi = f->hminor, pa = f->hpatch;
    if (version_macros && !strcmp(k, "header-if0"))
        snprintf(text, size,
                 "#if 0\n#define CUDNN_MAJOR %d\n#define CUDNN_MINOR %d\n#define CUDNN_PATCHLEVEL "
                 "%d\n#else\n#define CUDNN_MAJOR %d\n#define CUDNN_MINOR %d\n#define "
                 "CUDNN_PATCHLEVEL %d\n#endif\n",
                 ma, mi, pa, ma, mi + 1, pa);
    else if (version_macros && !strcmp(k, "header-comment"))
        snprintf(text, size,
                 "/*\n#define CUDNN_MAJOR %d\n#define CUDNN_MINOR %d\n#define CUDNN_PATCHLEVEL "
                 "%d\n*/\n#define CUDNN_MAJOR %d\n#define CUDNN_MINOR %d\n#define "
                 "CUDNN_PATCHLEVEL %d\n",
                 ma, mi, pa, ma, mi + 1, pa);
    else if (!version_macros && !strcmp(k, "header-cudnn-h-disagrees"))
        snprintf(text, size,
                 "#pragma once\n#define CUDNN_MAJOR %d\n#define CUDNN_MINOR %d\n"
                 "#define CUDNN_PATCHLEVEL %d\n",
                 ma, mi + 1, pa);
    else
        return false;
    return true;
}

static void add_header(struct fixture *f, const char *rel, bool version_macros)
{
    char text[1024];
    if (header_evil(f, version_macros, text, sizeof(text)))
        ;
    else if (version_macros)
        snprintf(text, sizeof(text),
                 "/* stand-in %s */\n#ifndef CUDNN_VERSION_H_\n#define CUDNN_VERSION_H_\n\n"
                 "#define CUDNN_MAJOR %d\n#define CUDNN_MINOR %d\n#define CUDNN_PATCHLEVEL %d\n\n"
                 "#define CUDNN_VERSION (CUDNN_MAJOR * %d + CUDNN_MINOR * 100 + "
                 "CUDNN_PATCHLEVEL)\n\n#endif\n",
                 rel, f->hmajor, f->hminor, f->hpatch, f->hmajor >= 9 ? 10000 : 1000);
    else
        snprintf(text, sizeof(text),
                 "/* stand-in %s */\n#pragma once\n#include \"cudnn_version.h\"\n", rel);
    add_text(f, rel, text);
}

static const char *const v8_parts[] = {"",           "_ops_infer", "_ops_train", "_cnn_infer",
                                       "_cnn_train", "_adv_infer", "_adv_train"};
static const char *const v9_parts[] = {
    "",       "_adv",       "_cnn", "_engines_precompiled", "_engines_runtime_compiled",
    "_graph", "_heuristic", "_ops"};

static void windows_current(struct fixture *f, const char *bin, const char *lib)
{
    char path[256];
    bool v9 = f->major >= 9;
    const char *const *parts = v9 ? v9_parts : v8_parts;
    size_t nparts =
        v9 ? sizeof(v9_parts) / sizeof(*v9_parts) : sizeof(v8_parts) / sizeof(*v8_parts);
    for (size_t i = 0; i < nparts; i++) {
        snprintf(path, sizeof(path), "%s/cudnn%s64_%d.dll", bin, parts[i], f->major);
        add_library(f, path);
    }
    for (size_t i = 0; i < nparts; i++) {
        snprintf(path, sizeof(path), "%s/cudnn%s.lib", lib, parts[i]);
        add_library(f, path);
        snprintf(path, sizeof(path), "%s/cudnn%s64_%d.lib", lib, parts[i], f->major);
        add_library(f, path);
    }
    static const char *const v8_headers[] = {
        "cudnn.h",           "cudnn_version.h",   "cudnn_backend.h",
        "cudnn_ops_infer.h", "cudnn_ops_train.h", "cudnn_cnn_infer.h",
        "cudnn_cnn_train.h", "cudnn_adv_infer.h", "cudnn_adv_train.h"};
    static const char *const v9_headers[] = {"cudnn.h",        "cudnn_adv.h",   "cudnn_backend.h",
                                             "cudnn_cnn.h",    "cudnn_graph.h", "cudnn_ops.h",
                                             "cudnn_version.h"};
    const char *const *headers = v9 ? v9_headers : v8_headers;
    size_t nheaders = v9 ? 7 : 9;
    for (size_t i = 0; i < nheaders; i++) {
        snprintf(path, sizeof(path), "include/%s", headers[i]);
        add_header(f, path, !strcmp(headers[i], "cudnn_version.h"));
    }
    add_text(f, "LICENSE", "stand-in licence\n");
}

/* Linux libraries come as a chain: libcudnn.so -> libcudnn.so.9 -> libcudnn.so.9.1.0 */
static void linux_chain(struct fixture *f, const char *lib, const char *part)
{
    char real[256], soname[256], dev[256], name[128];
    snprintf(name, sizeof(name), "libcudnn%s.so.%d.%d.%d", part, f->major, f->minor, f->patch);
    snprintf(real, sizeof(real), "%s/%s", lib, name);
    bool links_first = f->evil && !strcmp(f->evil, "links-first");
    if (!links_first)
        add_library(f, real);
    snprintf(soname, sizeof(soname), "%s/libcudnn%s.so.%d", lib, part, f->major);
    add_entry(f, soname, AE_IFLNK, NULL, 0, name);
    snprintf(dev, sizeof(dev), "%s/libcudnn%s.so", lib, part);
    char soname_name[128];
    snprintf(soname_name, sizeof(soname_name), "libcudnn%s.so.%d", part, f->major);
    if (links_first) /* the link to a link before the link it names, then the file */
        add_entry(f, dev, AE_IFLNK, NULL, 0, soname_name);
    if (links_first)
        add_library(f, real);
    else
        add_entry(f, dev, AE_IFLNK, NULL, 0, soname_name);
}

static void linux_current(struct fixture *f, const char *lib)
{
    bool v9 = f->major >= 9;
    const char *const *parts = v9 ? v9_parts : v8_parts;
    size_t nparts =
        v9 ? sizeof(v9_parts) / sizeof(*v9_parts) : sizeof(v8_parts) / sizeof(*v8_parts);
    add_dir(f, "include");
    add_header(f, "include/cudnn.h", false);
    add_header(f, "include/cudnn_version.h", true);
    if (v9)
        add_header(f, "include/cudnn_graph.h", false);
    add_dir(f, lib);
    for (size_t i = 0; i < nparts; i++)
        linux_chain(f, lib, parts[i]);
    char path[256];
    snprintf(path, sizeof(path), "%s/libcudnn_static.a", lib);
    add_library(f, path);
    add_text(f, "LICENSE", "stand-in licence\n");
}

static void old_layout(struct fixture *f, bool windows)
{
    bool v7 = f->major < 8;
    if (windows) {
        char dll[64];
        snprintf(dll, sizeof(dll), "bin/cudnn64_%d.dll", f->major);
        add_library(f, dll);
        add_library(f, "lib/x64/cudnn.lib");
        add_header(f, "include/cudnn.h", v7);
        if (!v7)
            add_header(f, "include/cudnn_version.h", true);
    } else {
        add_dir(f, "include");
        add_header(f, "include/cudnn.h", v7);
        if (!v7)
            add_header(f, "include/cudnn_version.h", true);
        add_dir(f, "lib64");
        linux_chain(f, "lib64", "");
    }
    add_text(f, "NVIDIA_SLA_cuDNN_Support.txt", "stand-in licence\n");
}

/* Links that a lexical check of each target alone would let through, or that name no file
 * beside them: the rule is a link names a file (or link) of its own folder, nothing else. */
static bool links_evil(struct fixture *f, const char *k)
{
    char target[256];
    if (!strcmp(k, "chain-escape")) { /* each target stays inside, the pair leaves */
        add_entry(f, "lib/up", AE_IFLNK, NULL, 0, "..");
        add_entry(f, "lib/evil-link", AE_IFLNK, NULL, 0, "up/../..");
    } else if (!strcmp(k, "link-drive")) {
        add_entry(f, "lib/evil-link", AE_IFLNK, NULL, 0, "C:\\Windows\\System32");
    } else if (!strcmp(k, "link-drive-relative")) {
        add_entry(f, "lib/evil-link", AE_IFLNK, NULL, 0, "C:evil.dll");
    } else if (!strcmp(k, "link-unc")) {
        add_entry(f, "lib/evil-link", AE_IFLNK, NULL, 0, "\\\\server\\share\\x.so");
    } else if (!strcmp(k, "link-long-path")) {
        add_entry(f, "lib/evil-link", AE_IFLNK, NULL, 0, "\\\\?\\C:\\x.so");
    } else if (!strcmp(k, "link-other-install")) {
        snprintf(target, sizeof(target), "../../%d.%d.%d.0-cuda12/lib/libcudnn.so.%d", f->major,
                 f->minor, f->patch + 1, f->major);
        add_entry(f, "lib/evil-link", AE_IFLNK, NULL, 0, target);
    } else if (!strcmp(k, "link-subfolder")) { /* stays inside, but is no sibling */
        add_entry(f, "lib/evil-link", AE_IFLNK, NULL, 0, "../include/cudnn.h");
    } else if (!strcmp(k, "link-dot")) {
        add_entry(f, "lib/evil-link", AE_IFLNK, NULL, 0, ".");
    } else if (!strcmp(k, "link-nothing")) {
        add_entry(f, "lib/evil-link", AE_IFLNK, NULL, 0, "libnothing.so.9");
    } else if (!strcmp(k, "link-folder")) {
        add_dir(f, "lib/sub");
        add_entry(f, "lib/evil-link", AE_IFLNK, NULL, 0, "sub");
    } else if (!strcmp(k, "link-loop")) {
        add_entry(f, "lib/evil-link", AE_IFLNK, NULL, 0, "evil-loop");
        add_entry(f, "lib/evil-loop", AE_IFLNK, NULL, 0, "evil-link");
    } else if (!strcmp(k, "hardlink-other-folder")) {
        snprintf(target, sizeof(target), "%s/include/cudnn.h", f->top);
        add_hardlink(f, "lib/evil-hardlink", target);
    } else if (!strcmp(k, "header-two-versions")) { /* a second cudnn_version.h, one up */
        f->hminor++;
        add_header(f, "targets/x86_64-linux/include/cudnn_version.h", true);
        f->hminor--;
    } else if (!strcmp(k, "hardlink-sibling")) { /* accepted: a file beside it */
        snprintf(target, sizeof(target), "%s/lib/libcudnn_static.a", f->top);
        add_hardlink(f, "lib/libcudnn_static_copy.a", target);
    } else {
        return false;
    }
    return true;
}

static void add_evil(struct fixture *f)
{
    const char *k = f->evil;
    if (links_evil(f, k))
        return;
    if (!strcmp(k, "absolute"))
        add_text(f, "!/tmp/cdm-evil-absolute", "owned\n");
    else if (!strcmp(k, "dotdot"))
        add_text(f, "include/../../cdm-evil-dotdot", "owned\n");
    else if (!strcmp(k, "drive"))
        add_text(f, "!C:/Windows/cdm-evil-drive", "owned\n");
    else if (!strcmp(k, "device"))
        add_entry(f, "lib/evil-device", AE_IFCHR, NULL, 0, NULL);
    else if (!strcmp(k, "fifo"))
        add_entry(f, "lib/evil-fifo", AE_IFIFO, NULL, 0, NULL);
    else if (!strcmp(k, "symlink-out"))
        add_entry(f, "lib/evil-link", AE_IFLNK, NULL, 0, "../../../etc");
    else if (!strcmp(k, "symlink-abs"))
        add_entry(f, "lib/evil-link", AE_IFLNK, NULL, 0, "/etc/passwd");
    else if (!strcmp(k, "through-link")) {
        add_entry(f, "lib/up", AE_IFLNK, NULL, 0, "libcudnn_static.a");
        add_text(f, "lib/up/through-link", "owned\n");
    } else if (!strcmp(k, "hardlink-out"))
        add_hardlink(f, "lib/evil-hardlink", "/etc/passwd");
    else if (!strcmp(k, "two-tops"))
        add_text(f, "!other-top/file", "stray\n");
    else if (strcmp(k, "no-header") && strcmp(k, "so-in-windows") && strcmp(k, "links-first") &&
             strncmp(k, "header-", 7)) {
        fprintf(stderr, "make_fixture: unknown --evil kind '%s'\n", k);
        exit(2);
    }
}

static void add_zeros(struct fixture *f)
{
    struct archive_entry *e = archive_entry_new();
    char path[1024];
    snprintf(path, sizeof(path), "%s/lib/libcudnn_zeros.so.%d", f->top, f->major);
    archive_entry_set_pathname(e, path);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0755);
    archive_entry_set_size(e, (la_int64_t)f->zeros);
    if (archive_write_header(f->a, e) != ARCHIVE_OK)
        die(path, f->a);
    static const char chunk[1 << 16];
    for (unsigned long long left = f->zeros; left;) {
        size_t n = left < sizeof(chunk) ? (size_t)left : sizeof(chunk);
        if (archive_write_data(f->a, chunk, n) != (la_ssize_t)n)
            die(path, f->a);
        left -= n;
    }
    archive_entry_free(e);
}

/* Many entries in one folder with long names sharing a long prefix: the case where a check
 * that scans the entries (or links) seen so far for each new one turns quadratic. Links
 * name a library beside them, as NVIDIA's do; files are as small. */
static void add_many(struct fixture *f)
{
    char rel[256], target[64];
    snprintf(target, sizeof(target), "libcudnn.so.%d.%d.%d", f->major, f->minor, f->patch);
    for (unsigned long i = 0; i < f->many_links + f->many_files; i++) {
        bool link = i < f->many_links;
        snprintf(rel, sizeof(rel),
                 "lib/libcudnn_%s_with_a_long_name_that_shares_its_prefix_%08lu.so",
                 link ? "link" : "file", i);
        if (link)
            add_entry(f, rel, AE_IFLNK, NULL, 0, target);
        else
            add_entry(f, rel, AE_IFREG, "x", 1, NULL);
    }
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: make_fixture OUT [--version V] [--header V] [--evil KIND] "
                        "[--pad BYTES] [--lib-dir D] [--bin-dir D] [--file REL=PATH]\n");
        return 2;
    }
    const char *out = argv[1];
    const char *version = NULL, *header = NULL, *lib_dir = NULL, *bin_dir = NULL;
    struct fixture f = {0};
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--version"))
            version = argv[i + 1];
        else if (!strcmp(argv[i], "--header"))
            header = argv[i + 1];
        else if (!strcmp(argv[i], "--evil"))
            f.evil = argv[i + 1];
        else if (!strcmp(argv[i], "--pad"))
            f.pad = (size_t)strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--zeros"))
            f.zeros = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--lib-dir"))
            lib_dir = argv[i + 1];
        else if (!strcmp(argv[i], "--many-links"))
            f.many_links = strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--many-files"))
            f.many_files = strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--bin-dir"))
            bin_dir = argv[i + 1];
        else if (!strcmp(argv[i], "--file") &&
                 f.nfiles < sizeof(f.file_rel) / sizeof(*f.file_rel)) {
            char *eq = strchr(argv[i + 1], '=');
            if (!eq || eq == argv[i + 1] || !eq[1]) {
                fprintf(stderr, "make_fixture: --file wants REL=PATH, not '%s'\n", argv[i + 1]);
                return 2;
            }
            *eq = '\0';
            f.file_rel[f.nfiles] = argv[i + 1];
            f.file_path[f.nfiles++] = eq + 1;
        } else {
            fprintf(stderr, "make_fixture: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    const char *base = strrchr(out, '/');
    base = base ? base + 1 : out;
    char stem[512];
    snprintf(stem, sizeof(stem), "%s", base);
    static const char *const exts[] = {".tar.xz", ".tgz", ".tar.gz", ".zip"};
    for (size_t i = 0; i < 4; i++)
        if (ends_with(stem, exts[i]))
            stem[strlen(stem) - strlen(exts[i])] = '\0';
    /* The version: --version, else read off the name (the digits after the platform). */
    bool old = !strncmp(stem, "cudnn-", 6) && stem[6] >= '0' && stem[6] <= '9';
    if (!version) {
        const char *v = old ? strstr(stem, "-v") : NULL;
        static char buf[64];
        if (v)
            snprintf(buf, sizeof(buf), "%s", v + 2);
        else {
            const char *p = stem;
            while (*p && !(p[0] == '-' && p[1] >= '0' && p[1] <= '9'))
                p++;
            snprintf(buf, sizeof(buf), "%s", *p ? p + 1 : "9.1.0.70");
            buf[strcspn(buf, "_-")] = '\0';
        }
        version = buf;
    }
    if (sscanf(version, "%d.%d.%d", &f.major, &f.minor, &f.patch) != 3) {
        fprintf(stderr, "make_fixture: bad version '%s'\n", version);
        return 2;
    }
    f.hmajor = f.major, f.hminor = f.minor, f.hpatch = f.patch;
    if (header && sscanf(header, "%d.%d.%d", &f.hmajor, &f.hminor, &f.hpatch) != 3) {
        fprintf(stderr, "make_fixture: bad header version '%s'\n", header);
        return 2;
    }
    bool windows = strstr(stem, "windows") != NULL;
    if (f.evil && !strcmp(f.evil, "so-in-windows"))
        windows = false; /* a windows name, linux content */
    f.top = old ? "cuda" : stem;

    f.a = archive_write_new();
    if (ends_with(out, ".zip")) {
        archive_write_set_format_zip(f.a);
    } else if (ends_with(out, ".tar.xz")) {
        archive_write_set_format_pax_restricted(f.a);
        archive_write_add_filter_xz(f.a);
        archive_write_set_filter_option(f.a, "xz", "compression-level", "1"); /* fast */
    } else {
        archive_write_set_format_gnutar(f.a);
        archive_write_add_filter_gzip(f.a);
    }
    if (archive_write_open_filename(f.a, out) != ARCHIVE_OK)
        die(out, f.a);
    if (!(f.evil && !strcmp(f.evil, "no-header"))) {
        if (old)
            old_layout(&f, windows);
        else if (windows) {
            /* From 9.18 the DLLs moved to bin\x64 (as NVIDIA's archives have them). */
            bool x64 = f.major > 9 || (f.major == 9 && f.minor >= 18);
            windows_current(&f,
                            bin_dir ? bin_dir
                            : x64   ? "bin/x64"
                                    : "bin",
                            lib_dir ? lib_dir : "lib/x64");
        } else
            linux_current(&f, lib_dir ? lib_dir : "lib");
    } else {
        add_library(&f, windows ? "bin/cudnn64_9.dll" : "lib/libcudnn.so.9");
    }
    if (f.zeros)
        add_zeros(&f);
    add_many(&f);
    if (f.evil)
        add_evil(&f);
    for (size_t i = 0; i < f.nfiles; i++)
        if (*f.file_rel[i]) {
            fprintf(stderr, "make_fixture: --file '%s': this archive has no library there\n",
                    f.file_rel[i]);
            archive_write_free(f.a); /* the half-written archive goes with it */
            return 2;
        }
    if (archive_write_close(f.a) != ARCHIVE_OK)
        die(out, f.a);
    archive_write_free(f.a);
    return 0;
}
