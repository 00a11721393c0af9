#!/usr/bin/env python3
"""Pack an installed distribution back into a wheel, from its RECORD, for pip to reinstall
where no registry can be reached (the GPU machine):

    wheel_of_installed.py SITE_PACKAGES DIST OUTDIR [--deflate]

The wheel holds every file RECORD names, with its mode, uncompressed (the libraries are
large and a reinstall is what is tested, not the packing), or with --deflate compressed at
zlib's level 6, as NVIDIA's wheels are (for the benches). Prints the wheel's path.
"""
import csv
import os
import re
import sys
import zipfile


def main():
    deflate = "--deflate" in sys.argv
    site, dist, outdir = [a for a in sys.argv[1:] if a != "--deflate"]
    norm = re.sub(r"[-_.]+", "_", dist).lower()
    infos = [d for d in os.listdir(site)
             if d.endswith(".dist-info") and d.lower().startswith(norm + "-")]
    if not infos:
        sys.exit(f"no {dist} dist-info in {site}")
    info = infos[0]
    version = info[len(norm) + 1:-len(".dist-info")]
    tag = "py3-none-manylinux_2_27_x86_64"
    for line in open(os.path.join(site, info, "WHEEL")):
        if line.startswith("Tag:"):
            tag = line.split(":", 1)[1].strip()
            break
    wheel = os.path.join(outdir, f"{norm}-{version}-{tag}.whl")
    with open(os.path.join(site, info, "RECORD"), newline="") as f:
        paths = [row[0] for row in csv.reader(f) if row]
    method = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    with zipfile.ZipFile(wheel, "w", method, compresslevel=6 if deflate else None) as z:
        for rel in paths:
            full = os.path.join(site, rel)
            if rel.endswith("INSTALLER") or rel.endswith("REQUESTED") or "__pycache__" in rel:
                continue
            if not os.path.isfile(full):
                continue
            entry = zipfile.ZipInfo(rel, date_time=(2025, 1, 1, 0, 0, 0))
            entry.external_attr = (os.stat(full).st_mode & 0xFFFF) << 16
            with open(full, "rb") as data:
                z.writestr(entry, data.read())
    print(wheel)


if __name__ == "__main__":
    main()
