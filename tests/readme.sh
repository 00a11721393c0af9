# The README as a new user meets it: the blocks it marks run as written (a scratch HOME,
# archives of NVIDIA's real layout generated into ~/Downloads, cdm from `meson install`),
# its Quick start has no bare sudo (absent on a root machine) and installs what .ci/run
# installs for the build, and `meson install` puts cdm and the completions where it says.
. "$TESTS_DIR/cli/lib.sh" || exit 1
README=$TESTS_DIR/../README.md
DOCS=$TESTS_DIR/../docs
# The configuration example lives in docs/configuration.md (its first ```ini block).
CONFIG_DOC=$DOCS/configuration.md

# ---- the README and docs/: short, every page reached, no dead link ------------------------
lines=$(wc -l <"$README")
check "the README is under 400 lines (it has $lines; the rest goes into docs/)" \
  test "$lines" -lt 400
# links FILE...: every relative Markdown link of each FILE, one line each,
# "FILE<TAB>TARGET<TAB>PATH<TAB>WHY": PATH the file it names, WHY empty when it leads
# somewhere, else why it is dead. A link is [text](path), [text](path#a)
# or [text](#a), outside fenced blocks and code spans; http(s) and mailto are not followed.
# The path is taken from the linking file's folder and must exist; an anchor must be the
# slug of a heading of the target (GitHub's rule: lower-case, punctuation dropped but - and
# _, each space a -; a repeated heading gets -1, -2 ...).
links() {
  python3 - "$@" <<'PY'
import os, re, sys

def outside_code(text):
    """The text without its fenced blocks, each code span made an 'x'."""
    kept, fence = [], None
    for line in text.split("\n"):
        m = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if m and (fence is None or m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)):
            fence = None if fence else m.group(1)
            kept.append("")
            continue
        kept.append("" if fence else line)
    # a code span may go on over a line break, never past a blank line
    return "\n\n".join(re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "x", para, flags=re.S)
                       for para in "\n".join(kept).split("\n\n"))

def slugs(path):
    seen, out = {}, set()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    fence = None
    for line in text.split("\n"):
        m = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if m and (fence is None or m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)):
            fence = None if fence else m.group(1)
            continue
        h = None if fence else re.match(r"^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$", line)
        if not h:
            continue
        s = re.sub(r"[^\w\- ]", "", h.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out

for src in sys.argv[1:]:
    with open(src, encoding="utf-8") as f:
        body = outside_code(f.read())
    for m in re.finditer(r"!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)", body):
        target = m.group(1)
        if re.match(r"^(https?|mailto):", target, re.I) or not target:
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(src), path)) if path else src
        why = ""
        if not os.path.exists(full):
            why = "no such file"
        elif anchor and (not os.path.isfile(full) or anchor not in slugs(full)):
            why = "no heading with that anchor"
        print(f"{src}\t{target}\t{full}\t{why}")
PY
}
all_links=$(links "$README" "$DOCS"/*.md)
dead=$(printf '%s\n' "$all_links" | awk -F '\t' '$4 != ""')
if [ -n "$all_links" ] && [ -z "$dead" ]; then
  ok "every link between the README and docs/ leads to a file and heading that are there"
else
  not_ok "every link between the README and docs/ leads to a file and heading that are there"
  # each as FILE: (TARGET) WHY, FILE from the repository's folder
  diag "$(printf '%s\n' "$dead" |
    awk -F '\t' '{ sub(/.*\/\.\.\//, "", $1); print $1 ": (" $2 ") " $4 }')"
fi
# The files the README's live links name, each as the python above normalised it.
readme_targets=$(printf '%s\n' "$all_links" |
  awk -F '\t' -v r="$README" '$1 == r && $4 == "" { print $3 }')
for page in "$DOCS"/*.md; do
  want=$(python3 -c 'import os, sys; print(os.path.normpath(sys.argv[1]))' "$page")
  check "the README links docs/${page##*/}" \
    sh -c 'printf "%s\n" "$1" | grep -qxF "$2"' _ "$readme_targets" "$want"
  check "docs/${page##*/} starts with a # title and a line saying what it covers" \
    sh -c 'head -n1 "$1" | grep -q "^# ." && sed -n 2p "$1" | grep -q "^$" &&
      sed -n 3p "$1" | grep -q "[a-z]"' _ "$page"
done

# ---- the Quick start -------------------------------------------------------------------
blocks=$(awk '/^ *```/ { inside = !inside; next } inside' "$README")
if printf '%s\n' "$blocks" | grep -Eq '^[[:space:]]*sudo '; then
  not_ok "no README command starts with a bare sudo (a root machine has none)"
  diag "$(printf '%s\n' "$blocks" | grep -E '^[[:space:]]*sudo ')"
else
  ok "no README command starts with a bare sudo (a root machine has none)"
fi
# The two commands: the line after each marker, inside its block.
command_after() { awk -v m="$1" 'index($0, m) { want = 1; next } want && /^ *```/ { if (inside) exit; inside = 1; next } want && inside { sub(/^ */, ""); print; exit }' "$README"; }
first=$(command_after '<!-- the first command')
second=$(command_after '<!-- the second command')
check "the README has its first command" test -n "$first"
check "and its second" test -n "$second"
pkgs_of() { printf '%s\n' "$1" | grep -o 'apt-get install -y [^&]*' | sed 's/apt-get install -y //' | tr ' ' '\n' | grep -v '^$' | sort -u; }
readme_pkgs=$(pkgs_of "$first")
test_pkgs=$(pkgs_of "$second")
ci_pkgs=$(sed -n '/^packages=(/,/^)/p' "$TESTS_DIR/../.ci/run" | sed 's/#.*//; s/packages=(//; s/)//' |
  tr ' ' '\n' | grep -v '^$' | sort -u)
ci_build=$(sed -n '/^packages=(/,/^  # tests/p' "$TESTS_DIR/../.ci/run" | sed 's/#.*//; s/packages=(//' |
  tr ' ' '\n' | grep -v '^$' | sort -u)
extra=$(comm -23 <(printf '%s\n' "$readme_pkgs" "$test_pkgs" | sort -u) <(printf '%s\n' "$ci_pkgs"))
missing=$(comm -13 <(printf '%s\n' "$readme_pkgs") <(printf '%s\n' "$ci_build"))
check "the two commands install only packages .ci/run installs${extra:+ (not: $extra)}" test -z "$extra"
check "and the first every package .ci/run installs for the build${missing:+ (missing: $missing)}" test -z "$missing"
# What the static link of libarchive needs: every -lNAME that pkg-config names has its
# static library from a package the first command installs (a fresh machine has no other).
if command -v dpkg >/dev/null && pkg-config --exists libarchive 2>/dev/null; then
  for l in $(pkg-config --static --libs-only-l libarchive | tr ' ' '\n' | sed -n 's/^-l//p'); do
    owner=$(dpkg -S "lib$l.a" 2>/dev/null | grep -v mingw | head -n1 | cut -d: -f1)
    check "the first command installs lib$l.a for the static link (${owner:-no package has it here})" \
      sh -c 'test -n "$1" && printf "%s\n" "$2" | grep -qx "$1"' _ "$owner" "$readme_pkgs"
  done
fi
check "the first command builds, installs into ~/.local and runs the demo with the installed cdm" \
  sh -c 'printf "%s" "$1" | grep -q "meson install -C build && .*tests/demo.sh build ~/.local/bin/cdm$"' _ "$first"
check "the second command runs the whole suite" sh -c 'printf "%s" "$1" | grep -q "&& meson test -C build"' _ "$second"

# ---- CI: every tool it installs is mandatory ------------------------------------------------
check ".ci/run sets CI=true" grep -q '^export CI=true$' "$TESTS_DIR/../.ci/run"
got=$(CI=true bash -c '. "$TESTS_DIR/cli/lib.sh"; skip_tool "a check" "zsh is not installed"')
check "under CI=true a check missing its tool fails" test "$got" = "not ok 1 - a check (CI=true, and zsh is not installed)"
got=$(CI='' bash -c '. "$TESTS_DIR/cli/lib.sh"; skip_tool "a check" "zsh is not installed"')
check "elsewhere it skips, saying why" test "$got" = "ok 1 - a check # SKIP zsh is not installed"

# ---- meson install -------------------------------------------------------------------------
prefix=$(meson introspect "$BUILD_DIR" --buildoptions |
  python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
DEST=$SCRATCH/dest
if meson install -C "$BUILD_DIR" --no-rebuild --destdir "$DEST" >"$SCRATCH/install.log" 2>&1; then
  ok "meson install (into a destdir)"
else
  not_ok "meson install (into a destdir)"
  diag "$(tail -5 "$SCRATCH/install.log")"
fi
for f in bin/cdm share/bash-completion/completions/cdm share/zsh/site-functions/_cdm \
  share/fish/vendor_completions.d/cdm.fish share/cdm/completions/cdm.ps1; do
  check "installs $f, as the Quick start says" test -e "$DEST$prefix/$f"
done
# The first command's last step, with the cdm just installed (into the destdir): the main
# job on the sample, each step printed.
if (cd "$TESTS_DIR/.." && bash tests/demo.sh "$BUILD_DIR" "$DEST$prefix/bin/cdm") >"$SCRATCH/demo.out" 2>&1 &&
  grep -q '^demo: done' "$SCRATCH/demo.out"; then
  ok "the demo installs, links, activates, lists and examines with the installed cdm"
else
  not_ok "the demo installs, links, activates, lists and examines with the installed cdm"
  diag "$(tail -8 "$SCRATCH/demo.out")"
fi
for step in "install " "link " "which" "list" "doctor"; do
  check "the demo prints the step '$step' before it runs it" grep -q "^+ .*/cdm $step" "$SCRATCH/demo.out"
done
if command -v scdoc >/dev/null; then
  check "installs the man page cdm(1)" test -s "$DEST$prefix/share/man/man1/cdm.1"
fi

# ---- the walk-through, as written --------------------------------------------------------
unset CDM_ROOT CDM_CONFIG XDG_DATA_HOME XDG_CONFIG_HOME CDM_SHELL
mkdir -p "$HOME/Downloads"
for v in 9.1.0.70 8.9.7.29; do
  "$MAKE_FIXTURE" "$HOME/Downloads/cudnn-linux-x86_64-${v}_cuda12-archive.tar.xz" >/dev/null
done
n=0
while IFS= read -r -d '' block; do
  n=$((n + 1))
  printf '%s\n' "$block" >"$SCRATCH/block$n.sh"
  # As typed at a prompt, one line after the other; -e: the first failing line stops it.
  if (cd "$HOME" && PATH="$DEST$prefix/bin:$PATH" SHELL=/bin/bash bash -e -x "$SCRATCH/block$n.sh") \
    >"$SCRATCH/block$n.out" 2>&1; then
    ok "README walk-through block $n runs as written"
  else
    not_ok "README walk-through block $n runs as written"
    diag "$(tail -8 "$SCRATCH/block$n.out")"
  fi
done < <(awk '/tests\/readme.sh runs the next block/ { want = 1; next }
  want && /^ *```/ { if (inside) { printf "%c", 0; want = 0 } inside = !inside; next }
  inside' "$README")
check "the README marks a walk-through to run" test "$n" -ge 1
P=$HOME/src/project_a
check "it leaves project_a linked to 8.9 after the rollback" \
  test "$(readlink "$P/cuda_link")" = "$HOME/.local/share/cdm/8.9.7.29-cuda12"
check "with the pin as written (8.9 was given, the full id written)" \
  test "$(cat "$P/.cudnn-version")" = 8.9.7.29-cuda12

# ---- the configuration example (docs/configuration.md), as written (paths moved into the
# scratch folder) ------------------------------------------------------------------------------
ini=$(awk '/^```ini/ { on = 1; next } on && /^```/ { exit } on' "$CONFIG_DOC" |
  sed -e "s|/data/|$SCRATCH/data/|g" -e "s|/mnt/share/|$SCRATCH/mnt/share/|g" \
    -e "s|^base = .*|base = off|" -e "s|^ca_file = .*||")
mkdir -p "$SCRATCH/data/downloads" "$SCRATCH/mnt/share/nvidia" "$HOME/.config/cdm"
printf '%s\n' "$ini" >"$HOME/.config/cdm/config.ini"
# its [store] upstream: a store of its own, made empty by a writer's gc
PATH="$DEST$prefix/bin:$PATH" cdm --root "$SCRATCH/mnt/share/cudnn" --config /dev/null gc >/dev/null
"$MAKE_FIXTURE" "$SCRATCH/mnt/share/nvidia/cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz" >/dev/null
OUT=$(PATH="$DEST$prefix/bin:$PATH" cdm install 9.2 2>&1)
check "the configuration example of docs/configuration.md reads without a warning or error" \
  sh -c 'test -d "$1/data/cudnn/9.2.0.82-cuda12" && ! printf "%s" "$2" | grep -q "warning\|cannot"' _ "$SCRATCH" "$OUT"
[ -d "$SCRATCH/data/cudnn/9.2.0.82-cuda12" ] || diag "$OUT"

done_testing
