#!/usr/bin/env python3
"""Writes a mirror of NVIDIA's redist folder from archives made by make_fixture (tests only).

usage: make_mirror.py MIRROR LABEL [--per-build] PLATFORM/KEY=ARCHIVE...

Each archive is copied to MIRROR/cudnn/PLATFORM/<its name> and listed in
MIRROR/redistrib_LABEL.json, in the schema of NVIDIA's manifests (docs/sources.md): release_date, release_label, release_product, then the cudnn component with name,
license, license_path, version, one object per platform and cuda_variant placed among the
platforms, not first; sizes as strings; a cudnn_samples component beside it.

KEY is a variant (cuda12: the archive goes under that key) or "flat" (the archive's
fields sit in the platform object itself, beside any variants: 9.27.0's windows-arm64).
--per-build writes the 8.5-8.9 per-build shape: flat platforms and no cuda_variant.
"""
import hashlib
import json
import os
import re
import shutil
import sys


def archive_fields(mirror, platform, path):
    name = os.path.basename(path)
    rel = f"cudnn/{platform}/{name}"
    os.makedirs(os.path.join(mirror, "cudnn", platform), exist_ok=True)
    shutil.copyfile(path, os.path.join(mirror, rel))
    data = open(path, "rb").read()
    return {
        "relative_path": rel,
        "sha256": hashlib.sha256(data).hexdigest(),
        "md5": hashlib.md5(data).hexdigest(),
        "size": str(len(data)),
    }


def main():
    args = sys.argv[1:]
    per_build = "--per-build" in args
    args = [a for a in args if a != "--per-build"]
    mirror, label, entries = args[0], args[1], args[2:]
    platforms, variants, version = {}, set(), None
    for spec in entries:
        where, path = spec.split("=", 1)
        platform, key = where.split("/", 1)
        m = re.search(r"-(\d+\.\d+\.\d+\.\d+)_cuda(\d+)", os.path.basename(path))
        version = version or m.group(1)
        variants.add(m.group(2))
        fields = archive_fields(mirror, platform, path)
        obj = platforms.setdefault(platform, {})
        if key == "flat" or per_build:
            obj.update(fields)
        else:
            obj[key] = fields
    cudnn = {
        "name": "NVIDIA CUDA Deep Neural Network library",
        "license": "cudnn",
        "license_path": "cudnn/LICENSE.txt",
        "version": version,
    }
    for i, (platform, obj) in enumerate(sorted(platforms.items())):
        cudnn[platform] = obj
        if i == 0 and not per_build:  # cuda_variant among the platforms, as NVIDIA has it
            cudnn["cuda_variant"] = sorted(variants, key=int)
    manifest = {
        "release_date": "2025-11-20",
        "release_label": label,
        "release_product": "cudnn",
        "cudnn": cudnn,
        "cudnn_samples": {
            "name": "NVIDIA cuDNN samples",
            "license": "cudnn",
            "license_path": "cudnn_samples/LICENSE.txt",
            "version": version,
            "source": {"relative_path": "cudnn_samples/source/cudnn_samples-source.tar.xz",
                       "sha256": "0" * 64, "md5": "0" * 32, "size": "1"},
        },
    }
    with open(os.path.join(mirror, f"redistrib_{label}.json"), "w") as f:
        json.dump(manifest, f, indent=4)
        f.write("\n")


if __name__ == "__main__":
    main()
