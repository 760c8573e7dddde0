#!/usr/bin/env bash
# Builds (when needed) and runs one libFuzzer target on a corpus seeded from the test fixtures.
#
#   tools/fuzz/run.sh TARGET [SECONDS | -runs=N] [more libFuzzer flags...]
#   tools/fuzz/run.sh list
#
# TARGET: png jpeg heic webp (the C image reader, tools/fuzz/image_fuzz.c) or y4m onnx gpsm
# (the Swift readers, tools/fuzz/swift). Default: 60 seconds. Everything is built and kept under
# .build-fuzz/ (ignored by git): binaries, the corpus of each target (fixtures copied in, then
# what libFuzzer adds; delete .build-fuzz/corpus/TARGET to start from the seeds again), the
# findings (.build-fuzz/findings/TARGET) and a log per run (.build-fuzz/logs).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# FUZZ_DIR: another place for all of it (tools/fuzz/smoke.sh keeps its fresh corpora apart).
out=${FUZZ_DIR:-$root/.build-fuzz}
fixtures=$root/Tests/GPUStyleTests/Fixtures
shims=$root/Sources/CImageShims

# One line per target. kind: c (image reader) or swift (executable in tools/fuzz/swift).
# need: for an image format, the GPS_FORMAT_ macro the reader's header must define (a target
# whose decoder is not in this checkout yet is skipped). seeds: find(1) tests under Fixtures.
# Small seeds keep each input cheap: with the 12-16 KB face photos among the JPEG seeds, most
# mutants were whole 400x350 decodes and the target ran at 280 inputs/s instead of 12,000
# (likewise the 512x512 photos for PNG).
#        name  kind   need / product  max_len  dict      seeds
targets="png   c      GPS_FORMAT_PNG  16384    png.dict  -iname *.png -size -8k
jpeg  c      GPS_FORMAT_JPEG 8192     jpeg.dict -iname *.jpg -size -4k
heic  c      GPS_FORMAT_HEIC 65536    -         ( -iname *.heic -o -iname *.heif ) -size -65k
webp  c      GPS_FORMAT_WEBP 65536    -         -iname *.webp -size -65k
y4m   swift  FuzzY4M         32768    y4m.dict  -iname *.y4m -size -33k
onnx  swift  FuzzONNX        16384    -         -iname *.onnx
gpsm  swift  FuzzGPSM        65536    -         -iname *.gpsm"

if [ $# -lt 1 ] || [ "$1" = list ]; then
    echo "usage: $0 TARGET [SECONDS | -runs=N] [libFuzzer flags...]; targets:"
    echo "$targets" | awk '{print "  " $1}'
    exit $([ $# -lt 1 ] && echo 2 || echo 0)
fi
name=$1
shift
line=$(echo "$targets" | awk -v n="$name" '$1 == n')
[ -n "$line" ] || { echo "unknown target '$name' (tools/fuzz/run.sh list)" >&2; exit 2; }
read -r _ kind need max_len dict seeds <<<"$line"

limit=-max_total_time=60
if [ $# -gt 0 ]; then
    case $1 in
    -runs=*) limit=$1; shift ;;
    [0-9]*) limit=-max_total_time=$1; shift ;;
    esac
fi

mkdir -p "$out/bin" "$out/corpus/$name" "$out/findings/$name" "$out/logs"

# ---- Build ----
if [ "$kind" = c ]; then
    if ! grep -q "define $need\b" "$shims/include/cimageshims.h"; then
        echo "fuzz $name: skipped: the reader has no $need decoder in this checkout yet"
        exit 0
    fi
    binary=$out/bin/image_fuzz
    # Libraries the reader uses (its Package.swift linker settings), found from its #includes
    # so a decoder merged later links without editing this script.
    libs=(png16 jpeg)
    grep -qs "include <libheif/" "$shims"/*.[ch] && libs+=(heif)
    grep -qs "include <webp/" "$shims"/*.[ch] && libs+=(webp)
    grep -qs "include <webp/demux.h>" "$shims"/*.[ch] && libs+=(webpdemux)
    grep -qs "include <lcms2.h>" "$shims"/*.[ch] && libs+=(lcms2)
    sources=("$root/tools/fuzz/image_fuzz.c" "$shims"/*.c)
    if [ ! -x "$binary" ] || [ -n "$(find "${sources[@]}" "$shims"/*.h "$shims"/include -newer "$binary")" ]; then
        echo "fuzz: building $binary"
        # -fno-sanitize-recover: an undefined-behaviour report stops the run like a crash.
        clang -std=gnu11 -O1 -g -Wall -Wextra -fuse-ld=lld \
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
            -I "$shims/include" -I "$shims" $(pkg-config --cflags libpng) \
            "${sources[@]}" "${libs[@]/#/-l}" -o "$binary"
    fi
else
    # Every module (GPUStyle, SwiftProtobuf, Foundation-free code alike) is instrumented for
    # coverage and ASan. -O overrides the library's -Ounchecked (it comes later on the command
    # line): with overflow and precondition checks on, an input that overflows traps here
    # instead of running on silently. LeakSanitizer is off for the build itself: the plugin's
    # tool (ResourceEmbedder) is built with ASan too, and Foundation.Process leaks 32 bytes.
    echo "fuzz: swift build (tools/fuzz/swift, release, -sanitize=fuzzer,address)"
    ASAN_OPTIONS=detect_leaks=0 swift build --package-path "$root/tools/fuzz/swift" --scratch-path "$out/swift" \
        -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld -Xswiftc -O 2>&1 \
        | grep -v "^\[\|^Building\|^Build complete\|^Compiling\|^Write\|^Planning" || true
    binary=$out/swift/release/$need
    [ -x "$binary" ] || { echo "fuzz: build failed ($binary missing)" >&2; exit 1; }
fi

# ---- Seeds ----
# Fixture files are copied in (not linked) so libFuzzer's corpus is self-contained.
# shellcheck disable=SC2086  # $seeds is a list of find(1) tests
set -f
find "$fixtures" -type f $seeds -exec cp -n {} "$out/corpus/$name/" \;
set +f
if [ "$name" = gpsm ]; then
    # The committed .gpsm files are megabytes (above max_len); small ones are made from the
    # ONNX fixtures instead, float32 and float16, as convert-model writes them.
    ASAN_OPTIONS=detect_leaks=0 "$out/swift/release/FuzzSeeds" "$out/corpus/$name" "$fixtures"/onnx/*.onnx >/dev/null
fi
[ -n "$(ls -A "$out/corpus/$name")" ] || echo "fuzz $name: no seed files in the fixtures: starting from an empty corpus"

# ---- Run ----
# In-process and single-threaded (no -jobs/-workers): the machine's cores are shared.
# -close_fd_mask=2: libFuzzer and the sanitizers report on a copy of stderr, so their reports
# survive the reader pointing stderr at /dev/null around libheif (quiet_stderr.h). Without it
# an out-of-memory inside libheif was found with no report at all (exit status 71).
flags=("$limit" -max_len="$max_len" -rss_limit_mb=2048 -detect_leaks=1 -timeout=30
       -close_fd_mask=2 -print_final_stats=1 -artifact_prefix="$out/findings/$name/")
[ "$dict" != - ] && flags+=(-dict="$root/tools/fuzz/$dict")
log=$out/logs/$name-$(date -u +%Y%m%dT%H%M%SZ).log
echo "fuzz: $binary ${flags[*]} $* $out/corpus/$name" | tee "$log"
set +e
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$binary" "${flags[@]}" "$@" "$out/corpus/$name" 2>&1 | tee -a "$log" | grep -v "^#[0-9]*\s*\(NEW\|REDUCE\|pulse\)"
status=${PIPESTATUS[0]}
set -e

# ---- Summary ----
stat() { grep -o "stat::$1: *[0-9]*" "$log" | tail -1 | grep -o "[0-9]*$" || echo "?"; }
findings=$(find "$out/findings/$name" -type f | wc -l)
echo "fuzz $name: executions $(stat number_of_executed_units), exec/s $(stat average_exec_per_sec)," \
     "corpus $(find "$out/corpus/$name" -type f | wc -l) files, new units $(stat new_units_added)," \
     "peak RSS $(stat peak_rss_mb) MB, findings $findings (crash/leak/oom/timeout files in $out/findings/$name)," \
     "exit status $status; log $log"
exit "$status"
