#!/usr/bin/env python3
"""Write NVIDIA's RPM packages of cuDNN, in the layout of its CUDA repository for RHEL, with
rpmbuild, for cdm install to take.

    make_rpm.py OUTDIR VERSION CUDA PART [--from DIR] [--arch A] [--package NAME]
                [--lie PATH] [--rename PATH=NAME] [--digest md5]

PART is one package of the version, as NVIDIA splits it (the Debian packages' parts):
  runtime    libcudnnN-cuda-M: usr/lib64/libcudnn*.so.<A.B.C> and the .so.<A> links
  headers    libcudnnN-headers-cuda-M: usr/include/cudnn*_vN.h and the cudnn*.h links
  devel      libcudnnN-devel-cuda-M: the libcudnn*.so links only
  devel-old  libcudnnN-devel-cuda-M before 9.14: the cudnn*_vN.h headers and the .so links
built by rpmbuild (its header's NAME, VERSION A.B.C.D, RELEASE 1, ARCH, and every file's
SHA-256 in FILEDIGESTS), with an uncompressed payload so that the tests can edit it. --from
DIR takes the libraries and headers from DIR/lib and DIR/include (a real cuDNN), else they
are bytes derived from the version. Hostile packages, for the tests: --lie PATH changes one
hex digit of that file's digest in the header; --rename PATH=NAME writes NAME (of the same
length) for the file's base name in the header and the payload; --digest md5 has rpmbuild
write MD5 digests (as before rpm 4.6). Prints the path.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_deb import cudnn_files  # noqa: E402  the same bytes as the Debian packages'


def tree(version, cuda, part, source):
    major = version.split(".")[0]
    abc = ".".join(version.split(".")[:3])
    libs, headers = cudnn_files(version, source)
    files, links = {}, {}
    kind = {"runtime": "", "headers": "-headers", "devel": "-devel", "devel-old": "-devel"}[part]
    if part == "runtime":
        for stem, data in libs.items():
            files[f"usr/lib64/{stem}.so.{abc}"] = data
            links[f"usr/lib64/{stem}.so.{major}"] = f"{stem}.so.{abc}"
    if part in ("headers", "devel-old"):
        for stem, data in headers.items():
            files[f"usr/include/{stem}_v{major}.h"] = data
            if part == "headers":
                links[f"usr/include/{stem}.h"] = f"{stem}_v{major}.h"
    if part in ("devel", "devel-old"):
        for stem in libs:
            links[f"usr/lib64/{stem}.so"] = f"{stem}.so.{major}"
    return f"libcudnn{major}{kind}-cuda-{cuda}", files, links


def main():
    args = sys.argv[1:]
    opts = {}
    for flag in ("--from", "--arch", "--package", "--lie", "--rename", "--digest"):
        if flag in args:
            i = args.index(flag)
            opts[flag] = args[i + 1]
            del args[i:i + 2]
    outdir, version, cuda, part = args
    arch = opts.get("--arch", "x86_64")
    name, files, links = tree(version, cuda, part, opts.get("--from"))
    name = opts.get("--package", name)
    with tempfile.TemporaryDirectory() as work:
        root = os.path.join(work, "root")
        for p, d in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(p)), exist_ok=True)
            with open(os.path.join(root, p), "wb") as f:
                f.write(d)
        for p, t in links.items():
            os.makedirs(os.path.join(root, os.path.dirname(p)), exist_ok=True)
            os.symlink(t, os.path.join(root, p))
        listed = "\n".join("/" + p for p in list(files) + list(links))
        spec = os.path.join(work, "cudnn.spec")
        with open(spec, "w") as f:
            f.write(f"""Name: {name}
Version: {version}
Release: 1
Summary: cuDNN for CUDA {cuda}
License: LicenseRef-NVIDIA-cuDNN
Vendor: NVIDIA Corporation
BuildArch: {arch}
AutoReqProv: no
%description
cuDNN {part} for CUDA {cuda}.0
%install
cp -a {root}/. %{{buildroot}}/
%files
{listed}
""")
        defines = {"_topdir": os.path.join(work, "top"), "_rpmdir": outdir, "__strip": "/bin/true",
                   "_build_id_links": "none", "debug_package": "%{nil}", "_binary_payload": "w.ufdio",
                   "__brp_strip": "/bin/true", "__os_install_post": "%{nil}",
                   "_binary_filedigest_algorithm": "1" if opts.get("--digest") == "md5" else "8",
                   "_build_name_fmt": "%%{NAME}-%%{VERSION}-%%{RELEASE}.%%{ARCH}.rpm"}
        cmd = ["rpmbuild", "-bb", "--quiet"]
        for k, v in defines.items():
            cmd += ["--define", f"{k} {v}"]
        subprocess.run(cmd + [spec], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = os.path.join(outdir, f"{name}-{version}-1.{arch}.rpm")
    if "--lie" in opts or "--rename" in opts:
        data = bytearray(open(out, "rb").read())
        if "--lie" in opts:
            q = subprocess.run(["rpm", "-qp", "--qf", "[%{FILENAMES} %{FILEDIGESTS}\n]", out],
                               capture_output=True, text=True, check=True).stdout
            digest = dict(line.split() for line in q.splitlines() if len(line.split()) == 2)["/" + opts["--lie"]]
            at = data.index(digest.encode())
            data[at] = ord("0") if data[at] != ord("0") else ord("1")
        if "--rename" in opts:
            old, new = opts["--rename"].split("=", 1)
            old = os.path.basename(old).encode()
            assert len(new) == len(old), "--rename keeps the length"
            data = bytearray(re.sub(re.escape(old), new.encode(), bytes(data)))
        with open(out, "wb") as f:
            f.write(data)
    print(out)


if __name__ == "__main__":
    main()
