#!/usr/bin/env bash
# End-to-end benchmark: trace-cmd record vs tracewire (pcapng, and TAP with dumpcap capturing) on
# the same sched workload (stress-ng --switch 2 at rising --switch-freq), runs interleaved.
# Prints one row per run: events recorded per second, events lost, CPU used by the recorder
# (user+sys seconds / wall seconds, from /usr/bin/time), and for the TAP path dumpcap's drops.
# Usage (root): scripts/bench-e2e.sh [SECONDS] [FREQ ...]     defaults: 4, 25000 50000 100000 200000 0
#   (--switch-freq 0 = as fast as stress-ng can switch)
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
dur=${1:-4}; shift || true
freqs=("$@"); [ ${#freqs[@]} -gt 0 ] || freqs=(25000 50000 100000 200000 0)
[ "$(id -u)" -eq 0 ] || { echo "bench-e2e: needs root" >&2; exit 1; }
for t in stress-ng trace-cmd dumpcap capinfos /usr/bin/time; do command -v "$t" >/dev/null || { echo "bench-e2e: missing $t" >&2; exit 1; }; done
T=/sys/kernel/tracing
tmp=$(mktemp -d /tmp/tracewire-bench.XXXXXX)
iface=twbench0
cleanup() { pkill -f "stress-ng --switch" 2>/dev/null || true; echo 0 > $T/events/enable; echo "$on0" > $T/tracing_on; rm -rf "$tmp"; }
on0=$(cat $T/tracing_on)
trap cleanup EXIT
"$here/tracewire" formats sched:sched_switch >/dev/null   # build once, outside the measurements

cpu_of() { awk '/^cpu /{printf "%.1f", ($2+$3)/'"$dur"'*100}' "$1"; }
printf "%-18s %9s %12s %10s %8s %s\n" recorder freq events/s lost cpu% "note (cpu% = process user+sys over the run; tracewire also reports its CPU while tracing, startup excluded)"
for f in "${freqs[@]}"; do
  for tool in trace-cmd tracewire-pcapng tracewire-tap; do
    stress-ng --switch 2 --switch-freq "$f" -t $((dur + 4)) >/dev/null 2>&1 &
    sleep 1.5
    note=""
    case $tool in
      trace-cmd)
        /usr/bin/time -f "cpu %U %S" -o "$tmp/time" trace-cmd record -q -k -d -e sched:sched_switch -e sched:sched_wakeup \
          -o "$tmp/t.dat" sleep "$dur" >/dev/null 2>&1
        echo 0 > $T/events/enable; echo "$on0" > $T/tracing_on   # -k leaves events on and tracing off
        events=$(trace-cmd report -i "$tmp/t.dat" 2>/dev/null | grep -c -E 'sched_(switch|wakeup):' || true)
        lost=$( (trace-cmd report -i "$tmp/t.dat" 2>/dev/null | grep -oE 'LOST [0-9]+ EVENTS' | awk '{s+=$2} END {print s+0}'; \
                 trace-cmd report --stat -i "$tmp/t.dat" 2>/dev/null | awk '/^overrun:/{s+=$2} END {print s+0}') | awk '{s+=$1} END {print s}')
        ;;
      tracewire-pcapng)
        out=$(/usr/bin/time -f "cpu %U %S" -o "$tmp/time" "$here/tracewire" capture -e sched:sched_switch -e sched:sched_wakeup \
          --no-iface -w "$tmp/t.pcapng" --duration "$dur" 2>/dev/null)
        events=$(echo "$out" | sed -n 's/.* \([0-9]*\) events read.*/\1/p')
        lost=$(echo "$out" | grep -oE 'cpu[0-9]+ [0-9]+' | awk '{s+=$2} END {print s+0}')
        note="while tracing: $(echo "$out" | grep -oE 'cpu [0-9]+% of one core')"
        echo "$out" | grep -q unknown && note="$note, uncounted loss"
        ;;
      tracewire-tap)
        (while [ ! -e /sys/class/net/$iface ]; do sleep 0.02; done; dumpcap -q -B 64 -i $iface -w "$tmp/tap.pcapng" 2>"$tmp/dumpcap.log") &
        out=$(/usr/bin/time -f "cpu %U %S" -o "$tmp/time" "$here/tracewire" capture -e sched:sched_switch -e sched:sched_wakeup \
          -i $iface --delay 2 --linger 2 --duration "$dur" 2>/dev/null)
        wait
        events=$(echo "$out" | sed -n 's/.* \([0-9]*\) events read.*/\1/p')
        lost=$(echo "$out" | grep -oE 'cpu[0-9]+ [0-9]+' | awk '{s+=$2} END {print s+0}')
        got=$(capinfos -c -M "$tmp/tap.pcapng" 2>/dev/null | awk '/Number of packets/{print $NF}')
        note="dumpcap got $got of $events frames; while tracing: $(echo "$out" | grep -oE 'cpu [0-9]+% of one core')"
        ;;
    esac
    wait 2>/dev/null || true
    pkill -f "stress-ng --switch" 2>/dev/null || true; sleep 0.5
    printf "%-18s %9s %12.0f %10s %8s %s\n" "$tool" "$f" "$(echo "$events / $dur" | bc -l)" "$lost" "$(cpu_of "$tmp/time")" "$note"
  done
done
