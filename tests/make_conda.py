#!/usr/bin/env python3
"""Write a conda package of cuDNN in conda-forge's layout, for cdm install to take.

    make_conda.py OUTDIR VERSION CUDA [--windows] [--conda] [--change PATH] [--drop PATH]
                  [--extra NAME] [--extra-link NAME=TARGET] [--paths-extra NAME] [--name N]

The package (cudnn-VERSION-cudaCUDA_0.tar.bz2, or .conda with --conda: a zip of
metadata.json, info-*.tar.zst and pkg-*.tar.zst) holds what conda-forge's does, by path:
lib/libcudnn*.so.<full version> with the .so.<major> and .so links (Library/bin/*.dll,
Library/include, Library/lib with --windows), include/cudnn_version.h, and info/ with
index.json (name, version, subdir, depends on cuda-version) and paths.json (every file's
sha256, size and path_type). --change PATH alters a byte of that file after paths.json is
written; --drop PATH leaves it out of the package but not out of paths.json; --extra NAME
and --extra-link NAME=TARGET add an entry of that raw name to the package, --paths-extra
NAME a row to paths.json, --name the package's name in index.json (hostile packages, for
the tests). The libraries
are bytes derived from the version, not programs. Prints the package's path.
"""
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

PARTS = ["", "_adv", "_cnn", "_graph", "_heuristic", "_ops"]


def payload(seed, size):
    out, block = bytearray(), seed.encode()
    while len(out) < size:
        block = hashlib.sha256(block).digest()
        out += block
    return bytes(out[:size])


def files_of(version, windows):
    major, minor, patch = version.split(".")[:3]
    files, links = {}, {}
    header = (f"#define CUDNN_MAJOR {major}\n#define CUDNN_MINOR {minor}\n"
              f"#define CUDNN_PATCHLEVEL {patch}\n").encode()
    if windows:
        files["Library/include/cudnn_version.h"] = header
        for i, p in enumerate(PARTS):
            files[f"Library/bin/cudnn{p}64_{major}.dll"] = payload(f"{version} {p} dll", 3000 + 211 * i)
            files[f"Library/lib/cudnn{p}.lib"] = payload(f"{version} {p} lib", 700 + i)
    else:
        files["include/cudnn_version.h"] = header
        for i, p in enumerate(PARTS):
            real = f"lib/libcudnn{p}.so.{major}.{minor}.{patch}"
            files[real] = payload(f"{version} {p}", 3000 + 211 * i)
            links[f"lib/libcudnn{p}.so.{major}"] = os.path.basename(real)
            links[f"lib/libcudnn{p}.so"] = f"libcudnn{p}.so.{major}"
    return files, links


def tar_of(entries):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as t:
        for name, data, link in entries:
            info = tarfile.TarInfo(name)
            info.mtime = 1735689600
            if link is not None:
                info.type, info.linkname = tarfile.SYMTYPE, link
                t.addfile(info)
            else:
                info.size, info.mode = len(data), 0o755 if ".so" in name or name.endswith(".dll") else 0o644
                t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def zstd(data):
    if shutil.which("zstd"):
        return subprocess.run(["zstd", "-q", "-c"], input=data, capture_output=True, check=True).stdout
    # Into a file, not stdout: to a pipe bsdtar pads its output to a 10240-byte block, zeros
    # after the zstd frame that Debian 12's libarchive 3.6.2-1+deb12u4 then reads as a bad
    # frame ("Unknown frame descriptor"); a .conda's members have no such padding.
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "member.tar.zst")
        subprocess.run(["bsdtar", "--zstd", "-cf", out, "@-"], input=data, capture_output=True, check=True)
        with open(out, "rb") as f:
            return f.read()


def main():
    args = sys.argv[1:]
    opts = {}
    for flag in ("--change", "--drop", "--extra", "--extra-link", "--paths-extra", "--name"):
        if flag in args:
            i = args.index(flag)
            opts[flag] = args[i + 1]
            del args[i:i + 2]
    windows, conda = "--windows" in args, "--conda" in args
    outdir, version, cuda = [a for a in args if not a.startswith("--")]
    files, links = files_of(version, windows)
    index = {"name": opts.get("--name", "cudnn"), "version": version, "build": f"cuda{cuda}_0", "build_number": 0,
             "subdir": "win-64" if windows else "linux-64", "license": "LicenseRef-cuDNN-Software-License-Agreement",
             "depends": [f"cuda-version >={cuda}.0,<{int(cuda) + 1}.0a0", "libgcc-ng >=12"]}
    paths = [{"_path": n, "path_type": "hardlink", "sha256": hashlib.sha256(d).hexdigest(),
              "size_in_bytes": len(d)} for n, d in files.items()]
    paths += [{"_path": n, "path_type": "softlink",
               "sha256": hashlib.sha256(files[os.path.join(os.path.dirname(n), t)] if os.path.join(os.path.dirname(n), t) in files else b"").hexdigest(),
               "size_in_bytes": 0} for n, t in links.items()]
    if "--paths-extra" in opts:
        paths.append({"_path": opts["--paths-extra"], "path_type": "hardlink",
                      "sha256": "0" * 64, "size_in_bytes": 1})
    info = {"info/index.json": json.dumps(index, indent=2).encode(),
            "info/paths.json": json.dumps({"paths": paths, "paths_version": 1}, indent=2).encode()}
    if "--change" in opts:
        d = files[opts["--change"]]
        files[opts["--change"]] = d[:-1] + bytes([d[-1] ^ 1])
    if "--drop" in opts:
        del files[opts["--drop"]]
    body = [(n, d, None) for n, d in files.items()] + [(n, None, t) for n, t in links.items()]
    if "--extra" in opts:
        body.append((opts["--extra"], b"evil", None))
    if "--extra-link" in opts:
        name, target = opts["--extra-link"].split("=", 1)
        body.append((name, None, target))
    stem = f"cudnn-{version}-cuda{cuda}_0"
    if conda:
        out = os.path.join(outdir, stem + ".conda")
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
            z.writestr("metadata.json", json.dumps({"conda_pkg_format_version": 2}))
            z.writestr(f"info-{stem}.tar.zst", zstd(tar_of([(n, d, None) for n, d in info.items()])))
            z.writestr(f"pkg-{stem}.tar.zst", zstd(tar_of(body)))
    else:
        out = os.path.join(outdir, stem + ".tar.bz2")
        import bz2
        with open(out, "wb") as f:
            f.write(bz2.compress(tar_of([(n, d, None) for n, d in info.items()] + body)))
    print(out)


if __name__ == "__main__":
    main()
