#!/bin/bash
# cdm and a registry (Debian's docker-registry on loopback, token auth in front, as
# tests/cli/oci.sh starts it) against what a user would do by hand, in turns, medians of 3:
#  - pull: `cdm install oci://...` (manifest, config, the blob downloaded and held to its
#    digest, unpacked, verified, recorded) against curl downloading the blob alone, and
#    against `cdm install FILE` of the same archive (no network): the goal is the pull
#    costing about the sum of those two;
#  - push: `cdm push` (the archive read, hashed, sent) against curl's POST and PUT of the
#    same blob with the same token.
# The archive: NVIDIA's real wheel when the wheel cache has it, else a generated tar.xz of
# MB megabytes (default 480) shaped as cuDNN 9's libraries.
# Usage: tests/bench/oci.sh [path/to/cdm] [MB]
set -u
CDM=$(realpath "${1:-build/cdm}")
[ -d "$CDM" ] && CDM=$CDM/cdm
MB=${2:-480}
TESTS_DIR=$(realpath "$(dirname "${BASH_SOURCE[0]}")/..")
export TESTS_DIR
. "$TESTS_DIR/cli/lib.sh"
. "$TESTS_DIR/cli/lib_oci.sh"
oci_up >/dev/null
export CDM_REGISTRY_USERNAME=alice CDM_REGISTRY_PASSWORD=s3cret
median() { sort -g | sed -n 2p; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }

whl=$(ls "$(wheel_cache)"/nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl 2>/dev/null)
if [ -n "$whl" ]; then
  archive=$whl id=9.1.0.70-cuda12
else
  name=cudnn-linux-x86_64-9.19.0.56_cuda13-archive
  mkdir -p "$SCRATCH/$name/lib" "$SCRATCH/$name/include"
  head -c "${MB}M" /dev/urandom >"$SCRATCH/$name/lib/libcudnn_engines_precompiled.so.9.19.0"
  printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' >"$SCRATCH/$name/include/cudnn_version.h"
  tar -C "$SCRATCH" -cf - "$name" | xz -T0 -0 >"$SCRATCH/$name.tar.xz"
  archive=$SCRATCH/$name.tar.xz id=9.19.0.56-cuda13
fi
size=$(stat -c %s "$archive")
digest=sha256:$(sha256sum <"$archive" | cut -d' ' -f1)
CDM_ROOT=$SCRATCH/src "$CDM" install -q "$archive" || exit 1
token() { # the token for repository $1, push and pull
  curl -s -u alice:s3cret "http://127.0.0.1:$TPORT/token?service=cdm-test-registry&scope=repository:$1:pull,push" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])'
}
ref=$(CDM_ROOT=$SCRATCH/src "$CDM" push "$id" "oci://$REG/pull/cudnn" --archive "$archive" --json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["digest"])') || exit 1
sync
for round in 1 2 3; do
  t=$(now)
  CDM_ROOT=$SCRATCH/src "$CDM" push -q "$id" "oci://$REG/cdm$round/cudnn" --archive "$archive" >/dev/null || exit 1
  echo "push $(since "$t")" >>"$SCRATCH/times"
  tok=$(token "curl$round/cudnn")
  t=$(now)
  loc=$(curl -s -o /dev/null -D - -X POST -H "Authorization: Bearer $tok" "http://$REG/v2/curl$round/cudnn/blobs/uploads/" |
    tr -d '\r' | sed -n 's/^Location: //Ip')
  case $loc in *\?*) put="$loc&digest=$digest" ;; *) put="$loc?digest=$digest" ;; esac
  curl -sf -X PUT -H "Authorization: Bearer $tok" -H 'Content-Type: application/octet-stream' \
    --data-binary @"$archive" "$put" -o /dev/null || exit 1
  echo "curl_put $(since "$t")" >>"$SCRATCH/times"

  tok=$(token "pull/cudnn")
  t=$(now)
  curl -sf -H "Authorization: Bearer $tok" -o "$SCRATCH/blob" "http://$REG/v2/pull/cudnn/blobs/$digest" && sync
  echo "curl_get $(since "$t")" >>"$SCRATCH/times"
  rm -f "$SCRATCH/blob"
  t=$(now)
  CDM_ROOT=$SCRATCH/local$round "$CDM" install -q "$archive" || exit 1
  echo "install_file $(since "$t")" >>"$SCRATCH/times"
  t=$(now)
  CDM_ROOT=$SCRATCH/pull$round "$CDM" install -q "oci://$REG/pull/cudnn@$ref" >/dev/null || exit 1
  echo "pull $(since "$t")" >>"$SCRATCH/times"
  rm_store "$SCRATCH/local$round" "$SCRATCH/pull$round"
done
m() { awk -v k="$1" '$1 == k { print $2 }' "$SCRATCH/times" | median; }
push=$(m push) put=$(m curl_put) get=$(m curl_get) file=$(m install_file) pull=$(m pull)
echo "archive: $(basename "$archive"), $size bytes, $(nproc) cores"
printf 'push: cdm %.2f s, curl POST+PUT %.2f s (%.2fx)\n' "$push" "$put" "$(echo "$push / $put" | bc -l)"
printf 'pull: cdm install oci:// %.2f s; curl GET %.2f s + cdm install FILE %.2f s = %.2f s (%.2fx the sum, %.2fx the larger)\n' \
  "$pull" "$get" "$file" "$(echo "$get + $file" | bc -l)" "$(echo "$pull / ($get + $file)" | bc -l)" \
  "$(echo "m = $get; if ($file > m) m = $file; $pull / m" | bc -l)"
