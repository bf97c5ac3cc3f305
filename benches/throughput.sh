#!/usr/bin/env bash
# Throughput and memory against the yardstick in ../shared/bench: logdiag
# diagnosing the generated server log (plain and journal-wrapped) versus
# ripgrep searching it for grep-patterns.txt, timed side by side by
# hyperfine in one run (in alternating rounds), wall and CPU time (user +
# sys): the generated log plain, journal-wrapped and on one core; text
# that never repeats a template; a directory of 8 logs on every core. Then
# peak memory from 64 MiB to BIG_MEGABYTES.
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

compare() { # label ripgrep-command logdiag-command
    # Shared machines have slow and fast phases lasting seconds, so the two
    # commands take turns: ROUNDS rounds of a few runs each, and each ratio
    # is the median of the rounds' ratios, with the rounds' spread.
    local rounds="$DIR/rounds.jsonl" json="$DIR/hyperfine.json"
    : > "$rounds"
    for _ in $(seq "$ROUNDS"); do
        hyperfine -N -w 1 -r 3 -i --export-json "$json" -n ripgrep "$2" -n logdiag "$3" > /dev/null 2>&1
        jq -c '.results | map({(.command): {times, cpu: (.user + .system)}}) | add' "$json" >> "$rounds"
    done
    jq -rs --arg name "$1" "$MEDIAN"'
        def r2: . * 100 | floor / 100;
        (map(.ripgrep.times[]) | median) as $rg | (map(.logdiag.times[]) | median) as $ld
        | map((.logdiag.times | median) / (.ripgrep.times | median)) as $walls
        | map(.logdiag.cpu / .ripgrep.cpu) as $cpus
        | "\($name): ripgrep \($rg * 1000 | floor) ms, logdiag \($ld * 1000 | floor) ms (medians of \(length * 3) runs each, \(length) alternating rounds); logdiag/ripgrep wall \($walls | median | r2)x (rounds \($walls | min | r2)-\($walls | max | r2)), CPU user+sys \($cpus | median | r2)x (rounds \($cpus | min | r2)-\($cpus | max | r2))"' "$rounds"
}

RG="rg --no-mmap -c -f $BENCH/grep-patterns.txt"
echo "time:"
check "$plain"
check "$journal"
compare "plain ${SIZE} MiB" "$RG $plain" "$BIN --format json $plain"
compare "journal ${SIZE} MiB" "$RG $journal" "$BIN --format json $journal"
compare "plain ${SIZE} MiB, one core" "taskset -c 0 $RG $plain" "taskset -c 0 $BIN --format json $plain"

# Text that never repeats a line template: random words, seeded.
words="$DIR/words-64.log"
[ -s "$words" ] || python3 - "$words" <<'PY'
import random, sys
rng = random.Random(7)
vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 11))) for _ in range(50000)]
with open(sys.argv[1], "w") as out:
    size = 0
    while size < 64 << 20:
        line = " ".join(rng.choice(vocab) for _ in range(rng.randint(4, 24))) + "\n"
        out.write(line)
        size += len(line)
PY
compare "random words 64 MiB" "$RG $words" "$BIN --format json $words"

# A directory of 8 files: every core for both.
files="$DIR/dir-8x32"
if [ ! -d "$files" ]; then
    mkdir -p "$files"
    for i in 1 2 3 4 5 6 7 8; do
        python3 "$BENCH/gen_server_log.py" 32 --seed "$i" > "$files/node$i.log"
    done
fi
compare "directory of 8 x 32 MiB, $(nproc) cores" "$RG $files" "$BIN --format json $files"
echo

peak() { # file: maximum resident set size in MiB
    /usr/bin/time -f %M "$BIN" --format json "$1" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1 / 1024}'
}
echo "peak memory: 64 MiB input $(peak "$small") MiB; ${SIZE} MiB input $(peak "$plain") MiB; ${SIZE} MiB journal $(peak "$journal") MiB; ${BIG} MiB input $(peak "$big") MiB"
