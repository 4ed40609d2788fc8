#!/bin/sh
# Builds src/renderer/viewer/jpeg/gd_jpeg.wasm: libjpeg-turbo 2.1.5's decoder for WebAssembly with
# SIMD (see README.md). Needs Debian's clang-14, lld-14, wasi-libc and libclang-rt-14-dev-wasm32, and
# libjpeg-turbo's source at tag 2.1.5 (commit 3b19db4e6e7493a748369974819b4c5fa84c7614) in $1.
set -eu
SRC=$(cd "${1:?usage: build.sh LIBJPEG_TURBO_2.1.5_SOURCE_DIR}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="$HERE/../../src/renderer/viewer/jpeg/gd_jpeg.wasm"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
CC="clang-14 --target=wasm32-wasi --sysroot=/usr -isystem /usr/include/wasm32-wasi -O3 -mmutable-globals -msimd128 -DNO_GETENV -DNO_PUTENV -I$HERE -I$SRC"
# The decompressor's files (8-bit samples, no arithmetic coding, no SIMD of libjpeg-turbo's own:
# jsimd_wasm.c stands in for jsimd_none.c).
for f in jdapimin jdapistd jdatasrc jdcoefct jdcolor jddctmgr jdhuff jdinput jdmainct jdmarker jdmaster jdmerge jdphuff \
  jdpostct jdsample jerror jidctflt jidctfst jidctint jidctred jquant1 jquant2 jutils jmemmgr jmemnobs jcomapi; do
  $CC -c "$SRC/$f.c" -o "$WORK/$f.o"
done
$CC -c "$HERE/jsimd_wasm.c" -o "$WORK/jsimd_wasm.o"
$CC -c "$HERE/gd_jpeg.c" -o "$WORK/gd_jpeg.o"
ln -sf /usr/bin/wasm-ld-14 "$WORK/wasm-ld"
PATH="$WORK:$PATH" clang-14 --target=wasm32-wasi -fuse-ld=lld -O3 -nostartfiles -L/usr/lib/wasm32-wasi \
  /usr/lib/wasm32-wasi/crt1-reactor.o "$WORK"/*.o -o "$OUT" \
  -Wl,--no-entry -Wl,--export=gd_in -Wl,--export=gd_out -Wl,--export=gd_decode -Wl,--export=gd_reset \
  -Wl,--export=_initialize -Wl,--export=__stack_pointer -Wl,--strip-all -lc
sha256sum "$OUT"
