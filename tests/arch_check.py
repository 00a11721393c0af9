#!/usr/bin/env python3
"""The floor plan of src/, checked (TAP).

Rooms, lowest first: base, platform, engine, cli (src/README.md). A file may include and
call only its own room and the rooms below it, except the few upward calls listed in
ALLOWED_UP. The engine is in rooms of its own, one folder each, ordered by the list
engine_rooms in src/engine/meson.build (lowest first), which the same rule holds for: every
engine file is in one of them, and they call each other without a cycle. No files call
each other in a circle, in any room or across rooms. The front end includes nothing of the
engine but include/cdm.h (base/, the strings and allocation below everything, it may use). No function is above 80 lines unless
LONG_FUNCTIONS names it with its reason (a file above 600 lines is only a warning), no two
files of src/ share a base name, and no `#ifdef _WIN32` stands outside src/platform/. A few
"one owner" rules hold: containment of one path in another is decided only by path_below
(base/util.c), and a cuDNN library's full name is written only in its table
(engine/toolkit/cudnn_lib.c; the front end's help may name them in its prose).

The call graph comes from the compiled objects (nm: the symbols each object defines and
the ones it needs), so it is the graph the linker sees, not a guess from the text; it runs
on whichever build it is given, the Windows one (mingw's objects, read by its nm) too, as
the files of each platform differ. A reference to another file's data is an arrow as a call
is: a table of function pointers (the doctor's layers, doctor.c) calls the functions it
holds through the file that defines it.

usage: arch_check.py SOURCE_ROOT BUILD_DIR [NM]
"""
import os
import re
import shutil
import subprocess
import sys

ROOMS = ["base", "platform", "engine", "cli"]
MAX_LINES = 600
MAX_FUNCTION_LINES = 80
# Functions allowed above MAX_FUNCTION_LINES, each with the reason it reads better whole:
# (file relative to src/, function name): reason.
LONG_FUNCTIONS = {
}
# The file that owns the names of cuDNN's libraries (the table of majors and platforms).
LIBRARY_NAMES_OWNER = "engine/toolkit/cudnn_lib.c"
# Calls from a lower room into a higher one that the design accepts (at most two):
# (caller file, callee file) relative to src/.
ALLOWED_UP = set()

results = []


def check(ok, name, detail=""):
    results.append((ok, name, detail))


def room_of(rel):
    top = rel.split("/")[0]
    return top if top in ROOMS else None


def subroom_of(rel, rooms):
    """The engine's room of a file (engine/ROOM/...), or None."""
    parts = rel.split("/")
    return parts[1] if parts[0] == "engine" and len(parts) > 2 and parts[1] in rooms else None


def source_files(src):
    for dirpath, _, names in os.walk(src):
        for n in sorted(names):
            if n.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(dirpath, n), src)


def includes(path):
    with open(path, encoding="utf-8") as f:
        return re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M)


def engine_rooms(src):
    """The engine's rooms, lowest first, as src/engine/meson.build lists them."""
    path = os.path.join(src, "engine", "meson.build")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        m = re.search(r"^engine_rooms\s*=\s*\[(.*?)\]", f.read(), re.M | re.S)
    return re.findall(r"'([^']+)'", m.group(1)) if m else []


def resolve_include(src, rel, inc):
    """The src/-relative file an include names, or 'cdm.h' for the public header. The
    engine's rooms are on its include path (src/engine/meson.build), so a header of the
    engine is found by its name alone from any room."""
    if inc == "cdm.h":
        return "cdm.h"
    dirs = [os.path.dirname(rel), ""]
    dirs += ["engine"] + [os.path.join("engine", r) for r in engine_rooms(src)]
    for d in dirs:
        here = os.path.join(d, inc)
        if os.path.exists(os.path.join(src, here)):
            return os.path.normpath(here)
    return None


def objects_symbols(build, sources, nm="nm"):
    """{src-relative .c file: (defined, undefined)} from the objects meson built; meson
    names an object after its source's path with '_' for '/' (src_engine_core_config.c.o)."""
    by_name = {"src_" + rel.replace("/", "_"): rel for rel in sources if rel.endswith(".c")}
    objects = {}
    for sub in os.listdir(build):
        if not sub.endswith(".p"):
            continue
        d = os.path.join(build, sub)
        for o in os.listdir(d):
            m = re.match(r"(.+\.c)\.o(bj)?$", o)
            if m and m.group(1) in by_name and room_of(by_name[m.group(1)]):
                objects[os.path.join(d, o)] = by_name[m.group(1)]
    table = {rel: (set(), set()) for rel in objects.values()}
    if not objects:
        return table
    # One nm for all the objects (a process per object took half a minute on a loaded
    # machine). -A names the object on each line: "PATH:VALUE TYPE NAME" or "PATH: U NAME";
    # the last ':' ends the path, as symbols of C hold none.
    out = subprocess.run([nm, "-A"] + sorted(objects), capture_output=True, text=True).stdout
    for line in out.splitlines():
        path, _, rest = line.rpartition(":")
        rel = objects.get(path)
        if rel is None:
            continue
        defined, needed = table[rel]
        parts = rest.split()
        if len(parts) == 3 and parts[1] in "TDBRC":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            needed.add(parts[1])
    return table


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def layer_table(src, doctor):
    """The layers doctor.c's table names (&doctor_X_layer), in its order."""
    if doctor is None:
        return []
    with open(os.path.join(src, doctor), encoding="utf-8") as f:
        m = re.search(r"\blayers\[\]\s*=\s*\{(.*?)\};", f.read(), re.S)
    return re.findall(r"&(\w+)", m.group(1)) if m else []


def functions(text):
    """(name, first line, lines) of each function definition of a clang-formatted C file:
    its body opens with '{' alone at the start of a line and closes with '}' there."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i] == "{" and i > 0:
            j = i - 1
            while j > 0 and "(" not in lines[j]:
                j -= 1
            m = re.search(r"(\w+)\s*\(", lines[j])
            k = i + 1
            while k < len(lines) and lines[k] != "}":
                k += 1
            out.append((m.group(1) if m else "?", j + 1, k - j + 1))
            i = k
        i += 1
    return out


def code_only(text):
    """text without its comments (strings kept), for rules about what the code says."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


# Containment decided by hand: strncmp(a, b, n) and then a[n] against a separator, or
# str_starts_with(a, b) with a longer than b.
HAND_CONTAINMENT = [
    re.compile(r"strncmp\((\w+(?:->\w+)?),[^;{]*?,\s*(\w+)\)[^;{]*?\b\1\[\2\]\s*[!=]=\s*'[/\\\\]'"),
    re.compile(r"str_starts_with\((\w+),\s*(\w+)\)\s*&&\s*strlen\(\1\)\s*>\s*strlen\(\2\)"),
]
LIBRARY_NAME = re.compile(r'"[^"\n]*(?:cudnn\w*64_\d+\.dll|libcudnn\w*\.so\.\d)[^"\n]*"', re.I)


def check_owners(src, files):
    """The one-owner rules, over the code without its comments."""
    hand, names = [], []
    for rel in files:
        with open(os.path.join(src, rel), encoding="utf-8") as f:
            code = code_only(f.read())
        if rel != "base/util.c":
            hand += [f"src/{rel}: {m.group(0)[:60]}" for r in HAND_CONTAINMENT
                     for m in r.finditer(code)]
        if rel != LIBRARY_NAMES_OWNER and room_of(rel) != "cli":  # the help's prose may name them
            names += [f"src/{rel}: {m.group(0)}" for m in LIBRARY_NAME.finditer(code)]
    check(not hand, "no path containment by hand (path_below decides it)", "; ".join(hand))
    check(not names, f"no cuDNN library name written outside src/{LIBRARY_NAMES_OWNER}",
          "; ".join(names))


def main():
    root, build = sys.argv[1], sys.argv[2]
    nm = sys.argv[3] if len(sys.argv) > 3 else "nm"
    src = os.path.join(root, "src")
    files = list(source_files(src))

    # Sizes and platform conditionals.
    for rel in files:
        with open(os.path.join(src, rel), encoding="utf-8") as f:
            text = f.read()
        n = text.count("\n")
        if n > MAX_LINES:
            print(f"# warning: src/{rel} has {n} lines (more than {MAX_LINES}): split it by purpose")
        if rel.endswith(".c"):
            for name, line, length in functions(text):
                listed = (rel, name) in LONG_FUNCTIONS
                check(length <= MAX_FUNCTION_LINES or listed,
                      f"src/{rel}: {name} has at most {MAX_FUNCTION_LINES} lines",
                      f"{length} lines from line {line}; split it into named steps, or list it "
                      "in LONG_FUNCTIONS with its reason")
        if room_of(rel) != "platform":
            bad = re.findall(r"^\s*#\s*(?:if|ifdef|ifndef|elif).*\b_WIN32\b.*$", text, re.M)
            check(not bad, f"src/{rel} has no _WIN32 conditional", "; ".join(bad))

    # The engine's rooms: every file in one, each built by its own meson.build, captioned in
    # src/README.md; header names unique across them, as they are included by name alone.
    rooms = engine_rooms(src)
    check(bool(rooms), "src/engine/meson.build lists the engine's rooms (engine_rooms)")
    with open(os.path.join(src, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    for r in rooms:
        check(os.path.exists(os.path.join(src, "engine", r, "meson.build")),
              f"src/engine/{r}/ is built by its own meson.build")
        check(f"`engine/{r}/`" in readme, f"src/README.md has a line for src/engine/{r}/")
    loose = [f for f in files if f.startswith("engine/") and not subroom_of(f, rooms)]
    check(not loose, "every file of src/engine/ is in one of its rooms", " ".join(loose))
    seen_h = {}
    for f in files:
        if subroom_of(f, rooms) and f.endswith(".h"):
            seen_h.setdefault(os.path.basename(f), []).append(f)
    twice = [" and ".join(v) for v in seen_h.values() if len(v) > 1]
    check(not twice, "no two rooms of the engine hold a header of one name", "; ".join(twice))

    # Base names: a file is known by its name alone (in messages, includes, reviews).
    by_base = {}
    for f in files:
        by_base.setdefault(os.path.basename(f), []).append(f)
    twice = [" and ".join(v) for v in by_base.values() if len(v) > 1]
    check(not twice, "no two files of src/ share a base name", "; ".join(twice))
    stale = [f"{r} ({n})" for (r, n) in LONG_FUNCTIONS
             if r not in files or n not in [x[0] for x in functions(open(os.path.join(src, r)).read())]]
    check(not stale, "every function LONG_FUNCTIONS names exists", "; ".join(stale))
    check_owners(src, files)

    # Includes: own room or lower; the front end only cdm.h of the engine.
    for rel in files:
        mine = room_of(rel)
        for inc in includes(os.path.join(src, rel)):
            target = resolve_include(src, rel, inc)
            if target is None or target == "cdm.h":
                continue
            theirs = room_of(target)
            if mine == "cli":
                ok = theirs in ("cli", "base")
            else:
                ok = ROOMS.index(theirs) <= ROOMS.index(mine)
            check(ok, f"src/{rel} includes nothing above its room", f'includes "{inc}" ({theirs})')
            a, b = subroom_of(rel, rooms), subroom_of(target, rooms)
            if a and b:
                check(rooms.index(b) <= rooms.index(a),
                      f"src/{rel} includes nothing above its room of the engine",
                      f'includes "{inc}" (engine/{b}, above engine/{a})')

    # Every source file reaches base/banned.h through its includes (base/util.h has it).
    graph_inc = {}
    for rel in files:
        targets = set()
        for inc in includes(os.path.join(src, rel)):
            target = resolve_include(src, rel, inc)
            if target and target != "cdm.h":
                targets.add(target)
        graph_inc[rel] = targets
    for rel in files:
        if not rel.endswith(".c"):
            continue
        seen, todo = set(), [rel]
        while todo:
            f = todo.pop()
            for t in graph_inc.get(f, ()):
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        check("base/banned.h" in seen, f"src/{rel} includes base/banned.h (through base/util.h)")

    # Calls, from the objects: without an nm that reads them none can be checked (skipped
    # outside CI, a failure under CI=true, as the other tests do for a missing tool).
    if not shutil.which(nm):
        ci = os.environ.get("CI") == "true"
        check(not ci, f"the call checks have {nm}", "not found, and CI=true" if ci else "")
        if not ci:
            results[-1] = (True, f"the call checks # SKIP {nm} not found", "")
        return report()
    table = objects_symbols(build, files, nm)
    owner = {}
    for rel, (defined, _) in table.items():
        for s in defined:
            owner[s] = rel
    graph = {}
    up, up_engine = [], []
    for rel, (_, needed) in sorted(table.items()):
        for s in needed:
            callee = owner.get(s)
            if not callee or callee == rel:
                continue
            graph.setdefault(rel, set()).add(callee)
            a, b = ROOMS.index(room_of(rel)), ROOMS.index(room_of(callee))
            if b > a and (rel, callee) not in ALLOWED_UP:
                up.append(f"{rel} -> {callee} ({s})")
            a, b = subroom_of(rel, rooms), subroom_of(callee, rooms)
            if a and b and rooms.index(b) > rooms.index(a):
                up_engine.append(f"{rel} -> {callee} ({s})")
    check(len(table) > 0, "the objects were found", build)
    check(len(owner) > 0, "the objects' symbols were read", f"{nm} printed none")
    check(not up, "no call from a lower room to a higher one", "; ".join(sorted(set(up))))
    check(not up_engine, "no call from a lower room of the engine to a higher one ("
          + " < ".join(rooms) + ")", "; ".join(sorted(set(up_engine))))
    # The doctor runs its layers through a table of pointers: each row must be an arrow
    # from doctor.c to the layer's file, or a layer calling back into doctor.c would close
    # a circle this check cannot see.
    doctor = next((f for f in files if f.startswith("engine/")
                   and os.path.basename(f) == "doctor.c"), None)
    layers = layer_table(src, doctor)
    check(doctor and layers, "the doctor's layer table is found",
          "no engine/**/doctor.c with layers[]")
    blind = [f"{s} ({owner.get(s, 'not in any object')})" for s in layers
             if owner.get(s) not in graph.get(doctor, set())]
    check(not blind, "the doctor's layer table is seen: doctor.c -> each layer's file",
          "; ".join(blind))
    for room in ROOMS:
        inner = {k: {w for w in v if room_of(w) == room}
                 for k, v in graph.items() if room_of(k) == room}
        cyc = cycles(inner)
        check(not cyc, f"the files of src/{room}/ call each other without a cycle",
              " | ".join(" <-> ".join(c) for c in cyc))
    between = {}
    for k, v in graph.items():
        for w in v:
            a, b = subroom_of(k, rooms), subroom_of(w, rooms)
            if a and b and a != b:
                between.setdefault(a, set()).add(b)
    cyc = cycles(between)
    check(not cyc, "the rooms of src/engine/ call each other without a cycle",
          " | ".join(" <-> ".join(c) for c in cyc))
    cyc = [c for c in cycles(graph) if len({room_of(f) for f in c}) > 1]
    check(not cyc, "no cycle runs across rooms", " | ".join(" <-> ".join(c) for c in cyc))
    front = {k: v for k, v in graph.items() if room_of(k) == "cli"}
    leaks = sorted(f"{k} -> {w}" for k, v in front.items() for w in v if room_of(w) == "platform")
    check(not leaks, "the front end calls the platform only through the engine", "; ".join(leaks))

    return report()


def report():
    print(f"1..{len(results)}")
    failed = 0
    for i, (ok, name, detail) in enumerate(results, 1):
        if ok:
            print(f"ok {i} - {name}")
        else:
            failed += 1
            print(f"not ok {i} - {name}: {detail}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
