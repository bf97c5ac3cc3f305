#!/usr/bin/env python3
"""Write a generated fleet for `logdiag fleet`: HOSTS server logs of about
MEGABYTES each (../shared/bench/gen_server_log.py's healthy part), with
failures planted on a few hosts, and the list of what was planted.

  benches/gen_fleet.py HOSTS MEGABYTES OUTDIR

Healthy hosts share one file (hard links), as identical logs would be
read; a host with a planted failure has its own copy with the failure's
lines appended, at its own time:
  - cuda-oom on every 33rd host from host 7 (a torch OOM traceback, the
    unit's exit);
  - an unrecognised crash on hosts 12 and 140 (the same made-up error);
  - a hang on host 99 (requests pending, then a quarter hour of the
    server's own lines and no progress);
  - the generator's own ending, a FlashInfer arch rejection, on host 3;
  - a slow host, 150: the same launch, each request at a fifth of the
    speed (`slow`);
  - hosts 160, 170 and 180 launched another way (tp_size=4) and at 45% of
    the speed: like each other, so none of them is slow
    (`other-configuration`).
OUTDIR/.planted.json maps each planted category to its hosts.
"""
import json
import os
import re
import subprocess
import sys

hosts, megabytes, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
here = os.path.dirname(os.path.abspath(__file__))
generator = os.path.join(here, "..", "..", "shared", "bench", "gen_server_log.py")
os.makedirs(out, exist_ok=True)
base = os.path.join(out, ".base.log")
if not os.path.exists(base):
    with open(base, "wb") as f:
        subprocess.run([sys.executable, generator, str(megabytes)], stdout=f, check=True)
# The healthy part: up to the last progress line before the generated crash.
healthy = os.path.join(out, ".healthy.log")
with open(base, "rb") as f:
    data = f.read()
tail_from = max(0, len(data) - (1 << 20))
cut = data.rfind(b"gen throughput", tail_from)
cut = data.index(b"\n", cut) + 1
with open(healthy, "wb") as f:
    f.write(data[:cut])


def oom(minute):
    stamp = f"[2026-06-01 02:{minute:02d}:05 TP0]"
    return (
        f"{stamp} Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2620, in run_scheduler_process\n'
        "    scheduler.event_loop_overlap()\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.2 GiB is free.\n"
        f"[2026-06-01 02:{minute:02d}:06] Received sigquit from a child process. It usually means the child failed.\n"
    )


def unrecognised(minute):
    stamp = f"[2026-06-01 03:{minute:02d}:00 TP0]"
    return (
        f"{stamp} Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/srv/frob.py", line 7, in spin\n'
        "RuntimeError: frobnicator lost its balance at stage 7\n"
        f"[2026-06-01 03:{minute:02d}:01] Received sigquit from a child process. It usually means the child failed.\n"
    )


def hang():
    lines = ["[2026-06-01 04:00:00 TP0] Decode batch. #running-req: 64, #token: 40960, token usage: 0.41, cuda graph: True, gen throughput (token/s): 2911.00, #queue-req: 17\n"]
    for minute in range(1, 16):
        lines.append(f"[2026-06-01 04:{minute:02d}:00 TP0] Scheduler still waiting for the batch of 64 requests\n")
    return "".join(lines)


def slowed(share, args=None):
    """The healthy part with every generation speed cut to `share`, and
    its launch arguments replaced by `args`."""
    text = data[:cut].decode()
    if args is not None:
        text = re.sub(r"server_args=ServerArgs\([^\n]*\)", "server_args=ServerArgs(%s)" % args, text, count=1)
    speed = re.compile(r"gen throughput \(token/s\): ([0-9.]+)")
    return speed.sub(lambda m: "gen throughput (token/s): %.2f" % (float(m.group(1)) * share), text).encode()


OTHER_ARGS = "model_path='moonshotai/Kimi-K2', tp_size=4, mem_fraction_static=0.85, attention_backend='triton', port=30000"
planted = {
    "cuda-oom": [],
    "unknown": [],
    "hung": [],
    "flashinfer-unsupported-arch": [],
    "slow": [],
    "other-configuration": [],
}
for i in range(1, hosts + 1):
    name = f"node-{i:03d}"
    path = os.path.join(out, f"{name}.log")
    if os.path.exists(path):
        os.remove(path)
    extra, source = None, healthy
    if i >= 7 and (i - 7) % 33 == 0:
        extra = oom(i % 60)
        planted["cuda-oom"].append(name)
    elif i in (12, 140):
        extra = unrecognised(i % 60)
        planted["unknown"].append(name)
    elif i == 99:
        extra = hang()
        planted["hung"].append(name)
    elif i == 3:
        source = base
        planted["flashinfer-unsupported-arch"].append(name)
    elif i == 150:
        with open(path, "wb") as f:
            f.write(slowed(0.2))
        planted["slow"].append(name)
        continue
    elif i in (160, 170, 180):
        with open(path, "wb") as f:
            f.write(slowed(0.45, OTHER_ARGS))
        planted["other-configuration"].append(name)
        continue
    if extra is None:
        os.link(source, path)
    else:
        with open(path, "wb") as f:
            f.write(data[:cut])
            f.write(extra.encode())
with open(os.path.join(out, ".planted.json"), "w") as f:
    json.dump({k: [h for h in v if int(h[5:]) <= hosts] for k, v in planted.items()}, f, indent=1)
