#!/usr/bin/env bash
# The sanitizer step of CI: a clang build with AddressSanitizer and UndefinedBehaviorSanitizer
# in build-san, where each libFuzzer target (tests/fuzz) runs FUZZ_SECONDS (default 20),
# then the unit suite, then the command-line scenarios (tests/cli). All must find nothing:
# no crash, no sanitizer report, no leak. Meson's test logs are
# build-san/meson-logs/{fuzzlog,sanlog,clilog,reportlog}.json.
# Timed on a 2-core machine under a load of 8 to 13: about 18 minutes (build 2.5, fuzz
# 2, unit 1, scenarios 12, each part timed on its own).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# logs of the steps that print only on failure: in the clone, never in /tmp (.ci/run)
export CDM_CI_LOGS=${CDM_CI_LOGS:-$PWD/.ci-logs}
mkdir -p "$CDM_CI_LOGS"
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# intercept_tls_get_addr=0: clang 14's LeakSanitizer misreads the thread-local blocks of a
# library loaded later (libcurl, for a download) under glibc 2.36 and crashes in its tracer
# (google/sanitizers issue 1322); the heap is still checked.
export ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0
rm -rf build-san
# Debian's SQLite and cJSON libraries here (bundled_deps=disabled): the sanitizers are for
# cdm's code, and this keeps the build with the system's libraries tested too.
if ! CC=clang meson setup build-san -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbundled_deps=disabled -Dfuzz=true -Dfuzz_seconds="${FUZZ_SECONDS:-20}" >"$CDM_CI_LOGS"/san.log 2>&1 ||
  ! ninja -C build-san >>"$CDM_CI_LOGS"/san.log 2>&1; then
  tail -30 "$CDM_CI_LOGS"/san.log
  exit 2
fi
status=0
meson test -C build-san --suite fuzz --logbase fuzzlog --print-errorlogs || status=1
meson test -C build-san --suite unit --logbase sanlog --timeout-multiplier 4 --print-errorlogs || status=1

# The command-line scenarios drive the sanitized cdm. A scenario that expects cdm to fail
# would pass over a report on stderr, so reports go to files instead, one per process, and
# each counts as a failure of its own.
reports=$PWD/build-san/sanitizer-reports
rm -rf "$reports" && mkdir -p "$reports"
ASAN_OPTIONS=$ASAN_OPTIONS:log_path=$reports/asan UBSAN_OPTIONS=$UBSAN_OPTIONS:log_path=$reports/ubsan \
  meson test -C build-san --suite cli --logbase clilog --timeout-multiplier 4 --print-errorlogs ||
  status=1
python3 - "$reports" build-san/meson-logs/reportlog.json <<'PY' || status=1
import json, os, sys
found = sorted(os.listdir(sys.argv[1]))
lines = ["1..1"]
if found:
    lines.append(f"not ok 1 - the scenarios under the sanitizers: {len(found)} reports")
    for name in found:
        with open(os.path.join(sys.argv[1], name), errors="replace") as f:
            lines += ["# " + l for l in f.read().splitlines()[:40]]
else:
    lines.append("ok 1 - the scenarios under the sanitizers: no report")
print("\n".join(lines[:400]))
with open(sys.argv[2], "w") as f:
    json.dump({"name": "sanitizer reports", "result": "FAIL" if found else "OK",
               "stdout": "\n".join(lines) + "\n"}, f)
    f.write("\n")
sys.exit(1 if found else 0)
PY
exit $status
