#!/usr/bin/env bash
# Runs the fuzz targets with cargo fuzz (needs the nightly toolchain and
# `cargo install cargo-fuzz`). Where those are missing, tests/soak.rs is a
# mutation fuzzer for the stable toolchain:
#   LOGDIAG_SOAK_SECONDS=3600 cargo test --release -- --ignored soak Seeds each corpus from the golden fixtures
# and the rule files, then fuzzes every target for SECONDS (default 600)
# on JOBS processes (default: every core).
#
#   bash tests/fuzz/run.sh            # all targets, 10 minutes each
#   bash tests/fuzz/run.sh 3600 diagnose
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
seconds="${1:-600}"
shift || true
targets=("${@:-diagnose watch rules}")
jobs="${JOBS:-$(nproc)}"

seed() {
    local target="$1" dir="$here/corpus/$1"
    mkdir -p "$dir"
    case "$target" in
        rules)
            # Named by area and file: several areas have a ready.toml.
            (cd "$repo/rules" && find . -name '*.toml' | while read -r rule; do
                cp "$rule" "$dir/$(echo "${rule#./}" | tr / _)"
            done) ;;
        diagnose)
            # The first byte of an input is the read size for the split check.
            # Each fixture as it is, newest first, and with every other
            # line a journal JSON record (mixed shapes).
            for log in "$repo"/fixtures/*/input.log; do
                name="$(basename "$(dirname "$log")")"
                { printf '\007'; head -c 65536 "$log"; } > "$dir/$name"
                { printf '\007'; head -c 65536 "$log" | tac; } > "$dir/$name.reversed"
                { printf '\007'; head -c 65536 "$log" | awk 'NR % 2 { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); printf "{\"__CURSOR\":\"s=1;i=%d\",\"MESSAGE\":\"%s\"}\n", NR, $0; next } { print }'; } > "$dir/$name.mixed"
            done ;;
        watch)
            for log in "$repo"/fixtures/*/input.log; do
                head -c 65536 "$log" > "$dir/$(basename "$(dirname "$log")")"
            done ;;
    esac
}

cd "$here"
for target in ${targets[*]}; do
    seed "$target"
    echo "== $target: ${seconds}s on $jobs job(s)"
    cargo +nightly fuzz run --fuzz-dir "$here" "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -max_len=131072 -timeout=20 -rss_limit_mb=2048 \
        -fork="$jobs" -ignore_crashes=0 2>&1 | tail -n 5
    echo "   corpus: $(ls "corpus/$target" | wc -l) inputs"
done
