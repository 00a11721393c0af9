/*
 * deps-check: proves the static libarchive, SQLite and inih link and work.
 * Writes a deflated zip into the temp folder and reads it back, runs a query
 * on an in-memory database, parses an INI string; prints OK or the failure.
 */
#include <archive.h>
#include <archive_entry.h>
#include <ini.h>
#include <sqlite3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char payload[] = "cuDNN 8.8.0 for CUDA 12\n";

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "deps-check: %s: %s\n", what, detail ? detail : "unknown error");
    return 1;
}

static int write_zip(const char *path)
{
    struct archive *a = archive_write_new();
    struct archive_entry *e = archive_entry_new();
    int rc = 1;

    if (archive_write_set_format_zip(a) != ARCHIVE_OK ||
        archive_write_zip_set_compression_deflate(a) != ARCHIVE_OK ||
        archive_write_open_filename(a, path) != ARCHIVE_OK)
        goto out;
    archive_entry_set_pathname(e, "cuda/include/cudnn_version.h");
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, sizeof(payload) - 1);
    if (archive_write_header(a, e) != ARCHIVE_OK ||
        archive_write_data(a, payload, sizeof(payload) - 1) != (la_ssize_t)(sizeof(payload) - 1) ||
        archive_write_close(a) != ARCHIVE_OK)
        goto out;
    rc = 0;
out:
    if (rc)
        fail("cannot write zip", archive_error_string(a));
    archive_entry_free(e);
    archive_write_free(a);
    return rc;
}

static int read_zip(const char *path)
{
    struct archive *a = archive_read_new();
    struct archive_entry *e = NULL;
    char buf[64] = {0};
    int rc = 1;

    if (archive_read_support_format_zip(a) != ARCHIVE_OK ||
        archive_read_open_filename(a, path, 10240) != ARCHIVE_OK ||
        archive_read_next_header(a, &e) != ARCHIVE_OK)
        goto out;
    if (strcmp(archive_entry_pathname(e), "cuda/include/cudnn_version.h") != 0 ||
        archive_read_data(a, buf, sizeof(buf) - 1) != (la_ssize_t)(sizeof(payload) - 1) ||
        strcmp(buf, payload) != 0) {
        archive_set_error(a, -1, "entry read back differs");
        goto out;
    }
    if (archive_read_next_header(a, &e) != ARCHIVE_EOF)
        goto out;
    rc = 0;
out:
    if (rc)
        fail("cannot read zip back", archive_error_string(a));
    archive_read_free(a);
    return rc;
}

static int check_sqlite(void)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc = 1;

    if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
        sqlite3_exec(db,
                     "CREATE TABLE v(name TEXT PRIMARY KEY);"
                     "INSERT INTO v VALUES ('8.8.0'), ('9.1.0');",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT count(*), max(name) FROM v", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW)
        goto out;
    if (sqlite3_column_int(st, 0) != 2 ||
        strcmp((const char *)sqlite3_column_text(st, 1), "9.1.0") != 0) {
        fail("sqlite", "wrong query result");
        goto out_quiet;
    }
    rc = 0;
out:
    if (rc)
        fail("sqlite", sqlite3_errmsg(db));
out_quiet:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

static int on_ini(void *user, const char *section, const char *name, const char *value)
{
    if (strcmp(section, "store") == 0 && strcmp(name, "path") == 0)
        *(int *)user = strcmp(value, "C:\\cudnn_archive") == 0;
    return 1;
}

static int check_inih(void)
{
    int ok = 0;

    if (ini_parse_string("; cdm\n[store]\npath = C:\\cudnn_archive\n", on_ini, &ok) != 0 || !ok)
        return fail("inih", "cannot parse the INI string");
    return 0;
}

int main(void)
{
    const char *dir = getenv("TEMP");
    char path[1024];
    int rc;

    if (!dir)
        dir = getenv("TMPDIR");
    if (!dir)
        dir = ".";
    rc = snprintf(path, sizeof(path), "%s/cdm-deps-check-%ld.zip", dir, (long)time(NULL));
    if (rc < 0 || (size_t)rc >= sizeof(path))
        return fail("temp path too long", dir);

    rc = write_zip(path);
    if (!rc)
        rc = read_zip(path);
    remove(path);
    rc = rc || check_sqlite() || check_inih();
    if (rc)
        return 1;
    printf("OK (%s, SQLite %s, inih)\n", archive_version_string(), sqlite3_libversion());
    return fflush(stdout) != 0 || ferror(stdout);
}
