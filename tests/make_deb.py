#!/usr/bin/env python3
"""Write NVIDIA's Debian packages of cuDNN, in the layout of its CUDA repository's, for
cdm install to take.

    make_deb.py OUTDIR VERSION CUDA PART [--from DIR] [--arch A] [--package NAME]
                [--change PATH] [--drop PATH] [--extra NAME] [--extra-link NAME=TARGET]
                [--md5-extra NAME] [--no-md5sums]

PART is one package of the version, as dpkg -L lists NVIDIA's 9.14 packages:
  runtime  libcudnnN-cuda-M: usr/lib/<triplet>/libcudnn*.so.<A.B.C> and the .so.<A> links
  headers  libcudnnN-headers-cuda-M: usr/include/<triplet>/cudnn*_vN.h and the cudnn*.h
           links to them
  dev      libcudnnN-dev-cuda-M: the libcudnn*.so links only
  dev-old  libcudnnN-dev-cuda-M before 9.14: the cudnn*_vN.h headers (update-alternatives
           gave them their names) and the .so links
each with usr/share/doc/<package>/{copyright,changelog.Debian.gz}, and a control.tar.xz
holding control (Package, Source, Version A.B.C.D-1, Architecture, Depends, Provides,
Description as NVIDIA writes them) and md5sums. --from DIR takes the libraries and headers
from DIR/lib and DIR/include (a real cuDNN: a wheel's nvidia/cudnn), else they are bytes
derived from the version. The .deb is built by dpkg-deb --build when it is there and the
package is well formed, else written here (ar of debian-binary, control.tar.xz,
data.tar.xz). Hostile packages, for the tests: --change PATH alters a byte of that file
after md5sums is written; --drop PATH leaves it out but listed; --extra NAME and
--extra-link NAME=TARGET add an entry of that raw name; --md5-extra NAME a row to md5sums;
--no-md5sums leaves md5sums out; --package NAME the control's Package. --compress C: the
data.tar's compression, as dpkg-deb -Z takes it (default xz; none for large real files in
tests). Prints the path.
"""
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

PARTS = ["", "_adv", "_cnn", "_graph", "_heuristic", "_ops"]
HEADERS = ["cudnn", "cudnn_adv", "cudnn_backend", "cudnn_cnn", "cudnn_graph", "cudnn_ops", "cudnn_version"]


def payload(seed, size):
    out, block = bytearray(), seed.encode()
    while len(out) < size:
        block = hashlib.sha256(block).digest()
        out += block
    return bytes(out[:size])


def cudnn_files(version, source):
    """{stem: bytes} of the libraries (libcudnn_ops) and {stem: bytes} of the headers."""
    major, minor, patch = version.split(".")[:3]
    libs, headers = {}, {}
    if source:
        for name in sorted(os.listdir(os.path.join(source, "lib"))):
            if name.startswith("libcudnn") and ".so" in name:
                with open(os.path.join(source, "lib", name), "rb") as f:
                    libs[name.split(".so")[0]] = f.read()
        for name in sorted(os.listdir(os.path.join(source, "include"))):
            # NVIDIA's wheels hold each header twice, as cudnn_adv.h and cudnn_adv_v9.h
            if name.startswith("cudnn") and name.endswith(".h") and not re.search(r"_v[0-9]+\.h$", name):
                with open(os.path.join(source, "include", name), "rb") as f:
                    headers[name[:-2]] = f.read()
        return libs, headers
    for i, p in enumerate(PARTS):
        libs[f"libcudnn{p}"] = payload(f"{version} {p}", 3000 + 211 * i)
    for h in HEADERS:
        headers[h] = f"/* {h} */\n".encode()
    headers["cudnn_version"] = (f"#define CUDNN_MAJOR {major}\n#define CUDNN_MINOR {minor}\n"
                                f"#define CUDNN_PATCHLEVEL {patch}\n").encode()
    return libs, headers


def package_tree(version, cuda, part, arch, source):
    """The package's name, control fields, files {path: bytes} and links {path: target}."""
    major = version.split(".")[0]
    abc = ".".join(version.split(".")[:3])
    triplet = "x86_64-linux-gnu" if arch == "amd64" else "aarch64-linux-gnu"
    lib, inc = f"usr/lib/{triplet}", f"usr/include/{triplet}"
    libs, headers = cudnn_files(version, source)
    files, links = {}, {}
    kind = {"runtime": "", "headers": "-headers", "dev": "-dev", "dev-old": "-dev"}[part]
    name = f"libcudnn{major}{kind}-cuda-{cuda}"
    if part == "runtime":
        for stem, data in libs.items():
            files[f"{lib}/{stem}.so.{abc}"] = data
            links[f"{lib}/{stem}.so.{major}"] = f"{stem}.so.{abc}"
    if part in ("headers", "dev-old"):
        for stem, data in headers.items():
            files[f"{inc}/{stem}_v{major}.h"] = data
            if part == "headers":
                links[f"{inc}/{stem}.h"] = f"{stem}_v{major}.h"
    if part in ("dev", "dev-old"):
        for stem in libs:
            links[f"{lib}/{stem}.so"] = f"{stem}.so.{major}"
    doc = f"usr/share/doc/{name}"
    files[f"{doc}/copyright"] = b"NVIDIA cuDNN Software License Agreement\n"
    files[f"{doc}/changelog.Debian.gz"] = payload(f"{name} changelog", 200)
    full = f"{version}-1"
    depends = {"runtime": "zlib1g",
               "headers": None,
               "dev": f"libcudnn{major}-headers-cuda-{cuda} (= {full}), libcudnn{major}-cuda-{cuda} (= {full})",
               "dev-old": f"libcudnn{major}-cuda-{cuda} (= {full})"}[part]
    what = {"runtime": "runtime libraries", "headers": "header files",
            "dev": "development libraries", "dev-old": "development libraries and headers"}[part]
    size = sum(len(d) for d in files.values()) // 1024 + 1
    control = [f"Package: {name}", "Source: cudnn", f"Version: {full}", f"Architecture: {arch}",
               "Maintainer: cudatools <cudatools@nvidia.com>", f"Installed-Size: {size}"]
    if depends:
        control.append(f"Depends: {depends}")
    control += [f"Provides: libcudnn{major}{kind}", "Section: multiverse/libs", "Priority: optional",
                f"Description: cuDNN {what} for CUDA {cuda}.0",
                f" cuDNN {what} containing primitives for deep neural networks."]
    return name, "\n".join(control) + "\n", files, links


def add(t, name, data=None, link=None, mode=0o644, kind=None):
    info = tarfile.TarInfo(name)
    info.mtime, info.uname, info.gname = 1735689600, "root", "root"
    if kind == "dir":
        info.type, info.mode = tarfile.DIRTYPE, 0o755
        t.addfile(info)
    elif link is not None:
        info.type, info.linkname = tarfile.SYMTYPE, link
        t.addfile(info)
    else:
        info.size, info.mode = len(data), mode
        t.addfile(info, io.BytesIO(data))


def tar_xz(entries):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz", format=tarfile.GNU_FORMAT) as t:
        for e in entries:
            add(t, *e[:2], **e[2])
    return buf.getvalue()


def ar(members):
    out = bytearray(b"!<arch>\n")
    for name, data in members:
        out += f"{name:<16}{1735689600:<12}{0:<6}{0:<6}{100644:<8}{len(data):<10}`\n".encode()
        out += data + (b"\n" if len(data) % 2 else b"")
    return bytes(out)


def data_entries(files, links, extra):
    dirs = set()
    for path in list(files) + list(links):
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    entries = [("./", None, {"kind": "dir"})]
    entries += [(f"./{d}/", None, {"kind": "dir"}) for d in sorted(dirs)]
    entries += [(f"./{p}", d, {"mode": 0o644}) for p, d in files.items()]
    entries += [(f"./{p}", None, {"link": t}) for p, t in links.items()]
    return entries + extra


def main():
    args = sys.argv[1:]
    opts = {}
    for flag in ("--from", "--arch", "--package", "--change", "--drop", "--extra", "--extra-link", "--md5-extra",
                 "--compress"):
        if flag in args:
            i = args.index(flag)
            opts[flag] = args[i + 1]
            del args[i:i + 2]
    no_md5 = "--no-md5sums" in args
    outdir, version, cuda, part = [a for a in args if not a.startswith("--")]
    arch = opts.get("--arch", "amd64")
    name, control, files, links = package_tree(version, cuda, part, arch, opts.get("--from"))
    if "--package" in opts:
        control = control.replace(f"Package: {name}", f"Package: {opts['--package']}")
    md5 = "".join(f"{hashlib.md5(d).hexdigest()}  {p}\n" for p, d in files.items())
    if "--md5-extra" in opts:
        md5 += f"{'0' * 32}  {opts['--md5-extra']}\n"
    if "--change" in opts:
        d = files[opts["--change"]]
        files[opts["--change"]] = d[:-1] + bytes([d[-1] ^ 1])
    if "--drop" in opts:
        del files[opts["--drop"]]
    extra = []
    if "--extra" in opts:
        extra.append((opts["--extra"], b"evil", {}))
    if "--extra-link" in opts:
        n, target = opts["--extra-link"].split("=", 1)
        extra.append((n, None, {"link": target}))
    out = os.path.join(outdir, f"{name}_{version}-1_{arch}.deb")
    hostile = bool(extra) or no_md5 or "--md5-extra" in opts
    if shutil.which("dpkg-deb") and not hostile:
        with tempfile.TemporaryDirectory() as root:
            os.chmod(root, 0o755)
            for p, d in files.items():
                os.makedirs(os.path.join(root, os.path.dirname(p)), exist_ok=True)
                with open(os.path.join(root, p), "wb") as f:
                    f.write(d)
            for p, t in links.items():
                os.makedirs(os.path.join(root, os.path.dirname(p)), exist_ok=True)
                os.symlink(t, os.path.join(root, p))
            os.makedirs(os.path.join(root, "DEBIAN"))
            with open(os.path.join(root, "DEBIAN/control"), "w") as f:
                f.write(control)
            with open(os.path.join(root, "DEBIAN/md5sums"), "w") as f:
                f.write(md5)
            compress = opts.get("--compress", "xz")
            level = ["-z1"] if compress == "xz" else []
            subprocess.run(["dpkg-deb", "--root-owner-group", f"-Z{compress}", *level, "--build", root, out],
                           check=True, stdout=subprocess.DEVNULL)
    else:
        meta = [("./", None, {"kind": "dir"}), ("./control", control.encode(), {})]
        if not no_md5:
            meta.append(("./md5sums", md5.encode(), {}))
        with open(out, "wb") as f:
            f.write(ar([("debian-binary", b"2.0\n"), ("control.tar.xz", tar_xz(meta)),
                        ("data.tar.xz", tar_xz(data_entries(files, links, extra)))]))
    print(out)


if __name__ == "__main__":
    main()
