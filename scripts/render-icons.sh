#!/usr/bin/env bash
# Renders icons/tracewire.svg to PNGs (16…256 px) and the tree glyphs to 16 px PNGs, into
# icons/png/ and the app's resources (app/src/main/resources/org/tracewire/app/icons/).
# Needs rsvg-convert (apt-get install -y librsvg2-bin).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
command -v rsvg-convert >/dev/null || { echo "render-icons: needs rsvg-convert: sudo apt-get install -y librsvg2-bin" >&2; exit 1; }
out="$here/icons/png"
res="$here/app/src/main/resources/org/tracewire/app/icons"
mkdir -p "$out" "$res"
for s in 16 24 32 48 64 128 256; do
  rsvg-convert -w "$s" -h "$s" "$here/icons/tracewire.svg" -o "$out/tracewire-$s.png"
  cp "$out/tracewire-$s.png" "$res/"
done
for g in "$here"/icons/glyphs/*.svg; do
  n=$(basename "$g" .svg)
  rsvg-convert -w 16 -h 16 "$g" -o "$out/glyph-$n.png"
  cp "$out/glyph-$n.png" "$res/"
done
echo "render-icons: $(ls "$out" | wc -l) PNGs in $out (copied to $res)"
