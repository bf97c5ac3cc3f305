#!/usr/bin/env bash
# Throughput and memory against the yardstick in ../shared/bench: logdiag
# diagnosing the generated server log (plain and journal-wrapped) versus
# ripgrep 15.2 searching it for grep-patterns.txt, timed side by side by
# benches/alternate.py (alternating rounds; wall and CPU time, user +
# sys): the generated log plain, journal-wrapped and on one core; text
# that never repeats a template, against the same grep and against
# ripgrep given the rules' literals (`logdiag rules literals`); a
# directory of 8 logs on every core. Beside logdiag, each time is taken of
# logdiag-floor: a build with the `framing-floor` feature, which reads
# and frames every line but groups and judges nothing, so its ratio is
# the least any judging on top of today's framing can cost. Then peak
# memory from 64 MiB to BIG_MEGABYTES, and of the directory with 16
# threads allowed.
#
#   benches/throughput.sh [MEGABYTES] [BIG_MEGABYTES]     (default 256 1024)
#
# Needs python3 and cargo. ripgrep 15.2 is taken from $RG, or
# ~/.cargo/bin/rg if it is 15.2, or installed there (cargo install
# ripgrep@15.2.0 --locked). Debian's ripgrep 13 (/usr/bin/rg), the
# yardstick before, is timed beside it on the 256 MiB log when present.
# Workloads are cached in $BENCH_DIR (default /tmp/logdiag-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-256}
BIG=${2:-1024}
BENCH=../shared/bench
DIR=${BENCH_DIR:-/tmp/logdiag-bench}
BIN=target/release/logdiag
export ROUNDS=${ROUNDS:-7}
mkdir -p "$DIR"
cargo build --release -q
cargo build --release -q --features framing-floor --target-dir target/floor
FLOOR=target/floor/logdiag-floor
cp target/floor/release/logdiag "$FLOOR"

RG=${RG:-$HOME/.cargo/bin/rg}
if ! "$RG" --version 2>/dev/null | head -1 | grep -q '^ripgrep 15\.2\.'; then
    cargo install ripgrep@15.2.0 --locked --root "$HOME/.cargo" -q
    RG=$HOME/.cargo/bin/rg
fi
OLD_RG=/usr/bin/rg

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
    local category
    category=$(python3 -c 'import json, sys; print((json.load(sys.stdin).get("root_cause") or {}).get("category"))' <<<"$out")
    echo "  diagnosis of $(basename "$1"): exit $code, $category"
    [ "$code" = 1 ] && [ "$category" = flashinfer-unsupported-arch ] || { echo "  WRONG DIAGNOSIS"; exit 1; }
}

compare() { # label yardstick-command logdiag-command: logdiag and its floor
    local floor=${3/$BIN/$FLOOR}
    python3 benches/alternate.py "$1" "$2" "$3" "$floor"
}

echo "yardstick: $("$RG" --version | head -1) ($RG)"
echo "time (medians of $ROUNDS alternating rounds of 3 runs):"
check "$plain"
check "$journal"
GREP="$RG --no-mmap -c -f $BENCH/grep-patterns.txt"
compare "plain ${SIZE} MiB" "$GREP $plain" "$BIN --format json $plain"
if [ -x "$OLD_RG" ]; then
    python3 benches/alternate.py "plain ${SIZE} MiB, against $("$OLD_RG" --version | head -1)" \
        "$OLD_RG --no-mmap -c -f $BENCH/grep-patterns.txt $plain" "$BIN --format json $plain"
fi
compare "journal ${SIZE} MiB" "$GREP $journal" "$BIN --format json $journal"
compare "plain ${SIZE} MiB, one core" "taskset -c 0 $GREP $plain" "taskset -c 0 $BIN --format json $plain"

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
literals="$DIR/literals.txt"
"$BIN" rules literals > "$literals" 2>/dev/null
compare "random words 64 MiB, against the grep" "$GREP $words" "$BIN --format json $words"
compare "random words 64 MiB, against the rules' $(wc -l < "$literals") literals" \
    "$RG --no-mmap -i -F -c -f $literals $words" "$BIN --format json $words"

# A directory of 8 files: every core for both.
files="$DIR/dir-8x32"
if [ ! -d "$files" ]; then
    mkdir -p "$files"
    for i in 1 2 3 4 5 6 7 8; do
        python3 "$BENCH/gen_server_log.py" 32 --seed "$i" > "$files/node$i.log"
    done
fi
compare "directory of 8 x 32 MiB, $(nproc) cores" "$GREP $files" "$BIN --format json $files"
echo

peak() { # file [options]: maximum resident set size in MiB
    local file=$1
    shift
    /usr/bin/time -f %M "$BIN" "$@" --format json "$file" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1 / 1024}'
}
echo "peak memory: 64 MiB input $(peak "$small") MiB; ${SIZE} MiB input $(peak "$plain") MiB; ${SIZE} MiB journal $(peak "$journal") MiB; ${BIG} MiB input $(peak "$big") MiB"
echo "peak memory of the directory: $(peak "$files") MiB; with 16 threads allowed $(peak "$files" -j 16) MiB"
