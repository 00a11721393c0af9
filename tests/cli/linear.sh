# Every per-entry check costs the same however many entries came before: 30,000 links take
# about as long to install as 30,000 plain files (a list scanned per entry made 90,000 links
# take 37 s against 6 s for files). The bound is generous, the quadratic case far above it.
. "$TESTS_DIR/cli/lib.sh"
if ! command -v bc >/dev/null; then
  skip_tool "installing links costs about as much as files" "bc is not installed"
  done_testing
  exit
fi

n=30000
links=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz --many-links $n)
files=$(fixture cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz --many-files $n)

# cpu_time ARCHIVE: the CPU seconds (user + system) cdm takes to install it: steadier than
# the wall clock on a machine that runs other work
cpu_time() {
  local TIMEFORMAT='%U %S'
  { time "$CDM" install "$1" >/dev/null 2>"$SCRATCH/install.err"; } 2>"$SCRATCH/time" ||
    { cat "$SCRATCH/install.err" >&2; return 1; }
  awk '{ printf "%.3f\n", $1 + $2 }' "$SCRATCH/time"
}
t_files=$(cpu_time "$files")
check "$n plain files install" test -n "$t_files"
t_links=$(cpu_time "$links")
check "$n links install" test -n "$t_links"
check "every link is in place" test "$(find "$CDM_ROOT/9.1.0.70-cuda12/lib" -type l | wc -l)" -ge $n
ratio=$(echo "scale=2; $t_links / ($t_files + 0.05)" | bc)
diag "CPU seconds: $n links $t_links, $n files $t_files, ratio $ratio"
check "links cost less than 3 times as much as files (ratio $ratio)" \
  test "$(echo "$ratio < 3" | bc)" = 1

done_testing
