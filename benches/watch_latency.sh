#!/usr/bin/env bash
# Measures `logdiag watch`:
#  - decision latency: from writing the deciding line to the watcher's exit
#    (ready, a crash with evidence of death, a bare exception that waits
#    out its 5 s grace), medians and maxima over TRIALS;
#  - deciding what the log already holds: a launch that crashed before
#    watch began, and an earlier crash followed by a ready launch;
#  - a hang: from --hang-after expiring to the watcher's exit 5;
#  - memory and the timeout on a backlog: peak RSS of watch on a log that
#    already holds BIG MiB against batch mode on the same file, an endless
#    line of NULs on stdin, and --timeout 5s on 64 MiB of empty lines.
#
#   benches/watch_latency.sh [TRIALS] [BIG_MEGABYTES]      (default 10 1024)
#
# Needs python3, GNU time and ../shared/bench/gen_server_log.py.
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-10}
BIG=${2:-1024}
BIN=target/release/logdiag
cargo build --release -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$BIN" "$work" "$TRIALS" <<'PY'
import os, subprocess, sys, time, statistics, shutil
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

def report(what, samples):
    ms = [s * 1000 for s in samples]
    print(f"{what} ({len(ms)} trials): median {statistics.median(ms):.0f} ms, "
          f"min {min(ms):.0f} ms, max {max(ms):.0f} ms")

def watch(log, *args):
    return subprocess.Popen([bin, "watch", log, "--format", "json", *args],
                            stdout=subprocess.PIPE, text=True)

def wait_state(p, name):
    for line in p.stdout:
        if f'"state":"{name}"' in line:
            return
    raise SystemExit(f"watch ended before {name}")

for kind, line in deciding.items():
    samples = []
    for i in range(trials):
        log = os.path.join(work, f"{kind}{i}.log")
        open(log, "w").write("\n".join(launch) + "\n")
        p = watch(log, "--until", "ready", "--timeout", "30s")
        wait_state(p, "listening")
        with open(log, "a") as f:
            f.write(line + "\n")
            f.flush()
            written = time.monotonic()
        p.wait()
        samples.append(time.monotonic() - written)
    report(f"decision latency, {kind}", samples)

for case in ["seed-k26-flashinfer-journal", "seed-glm5-appended-server-log"]:
    samples = []
    for i in range(trials):
        log = os.path.join(work, f"{case}{i}.log")
        shutil.copy(f"fixtures/{case}/input.log", log)
        started = time.monotonic()
        code = subprocess.run([bin, "watch", log, "--until", "ready", "--timeout", "30s"],
                              stdout=subprocess.DEVNULL).returncode
        samples.append(time.monotonic() - started)
    report(f"already in the log, {case} (exit {code})", samples)

samples = []
hang = 2.0
for i in range(min(trials, 5)):
    log = os.path.join(work, f"hang{i}.log")
    open(log, "w").write("\n".join(launch) + "\n")
    p = watch(log, "--until", "crash", "--hang-after", f"{hang}s", "--timeout", "60s")
    wait_state(p, "listening")
    with open(log, "a") as f:
        f.write("[2026-06-02 14:41:14 TP0] Decode batch. #running-req: 64, #token: 1, token usage: 0.32, "
                "gen throughput (token/s): 2211.40, #queue-req: 12\n")
        f.flush()
        written = time.monotonic()
    p.wait()
    assert p.returncode == 5, p.returncode
    samples.append(time.monotonic() - written - hang)
report(f"hang reported after --hang-after {hang:.0f}s expired", samples)
PY

# Memory and the timeout on a backlog.
big="$work/big.log"
python3 ../shared/bench/gen_server_log.py "$BIG" --seed 7 > "$big"
peak() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1; }
echo "peak RSS on a log already holding ${BIG} MiB: batch $(peak "$BIN" "$big") KiB," \
     "watch --until exit $(peak "$BIN" watch "$big" --until exit --timeout 10m) KiB"
nul_peak=$( { head -c 2G /dev/zero | /usr/bin/time -f "%M" "$BIN" watch - --until exit > /dev/null || true; } 2>&1 | tail -1)
echo "peak RSS of watch reading 2 GiB of NULs (one endless line) on stdin: ${nul_peak} KiB"
head -c 67108864 /dev/zero | tr '\0' '\n' > "$work/empty-lines.log"
start=$(date +%s.%N)
"$BIN" watch "$work/empty-lines.log" --until ready --timeout 5s > /dev/null || true
echo "watch --timeout 5s on 64 MiB of empty lines: exited after $(echo "$(date +%s.%N) - $start" | bc) s"
