#!/usr/bin/env python3
"""Zips a folder as NVIDIA zips cuDNN (deflate at zlib's level 6, one member a file, links
as Info-ZIP stores them), each file compressed on a core of its own so that a gigabyte of
libraries is packed in the time of the largest one:

    pack_zip.py FOLDER OUT.zip    (FOLDER's name becomes the zip's top folder)
"""
import multiprocessing
import os
import stat
import struct
import sys
import zlib

LOCAL = struct.Struct("<IHHHHHIIIHH")
CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
END = struct.Struct("<IHHHHIIH")
DOS_TIME, DOS_DATE = 0, (2024 - 1980) << 9 | 4 << 5 | 1  # 2024-04-01


def member(job):
    """(name, mode, crc, size, deflated bytes or None when stored) of one file or link."""
    path, name = job
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        data = os.readlink(path).encode()
        return name, st.st_mode, zlib.crc32(data), len(data), None, data
    with open(path, "rb") as f:
        data = f.read()
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    packed = c.compress(data) + c.flush()
    return name, st.st_mode, zlib.crc32(data), len(data), packed, None


def main():
    folder, out = sys.argv[1:3]
    top = os.path.basename(os.path.normpath(folder))
    jobs = []
    for d, dirs, files in os.walk(folder):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(d, f)
            jobs.append((path, top + "/" + os.path.relpath(path, folder)))
    # the largest first, so that it does not start last
    jobs.sort(key=lambda j: -os.lstat(j[0]).st_size)
    with multiprocessing.Pool() as pool:
        members = sorted(pool.map(member, jobs, chunksize=1), key=lambda m: m[0])
    central = []
    with open(out, "wb") as z:
        for name, mode, crc, size, packed, stored in members:
            data = packed if packed is not None else stored
            method = 8 if packed is not None else 0
            raw = name.encode()
            offset = z.tell()
            if offset + len(data) >= 1 << 32:
                sys.exit("pack_zip: past 4 GiB, which this packer does not write (zip64)")
            z.write(LOCAL.pack(0x04034B50, 20, 0, method, DOS_TIME, DOS_DATE, crc, len(data),
                               size, len(raw), 0) + raw + data)
            central.append(CENTRAL.pack(0x02014B50, 3 << 8 | 20, 20, 0, method, DOS_TIME,
                                        DOS_DATE, crc, len(data), size, len(raw), 0, 0, 0, 0,
                                        mode << 16, offset) + raw)
        start = z.tell()
        z.write(b"".join(central))
        z.write(END.pack(0x06054B50, 0, 0, len(central), len(central), z.tell() - start, start, 0))
    print(out)


if __name__ == "__main__":
    main()
