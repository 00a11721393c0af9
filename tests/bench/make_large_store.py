#!/usr/bin/env python3
"""A large store for the scale figures: INSTALLS installs and PROJECTS linked projects.

    tests/bench/make_large_store.py CDM MAKE_FIXTURE WORK [INSTALLS [PROJECTS]]

One install is made for real (`cdm install` of a generated archive), so the index has
cdm's own schema and rows; the other installs are copies of its row, its file rows and
its folder (hard links), each under a version of its own. Every project is a real folder
with a real link into the store and a pin file, recorded as one generation, as `cdm link`
would leave it (written as an index of before the state split had them, then moved into
the user's state by cdm itself). Writes WORK/config.ini, WORK/store and WORK/state.db;
prints the shell line that points cdm at them (CDM_CONFIG, CDM_ROOT, CDM_STATE).
"""
import os
import sqlite3
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    cdm, make_fixture, work = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    installs = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    projects = int(sys.argv[5]) if len(sys.argv) > 5 else 10000
    store = os.path.join(work, "store")
    config = os.path.join(work, "config.ini")
    os.makedirs(work, exist_ok=True)
    with open(config, "w") as f:
        f.write("[store]\nroot = %s\n" % store)
    # The user's state (the projects' history) beside the store, not in the real HOME.
    state = os.path.join(work, "state.db")
    env = dict(os.environ, CDM_CONFIG=config, CDM_ROOT=store, CDM_STATE=state)

    archive = os.path.join(work, "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz")
    subprocess.run([make_fixture, archive], check=True)
    subprocess.run([cdm, "install", "-q", archive], check=True, env=env)
    os.remove(archive)

    db = sqlite3.connect(os.path.join(store, "cdm.db"))
    cols = [r[1] for r in db.execute("PRAGMA table_info(installs)")]
    (seed,) = db.execute("SELECT * FROM installs").fetchall()
    seed = dict(zip(cols, seed))
    fcols = [r[1] for r in db.execute("PRAGMA table_info(files)")]
    files = db.execute("SELECT * FROM files WHERE install_id = ?", (seed["id"],)).fetchall()
    seed_dir = os.path.join(store, seed["id"])

    ids = [seed["id"]]
    for i in range(1, installs):
        # Versions 9.<minor>.<patch>.<build>, all distinct, none equal to the seed's.
        version = "9.%d.%d.%d" % (2 + i // 100, i % 100, 10 + i % 7)
        row = dict(seed, id="%s-cuda%d" % (version, seed["cuda"]), version=version)
        ids.append(row["id"])
        db.execute("INSERT INTO installs (%s) VALUES (%s)" % (",".join(cols), ",".join("?" * len(cols))),
                   [row[c] for c in cols])
        for f in files:
            f = dict(zip(fcols, f), install_id=row["id"])
            db.execute("INSERT INTO files (%s) VALUES (%s)" % (",".join(fcols), ",".join("?" * len(fcols))),
                       [f[c] for c in fcols])
        subprocess.run(["cp", "-al", seed_dir, os.path.join(store, row["id"])], check=True)

    now = int(time.time())
    gcols = [r[1] for r in db.execute("PRAGMA table_info(generations)")]
    root = os.path.join(work, "projects")
    for j in range(projects):
        project = os.path.join(root, "p%05d" % j)
        os.makedirs(project)
        target = ids[j % len(ids)]
        os.symlink(os.path.join(store, target), os.path.join(project, "cuda_link"))
        with open(os.path.join(project, ".cudnn-version"), "w") as f:
            f.write(target + "\n")
        row = dict(project=os.path.realpath(project), generation=1, install_id=target,
                   action="link", link_name="cuda_link", time=now, state="ok")
        known = [c for c in gcols if c in row]  # columns added later keep their defaults
        db.execute("INSERT INTO generations (%s) VALUES (%s)" % (",".join(known), ",".join("?" * len(known))),
                   [row[c] for c in known])
    db.commit()
    db.close()
    # The generations were written where an index of before the state split kept them: the
    # first cdm that opens the index moves them into the user's state (as on an upgrade).
    subprocess.run([cdm, "list", "-q"], check=True, env=env, stdout=subprocess.DEVNULL)
    print("export CDM_CONFIG=%s CDM_ROOT=%s CDM_STATE=%s" % (config, store, state))


if __name__ == "__main__":
    main()
