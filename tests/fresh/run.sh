#!/usr/bin/env bash
# A fresh machine: a minimal Debian 12 made with debootstrap (--variant=minbase: no compiler,
# no git, no pkg-config), the repository copied in, and the README's first command run in
# it verbatim through chroot, as root (so `$(command -v sudo)` is empty, as on a fresh
# root login). A package missing from the README's list fails it here, whatever the host
# has. Writes TAP on stdout (.ci/run hands it to .ci/count.py).
#
# Only the first command runs: the whole suite inside the chroot would repeat CI's own run
# at several times its cost on this machine. The second command's packages are installed
# (so a wrong name in it fails too) and the readme test runs (the README's blocks, the
# demo with the installed cdm, meson install), which needs no tool beyond them.
#
#   tests/fresh/run.sh [DIR]      (root; needs debootstrap)
#
# DIR must not exist; by default a new folder under /var/tmp (not /tmp, which may be a tmpfs
# too small for a Debian system). A fixed name would meet the leftovers of an interrupted
# run, or a run going on beside this one, whose mounts must not be touched.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
T=0 FAILED=0
ok() { T=$((T + 1)); echo "ok $T - $*"; }
not_ok() { T=$((T + 1)); FAILED=$((FAILED + 1)); echo "not ok $T - $*"; }
finish() { echo "1..$T"; [ "$FAILED" -eq 0 ]; }

if [ "$(id -u)" != 0 ] || ! command -v debootstrap >/dev/null; then
  not_ok "a fresh Debian 12 runs the README's first command (needs root and debootstrap)"
  finish
  exit
fi
if [ $# -ge 1 ]; then
  dir=$1
  if [ -e "$dir" ]; then
    not_ok "a fresh Debian 12 in '$dir': it exists already; name a new folder"
    finish
    exit
  fi
  mkdir -p "$dir" || exit
else
  dir=$(mktemp -d /var/tmp/cdm-fresh.XXXXXX) || exit
  chmod 755 "$dir"   # the root folder of the system: apt's _apt user must pass through it
fi
log=$dir.log

# The host's own mirror: the one its apt sources name (deb822 or one-line format).
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && / bookworm / { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
  /etc/apt/sources.list 2>/dev/null)
mirror=${mirror:-http://deb.debian.org/debian}

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null; done
  # Never remove through a mount that is still there (the host's /dev, /proc).
  if grep -q " $dir/" /proc/mounts; then
    echo "# mounts under '$dir' are left: not removing it" >&2
  else
    rm -rf --one-file-system "$dir"
  fi
  rm -f "$log"
}
trap cleanup EXIT
trap "exit 1" INT TERM

start=$SECONDS
if timeout 600 debootstrap --variant=minbase bookworm "$dir" "$mirror" >"$log" 2>&1; then
  ok "debootstrap --variant=minbase bookworm from $mirror ($((SECONDS - start)) s)"
else
  not_ok "debootstrap --variant=minbase bookworm from $mirror"
  tail -5 "$log" | sed 's/^/# /'
  finish
  exit
fi
for m in proc dev dev/pts sys; do
  mount --bind "/$m" "$dir/$m" && mounted+=("$dir/$m")
done
cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null
mkdir -p "$dir/root/cdm"
# The tracked files as committed, plus the working tree's changes: what a clone brings,
# without build folders or caches.
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$dir/root/cdm" 2>/dev/null)

# command_after MARKER: the line after that marker in the README, inside its block.
command_after() { awk -v m="$1" 'index($0, m) { want = 1; next } want && /^ *```/ { if (inside) exit; inside = 1; next } want && inside { sub(/^ */, ""); print; exit }' "$repo/README.md"; }
first=$(command_after '<!-- the first command')
second=$(command_after '<!-- the second command')
install_tests=${second%% && meson test*}

in_chroot() {
  chroot "$dir" /usr/bin/env -i HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    DEBIAN_FRONTEND=noninteractive bash -c "cd /root/cdm && $1"
}
start=$SECONDS
if in_chroot "$first" >"$log" 2>&1 && grep -q '^demo: done' "$log"; then
  ok "the README's first command on a fresh Debian 12, as root ($((SECONDS - start)) s)"
else
  not_ok "the README's first command on a fresh Debian 12, as root"
  tail -15 "$log" | sed 's/^/# /'
  finish
  exit
fi
grep -E '^(cdm|sample|demo):' "$log" | sed 's/^/# /'
start=$SECONDS
if in_chroot "$install_tests" >"$log" 2>&1; then
  ok "the second command's packages install ($((SECONDS - start)) s)"
else
  not_ok "the second command's packages install"
  tail -5 "$log" | sed 's/^/# /'
fi
start=$SECONDS
if in_chroot "meson test -C build --print-errorlogs readme" >"$log" 2>&1; then
  ok "and the readme test passes there ($((SECONDS - start)) s)"
else
  not_ok "and the readme test passes there"
  grep -hE '^not ok' "$dir/root/cdm/build/meson-logs/testlog.txt" 2>/dev/null | head -10 | sed 's/^/# /'
  tail -10 "$log" | sed 's/^/# /'
fi
finish
