#!/usr/bin/env bash
# Throughput and memory against the yardstick in ../shared/bench: logdiag
# diagnosing the generated server log (plain and journal-wrapped) versus
# ripgrep searching it for grep-patterns.txt, timed side by side by
# hyperfine in one run (in alternating rounds); peak memory at three input
# sizes; a directory of files with all cores versus one.
#
#   benches/throughput.sh [MEGABYTES] [BIG_MEGABYTES]     (default 256 1024)
#
# Needs python3, ripgrep, hyperfine and jq (apt install ripgrep hyperfine jq).
# Workloads are cached in $BENCH_DIR (default /tmp/logdiag-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-256}
BIG=${2:-1024}
BENCH=../shared/bench
DIR=${BENCH_DIR:-/tmp/logdiag-bench}
BIN=target/release/logdiag
RUNS=${RUNS:-7}
ROUNDS=${ROUNDS:-7}
mkdir -p "$DIR"
cargo build --release -q

workload() { # name megabytes [--journal]
    local file="$DIR/$1.log"
    [ -s "$file" ] || python3 "$BENCH/gen_server_log.py" "$2" ${3:-} > "$file"
    echo "$file"
}
plain=$(workload "plain-$SIZE" "$SIZE")
journal=$(workload "journal-$SIZE" "$SIZE" --journal)
small=$(workload "plain-64" 64)
big=$(workload "plain-$BIG" "$BIG")

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB"
echo

check() { # file: the crash at the end must be found
    local out code
    set +e; out=$("$BIN" --format json "$1"); code=$?; set -e
    local category; category=$(jq -r '.root_cause.category' <<<"$out")
    echo "  diagnosis of $(basename "$1"): exit $code, $category"
    [ "$code" = 1 ] && [ "$category" = flashinfer-unsupported-arch ] || { echo "  WRONG DIAGNOSIS"; exit 1; }
}

# Medians, in jq: the middle of a sorted list.
MEDIAN='def median: sort | .[length / 2 | floor];'

compare() { # label file
    # Shared machines have slow and fast phases lasting seconds, so the two
    # commands take turns: ROUNDS rounds of a few runs each, and the ratio
    # is the median of the rounds' ratios.
    local rounds="$DIR/rounds-$1.jsonl" json="$DIR/hyperfine-$1.json"
    : > "$rounds"
    for _ in $(seq "$ROUNDS"); do
        hyperfine -N -w 1 -r 3 -i --export-json "$json" \
            -n ripgrep "rg --no-mmap -c -f $BENCH/grep-patterns.txt $2" \
            -n logdiag "$BIN --format json $2" > /dev/null 2>&1
        jq -c '.results | map({(.command): {times, cpu: (.user + .system)}}) | add' "$json" >> "$rounds"
    done
    jq -rs --arg name "$1" "$MEDIAN"'
        (map(.ripgrep.times[]) | median) as $rg | (map(.logdiag.times[]) | median) as $ld
        | (map((.logdiag.times | median) / (.ripgrep.times | median)) | median) as $ratio
        | (map(.logdiag.cpu / .ripgrep.cpu) | median) as $cpu
        | (map((.logdiag.times | median) / (.ripgrep.times | median)) | [min, max]) as $spread
        | "\($name): ripgrep \($rg * 1000 | floor) ms, logdiag \($ld * 1000 | floor) ms (medians of \(length * 3) runs each, in \(length) alternating rounds): logdiag/ripgrep = \($ratio * 100 | floor / 100) wall (rounds \($spread[0] * 100 | floor / 100)-\($spread[1] * 100 | floor / 100)), \($cpu * 100 | floor / 100) CPU (user+sys)"' "$rounds"
}

echo "time, ${SIZE} MiB:"
check "$plain"
check "$journal"
compare "plain ${SIZE} MiB" "$plain"
compare "journal ${SIZE} MiB" "$journal"
echo

peak() { # file: maximum resident set size in MiB
    /usr/bin/time -f %M "$BIN" --format json "$1" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1 / 1024}'
}
echo "peak memory: 64 MiB input $(peak "$small") MiB; ${SIZE} MiB input $(peak "$plain") MiB; ${BIG} MiB input $(peak "$big") MiB"
echo

# A directory of 8 files: every core, and the same work on one core.
files="$DIR/dir-8x32"
if [ ! -d "$files" ]; then
    mkdir -p "$files"
    for i in 1 2 3 4 5 6 7 8; do
        python3 "$BENCH/gen_server_log.py" 32 --seed "$i" > "$files/node$i.log"
    done
fi
json="$DIR/hyperfine-dir.json"
hyperfine -N -w 1 -r "$RUNS" -i --export-json "$json" \
    -n one-core "taskset -c 0 $BIN --format json $files" \
    -n all-cores "$BIN --format json $files" > /dev/null 2>&1
jq -r '(.results | map({(.command): .median}) | add) as $m
    | "directory of 8 x 32 MiB: one core \($m["one-core"] * 1000 | floor) ms, all cores \($m["all-cores"] * 1000 | floor) ms: speed-up \($m["one-core"] / $m["all-cores"] * 100 | floor / 100)"' "$json"
