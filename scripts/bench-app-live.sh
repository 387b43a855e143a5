#!/usr/bin/env bash
# A live capture from the desktop app at full speed: counts, the JavaFX thread's stalls, memory.
#   scripts/bench-app-live.sh [SECONDS] [RATE] [ROUNDS]      (root; defaults 30 s, 1000000 events/s, 1)
# Each round, under Xvfb with a fresh cache and window state:
# - a getppid(2) workload (scripts/workload-syscalls.py) makes syscalls:sys_enter_getppid and
#   sys_exit_getppid occur RATE times a second (0: a C loop per CPU, as fast as the machine goes),
#   until the capture has stopped;
# - the app starts a capture of those two events itself (`tracewire --capture EVENT --duration
#   SECONDS`, as Start on the capture view), into a new file in its cache's live folder, which it
#   reads as it grows into its store and its views, stops it after SECONDS, and indexes the rest;
# - TRACEWIRE_TIMING=1 makes the app print the kernel's counts at stop, its store's count once
#   ready, and the longest wait of a heartbeat posted to the JavaFX thread every 50 ms
#   (org.tracewire.app.util.StallMonitor), with the CPU time that thread used during that wait
#   (near the wait: the app's own work; far below: the thread waited for a CPU or for the GC), and
#   the same from the capture's start to its stop alone; over 150 ms, the thread's stack at each
#   50 ms it still waits ("stall sample" lines);
# - the file is counted independently (`tracewire sql ... count(*)`), the app's peak RSS (VmHWM)
#   read once its store is ready.
# - BENCH_APP_LIVE_VIEW=histogram: the histogram is on screen while capturing, and each of its
#   refreshes over the growing store is timed from the commit it shows (TRACEWIRE_TIMING_VIEW).
# - BENCH_APP_LIVE_WORKLOAD=switch: `stress-ng --switch 2` instead, and the app captures
#   sched:sched_switch and sched:sched_wakeup (about 0.9 M events/s here; RATE is ignored).
# Prints a line per round: events/s, the app's count, the file's, the kernel's read + lost, the
# longest stall (from Start to Stop, at store ready, and over the whole run at exit), the peak RSS, the load average.
# Needs root, tracefs, xvfb, python3, gcc for RATE 0 (apt-get install -y xvfb python3 gcc).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-30}
rate=${2:-1000000}
rounds=${3:-1}
[ "$(id -u)" = 0 ] || { echo "bench-app-live: needs root (the app's capture)" >&2; exit 1; }
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
work=$(mktemp -d /tmp/bench-app-live.XXXXXX)
trap 'pkill -P $$ 2>/dev/null || true; rm -rf "$work"' EXIT
"$here/tracewire" --version >/dev/null   # built before anything is timed

if [ "$rate" = 0 ]; then
  cat >"$work/getppid-loop.c" <<'EOF'
#include <unistd.h>
#include <time.h>
#include <stdlib.h>
int main(int c, char **v) { time_t end = time(0) + atoi(v[1]);
  for (;;) { for (int i = 0; i < 100000; i++) getppid(); if (time(0) >= end) return 0; } }
EOF
  gcc -O2 -o "$work/getppid-loop" "$work/getppid-loop.c"
fi

# for the shell under xvfb-run (its /bin/sh drops exported functions): sourced there
cat >"$work/lib.sh" <<'LIB'
hwm() { awk '/VmHWM/ {printf "%d", $2 / 1024}' "/proc/$1/status"; }
LIB

captures='--capture syscalls:sys_enter_getppid --capture syscalls:sys_exit_getppid'
[ "${BENCH_APP_LIVE_WORKLOAD:-}" = switch ] && captures='--capture sched:sched_switch --capture sched:sched_wakeup'

# starts the workload for SECONDS, its processes in $workload_pids, ended when the round ends
workload_pids=()
workload() {
  workload_pids=()
  if [ "${BENCH_APP_LIVE_WORKLOAD:-}" = switch ]; then
    stress-ng --switch 2 --timeout "$1" >"$work/workload.log" 2>&1 &
    workload_pids+=($!)
  elif [ "$rate" = 0 ]; then
    for _ in $(seq "$(nproc)"); do "$work/getppid-loop" "$1" & workload_pids+=($!); done
  else
    python3 "$here/scripts/workload-syscalls.py" "$rate" "$1" >"$work/workload.log" 2>&1 &
    workload_pids+=($!)
  fi
}

# The longest JavaFX wait of the app's TRACEWIRE_TIMING line that starts with "timing: PREFIX".
stall_after() { # PREFIX LOG
  sed -n "s/^timing: $1longest UI-thread stall \([0-9]*\) ms (the thread ran \([0-9]*\) ms of it); \([0-9]*\) waits.*/\1 ms (ran \2 ms of it; \3 waits over 250 ms)/p" "$2"
}

run() {
  local r=$1 cfg=$work/round-$1 log=$work/round-$1.log
  mkdir -p "$cfg/config/tracewire" "$cfg/cache"
  echo '{"x":0,"y":0,"width":1600,"height":900,"maximized":false}' >"$cfg/config/tracewire/window.json"
  local load_before
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  workload $((seconds + 90))
  # the workload ends once the capture has stopped: the store's indexing has the machine to itself
  (for _ in $(seq 2400); do grep -qs '^timing: capture stopped' "$log" && break; sleep 0.5; done
   kill "${workload_pids[@]}" 2>/dev/null || true) &
  xvfb-run -a -s '-screen 0 1600x900x24' bash -c "
    source '$work/lib.sh'
    XDG_CACHE_HOME='$cfg/cache' XDG_CONFIG_HOME='$cfg/config' TRACEWIRE_TIMING=1 TRACEWIRE_NO_WIRESHARK_GUI=1 \
      TRACEWIRE_TIMING_VIEW='${BENCH_APP_LIVE_VIEW:-}' \
      '$here/tracewire' $captures \
      --duration $seconds 2>'$log' &
    launcher=\$!
    for i in \$(seq 1200); do grep -q '^timing: store ready' '$log' && break; sleep 0.5; done
    pid=\$(pgrep -n -f 'java.*AppLauncher --capture')
    echo \"rss \$(hwm \$pid) MiB\" >'$log.rss'
    kill \$pid; wait \$launcher 2>/dev/null || true
  "
  kill "${workload_pids[@]}" 2>/dev/null || true
  wait "${workload_pids[@]}" 2>/dev/null || true
  local file
  file=$(sed -n 's/^timing: capture started into \(.*\) +[0-9]* ms\( (cpu [0-9]* ms)\)\?$/\1/p' "$log" | head -1)
  if [ -z "$file" ] || ! grep -q '^timing: store ready' "$log"; then
    echo "round $r: the app did not finish; its log:" >&2
    tail -20 "$log" >&2
    return 1
  fi
  local stopped app inside first_ts span read lost rate_seen stall_ready stall_capture stall_exit
  stopped=$(grep '^timing: capture stopped' "$log" || true)
  if [ -z "$stopped" ]; then
    echo "round $r: no final counters from the backend (the stop failed?); the capture's states:" >&2
    grep '^timing: capture status' "$log" >&2 || true
  fi
  read=$(sed -n 's/.*kernel: \([0-9]*\) read.*/\1/p' <<<"$stopped")
  lost=$(sed -n 's/.* \([0-9]*\) lost;.*/\1/p' <<<"$stopped")
  app=$(sed -n 's/^timing: store ready (\([0-9]*\) events).*/\1/p' "$log")
  stall_ready=$(stall_after 'store ready.*' "$log")
  stall_capture=$(stall_after 'during the capture: ' "$log")
  stall_exit=$(stall_after 'exit: ' "$log")
  IFS=, read -r inside first_ts span < <("$here/tracewire" sql --csv --cache-dir "$work/count-$r" "$file" \
    "SELECT count(*), min(ts), max(ts) - min(ts) FROM events" | tail -1)
  rate_seen=$(awk -v n="$inside" -v ns="$span" 'BEGIN { printf "%.2f", (ns > 0 ? n / (ns / 1e9) / 1e6 : 0) }')
  echo "round $r: ${rate_seen} M events/s over $(awk -v ns="$span" 'BEGIN { printf "%.1f", ns / 1e9 }') s;" \
    "app $app, file $inside, kernel $read read + $lost lost;" \
    "JavaFX stall: longest ${stall_capture:-?} from Start to Stop, $stall_ready until store ready, ${stall_exit:-?} to exit;" \
    "peak $(cut -d' ' -f2- "$log.rss"); $(du -m "$file" | cut -f1) MB;" \
    "load $load_before -> $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ "$app" != "$inside" ] || [ "$inside" != "$read" ]; then
    echo "  COUNTS DIFFER: app $app, file $inside, kernel read $read" >&2
  fi
  # timings of the run, for the record
  grep '^timing:' "$log" | sed 's/^/  /'
}

for r in $(seq "$rounds"); do
  run "$r"
done
