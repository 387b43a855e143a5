#!/usr/bin/env bash
# Live-view ceiling of the Wireshark extcap: `tshark -i tracewire` (tracewire's extcap writing
# pcapng into Wireshark's FIFO, dumpcap writing it to a file) against `tracewire capture -w`
# (pcapng straight into a file), interleaved on the same sched workload at rising rates:
# stress-ng --switch 2 --switch-freq RATE (0 = as fast as it can), events sched:sched_switch +
# sched:sched_wakeup. One row per run: frames written, the span of their event times, frames per
# second of that span, events lost and counted (the frames' drop counts: epb_dropcount, and the
# capture's summary), and for the extcap the frames dumpcap delivered per second of tshark's run
# (a reader slower than the events makes the view lag, then the kernel's losses, counted, bound
# the lag: the span then covers only the start of the run).
# At the end: dumpcap's own ceiling, the last pcapng-path file fed through a FIFO into dumpcap on
# the otherwise idle machine (Wireshark 4.0's dumpcap makes four select()s, two read()s and one
# write() per pcapng block: it reads the header, then the body, and flushes after every block;
# docs/capture.md, "Live-view ceiling: what dumpcap does per frame").
#
# Usage (root, after `./tracewire extcap --install`): scripts/bench-extcap.sh [-s SECONDS] [RATE ...]
#   defaults: -s 4; 25000 50000 100000 200000 0
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
dur=4
while getopts "s:" o; do
  case $o in s) dur=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(25000 50000 100000 200000 0)
[ "$(id -u)" -eq 0 ] || { echo "bench-extcap: needs root" >&2; exit 1; }
for t in stress-ng tshark capinfos bc; do
  command -v "$t" >/dev/null || { echo "bench-extcap: missing $t" >&2; exit 1; }
done
tshark -D 2>/dev/null | grep -q '\. tracewire ' || { echo "bench-extcap: run ./tracewire extcap --install first" >&2; exit 1; }
tmp=$(mktemp -d /tmp/tracewire-bench-extcap.XXXXXX)
trap 'kill "${sp:-}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
"$here/tracewire" --version >/dev/null # build now, not inside a timed run

# frames, seconds first..last, drops (sum of epb_dropcount) of a pcapng
measure() {
  local f=$1 n secs drops
  n=$(capinfos -c -M "$f" | sed -n 's/^Number of packets:[[:space:]]*//p')
  secs=$(capinfos -u -M "$f" | sed -n 's/^Capture duration:[[:space:]]*\([0-9.]*\).*/\1/p')
  drops=$(tshark -r "$f" --disable-protocol tracewire -Y 'frame.drop_count > 0' -T fields -e frame.drop_count 2>/dev/null \
    | awk '{s += $1} END {print s + 0}')
  echo "$n $secs $drops"
}

printf '%-10s %-8s %10s %10s %12s %12s %s\n' switch-freq path frames span frames/span delivered/s "lost (kernel, counted)"
for rate in "${rates[@]}"; do
  for path in extcap pcapng; do
    f="$tmp/$path-$rate.pcapng"
    stress-ng --switch 2 --switch-freq "$rate" -t $((dur + 20))s --quiet & sp=$!
    sleep 1
    if [ "$path" = extcap ]; then
      # the extcap's JVM start and session set-up come out of tshark's duration
      t0=$(date +%s.%N)
      tshark -i tracewire -a duration:$((dur + 2)) -w "$f" >"$tmp/log" 2>&1
      wall=$(echo "$(date +%s.%N) - $t0" | bc -l)
      lost=""
    else
      "$here/tracewire" capture -e sched:sched_switch -e sched:sched_wakeup --duration "$dur" --no-iface \
        -w "$f" >"$tmp/log" 2>&1
      lost=$(grep -o 'lost events:.*' "$tmp/log" | sed 's/, cpu [0-9]*% of one core.*//')
    fi
    kill "$sp" 2>/dev/null || true; wait "$sp" 2>/dev/null || true; sp=""
    read -r n secs drops < <(measure "$f")
    delivered=-
    [ "$path" = extcap ] && delivered=$(printf '%.0f' "$(echo "$n / $wall" | bc -l)")
    printf '%-10s %-8s %10s %10.2f %12.0f %12s %s\n' "$rate" "$path" "$n" "$secs" "$(echo "$n / $secs" | bc -l)" \
      "$delivered" "drop counts $drops${lost:+; $lost}"
    if [ "$path" = pcapng ]; then mv "$f" "$tmp/last.pcapng"; else rm -f "$f"; fi
    sleep 2
  done
done
if [ -f "$tmp/last.pcapng" ]; then
  mkfifo "$tmp/fifo"
  cat "$tmp/last.pcapng" >"$tmp/fifo" &
  t0=$(date +%s.%N)
  dumpcap -q -i "$tmp/fifo" -w "$tmp/through.pcapng" >/dev/null 2>&1
  wall=$(echo "$(date +%s.%N) - $t0" | bc -l)
  n=$(capinfos -c -M "$tmp/through.pcapng" | sed -n 's/^Number of packets:[[:space:]]*//p')
  printf '# dumpcap reading a FIFO (idle machine): %s frames in %.1f s = %.0f frames/s\n' "$n" "$wall" "$(echo "$n / $wall" | bc -l)"
fi
