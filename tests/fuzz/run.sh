# run.sh FUZZER NAME SECONDS: run one libFuzzer target from a fresh seed corpus for SECONDS,
# as one TAP result: ok when it found nothing (no crash, no leak, no sanitizer report).
set -u
exe=$1 name=$2 seconds=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/cdm-fuzz-$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
bash "$TESTS_DIR/fuzz/seeds.sh" "$name" "$work/corpus"
# -rss_limit_mb: a parser that balloons is a finding too
"$exe" "$work/corpus" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=1024 \
  -timeout=10 -artifact_prefix="$work/" -print_final_stats=1 >"$work/log" 2>&1
rc=$?
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" | grep -o '[0-9]*$')
echo "1..1"
if [ $rc -eq 0 ]; then
  echo "ok 1 - fuzz_$name: ${runs:-?} inputs in ${seconds}s, nothing found"
else
  echo "not ok 1 - fuzz_$name: found a problem (exit $rc)"
  tail -40 "$work/log" | sed 's/^/# /'
  for crash in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
    [ -f "$crash" ] && echo "# input $(basename "$crash"): $(base64 -w0 "$crash" | head -c 2000)"
  done
fi
