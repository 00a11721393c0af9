#!/usr/bin/env python3
"""Write a wheel of NVIDIA's nvidia-cudnn-cu* layout, for pip and uv to install.

    make_wheel.py OUTDIR DIST VERSION [--windows] [--large=BYTES]

DIST is the distribution (nvidia-cudnn-cu13). The wheel holds what NVIDIA's does, by path:
nvidia/cudnn/__init__.py, nvidia/cudnn/include/cudnn_version.h, the eight cuDNN 9 libraries
in nvidia/cudnn/lib (nvidia/cudnn/bin/*.dll with --windows) beside an __init__.py, and a
dist-info with METADATA, WHEEL, top_level.txt and a RECORD of sha256 digests. The libraries
are a few KiB of bytes derived from DIST and VERSION (so two versions differ in every file),
not programs; --large makes the engines library that many bytes (a download to watch
arrive). Prints the wheel's path.
"""
import base64
import hashlib
import sys
import zipfile

PARTS = ["", "_adv", "_cnn", "_engines_precompiled", "_engines_runtime_compiled", "_graph",
         "_heuristic", "_ops"]


def library_names(major, windows):
    if windows:
        return [f"nvidia/cudnn/bin/cudnn{p}64_{major}.dll" for p in PARTS]
    return [f"nvidia/cudnn/lib/libcudnn{p}.so.{major}" for p in PARTS]


def payload(seed, size):
    out = bytearray()
    block = seed.encode()
    while len(out) < size:
        block = hashlib.sha256(block).digest()
        out += block
    return bytes(out[:size])


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    windows = "--windows" in sys.argv
    large = [int(a.split("=", 1)[1]) for a in sys.argv[1:] if a.startswith("--large=")]
    outdir, dist, version = args
    major, minor, patch = (int(x) for x in version.split(".")[:3])
    name = dist.replace("-", "_")
    tag = "py3-none-win_amd64" if windows else "py3-none-manylinux_2_27_x86_64"
    info = f"{name}-{version}.dist-info"
    files = {
        "nvidia/cudnn/__init__.py": b"",
        f"nvidia/cudnn/{'bin' if windows else 'lib'}/__init__.py": b"",
        "nvidia/cudnn/include/cudnn_version.h": (
            f"#define CUDNN_MAJOR {major}\n#define CUDNN_MINOR {minor}\n"
            f"#define CUDNN_PATCHLEVEL {patch}\n").encode(),
    }
    for i, lib in enumerate(library_names(major, windows)):
        size = large[0] if large and "_engines_precompiled" in lib else 3000 + 517 * i
        files[lib] = payload(f"{dist} {version} {lib}", size)
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n"
        f"Summary: cuDNN runtime libraries\nRequires-Python: >=3\n").encode()
    files[f"{info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: cdm-tests\nRoot-Is-Purelib: true\nTag: {tag}\n").encode()
    files[f"{info}/top_level.txt"] = b"nvidia\n"
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = f"{outdir}/{name}-{version}-{tag}.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            entry = zipfile.ZipInfo(path, date_time=(2025, 1, 1, 0, 0, 0))
            entry.external_attr = (0o100755 if ".so" in path or path.endswith(".dll")
                                   else 0o100644) << 16
            z.writestr(entry, data, zipfile.ZIP_DEFLATED)
    print(wheel)


if __name__ == "__main__":
    main()
