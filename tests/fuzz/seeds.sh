# seeds.sh NAME DIR: write a small seed corpus for fuzz_NAME into DIR, from text here and
# from files the build or the system has (nothing binary is committed).
set -u
name=$1 dir=$2
n=0
seed() { n=$((n + 1)); printf '%b' "$1" >"$dir/seed$n"; }
copy() { [ -r "$1" ] && head -c 65536 "$1" >"$dir/seed-$(basename "$1")"; }
case $name in
entry)
  seed '0top/\n1top/lib/libcudnn.so.9.1.0\n2top/lib/libcudnn.so.9\tlibcudnn.so.9.1.0\n2top/lib/libcudnn.so\tlibcudnn.so.9\n'
  seed '0top/\n2top/lib/up\t..\n2top/lib/x\tup/../..\n1top/lib/up/f\n'
  seed '0top/\n1top/lib/a\n3top/lib/h\ttop/lib/a\n2top/lib/l\tC:\\\\x\n'
  # found by this fuzzer: a link held names a link refused (no target), then the links
  # are checked; the refused one's index was past the links held
  seed '\n/0oto/up?\t`.\n\n/0oto/`.\no\n'
  ;;
from_store)
  seed 'dlib\nflib/libcudnn.so.9.1.0\nllib/libcudnn.so.9\tlibcudnn.so.9.1.0\nllib/libcudnn.so\tlibcudnn.so.9\n'
  seed 'flib/../../../../x\nl/etc/x\t/etc/passwd\nllib/a\t../../../../etc/shadow\nflib//y\n'
  seed 'dinclude\nfinclude/cudnn.h\nlinclude/x\tC:\\\\x\nlinclude/y\tx\nlinclude/x/z\tcudnn.h\n'
  ;;
names)
  for s in cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip \
    cudnn-11.3-linux-x64-v8.2.1.32.tgz nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl \
    nvidia_cudnn_cu13-9.14.0.64-1-py3-none-win_amd64.whl cudnn-linux-x86_64-8.3.1.22_cuda11.5-archive.tar.xz \
    9.1.0.70-cuda12 latest 8.8 '../x' 'C:\\x' '\\\\?\\C:\\x' top/lib/a.so; do seed "$s"; done
  ;;
header)
  seed '#ifndef CUDNN_VERSION_H_\n#define CUDNN_VERSION_H_\n#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n#endif\n'
  seed '#if 0\n#define CUDNN_MAJOR 1 /* x */\n#elif defined(A) && (1 << 3) > 2 ? 1 : 0\n#else\n#define CUDNN_MAJOR 9 // y\n#endif\n"s\\\n"\n'
  copy /usr/local/cuda/include/cudnn_version.h
  ;;
config)
  seed '[store]\nroot = /tmp/x\n[install]\nmax_size = 16G\nmax_entries = 100000\nsources = /a:/b\n[link]\nname = cuda_link\n'
  seed '; comment\n[install]\nmax_size = -1\nunknown = 1\n[x\n'
  ;;
junction)
  [ -x "$BUILD_DIR/tests/junction_bytes" ] && "$BUILD_DIR/tests/junction_bytes" 'C:\\store\\9.1.0.70-cuda12' |
    python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex("".join(sys.stdin.read().split())))' >"$dir/seed-junction"
  seed '\x03\x00\x00\xa0\x10\x00\x00\x00'
  ;;
manifest)
  copy "$TESTS_DIR/data/redistrib_8.9.7.json"
  seed '{"release_date":"2025-01-01","release_label":"9.27.0","release_product":"cudnn","cudnn":{"name":"n","version":"9.27.0.48","linux-x86_64":{"cuda12":{"relative_path":"cudnn/linux-x86_64/cudnn-linux-x86_64-9.27.0.48_cuda12-archive.tar.xz","sha256":"AAAAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","md5":"m","size":"100"}},"windows-arm64":{"cuda13":{"relative_path":"cudnn/windows-arm64/cudnn-windows-arm64-9.27.0.48_cuda13-archive.zip","sha256":"dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd","size":100},"relative_path":"../x.zip","sha256":"d","size":"1"},"cuda_variant":["12","13"]}}'
  seed '<a href="redistrib_9.1.0.json">redistrib_9.1.0.json</a> <a href="redistrib_8.9.7.29.json">x</a>\nredistrib_9.10.1.json\nredistrib_9.1.0.json redistrib_.json redistrib_1..json'
  ;;
conda)
  # conda-forge's layout (tests/make_conda.py): .tar.bz2 and .conda, Linux and Windows
  python3 "$TESTS_DIR/make_conda.py" "$dir" 9.1.0.70 12 >/dev/null
  python3 "$TESTS_DIR/make_conda.py" "$dir" 9.14.0.64 13 --windows --conda >/dev/null
  ;;
deb)
  # NVIDIA's Debian packages (tests/make_deb.py): dpkg-deb's runtime and headers, and one
  # written without dpkg-deb
  python3 "$TESTS_DIR/make_deb.py" "$dir" 9.14.0.64 13 runtime >/dev/null
  python3 "$TESTS_DIR/make_deb.py" "$dir" 9.14.0.64 13 headers >/dev/null
  python3 "$TESTS_DIR/make_deb.py" "$dir" 8.9.7.29 12 dev-old --no-md5sums >/dev/null
  ;;
rpm)
  # NVIDIA's RPM packages (tests/make_rpm.py, by rpmbuild): SHA-256 and MD5 digests
  if command -v rpmbuild >/dev/null; then
    python3 "$TESTS_DIR/make_rpm.py" "$dir" 9.14.0.64 13 headers >/dev/null
    python3 "$TESTS_DIR/make_rpm.py" "$dir" 8.9.7.29 12 devel-old --digest md5 >/dev/null
  fi
  ;;
pypi)
  # a project page as PyPI sends it (PEP 691 JSON, PEP 700 sizes), and as an HTML index
  seed '{"meta":{"api-version":"1.1"},"name":"nvidia-cudnn-cu12","files":[{"filename":"nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl","url":"https://files.example/packages/ab/nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl","hashes":{"sha256":"3a4c5e3d9d2e1b4f6a7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c"},"size":664800000,"yanked":false},{"filename":"nvidia_cudnn_cu12-9.1.0.70-py3-none-win_amd64.whl","url":"../../x.whl","hashes":{},"yanked":"bad"}],"versions":["9.1.0.70"]}'
  seed '<!DOCTYPE html><html><body><a href="../../packages/nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl#sha256=3a4c5e3d9d2e1b4f6a7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c" data-yanked="">x</a><a href='"'"'//h/y.whl#md5=1'"'"'>y</a><a href=z.whl>z</a><a href="</body></html>'
  ;;
oci)
  # cdm push's manifest and config (the first byte chooses the reader), and challenges
  seed '\x00{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"application/vnd.cdm.cudnn.v1","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:9903e1693e0ec8f1e94dda89f0455b69f74d8327b07120fafefc87b8f32f11de","size":269},"layers":[{"mediaType":"application/x-xz","digest":"sha256:dcd30a3ba6b91063dbd483fea98dae36342c3e21494c644c67082bc74ded2601","size":599136,"annotations":{"org.opencontainers.image.title":"cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"}}]}'
  seed '\x01{"architecture":"amd64","os":"linux","cdm":{"id":"9.1.0.70-cuda12","version":"9.1.0.70","cuda":12,"platform":"linux-x86_64","source":"archive","archive":"cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz","size":599136,"sha256":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","official":false}}'
  seed '\x02realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push"'
  seed '\x02realm=https://x,service="unterminated'
  ;;
wheel)
  # NVIDIA's wheel layout (tests/make_wheel.py), Linux and Windows, deflated small
  python3 "$TESTS_DIR/make_wheel.py" "$dir" nvidia-cudnn-cu12 9.1.0.70 >/dev/null
  python3 "$TESTS_DIR/make_wheel.py" "$dir" nvidia-cudnn-cu13 9.14.0.64 --windows >/dev/null
  ;;
zip)
  python3 - "$dir" <<'PY'
import sys, zipfile
out = sys.argv[1]
for n, (method, zip64) in enumerate([(zipfile.ZIP_DEFLATED, False), (zipfile.ZIP_STORED, False),
                                     (zipfile.ZIP_DEFLATED, True), (zipfile.ZIP_BZIP2, False)]):
    zipfile.ZIP64_LIMIT = 0 if zip64 else (1 << 31) - 1
    with zipfile.ZipFile(f"{out}/seed-zip{n}", "w", method) as z:
        z.writestr("top/lib/libcudnn.so.9.1.0", b"\x7fELF" + bytes(range(256)) * 8)
        z.writestr("top/include/cudnn_version.h", "#define CUDNN_MAJOR 9\n" * 4)
        z.writestr("top/", b"")
PY
  ;;
binfmt)
  copy "$BUILD_DIR/tests/libstubcudnn.so"
  copy "$BUILD_DIR/tests/stub_pe.dll"
  copy /etc/ld.so.cache
  ;;
esac
seed ''
