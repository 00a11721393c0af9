# A loopback mirror of NVIDIA's redist folder for the download scenarios, sourced after
# lib.sh: archives made by make_fixture (real names and layouts), manifests in the real
# schema (tests/mirror/make_mirror.py), served by the fault-injecting server
# (tests/mirror/server.py), which the scenario starts and the exit trap stops.

MIRROR=$SCRATCH/mirror
SERVER_LOG=$SCRATCH/server.log
SERVER_PIDS=
# shellcheck disable=SC2154 # p is the trap's own loop variable
trap 'for p in $SERVER_PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm_tree "$SCRATCH"' EXIT

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
  local portfile=$SCRATCH/port
  rm -f "$portfile"
  python3 "$TESTS_DIR/mirror/server.py" "$MIRROR" "$portfile" "$SERVER_LOG" &
  SERVER_PIDS="$SERVER_PIDS $!"
  for _ in $(seq 100); do
    [ -s "$portfile" ] && break
    sleep 0.1
  done
  PORT=$(cat "$portfile" 2>/dev/null)
  [ -n "$PORT" ]
}

# mirror_up: the mirror built and its fault server started, or the scenario ends here
# (skipped without python3)
mirror_up() {
  if ! command -v python3 >/dev/null; then
    skip_tool "downloads from a test mirror" "python3 is not installed (the mirror's server is Python)"
    done_testing
    exit 0
  fi
  build_mirror || { not_ok "the test mirror is built"; done_testing; exit 1; }
  start_server || { not_ok "the mirror server starts"; done_testing; exit 1; }
}

# zip_with_payload PATH: NVIDIA's zip made by make_fixture (its name says which), with
# 600 KB of random bytes as its third entry (bin/x64/payload.bin): the headers after it lie
# past what a download brings first (a zip unpacked while it arrives)
zip_with_payload() {
  "$MAKE_FIXTURE" "$1" &&
    python3 - "$1" <<'PY'
import os, sys, zipfile
path = sys.argv[1]
with zipfile.ZipFile(path) as z, zipfile.ZipFile(path + ".new", "w") as out:
    for i, info in enumerate(z.infolist()):
        out.writestr(info, z.read(info), compress_type=info.compress_type)
        if i == 1:
            top = info.filename.split("/")[0]
            out.writestr(top + "/bin/x64/payload.bin", os.urandom(600000), zipfile.ZIP_DEFLATED)
os.replace(path + ".new", path)
PY
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

# ---- TLS: a test CA, and nginx serving the mirror with a certificate it signed ----------
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
TLS=$SCRATCH/tls
ACCESS=$SCRATCH/nginx/access.log

# tls_tools: nginx, openssl and python3 are there (else TLS_MISSING names the first missing)
tls_tools() {
  local need
  for need in "$NGINX" openssl python3; do
    command -v "$need" >/dev/null || { TLS_MISSING=$(basename "$need"); return 1; }
  done
}

# make_tls: $TLS/ca.pem and a server certificate for 127.0.0.1, localhost and NVIDIA's
# download host (reached through the test proxy); $TLS/other-ca.pem signed nothing here.
# Made again while a signature of the two has a short r or s (ecdsa_sig_full.py: Wine's
# crypt32 does not verify those, about one signature in 128)
make_tls() {
  local tries
  for tries in $(seq 20); do
    make_tls_once || return 1
    python3 "$TESTS_DIR/cli/ecdsa_sig_full.py" "$TLS/ca.pem" &&
      python3 "$TESTS_DIR/cli/ecdsa_sig_full.py" "$TLS/server.pem" && return 0
    echo "try $tries: a signature with a short r or s; made again" >>"$TLS/log"
  done
  return 0 # twenty short draws in a row: kept (a test under Wine may then fail)
}

make_tls_once() {
  local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  mkdir -p "$TLS"
  {
    openssl req -x509 "${ec[@]}" -keyout "$TLS/ca.key" -out "$TLS/ca.pem" -days 2 \
      -subj "/CN=cdm test CA" &&
      openssl req -x509 "${ec[@]}" -keyout "$TLS/other-ca.key" -out "$TLS/other-ca.pem" \
        -days 2 -subj "/CN=cdm other CA" &&
      openssl req "${ec[@]}" -keyout "$TLS/server.key" -out "$TLS/server.csr" \
        -subj "/CN=127.0.0.1" &&
      printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:developer.download.nvidia.com" \
        "basicConstraints=CA:FALSE" "extendedKeyUsage=serverAuth" >"$TLS/ext" &&
      openssl x509 -req -in "$TLS/server.csr" -CA "$TLS/ca.pem" -CAkey "$TLS/ca.key" \
        -CAcreateserial -out "$TLS/server.pem" -days 2 -extfile "$TLS/ext"
  } >>"$TLS/log" 2>&1
}

# start_nginx [DIRECTIVE...]: nginx serving $MIRROR over TLS on a free port (NPORT), with
# the directives added to its server block (@PORT@ in them: the fault server's port);
# access log lines: URI "Range" status bytes
start_nginx() {
  local n=$SCRATCH/nginx extra=$*
  extra=${extra//@PORT@/${PORT:-}}
  NPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  mkdir -p "$n/tmp"
  chmod 755 "$SCRATCH" # nginx's workers run as another user when started by root
  cat >"$n/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $n/nginx.pid;
error_log $n/error.log;
events { worker_connections 64; }
http {
  log_format range '\$request_uri "\$http_range" \$status \$body_bytes_sent';
  access_log $ACCESS range;
  client_body_temp_path $n/tmp/body;
  proxy_temp_path $n/tmp/proxy;
  fastcgi_temp_path $n/tmp/fastcgi;
  uwsgi_temp_path $n/tmp/uwsgi;
  scgi_temp_path $n/tmp/scgi;
  server {
    listen 127.0.0.1:$NPORT ssl;
    ssl_certificate $TLS/server.pem;
    ssl_certificate_key $TLS/server.key;
    root $MIRROR;
    autoindex on;
    $extra
  }
}
EOF
  "$NGINX" -e "$n/error.log" -p "$n" -c "$n/nginx.conf" &
  SERVER_PIDS="$SERVER_PIDS $!"
  for _ in $(seq 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $NPORT), 1)" 2>/dev/null &&
      return 0
    sleep 0.1
  done
  cat "$n/error.log" >&2
  return 1
}

# tls_up [DIRECTIVE...]: mirror_up, a test CA, and nginx serving the mirror over TLS; or
# the scenario ends here (skipped without nginx or openssl)
tls_up() {
  if ! tls_tools; then
    skip_tool "downloads over TLS" "$TLS_MISSING is not installed (.ci/run installs nginx-light, openssl)"
    done_testing
    exit 0
  fi
  mirror_up
  check "a test CA and a server certificate are made" make_tls || diag "$(cat "$TLS/log")"
  check "nginx serves the mirror over TLS" start_nginx "$@"
}

# fetch_config KEY=VALUE...: the [fetch] section of the config file
fetch_config() {
  printf '[fetch]\n' >"$CDM_CONFIG_FILE"
  local kv
  for kv in "$@"; do printf '%s = %s\n' "${kv%%=*}" "${kv#*=}" >>"$CDM_CONFIG_FILE"; done
}
CDM_CONFIG_FILE=${CDM_CONFIG_POSIX:-$CDM_CONFIG}
: >"$SERVER_LOG"
