#!/usr/bin/env bash
# What kernel stack traces per event cost (docs/stacks.md): under `stress-ng --switch 2` at full
# speed, sched:sched_switch + sched:sched_wakeup recorded for SECONDS by, interleaved per round:
#   tracewire      tracewire capture -w FILE (no stacks)
#   tracewire-T    the same with --stack on both events (a stacktrace trigger each)
#   trace-cmd-T    trace-cmd record -k -d -B tracewire-bench-PID -T (a stack after every event, in an
#                  instance of its own, removed after: the top level is not touched)
# One row per run: events/s (the events, stack records not counted), stack records/s, lost, the
# recorder's CPU (% of one core, from /usr/bin/time). tracewire's counts come from its summary
# (records read; with stacks half are stacks, as each event gets one), trace-cmd's from `read
# events:` in its instance's per_cpu stats (the count its report gives).
# The machine is shared and noisy: compare within a round.
#
# Usage (root): scripts/bench-stacks.sh [-s SECONDS] [-r ROUNDS]   (defaults 4 s, 2 rounds)
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
dur=4; rounds=2
while getopts "s:r:" o; do
  case $o in s) dur=$OPTARG ;; r) rounds=$OPTARG ;; *) exit 2 ;; esac
done
[ "$(id -u)" -eq 0 ] || { echo "bench-stacks: needs root" >&2; exit 1; }
for t in stress-ng trace-cmd /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "bench-stacks: missing $t" >&2; exit 1; }
done
T=/sys/kernel/tracing
tmp=$(mktemp -d /tmp/tracewire-bench-stacks.XXXXXX)
inst=tracewire-bench-$$
load=""
cleanup() {
  [ -z "$load" ] || { pkill -P "$load" 2>/dev/null || true; kill "$load" 2>/dev/null || true; }
  [ ! -d "$T/instances/$inst" ] || rmdir "$T/instances/$inst"
  rm -rf "$tmp"; }
trap cleanup EXIT
"$here/tracewire" formats sched:sched_switch >/dev/null   # build once, outside the measurements

read_events() { local n=0 c; for c in $T/instances/$inst/per_cpu/cpu*/stats; do
  n=$((n + $(awk '/^read events:/ {print $3}' "$c"))); done; echo "$n"; }

run() {   # $1 = recorder
  stress-ng --switch 2 -t $((dur + 3)) >/dev/null 2>&1 & load=$!
  sleep 1
  case $1 in
    tracewire|tracewire-T)
      local st=(); [ "$1" = tracewire ] || st=(--stack)
      /usr/bin/time -f "%U %S %e" -o "$tmp/time" "$here/tracewire" capture -e sched:sched_switch "${st[@]}" \
        -e sched:sched_wakeup "${st[@]}" --duration "$dur" -w "$tmp/out.pcapng" --no-iface > "$tmp/sum" 2>&1
      local read lost
      read=$(sed -n 's/.* \([0-9]*\) events read.*/\1/p' "$tmp/sum")
      lost=$(sed -n 's/.*lost events: \(cpu[^(]*\)(.*/\1/p' "$tmp/sum" | awk '{s=0; for (i=2;i<=NF;i+=2) s+=$i; print s}')
      local ev=$read stacks=0
      [ "$1" = tracewire ] || { ev=$((read / 2)); stacks=$((read - ev)); }
      report "$1" "$ev" "$stacks" "$lost" ;;
    trace-cmd-T)
      ( cd "$tmp" && /usr/bin/time -f "%U %S %e" -o "$tmp/time" trace-cmd record -k -d -B "$inst" -T \
          -e sched:sched_switch -e sched:sched_wakeup -o "$tmp/trace.dat" sleep "$dur" > "$tmp/sum" 2>&1 )
      local rec; rec=$(read_events)
      rmdir "$T/instances/$inst"
      report "$1" $((rec / 2)) $((rec - rec / 2)) "$(grep -o 'lost [0-9]*' "$tmp/sum" | awk '{s+=$2} END {print s+0}')" ;;
  esac
  wait "$load" 2>/dev/null || true; load=""
}
report() {   # recorder events stacks lost
  local u s e; read -r u s e < "$tmp/time"
  printf '%-12s %10.0f events/s %10.0f stacks/s  lost %-8s cpu %5.1f%%\n' "$1" "$(echo "$2 / $dur" | bc -l)" \
    "$(echo "$3 / $dur" | bc -l)" "$4" "$(echo "($u + $s) * 100 / $e" | bc -l)"
}
for r in $(seq "$rounds"); do
  echo "round $r ($(date +%T))"
  for rec in tracewire tracewire-T trace-cmd-T; do run "$rec"; done
done
