#!/usr/bin/env bash
# Opening a large capture: the desktop app against KernelShark on the same events, interleaved.
#   scripts/bench-app-open.sh [FILE.pcapng] [ROUNDS]
# Without FILE, records one (root): sched_switch, sched_wakeup and raw_syscalls for 6 s under
# `stress-ng --switch 2` and a syscall loop. The same events go to KernelShark as trace.dat
# (`tracewire export`). Each round, under Xvfb with a fresh store cache and window state:
# - tracewire --open FILE (TRACEWIRE_TIMING=1; the class archive made once before the rounds):
#   window shown, first rows, store ready (each with the process CPU time then), first
#   page of the store's table (ms since the JVM started, from its stderr); the build's rate from
#   the first rows to store ready, and the child's own (its checkpoint's timing line);
# - kernelshark FILE.dat: its window mapped (xdotool);
# - both: "settled", the first second in which the process used under 3% of a core (3 clock
#   ticks; an idle JavaFX window still ticks now and then) once the window is up, and the peak RSS
#   (VmHWM) then;
# - with BENCH_APP_TOUR=1, tracewire then goes through every view (TRACEWIRE_TIMING=tour,
#   org.tracewire.app.main.TimingTour): go to frame over the file, each view's tab until it shows
#   its result over every event, timeline redraws at four zooms; its lines and the peak RSS after;
# - with BENCH_APP_REOPEN=1, tracewire opens the file once more, its store then in the cache.
# Needs xvfb, xdotool, kernelshark (apt-get install -y xvfb xdotool kernelshark); prints a line per
# run, the load average with each, and the ratios tracewire / KernelShark per round.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
file=${1:-}
rounds=${2:-2}
work=$(mktemp -d)
chmod 755 "$work"
trap 'pkill -P $$ 2>/dev/null || true; rm -rf "$work"' EXIT
"$here/tracewire" --version >/dev/null   # built before anything is timed

if [ -z "$file" ]; then
  file=$work/open.pcapng
  stress-ng --switch 2 --timeout 8s >/dev/null 2>&1 &
  (end=$((SECONDS + 8)); while [ $SECONDS -lt $end ]; do cat /proc/version >/dev/null; done) &
  sleep 1
  "$here/tracewire" capture -e sched:sched_switch -e sched:sched_wakeup -e raw_syscalls:sys_enter \
    -e raw_syscalls:sys_exit --duration 6 -w "$file" 2>"$work/capture.log"
  wait
fi
dat=$work/open.dat
"$here/tracewire" export "$file" -w "$dat" >/dev/null
chmod 644 "$dat"
events=$("$here/tracewire" sql --csv --cache-dir "$work/count" "$file" "SELECT count(*) FROM events" | tail -1)
echo "file: $file, $events events, $(du -m "$file" | cut -f1) MB; trace.dat $(du -m "$dat" | cut -f1) MB"

# helpers for the shells under xvfb-run (its /bin/sh drops exported functions): sourced there
cat >"$work/lib.sh" <<'LIB'
# ticks (utime + stime) of a process
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo -1; }
# waits until the process used under 3 ticks (30 ms at 100 Hz) in a whole second; prints the ms
# since $2 (epoch ms)
settle() {
  local pid=$1 start=$2 last now
  last=$(ticks "$pid")
  while sleep 1; do
    now=$(ticks "$pid")
    [ "$now" = -1 ] && break
    [ $((now - last)) -lt 3 ] && break
    last=$now
  done
  echo $(( $(date +%s%3N) - start - 1000 ))
}
hwm() { awk '/VmHWM/ {printf "%d", $2 / 1024}' "/proc/$1/status"; }
LIB

# The app's class data sharing archive (app_cds_opts, scripts/jvm-opts.sh), as a user has it from
# the second start on: made by one run of the app until its first rows, then copied into each
# round's cache (a round's store cache stays fresh).
make_class_archive() {
  local home=$work/cds-home
  mkdir -p "$home/config"
  xvfb-run -a -s '-screen 0 1600x900x24' bash -c "
    XDG_CACHE_HOME=$home XDG_CONFIG_HOME=$home/config TRACEWIRE_TIMING=1 TRACEWIRE_NO_WIRESHARK_GUI=1 \
      '$here/tracewire' --open '$file' 2>'$work/cds.log' &
    launcher=\$!
    for i in \$(seq 240); do grep -q 'first streamed rows' '$work/cds.log' && break; sleep 0.5; done
    # [j]ava: a pattern that does not match this shell's own command line
    pkill -TERM -f '[j]ava.*AppLauncher.*--open $file'; wait \$launcher 2>/dev/null || true"
  ls "$home"/tracewire/cds/*.jsa* >/dev/null 2>&1 || echo "no class archive made (see $work/cds.log)" >&2
}

# run_tracewire ROUND [reopen]: with "reopen", the round's store cache is kept (the store built)
run_tracewire() {
  local cfg=$work/tw-$1 log=$work/tw-$1${2:+-$2}.log
  mkdir -p "$cfg/config/tracewire" "$cfg/tracewire"
  cp -a "$work/cds-home/tracewire/cds" "$cfg/tracewire/" 2>/dev/null || true
  echo '{"x":0,"y":0,"width":1600,"height":900,"maximized":false}' >"$cfg/config/tracewire/window.json"
  xvfb-run -a -s '-screen 0 1600x900x24' bash -c "
    source '$work/lib.sh'
    start=\$(date +%s%3N)
    XDG_CACHE_HOME=$cfg XDG_CONFIG_HOME=$cfg/config TRACEWIRE_TIMING=$timing TRACEWIRE_NO_WIRESHARK_GUI=1 \
      '$here/tracewire' --open '$file' 2>>'$log' & # appended: the lines this shell adds stay
    launcher=\$!
    for i in \$(seq 600); do grep -q 'first page of the store' '$log' && break; sleep 0.5; done
    pid=\$(pgrep -n -f '[j]ava.*AppLauncher.*--open $file')
    s=\$(settle \$pid \$start)
    echo \"settled \$s ms\" >>'$log'
    echo \"rss \$(hwm \$pid) MiB\" >>'$log'
    if [ $timing = tour ]; then
      for i in \$(seq 2400); do grep -q 'timing: tour done' '$log' && break; [ -d /proc/\$pid ] || break; sleep 0.5; done
      echo \"tour rss \$(hwm \$pid) MiB\" >>'$log'
    fi
    kill \$pid; wait \$launcher 2>/dev/null || true
  "
  local m
  # the ms at the end of a timing line (before the CPU time)
  m() { sed -n "s/^timing: $1.* +\([0-9]*\) ms\( (cpu [0-9]* ms)\)\?$/\1/p" "$log" | head -1; }
  # the process's CPU time at that point (less moved by other load than the wall clock)
  mc() { sed -n "s/^timing: $1\( ([^)]*)\)\? +[0-9]* ms (cpu \([0-9]*\) ms).*/\2/p" "$log" | head -1; }
  # the same for a line with more text before its time (store ready: the UI thread's stalls)
  mcs() { sed -n "s/^timing: $1.* +[0-9]* ms (cpu \([0-9]*\) ms)$/\1/p" "$log" | head -1; }
  echo "tracewire  round $1${2:+ ($2: the store in the cache)}: window $(m 'window shown') ms (cpu $(mc 'window shown') ms)," \
    "first rows $(m 'first streamed rows in the table') ms (cpu $(mc 'first streamed rows in the table') ms)," \
    "store ready $(m 'store ready') ms (cpu $(mcs 'store ready') ms), first store page $(m "first page of the store's table on screen") ms," \
    "$(grep '^settled' "$log"), peak $(grep '^rss' "$log" | cut -d' ' -f2-) (load $(cut -d' ' -f1-3 /proc/loadavg))"
  # the store's build: from the first rows to store ready, and the child's own (its timing line)
  local ready rows build
  ready=$(m 'store ready'); rows=$(m 'first streamed rows in the table')
  build=$(sed -n 's/^timing: store build checkpoint .*wall_s=\([0-9.]*\).*/\1/p' "$log" | head -1)
  [ -n "$ready" ] && [ -n "$rows" ] && [ -z "${2:-}" ] && awk -v e="$events" -v a="$rows" -v b="$ready" -v w="$build" \
    'BEGIN { printf "  store build: first rows to store ready %.2f s (%.2f M events/s)", (b - a) / 1000, e / (b - a) / 1000;
             if (w != "") printf "; the child'"'"'s build %.2f s (%.2f M events/s)", w, e / w / 1e6; print "" }'
  true
  if [ "$timing" = tour ]; then
    sed -n 's/^timing: \(go to\|view\|timeline\|tour\|.*not complete\)/  \1/p' "$log"
    grep -m1 -h 'OutOfMemoryError' "$log" || echo "  no OutOfMemoryError; peak RSS after the tour $(grep '^tour rss' "$log" | cut -d' ' -f3-)"
  fi
  tw_window=$(m 'window shown'); tw_rows=$(m 'first streamed rows in the table')
  tw_settled=$(sed -n 's/^settled \([0-9]*\) ms/\1/p' "$log"); tw_rss=$(sed -n 's/^rss \([0-9]*\) MiB/\1/p' "$log")
}

run_kernelshark() {
  # as user nobody: as root KernelShark opens a warning dialog first
  local log=$work/ks-$1.log home=$work/ks-home-$1
  mkdir -p "$home" && chmod 777 "$home"
  xvfb-run -a -s '-screen 0 1600x900x24' bash -c "
    source '$work/lib.sh'
    cp \"\$XAUTHORITY\" '$home/xauth' && chmod 644 '$home/xauth'
    start=\$(date +%s%3N)
    runuser -u nobody -- env HOME='$home' XAUTHORITY='$home/xauth' kernelshark '$dat' >/dev/null 2>&1 &
    runner=\$!
    for i in \$(seq 1200); do
      pid=\$(pgrep -n -x kernelshark) && xdotool search --onlyvisible --pid \$pid >/dev/null 2>&1 && break
      sleep 0.1
    done
    echo \"window \$(( \$(date +%s%3N) - start )) ms\" >'$log'
    s=\$(settle \$pid \$start)
    echo \"settled \$s ms\" >>'$log'
    echo \"rss \$(hwm \$pid) MiB\" >>'$log'
    kill \$pid; wait \$runner 2>/dev/null || true
  "
  echo "kernelshark round $1: $(tr '\n' ',' <"$log" | sed 's/,$//') (load $(cut -d' ' -f1-3 /proc/loadavg))"
  ks_window=$(sed -n 's/^window \([0-9]*\) ms/\1/p' "$log"); ks_settled=$(sed -n 's/^settled \([0-9]*\) ms/\1/p' "$log")
  ks_rss=$(sed -n 's/^rss \([0-9]*\) MiB/\1/p' "$log")
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "?"; else printf "%.1f", a / b }'; }
timing=1
[ "${BENCH_APP_TOUR:-}" = 1 ] && timing=tour

make_class_archive
for r in $(seq "$rounds"); do
  run_tracewire "$r"
  run_kernelshark "$r"
  echo "ratios round $r (tracewire / KernelShark): window $(ratio "$tw_window" "$ks_window")x," \
    "first events on screen / window $(ratio "$tw_rows" "$ks_window")x, settled $(ratio "$tw_settled" "$ks_settled")x," \
    "peak RSS $(ratio "$tw_rss" "$ks_rss")x"
  if [ "${BENCH_APP_REOPEN:-}" = 1 ]; then run_tracewire "$r" reopen; fi
done
