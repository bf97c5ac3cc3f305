#!/usr/bin/env python3
"""Time commands side by side: ROUNDS rounds (default 7), each running
every command RUNS times (default 3) after one warm-up run, the commands
taking turns and the order reversed every other round, as shared machines
have slow and fast phases lasting seconds. Wall time, and CPU time (user
+ sys) of the child processes from getrusage.

  benches/alternate.py NAME 'YARDSTICK COMMAND' 'COMMAND' ['COMMAND' ...]

Prints one line per command after the yardstick: the yardstick's and the
command's median wall and CPU time, and the ratio command/yardstick (the
median of the rounds' ratios, with the rounds' smallest and largest), for
wall and CPU time. With more than one command, each is named by its
program's file name (after any `taskset -c N`), so give them different
names.
"""
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time

name, commands = sys.argv[1], [shlex.split(c) for c in sys.argv[2:]]
if len(commands) < 2:
    sys.exit("usage: alternate.py NAME 'YARDSTICK COMMAND' 'COMMAND' ['COMMAND' ...]")
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


def label(command):
    """The program a command runs, past any `taskset -c N`."""
    words = command[3:] if command[:2] == ["taskset", "-c"] else command
    return os.path.basename(words[0])


for command in commands:
    timed(command)
count = len(commands)
walls, cpus = [[] for _ in commands], [[] for _ in commands]
wall_ratios, cpu_ratios = [[] for _ in commands], [[] for _ in commands]
for round_number in range(rounds):
    order = range(count) if round_number % 2 == 0 else reversed(range(count))
    this_round = {which: [] for which in range(count)}
    for which in order:
        for _ in range(runs):
            this_round[which].append(timed(commands[which]))
    for which in range(count):
        walls[which] += [w for w, _ in this_round[which]]
        cpus[which] += [c for _, c in this_round[which]]
    median_of = lambda which, at: statistics.median(x[at] for x in this_round[which])
    for which in range(1, count):
        wall_ratios[which].append(median_of(which, 0) / median_of(0, 0))
        cpu_ratios[which].append(median_of(which, 1) / max(median_of(0, 1), 1e-6))


def spread(values):
    return f"{statistics.median(values):.2f}x ({min(values):.2f}-{max(values):.2f})"


ms = lambda values: f"{statistics.median(values) * 1000:.0f} ms"
for which in range(1, count):
    timed_one = "logdiag" if count == 2 else label(commands[which])
    print(
        f"{name}: yardstick {ms(walls[0])} wall, {ms(cpus[0])} CPU; "
        f"{timed_one} {ms(walls[which])} wall, {ms(cpus[which])} CPU ({rounds} rounds of {runs}); "
        f"{timed_one}/yardstick wall {spread(wall_ratios[which])}, CPU {spread(cpu_ratios[which])}"
    )
