#!/usr/bin/env bash
# Times style transfer over one folder as a Slurm job array on a throw-away one-node cluster
# (tools/slurm-cluster): per task (files/s from its --summary) and in total (files over the
# time from sbatch until the last task has left the queue, scheduling included).
#
#   tools/bench_slurm_array.sh TASKS [PHOTOS [SIZE [STYLE]]]   # defaults: 64 photos, 640x480, style 2
#
# The photos are ffmpeg's testsrc2 frames (each different); the binary is .build/release/gpustyle
# (swift build -c release --product gpustyle); runs as root (the cluster does). docs/many-machines.md
# has the measurements.
set -euo pipefail

tasks=${1:?usage: tools/bench_slurm_array.sh TASKS [PHOTOS [SIZE [STYLE]]]}
photos=${2:-64}
size=${3:-640x480}
style=${4:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
gpustyle=$root/.build/release/gpustyle
[ -x "$gpustyle" ] || { echo "bench_slurm_array: build first: swift build -c release --product gpustyle" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "bench_slurm_array: ffmpeg is missing (tools/install-deps)" >&2; exit 1; }

work=$(mktemp -d /tmp/bench-slurm.XXXXXX)
chmod 0755 "$work"  # munged wants every folder above its socket searchable
trap '"$root/tools/slurm-cluster" stop "$work/c" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$root/tools/slurm-cluster" start "$work/c"
eval "$("$root/tools/slurm-cluster" env "$work/c")"

mkdir "$work/photos"
ffmpeg -loglevel error -f lavfi -i "testsrc2=size=$size:rate=1" -frames:v "$photos" "$work/photos/photo-%04d.png"

cat > "$work/job.sh" <<EOF
#!/bin/bash
#SBATCH --output=$work/task-%a.out
exec '$gpustyle' --style $style --device cpu --shard auto '$work/photos' '$work/out' --summary "$work/sum-\$SLURM_ARRAY_TASK_ID.json"
EOF

# A first job waits ~2 s after the node came up; time the array on a warm cluster.
warm=$(sbatch --parsable --output=/dev/null --wrap true)
while [ -n "$(squeue -h -j "$warm")" ]; do sleep 0.05; done

load=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s.%N)
job=$(sbatch --parsable --array=0-$((tasks - 1)) "$work/job.sh")
while [ -n "$(squeue -h -j "$job")" ]; do sleep 0.05; done
end=$(date +%s.%N)

echo "cpu: $(lscpu | sed -n 's/^Model name: *//p') (model $(lscpu | sed -n 's/^Model: *//p')), $(nproc) cores; load average before: $load"
echo "$photos photos $size, style $style, $tasks array task(s)"
python3 - "$work" "$tasks" "$photos" "$start" "$end" <<'EOF'
import json, sys
work, tasks, photos, start, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
done = 0
for task in range(tasks):
    s = json.load(open(f"{work}/sum-{task}.json"))
    done += s["done"]
    print(f"task {task}: shard {s['shard']}, {s['done']}/{s['assigned']} done in {s['seconds']:.2f} s, "
          f"{s['done'] / s['seconds']:.2f} files/s, failed {s['failed']}")
wall = end - start
print(f"total: {done}/{photos} done in {wall:.2f} s from sbatch to an empty queue, {photos / wall:.2f} files/s")
EOF
