#!/usr/bin/env bash
# Takes the README's screenshots of the desktop app from real runs under Xvfb:
#   docs/screenshots/take.sh [VIEW ...]
# VIEW: start browser filter capture wireshark timeline latency histogram opened query iograph (default: all, plus browser-snapshot).
# opened: the app with --open OPEN_FILE as a user starts it (no --view): it lands on the events.
# query, iograph: the app with --open OPEN_FILE on those views (an example query; a filter line, log Y);
# timeline, latency, histogram too when OPEN_FILE is set (every event of the file, over its store),
# else over a live capture that the app starts.
# browser-snapshot runs the app as user nobody (as root only): the browser then shows the
# checked-in snapshot, read only. The others run as the caller: as root the live tracefs and a
# real capture through the backend. Needs xvfb and imagemagick (apt-get install -y xvfb imagemagick).
# Each shot is taken when the app (--screenshot-mode, ScreenshotScript) prints "screenshot: ready":
# its view answered over every event (a live capture: after 10 s), no notification on screen; at
# most READY_S seconds (default 240), then it is taken anyway with a warning. opened: after 30 s.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out="$here/docs/screenshots"
views=("$@")
[ ${#views[@]} -gt 0 ] || views=(start browser browser-snapshot filter capture wireshark timeline latency histogram opened query iograph)
"$here/tracewire" --version >/dev/null    # build first (the launcher rebuilds when sources changed)
for v in "${views[@]}"; do
  cfg=$(mktemp -d)    # fresh window state and recent list
  chmod 755 "$cfg"
  mkdir -p "$cfg/tracewire"
  # The window at the top left, 1200x800 (no window manager under Xvfb: no decorations).
  echo '{"x":0,"y":0,"width":1200,"height":800,"maximized":false}' >"$cfg/tracewire/window.json"
  wait_s=${READY_S:-240}    # the most to wait for the app's ready line
  ready=1
  run="env XDG_CONFIG_HOME=$cfg TRACEWIRE_NO_WIRESHARK_GUI=1"
  view=$v
  extra=--screenshot-mode
  if [ "$v" = opened ]; then
    [ -n "${OPEN_FILE:-}" ] || { echo "screenshots: opened needs OPEN_FILE=FILE.pcapng" >&2; continue; }
    view=""    # no --view: --open lands on the events
    extra="--open $OPEN_FILE"
    ready=0 wait_s=30    # no --screenshot-mode: no ready line
  fi
  if [ "$v" = query ] || [ "$v" = iograph ] || { [ -n "${OPEN_FILE:-}" ] && [[ $v =~ ^(timeline|latency|histogram)$ ]]; }; then
    [ -n "${OPEN_FILE:-}" ] || { echo "screenshots: $v needs OPEN_FILE=FILE.pcapng" >&2; continue; }
    extra="--open $OPEN_FILE --screenshot-mode"
  fi
  if [ "$v" = browser-snapshot ]; then
    [ "$(id -u)" -eq 0 ] || { echo "screenshots: browser-snapshot needs root (to run as nobody)" >&2; continue; }
    chmod -R a+rwX "$cfg"
    run="runuser -u nobody -- env HOME=$cfg XDG_CONFIG_HOME=$cfg XAUTHORITY=$cfg/xauth TRACEWIRE_NO_WIRESHARK_GUI=1"
    view=browser
  fi
  log=/tmp/tracewire-shot-$v.log
  xvfb-run -a -s '-screen 0 1280x900x24' bash -c "
    cp \"\$XAUTHORITY\" '$cfg/xauth' && chmod 644 '$cfg/xauth'
    $run '$here/tracewire' ${view:+--view $view} $extra >'$log' 2>&1 &
    app=\$!
    if [ $ready = 1 ]; then
      for _ in \$(seq $wait_s); do
        grep -qs '^screenshot: ready' '$log' && break
        kill -0 \$app 2>/dev/null || break
        sleep 1
      done
      grep '^screenshot: ready' '$log' >&2 || echo 'screenshots: $v: no ready line after $wait_s s (see $log); taken anyway' >&2
      sleep 1
    else
      sleep $wait_s
    fi
    import -window root -crop 1200x800+0+0 +repage '$out/$v.png'
    kill \$app 2>/dev/null; wait \$app 2>/dev/null || true
  "
  rm -rf "$cfg"
  # a live shot's backend outlives the app a moment: the next capture needs its TAP interface tw0
  for _ in $(seq 15); do ip link show tw0 >/dev/null 2>&1 || break; sleep 1; done
  # committed: over 240 KB, 256 colours (a chart's many lines and antialiasing; no visible change)
  if [ "$(stat -c %s "$out/$v.png")" -gt 245760 ]; then
    convert "$out/$v.png" -colors 256 -define png:compression-level=9 "PNG8:$out/$v.png"
  fi
  echo "screenshots: $out/$v.png ($(stat -c %s "$out/$v.png") bytes)"
done
