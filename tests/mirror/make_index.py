#!/usr/bin/env python3
"""Writes a Python package index of the simple API for the given wheels (tests only).

usage: make_index.py MIRROR INDEX [--html-only] [--no-hashes] [--link] WHEEL...

Each wheel goes to MIRROR/packages/<its name> (a symbolic link with --link: NVIDIA's real
wheels are large). Each project (the wheel name's first part, normalised as PEP 503 says:
nvidia_cudnn_cu12 -> nvidia-cudnn-cu12) gets MIRROR/INDEX/<project>/index.html, anchors
whose href is relative (../../packages/<name>#sha256=<hex>) as PyPI's pages had them, and,
unless --html-only, index.json in PEP 691's form with PEP 700's sizes (api-version 1.1).
--no-hashes leaves the hashes out of both.
"""
import hashlib
import json
import os
import re
import shutil
import sys


def main():
    args = sys.argv[1:]
    flags = {a for a in args if a.startswith("--")}
    mirror, index, *wheels = [a for a in args if not a.startswith("--")]
    os.makedirs(os.path.join(mirror, "packages"), exist_ok=True)
    projects = {}
    for w in wheels:
        name = os.path.basename(w)
        dest = os.path.join(mirror, "packages", name)
        if "--link" in flags:
            if not os.path.lexists(dest):
                os.symlink(os.path.abspath(w), dest)
        else:
            shutil.copyfile(w, dest)
        h = hashlib.sha256()
        with open(w, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        project = re.sub(r"[-_.]+", "-", name.split("-")[0]).lower()
        projects.setdefault(project, []).append((name, h.hexdigest(), os.path.getsize(w)))
    for project, files in projects.items():
        folder = os.path.join(mirror, index, project)
        os.makedirs(folder, exist_ok=True)
        hashes = "--no-hashes" not in flags
        anchors = "".join(
            f'    <a href="../../packages/{n}{"#sha256=" + h if hashes else ""}">{n}</a><br/>\n'
            for n, h, _ in files)
        with open(os.path.join(folder, "index.html"), "w") as f:
            f.write(f"<!DOCTYPE html>\n<html>\n  <head><title>Links for {project}</title></head>\n"
                    f"  <body>\n    <h1>Links for {project}</h1>\n{anchors}  </body>\n</html>\n")
        if "--html-only" in flags:
            continue
        doc = {"meta": {"api-version": "1.1"}, "name": project, "versions": [],
               "files": [{"filename": n, "url": f"../../packages/{n}",
                          "hashes": {"sha256": h} if hashes else {}, "size": s,
                          "yanked": False} for n, h, s in files]}
        with open(os.path.join(folder, "index.json"), "w") as f:
            json.dump(doc, f)


if __name__ == "__main__":
    main()
