#!/usr/bin/env python3
"""Repacks NVIDIA's Windows cuDNN wheel (nvidia-cudnn-cuN, win_amd64) as the Windows archive
NVIDIA publishes for the same release (as NVIDIA lays its archives out):

    cudnn-windows-x86_64-<A.B.C.D>_cuda<N>-archive/{bin,include,lib/x64}/..., LICENSE

    pack_wheel_zip.py WHEEL OUT_DIR    (prints the archive's path)

Each member's compressed bytes are copied as the wheel holds them (NVIDIA's own deflate
streams, with their CRC and sizes): only the names change, so a gigabyte of DLLs is packed
in the time it takes to copy it, and nothing is inflated here that cdm must inflate itself.
"""
import os
import re
import struct
import sys
import zipfile

LOCAL = struct.Struct("<IHHHHHIIIHH")  # local file header, signature 0x04034b50
CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")  # central directory header, 0x02014b50
END = struct.Struct("<IHHHHIIH")  # end of central directory, 0x06054b50


def layout(name, top):
    """The archive's name for a wheel member, or None for what the archive does not hold."""
    m = re.fullmatch(r"nvidia/cudnn/(bin/[^/]+\.dll|include/[^/]+\.h|lib/x64/[^/]+\.lib)", name)
    if m:
        return top + "/" + m.group(1)
    if re.fullmatch(r"nvidia_cudnn_cu\d+-[0-9.]+\.dist-info/License\.txt", name):
        return top + "/LICENSE"
    return None


def raw_member(wheel, info):
    """The member's compressed bytes, read past its local header."""
    wheel.seek(info.header_offset)
    head = LOCAL.unpack(wheel.read(LOCAL.size))
    if head[0] != 0x04034B50:
        sys.exit("pack_wheel_zip: '%s' has no local header at %d" % (info.filename, info.header_offset))
    wheel.seek(head[9] + head[10], os.SEEK_CUR)
    return wheel.read(info.compress_size)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: pack_wheel_zip.py WHEEL OUT_DIR")
    wheel_path, out_dir = sys.argv[1:]
    m = re.search(r"nvidia_cudnn_cu(\d+)-(\d+\.\d+\.\d+\.\d+)-py3-none-win_amd64\.whl$", wheel_path)
    if not m:
        sys.exit("pack_wheel_zip: '%s' is not a win_amd64 nvidia-cudnn-cuN wheel" % wheel_path)
    top = "cudnn-windows-x86_64-%s_cuda%s-archive" % (m.group(2), m.group(1))
    out_path = os.path.join(out_dir, top + ".zip")
    entries = []  # (name, info or None for a folder)
    with zipfile.ZipFile(wheel_path) as z:
        for info in z.infolist():
            new = layout(info.filename, top)
            if new:
                entries.append((new, info))
    if not any(n.endswith(".dll") for n, _ in entries):
        sys.exit("pack_wheel_zip: '%s' holds no nvidia/cudnn/bin/*.dll" % wheel_path)
    folders = sorted({top + "/"} | {n[: i + 1] for n, _ in entries for i in range(len(n)) if n[i] == "/"})
    os.makedirs(out_dir, exist_ok=True)
    central = []
    with open(wheel_path, "rb") as wheel, open(out_path + ".part", "wb") as out:
        for name, info in [(f, None) for f in folders] + sorted(entries):
            encoded = name.encode()
            if info is None:
                method, crc, csize, size, data, attr = 0, 0, 0, 0, b"", 0x10
            else:
                data = raw_member(wheel, info)
                method, crc, csize, size, attr = info.compress_type, info.CRC, info.compress_size, info.file_size, 0x20
            offset = out.tell()
            out.write(LOCAL.pack(0x04034B50, 20, 0, method, 0, 0x21, crc, csize, size, len(encoded), 0))
            out.write(encoded)
            out.write(data)
            central.append(CENTRAL.pack(0x02014B50, 20, 20, 0, method, 0, 0x21, crc, csize, size,
                                        len(encoded), 0, 0, 0, 0, attr, offset) + encoded)
        start = out.tell()
        for c in central:
            out.write(c)
        out.write(END.pack(0x06054B50, 0, 0, len(central), len(central), out.tell() - start, start, 0))
    os.replace(out_path + ".part", out_path)
    print(out_path)


if __name__ == "__main__":
    main()
