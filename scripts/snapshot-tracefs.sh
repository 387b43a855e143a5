#!/usr/bin/env bash
# Copies this kernel's tracefs metadata (no trace data) into a directory with tracefs's own layout,
# so that formats can be parsed without root and on other machines.
# Usage: scripts/snapshot-tracefs.sh [TRACEFS] OUTDIR
set -euo pipefail
if [ $# -eq 1 ]; then src=/sys/kernel/tracing; out=$1; else src=$1; out=$2; fi
[ -r "$src/events/header_page" ] || { echo "snapshot-tracefs: $src is not a readable tracefs (root? mounted?)" >&2; exit 1; }
mkdir -p "$out/events"
for f in available_events printk_formats available_tracers trace_clock buffer_size_kb buffer_subbuf_size_kb; do
  [ -r "$src/$f" ] && cat "$src/$f" > "$out/$f"
done
cat "$src/events/header_page" > "$out/events/header_page"
cat "$src/events/header_event" > "$out/events/header_event"
for fmt in "$src"/events/*/*/format; do
  rel=${fmt#"$src"/}
  mkdir -p "$out/$(dirname "$rel")"
  cat "$fmt" > "$out/$rel"
done
order=$(python3 -c 'import sys; print(sys.byteorder)' 2>/dev/null || echo little)
cat > "$out/tracewire-snapshot.properties" <<EOP
# Written by scripts/snapshot-tracefs.sh: tracefs metadata of the kernel below (no trace data).
kernel.release=$(uname -r)
kernel.machine=$(uname -m)
byte_order=$order
EOP
echo "snapshot of $(ls "$out"/events/*/*/format | wc -l) event formats in $out"
