#!/usr/bin/env bash
# A short, reproducible fuzz run for CI: each image target of the C reader (png, jpeg, heic,
# webp) for a fixed number of inputs from a fixed seed, on a corpus made fresh from the
# fixtures, so a given commit gives the same inputs every time: it passes or fails for a reason
# that can be replayed (the finding is kept under .build-fuzz/smoke/findings). The long runs (10^6
# inputs a target, and the Swift targets, whose instrumented build takes ~8 min) are
# tools/fuzz/run.sh (docs/tests.md, "Fuzzing").
#
#   tools/fuzz/smoke.sh [RUNS]    (default 20000 inputs a target: ~15 s each on 2 cores)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-20000}
export FUZZ_DIR=$root/.build-fuzz/smoke
status=0
for target in png jpeg heic webp; do
    rm -rf "$FUZZ_DIR/corpus/$target" "$FUZZ_DIR/findings/$target"
    "$root/tools/fuzz/run.sh" "$target" -runs="$runs" -seed=1 | tail -1 || status=1
done
exit $status
