/* Whether a path lies on a network file system, where SQLite's write-ahead log is unsafe:
 * its shared-memory index cannot be shared between machines, and a lock taken on one is not
 * always seen on another (https://www.sqlite.org/wal.html, "WAL does not work over a network
 * filesystem"). */
#ifndef CDM_PLATFORM_FS_VOLUME_H
#define CDM_PLATFORM_FS_VOLUME_H

#include <stdbool.h>
#include <stddef.h>

/* True when path (or, if it does not exist yet, the nearest folder above it that does) is
 * on a network file system; kind then names it in the system's spelling ("nfs", "cifs",
 * "lustre", "fuse.sshfs"; "network drive (NTFS)" on Windows). False when it is local or
 * cannot be told: a guess must not change how a local index is written. */
bool fs_volume_is_network(const char *path, char *kind, size_t kind_size);

/* Whether path lies in a folder a cloud sync client keeps (Windows: below a folder that
 * %OneDrive%, %OneDriveCommercial% or %OneDriveConsumer% names, or a cloud placeholder on
 * the way: a reparse tag IO_REPARSE_TAG_CLOUD_*, or the attributes "recall on open / on
 * data access"): then how, as "inside the OneDrive folder 'C:\Users\a\OneDrive'
 * (%OneDrive%)" (malloc'd); NULL when not, or on POSIX, where cdm knows no such client. */
char *fs_cloud_sync(const char *path);

#endif
