#!/usr/bin/env bash
# Takes the README's screenshots of the desktop app from real runs under Xvfb:
#   docs/screenshots/take.sh [VIEW ...]     (default: start browser filter capture wireshark)
# Needs xvfb and imagemagick (apt-get install -y xvfb imagemagick). Run as root to show the live
# tracefs and a real capture (as another user the browser shows the snapshot, read only).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out="$here/docs/screenshots"
views=("$@")
[ ${#views[@]} -gt 0 ] || views=(start browser filter capture wireshark)
export XDG_CONFIG_HOME=$(mktemp -d)    # fresh window state and recent list
mkdir -p "$XDG_CONFIG_HOME/tracewire"
# The window at the top left, 1200x800 (no window manager under Xvfb: no decorations).
echo '{"x":0,"y":0,"width":1200,"height":800,"maximized":false}' >"$XDG_CONFIG_HOME/tracewire/window.json"
"$here/tracewire" --version >/dev/null    # build first (the launcher rebuilds when sources changed)
for v in "${views[@]}"; do
  wait_s=12
  [ "$v" = capture ] && wait_s=25
  xvfb-run -a -s '-screen 0 1280x900x24' bash -c "
    '$here/tracewire' --view=$v --screenshot-mode >/tmp/tracewire-shot-$v.log 2>&1 &
    app=\$!
    sleep $wait_s
    import -window root -crop 1200x800+0+0 +repage '$out/$v.png'
    kill \$app; wait \$app 2>/dev/null || true
  "
  echo "screenshots: $out/$v.png"
done
rm -rf "$XDG_CONFIG_HOME"
