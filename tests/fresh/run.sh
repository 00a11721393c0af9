#!/usr/bin/env bash
# A fresh machine: a minimal Debian (debootstrap --variant=minbase: no compiler, no git, no
# pkg-config), the repository copied in, and the README's commands run in it verbatim
# through chroot, as root (so `$(command -v sudo)` is empty, as on a fresh root login) or as
# an ordinary user with sudo. A package missing from the README's lists fails it here,
# whatever the host has. Writes TAP on stdout (.ci/run hands it to .ci/count.py).
#
#   tests/fresh/run.sh [--suite bookworm|trixie] [--user] [--whole-suite] [DIR]
#
#   --suite        the Debian release (default bookworm, Debian 12; trixie is Debian 13)
#   --user         run the commands as a new user 'cdmuser' with sudo (sudo installed as a
#                  machine with such a user has it), the clone in its home
#   --whole-suite  run the README's second command as it is (the whole suite), and count
#                  its TAP results here; else only its packages install and the readme test
#                  runs (the README's blocks, the demo with the installed cdm, meson install)
#
# Either way subprojects/fetch-debian-sources.sh runs there too (and its --undo), and the
# system's /tmp must hold nothing afterwards. The minimal system is
# kept as a tarball in $CDM_FRESH_CACHE (default /var/cache/cdm-fresh), made again when a
# week old: debootstrap downloads once a week, not once a run. NVIDIA's real wheels come
# from the host's /var/cache/cdm-wheels, bound read-only, where it holds them.
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
# step "DESCRIPTION" CMD...: CMD, its output in $log; ok (with the seconds it took), or not
# ok with the log's last lines and status 1
step() {
  local what=$1 start=$SECONDS
  shift
  if "$@" >"$log" 2>&1; then
    ok "$what ($((SECONDS - start)) s)"
  else
    not_ok "$what"
    tail -8 "$log" | sed 's/^/# /'
    return 1
  fi
}

suite=bookworm as_user='' whole=
while [ $# -gt 0 ]; do
  case $1 in
  --suite) suite=$2 && shift ;;
  --user) as_user=1 ;;
  --whole-suite) whole=1 ;;
  -*) echo "usage: tests/fresh/run.sh [--suite bookworm|trixie] [--user] [--whole-suite] [DIR]" >&2 && exit 2 ;;
  *) break ;;
  esac
  shift
done
case $suite in bookworm) release="Debian 12" ;; trixie) release="Debian 13" ;; *) echo "unknown suite '$suite'" >&2 && exit 2 ;; esac
who=${as_user:+a user with sudo}
who=${who:-root}

if [ "$(id -u)" != 0 ] || ! command -v debootstrap >/dev/null; then
  not_ok "a fresh $release runs the README's commands as $who (needs root and debootstrap)"
  finish
  exit
fi
if [ $# -ge 1 ]; then
  dir=$1
  if [ -e "$dir" ]; then
    not_ok "a fresh $release in '$dir': it exists already; name a new folder"
    finish
    exit
  fi
  mkdir -p "$dir" || exit
else
  dir=$(mktemp -d /var/tmp/cdm-fresh.XXXXXX) || exit
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

# make_system: the minimal system in $dir, from the cached tarball when it is under a week
# old, else from debootstrap (and cached for the next run; one run makes it at a time).
make_system() {
  local cache=${CDM_FRESH_CACHE:-/var/cache/cdm-fresh} start=$SECONDS
  local tarball=$cache/$suite-minbase.tar
  mkdir -p "$cache" || return 1
  (
    flock 9
    if [ -z "$(find "$tarball" -mtime -7 2>/dev/null)" ]; then
      local fresh
      fresh=$(mktemp -d /var/tmp/cdm-fresh-make.XXXXXX) &&
        timeout 600 debootstrap --variant=minbase "$suite" "$fresh" "$mirror" >"$log" 2>&1 &&
        tar -C "$fresh" -cf "$tarball.part" . && mv "$tarball.part" "$tarball"
      local rc=$?
      rm -rf --one-file-system "$fresh" "$tarball.part"
      exit $rc
    fi
  ) 9>"$cache/$suite.lock" || {
    not_ok "debootstrap --variant=minbase $suite from $mirror"
    tail -5 "$log" | sed 's/^/# /'
    return 1
  }
  tar -C "$dir" -xf "$tarball" || { not_ok "unpack the cached $suite system '$tarball'"; return 1; }
  chmod 755 "$dir" # the system's root folder: apt's _apt user and the new user pass through it
  ok "a minimal $release (debootstrap --variant=minbase $suite from $mirror, cached in $cache; $((SECONDS - start)) s)"
}

make_system || { finish; exit; }
# /dev/shm too: a bind of /dev does not bring the tmpfs mounted on it, and without one
# Python's multiprocessing (Ansible) cannot run, as on no real machine.
for m in proc dev dev/pts dev/shm sys; do
  mount --bind "/$m" "$dir/$m" && mounted+=("$dir/$m")
done
# NVIDIA's real wheels, when the host has them: the suite's real-cuDNN tests read them there
# rather than download 665 MB again.
if [ -n "$whole" ] && ls /var/cache/cdm-wheels/*.whl >/dev/null 2>&1; then
  mkdir -p "$dir/var/cache/cdm-wheels" &&
    mount --bind -o ro /var/cache/cdm-wheels "$dir/var/cache/cdm-wheels" && mounted+=("$dir/var/cache/cdm-wheels")
fi
cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null
# The network's own certificate authorities (a proxy that inspects TLS), as the host trusts
# them: ca-certificates, which the README's "get the code" step installs, adds them.
mkdir -p "$dir/usr/local/share/ca-certificates"
cp /usr/local/share/ca-certificates/*.crt "$dir/usr/local/share/ca-certificates/" 2>/dev/null

home=/root
in_chroot() {
  chroot "$dir" /usr/bin/env -i HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    DEBIAN_FRONTEND=noninteractive bash -c "$1"
}
# What the README's "get the code" step installs (git aside: the clone is copied in), and for
# a user with sudo, sudo and the user.
setup="apt-get update -q && apt-get install -y -q --no-install-recommends ca-certificates"
[ -z "$as_user" ] || setup="$setup sudo && useradd -m -s /bin/bash cdmuser && echo 'cdmuser ALL=(ALL) NOPASSWD:ALL' >/etc/sudoers.d/cdmuser"
step "ca-certificates${as_user:+, sudo and a user 'cdmuser' with sudo}" in_chroot "$setup" || { finish; exit; }
[ -z "$as_user" ] || home=/home/cdmuser
# as_account CMD: CMD in the clone, as root or as the user (through runuser, a login's
# environment: its HOME, no CI variable)
as_account() {
  if [ -n "$as_user" ]; then
    chroot "$dir" /usr/sbin/runuser -u cdmuser -- /usr/bin/env -i HOME=$home USER=cdmuser LOGNAME=cdmuser TERM=dumb \
      PATH=/usr/local/bin:/usr/bin:/bin DEBIAN_FRONTEND=noninteractive bash -c "cd $home/cdm && $1"
  else
    in_chroot "cd /root/cdm && $1"
  fi
}
mkdir -p "$dir$home/cdm"
# The tracked files as committed, plus the working tree's changes: what a clone brings,
# without build folders or caches.
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$dir$home/cdm" 2>/dev/null)
[ -z "$as_user" ] || in_chroot "chown -R cdmuser:cdmuser $home/cdm"

# command_after MARKER: the line after that marker in the README, inside its block.
command_after() { awk -v m="$1" 'index($0, m) { want = 1; next } want && /^ *```/ { if (inside) exit; inside = 1; next } want && inside { sub(/^ */, ""); print; exit }' "$repo/README.md"; }
first=$(command_after '<!-- the first command')
second=$(command_after '<!-- the second command')
# shellcheck disable=SC2034 # for tests/fresh/steps.sh (sourced below)
install_tests=${second%% && meson test*}

start=$SECONDS
if as_account "$first" >"$log" 2>&1 && grep -q '^demo: done' "$log"; then
  ok "the README's first command on a fresh $release, as $who ($((SECONDS - start)) s)"
else
  not_ok "the README's first command on a fresh $release, as $who"
  tail -15 "$log" | sed 's/^/# /'
  finish
  exit
fi
grep -E '^(cdm|sample|demo):' "$log" | sed 's/^/# /'

. "$repo/tests/fresh/steps.sh"
if [ -n "$whole" ]; then
  whole_suite
else
  packages_and_readme
fi
debian_sources
no_leftovers
finish
