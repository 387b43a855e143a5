#!/usr/bin/env bash
# Runs tracewire's JMH benchmarks: per-core record throughput of the capture path.
# Usage: scripts/bench-jmh.sh [JMH ARGS]   (e.g. -f 1 -wi 2 -i 3 RecordPipeline)
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
mvn -B -q -f "$here/pom.xml" -pl benchmarks -am -DskipTests package
exec java -Dtracewire.snapshot="$here/snapshots/linux-6.18" \
  -cp "$here/benchmarks/target/classes:$here/benchmarks/target/lib/*" org.openjdk.jmh.Main "$@"
