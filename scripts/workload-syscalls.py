#!/usr/bin/env python3
"""Rate-limited syscall workload for scripts/bench-e2e.sh: calls getppid(2) so that the
syscalls:sys_enter_getppid and syscalls:sys_exit_getppid trace events together occur about
RATE times per second (RATE/2 calls), for SECONDS seconds, in 1 ms ticks.
Usage: workload-syscalls.py RATE SECONDS
Prints the calls made and the achieved event rate on exit."""
import os
import sys
import time

rate = float(sys.argv[1])
seconds = float(sys.argv[2])
calls_per_s = rate / 2
tick = 0.001
start = time.monotonic()
end = start + seconds
done = 0
getppid = os.getppid
now = start
while now < end:
    due = int((now - start) * calls_per_s) + int(calls_per_s * tick)
    for _ in range(due - done):
        getppid()
    done = due
    nxt = now + tick
    now = time.monotonic()
    if now < nxt:
        time.sleep(nxt - now)
        now = time.monotonic()
elapsed = time.monotonic() - start
print(f"workload-syscalls: {done} calls, {2 * done / elapsed:.0f} events/s", file=sys.stderr)
