#!/usr/bin/env bash
# Capture store build benchmark (docs/store.md, "Performance"): records a sched mix and a syscall
# mix with `tracewire capture` (root), then builds each file's store with `tracewire sql` into an
# empty cache and reports, per file: events, the build's CPU time (user + sys of the whole JVM,
# its start and a count(*) query included), events per CPU-second, wall time, peak RSS (VmHWM via
# /usr/bin/time), and the store's size against the pcapng's; beside it the build phase's own CPU
# time (build_cpu_s: the process's CPU time from the builder's first event read to its commit,
# printed by the builder under TRACEWIRE_TIMING=1; JVM start, DuckDB's load and the views left
# out) and its events per CPU-second ("-" for a tree that does not print it).
#
# Usage: scripts/bench-store.sh [SECONDS] [ROUNDS]      (default 4 s captures, 2 build rounds)
# Environment:
#   BENCH_STORE_DIR=DIR       keep the captures in DIR (sched.pcapng, syscalls.pcapng), reuse
#                             them: a DIR holding any *.pcapng is not captured into, its files
#                             are built (e.g. one 10 M-event capture); two runs build the same files
#   BENCH_STORE_BASELINE=TREE also build with the tracewire tree TREE (a built copy of an earlier
#                             tree, e.g. `cp -a . /tmp/before`), interleaved, round by round
# Workloads: sched    stress-ng --switch 2 with sched:sched_switch + sched:sched_wakeup
#            syscalls a getppid(2) loop per CPU (gcc) with syscalls:sys_enter_getppid + sys_exit_getppid
# CPU time, not wall time, is the figure to compare: on a shared machine the build waits for a CPU.
# Needs: root, tracefs, stress-ng, gcc, /usr/bin/time.
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
seconds=${1:-4}
rounds=${2:-2}
tmp=$(mktemp -d /tmp/bench-store.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
files=${BENCH_STORE_DIR:-$tmp}
mkdir -p "$files"
reuse=$(find "$files" -maxdepth 1 -name '*.pcapng' -size +0 -print -quit)
trees=("$here")
[ -n "${BENCH_STORE_BASELINE:-}" ] && trees=("$BENCH_STORE_BASELINE" "$here")
for tool in stress-ng gcc /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-store: $tool is missing" >&2; exit 1; }
done
ncpu=$(nproc)

cat > "$tmp/getppid-loop.c" <<'EOF'
#include <unistd.h>
#include <time.h>
#include <stdlib.h>
int main(int c, char **v) { time_t end = time(0) + atoi(v[1]);
  for (;;) { for (int i = 0; i < 100000; i++) getppid(); if (time(0) >= end) return 0; } }
EOF
gcc -O2 -o "$tmp/getppid-loop" "$tmp/getppid-loop.c"

capture() { # NAME WORKLOAD... ; EVENTS in $events
  local name=$1; shift
  [ -n "$reuse" ] && return 0
  # its own process group, ended with the capture (a slow capture start must not outlast it);
  # not setsid: a session of its own is an autogroup of its own (CONFIG_SCHED_AUTOGROUP), and
  # there stress-ng --switch records 1-3 k events/s instead of 0.4 M while a JVM runs
  set -m
  "$@" &
  local load=$!
  set +m
  sleep 1
  # shellcheck disable=SC2086 # events is a list of words
  "$here/tracewire" capture $events --no-iface --duration "$seconds" -w "$files/$name.pcapng" 2>"$tmp/$name.capture" >/dev/null
  kill -- -"$load" 2>/dev/null || true
  wait "$load" || true
  tail -1 "$tmp/$name.capture" >&2
}

events="-e sched:sched_switch -e sched:sched_wakeup"
capture sched stress-ng --switch 2 --timeout $((seconds + 60)) --quiet
events="-e syscalls:sys_enter_getppid -e syscalls:sys_exit_getppid"
capture syscalls bash -c "for i in \$(seq $ncpu); do '$tmp/getppid-loop' $((seconds + 60)) & done; wait"

printf '%-9s %-8s %5s %10s %7s %12s %11s %12s %7s %8s %10s %10s %6s\n' workload tree round events cpu_s 'events/cpu-s' \
  build_cpu_s 'build_ev/cpu' wall_s rss_mib pcapng_mib store_mib ratio
for file in "$files"/*.pcapng; do
  name=$(basename "$file" .pcapng)
  for round in $(seq "$rounds"); do
    for tree in "${trees[@]}"; do
      label=this; [ "$tree" != "$here" ] && label=baseline
      rm -rf "$tmp/cache"
      TRACEWIRE_TIMING=1 /usr/bin/time -f '%U %S %e %M' -o "$tmp/time" "$tree/tracewire" sql --cache-dir "$tmp/cache" --csv \
        "$file" "SELECT count(*) AS n FROM events" > "$tmp/out" 2>"$tmp/err"
      n=$(tail -1 "$tmp/out")
      build=$(sed -n 's/^timing: store build commit .* cpu_s=\([0-9.]*\) .*/\1/p' "$tmp/err" | tail -1)
      read -r user sys wall rss < "$tmp/time"
      store=$(stat -c %s "$tmp"/cache/store-*.duckdb)
      pcap=$(stat -c %s "$file")
      awk -v w="$name" -v t="$label" -v r="$round" -v n="$n" -v u="$user" -v s="$sys" -v e="$wall" -v m="$rss" -v p="$pcap" -v st="$store" \
        -v b="${build:--}" \
        'BEGIN { c = u + s; br = b == "-" ? "-" : sprintf("%.0f", n / b)
          printf "%-9s %-8s %5d %10d %7.2f %12.0f %11s %12s %7.2f %8.0f %10.1f %10.1f %6.2f\n", w, t, r, n, c, n / c, b, br,
            e, m / 1024, p / 1048576, st / 1048576, st / p }'
    done
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $ncpu CPUs (a shared machine: compare CPU time, not wall time)"
