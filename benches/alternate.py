#!/usr/bin/env python3
"""Time two commands side by side: ROUNDS rounds (default 7), each running
both RUNS times (default 3) after one warm-up run, the two taking turns
and swapping which goes first every round, as shared machines have slow
and fast phases lasting seconds. Wall time, and CPU time (user + sys) of
the child processes from getrusage.

  benches/alternate.py NAME 'YARDSTICK COMMAND' 'LOGDIAG COMMAND'

Prints one line: each command's median wall and CPU time, and the
ratio logdiag/yardstick (the median of the rounds' ratios, with the
rounds' smallest and largest), for wall and CPU time.
"""
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time

name, commands = sys.argv[1], [shlex.split(c) for c in sys.argv[2:4]]
rounds = int(os.environ.get("ROUNDS", "7"))
runs = int(os.environ.get("RUNS", "3"))


def timed(command):
    """Wall and CPU seconds of one run of `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


for command in commands:
    timed(command)
walls, cpus = ([[], []], [[], []])
wall_ratios, cpu_ratios = [], []
for round_number in range(rounds):
    order = (0, 1) if round_number % 2 == 0 else (1, 0)
    this_round = {0: [], 1: []}
    for which in order:
        for _ in range(runs):
            this_round[which].append(timed(commands[which]))
    for which in (0, 1):
        walls[which] += [w for w, _ in this_round[which]]
        cpus[which] += [c for _, c in this_round[which]]
    median_of = lambda which, at: statistics.median(x[at] for x in this_round[which])
    wall_ratios.append(median_of(1, 0) / median_of(0, 0))
    cpu_ratios.append(median_of(1, 1) / max(median_of(0, 1), 1e-6))


def spread(values):
    return f"{statistics.median(values):.2f}x ({min(values):.2f}-{max(values):.2f})"


ms = lambda values: f"{statistics.median(values) * 1000:.0f} ms"
print(
    f"{name}: yardstick {ms(walls[0])} wall, {ms(cpus[0])} CPU; logdiag {ms(walls[1])} wall, "
    f"{ms(cpus[1])} CPU ({rounds} rounds of {runs}); logdiag/yardstick wall {spread(wall_ratios)}, "
    f"CPU {spread(cpu_ratios)}"
)
