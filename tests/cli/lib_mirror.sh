# A loopback mirror of NVIDIA's redist folder for the download scenarios, sourced after
# lib.sh: archives made by make_fixture (real names and layouts), manifests in the real
# schema (tests/mirror/make_mirror.py), served by the fault-injecting server
# (tests/mirror/server.py), which the scenario starts and the exit trap stops.

MIRROR=$SCRATCH/mirror
SERVER_LOG=$SCRATCH/server.log
SERVER_PIDS=
trap 'for p in $SERVER_PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$SCRATCH"' EXIT

V927=9.27.0.48
A927_12=cudnn-linux-x86_64-${V927}_cuda12-archive.tar.xz
A927_13=cudnn-linux-x86_64-${V927}_cuda13-archive.tar.xz
A927_ARM=cudnn-windows-arm64-${V927}_cuda13-archive.zip
A927_ARM_FLAT=cudnn-windows-arm64-${V927}_cuda13.4-archive.zip
A927_WIN=cudnn-windows-x86_64-${V927}_cuda13-archive.zip
A897=cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz
A880_11=cudnn-linux-x86_64-8.8.0.121_cuda11-archive.tar.xz
A880_12=cudnn-linux-x86_64-8.8.0.121_cuda12-archive.tar.xz
A880_SBSA=cudnn-linux-sbsa-8.8.0.121_cuda12-archive.tar.xz
A880_WIN=cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip

# build_mirror: 9.27.0 (with the mixed flat+variant windows-arm64), a per-build flat
# 8.9.7.29 manifest, and 8.8.0 with linux-sbsa for cuda12 only.
build_mirror() {
  local a=$SCRATCH/mirror-src n
  mkdir -p "$a" "$MIRROR"
  for n in "$A927_12" "$A927_13" "$A927_ARM" "$A927_ARM_FLAT" "$A927_WIN" "$A897" "$A880_11" \
    "$A880_12" "$A880_SBSA" "$A880_WIN"; do
    "$MAKE_FIXTURE" "$a/$n" --pad 65536 || return 1
  done
  local mm="python3 $TESTS_DIR/mirror/make_mirror.py $MIRROR"
  $mm 9.27.0 "linux-x86_64/cuda12=$a/$A927_12" "linux-x86_64/cuda13=$a/$A927_13" \
    "windows-arm64/cuda13=$a/$A927_ARM" "windows-arm64/flat=$a/$A927_ARM_FLAT" \
    "windows-x86_64/cuda13=$a/$A927_WIN" &&
    $mm 8.9.7.29 --per-build "linux-x86_64/flat=$a/$A897" &&
    $mm 8.8.0 "linux-x86_64/cuda11=$a/$A880_11" "linux-x86_64/cuda12=$a/$A880_12" \
      "linux-sbsa/cuda12=$a/$A880_SBSA" "windows-x86_64/cuda11=$a/$A880_WIN"
}

# start_server: the fault-injecting server on a free loopback port; sets PORT
start_server() {
  local portfile=$SCRATCH/port i
  python3 "$TESTS_DIR/mirror/server.py" "$MIRROR" "$portfile" "$SERVER_LOG" &
  SERVER_PIDS="$SERVER_PIDS $!"
  for i in $(seq 100); do
    [ -s "$portfile" ] && break
    sleep 0.1
  done
  PORT=$(cat "$portfile" 2>/dev/null)
  [ -n "$PORT" ]
}

# base MODE: the mirror's URL with that fault (see tests/mirror/server.py)
base() { printf 'http://127.0.0.1:%s/%s/\n' "$PORT" "$1"; }

# requests EXPR: how many logged requests satisfy a Python expression on `e` (mode, path,
# range, status, bytes)
requests() {
  python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    n += bool(eval(sys.argv[2]))
print(n)' "$SERVER_LOG" "$1"
}

# fetch_config KEY=VALUE...: the [fetch] section of the config file
fetch_config() {
  printf '[fetch]\n' >"$CDM_CONFIG_FILE"
  local kv
  for kv in "$@"; do printf '%s = %s\n' "${kv%%=*}" "${kv#*=}" >>"$CDM_CONFIG_FILE"; done
}
CDM_CONFIG_FILE=${CDM_CONFIG_POSIX:-$CDM_CONFIG}
: >"$SERVER_LOG"
