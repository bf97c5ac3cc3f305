#!/usr/bin/env bash
# Measures `logdiag watch`: the decision latency (time from writing the
# deciding line to the watcher's exit) over several trials, and resident
# memory while following a log that grows for a while.
#
#   benches/watch_latency.sh [TRIALS] [GROW_SECONDS]
#
# Needs python3 and ../shared/bench/gen_server_log.py (for the growing log).
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-10}
GROW=${2:-120}
BIN=target/release/logdiag
cargo build --release -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$BIN" "$work" "$TRIALS" <<'PY'
import os, subprocess, sys, time, statistics
bin, work, trials = sys.argv[1], sys.argv[2], int(sys.argv[3])
launch = [
    "[2026-06-02 14:31:40] server_args=ServerArgs(model_path='/m', tp_size=8)",
    "[2026-06-02 14:32:14 TP0] Load weight begin. avail mem=93.88 GB",
    "[2026-06-02 14:39:21] INFO:     Application startup complete.",
]
deciding = {
    "ready": "[2026-06-02 14:39:29] The server is fired up and ready to roll!",
    # A scheduler's exception and the sigquit that shows the server dying.
    "crash": "RuntimeError: FlashInfer requires GPUs with sm75 or higher\n"
             "[2026-06-02 14:40:00] Received sigquit from a child process. It usually means the child failed.",
    # An exception with no sign yet of death: decided after the grace period.
    "bare-exception": "RuntimeError: FlashInfer requires GPUs with sm75 or higher",
}
for kind, line in deciding.items():
    samples = []
    for i in range(trials):
        log = os.path.join(work, f"{kind}{i}.log")
        open(log, "w").write("\n".join(launch) + "\n")
        p = subprocess.Popen([bin, "watch", log, "--until", "ready", "--timeout", "30s"], stdout=subprocess.DEVNULL)
        time.sleep(0.8)
        with open(log, "a") as f:
            f.write(line + "\n")
            f.flush()
            written = time.monotonic()
        p.wait()
        samples.append(time.monotonic() - written)
    print(f"decision latency ({kind}, {trials} trials): median {statistics.median(samples)*1000:.0f} ms, max {max(samples)*1000:.0f} ms")
PY

# Memory while following a log that grows for GROW seconds.
log="$work/growing.log"
: > "$log"
"$BIN" watch "$log" --until crash > /dev/null &
watcher=$!
# The generator is cut off when the writer stops: its broken pipe is expected.
python3 ../shared/bench/gen_server_log.py 1024 --seed 7 2>/dev/null | head -c 2000000000 | python3 -c "
import sys, time
end = time.monotonic() + $GROW
out = open('$log', 'ab', buffering=0)
for line in sys.stdin.buffer:
    if line.startswith(b'RuntimeError') or time.monotonic() > end:
        break
    out.write(line)
" &
writer=$!
for t in $(seq 10 10 "$GROW"); do
  sleep 10
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$watcher/status" 2>/dev/null || echo gone)
  size=$(stat -c %s "$log")
  echo "after ${t}s: log $((size / 1048576)) MiB, watcher RSS ${rss} kB"
done
wait "$writer" || true
kill "$watcher" 2>/dev/null || true
