# tracewire's JVM options, sourced by the launchers: the source tree's ./tracewire and the installed
# /usr/bin/tracewire (the Debian package, dist/). Sets capture_jvm_opts with the stated ceilings, and
# sql_jvm_opts and app_jvm_opts, and the functions app_cds_opts (with app_cds_fresh) and
# app_cds_private_dir; defines nothing else and prints nothing.
# shellcheck shell=bash
# The capture-type JVMs (`backend`; `capture` and `extcap`) get explicit limits, so the process's
# memory ceiling is a stated number, whatever the machine's RAM (docs/capture.md, "Memory"):
#   heap 128 MiB; direct buffers: the engine's stash of sub-buffer pages (64 MiB per CPU, 256 MiB
#   over all CPUs, at least 1 MiB per CPU) + 32 MiB for the outputs;
#   metaspace 64 MiB; code cache 48 MiB. CPUs: the kernel's possible CPUs (tracefs has a per_cpu
#   directory for each). A capture whose outputs are all files keeps its sub-buffers in a read-ahead
#   instead of the stash (anonymous memory outside these limits: a quarter of MemAvailable, 256 to
#   2048 MiB, unless --read-ahead says otherwise; org.tracewire.capture.ReadAhead), so the ceiling
#   counts the larger of the two. Ceiling = these + 64 MiB + 1 MiB per CPU of the JVM's own (GC
#   tables, thread stacks, shared libraries): capture_rss_ceiling_mib, 2,386 MiB on 2 CPUs (466 MiB
#   for a capture with a live output, the backend's with the app's stream, or --read-ahead 0). The other
#   subcommands keep the JVM's defaults, except sql/export and the app (below). CaptureMemoryLiveTest sources this
#   file to run a capture with these flags.
# JIT thresholds at a fifth of the JVM's for the given org.tracewire packages (their methods leave
# the interpreter sooner): the options, each with a leading space
hot_packages() {
  local p
  for p in "$@"; do printf ' -XX:CompileCommand=CompileThresholdScaling,org.tracewire.%s.*::*,0.2' "$p"; done
}
capture_cpus=$(( $(sed 's/.*[-,]//' /sys/devices/system/cpu/possible 2>/dev/null || echo 0) + 1 ))
capture_stash_mib=$(( capture_cpus * 64 < 256 ? capture_cpus * 64 : (capture_cpus > 256 ? capture_cpus : 256) ))
capture_jvm_opts="-Xmx128m -XX:MaxDirectMemorySize=$(( capture_stash_mib + 32 ))m"
capture_jvm_opts+=" -XX:MaxMetaspaceSize=64m -XX:ReservedCodeCacheSize=48m"
# CPU (docs/decisions/0007-capture-jvm-options.md, with the figures): the serial collector (a
# capture allocates almost nothing per record) and JIT thresholds 10 times the default, so start-up
# code stays interpreted rather than compiled twice; the per-record packages (capture, ringbuffer,
# wire, pcapng) at a fifth of the default, so the emitter leaves the interpreter sooner.
capture_jvm_opts+=" -XX:+UseSerialGC -XX:CompileThresholdScaling=10 -XX:CompileCommand=quiet"
capture_jvm_opts+=$(hot_packages capture ringbuffer wire pcapng)
capture_read_ahead_max_mib=2048   # ReadAhead.MAX_DEFAULT
# without a read-ahead (a live output, the backend's stream, --read-ahead 0): 466 MiB on 2 CPUs
capture_stash_rss_ceiling_mib=$(( 128 + capture_stash_mib + 32 + 64 + 48 + 64 + capture_cpus ))
capture_read_ahead_or_stash_mib=$(( capture_stash_mib > capture_read_ahead_max_mib ? capture_stash_mib : capture_read_ahead_max_mib ))
capture_rss_ceiling_mib=$(( capture_stash_rss_ceiling_mib - capture_stash_mib + capture_read_ahead_or_stash_mib ))

# the desktop app: the capture store keeps the events off the Java heap (DuckDB: 256 MiB of buffer
# pool in the app, StoreTable.APP_DUCKDB_MIB, spilling beyond), which holds the table's pages, a first
# screen of rows and the timeline's slices (~26 B each): 384 MiB is room for 10 M slices and held every
# view open on a 10 M-event capture (BENCHMARKS.md); without a ceiling the JVM took a quarter of RAM
app_jvm_opts="-Xmx384m"
# and C1 only: the window and its first rows twice as soon; an opened file's store, the per-event
# code that needs C2, is built by a child JVM with sql_jvm_opts (-Dtracewire.storeJvmOpts;
# docs/decisions/0027); a live capture's store is still built in the app
app_jvm_opts+=" -XX:TieredStopAtLevel=1"
# sql: output streams and DuckDB keeps its data off the Java heap (building: 192 MiB, spilling
# beyond); the serial collector: a build is one thread, G1 cost it more CPU and RSS (docs/decisions/0018);
# 192 MiB of heap: with 256 the 10 M-event build peaked at 516-537 MiB RSS, with 192 at 458 (same CPU)
sql_jvm_opts="-Xmx192m -XX:+UseSerialGC"
# and, as for a capture, JIT thresholds 10 times the default with the per-event packages at a fifth
# of it: start-up code (picocli, DuckDB JDBC, the views) stays interpreted instead of being compiled
# by C2, which took a third of a sched build's CPU time (docs/decisions/0018)
sql_jvm_opts+=" -XX:CompileThresholdScaling=10 -XX:CompileCommand=quiet"
sql_jvm_opts+=$(hot_packages store input pcapng wire record format)

# Class data sharing for the desktop app and for sql/export (JDK 17's dynamic archive;
# docs/decisions/0020, 0024): the classes the JVM loaded until it last exited (JavaFX, ControlsFX,
# DuckDB's driver, picocli, ours), kept in
# the user's cache and mapped at the next start instead of read, parsed and verified again. One
# archive per class path; made again when a jar of it or the java binary is newer. The JVM writes
# it at exit into a new file, which becomes the archive only once a JVM has mapped it with the same
# class path (a JVM killed while writing leaves a cut archive, and mapping a cut archive crashes the
# JVM; the JVM removes the file before it writes anew, and writes the header, with its checksum,
# last). Prints the options (each with a leading space), none when the cache cannot be written.
#   app_cds_opts CLASS_PATH [JAVA]
app_cds_opts() {
  local cp=$1 java=${2:-java} dir jsa java_bin
  local -a entries
  dir=${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/tracewire/cds
  mkdir -p "$dir" 2>/dev/null && dir=$(readlink -f "$dir") && [ -w "$dir" ] || return 0
  # an archive is code the JVM maps: only from a directory no other user can change
  app_cds_private_dir "$dir" || return 0
  jsa=$dir/app-$(printf %s "$cp" | cksum | cut -d' ' -f1).jsa
  IFS=: read -r -a entries <<<"$cp"
  entries=("${entries[@]%/\*}")
  java_bin=$(readlink -f "$(command -v "$java")" 2>/dev/null || true)
  # true when the file is an archive of ours, newer than every jar and the java binary
  app_cds_fresh() {
    [ -f "$1" ] && [ ! -L "$1" ] && [ -O "$1" ] \
      && [ -z "$(find "${entries[@]}" ${java_bin:+"$java_bin"} -newer "$1" -print -quit 2>/dev/null)" ]
  }
  # taken under a name of this launcher's first, then tried: a JVM that writes the new file later
  # (another sql run exiting) makes a file of its own, never the one tried and moved into place
  local tried=$jsa.try$$
  if ! app_cds_fresh "$jsa" && app_cds_fresh "$jsa.new" && mv -f "$jsa.new" "$tried" 2>/dev/null; then
    if "$java" -XX:SharedArchiveFile="$tried" -Xshare:on -Xlog:cds*=off -XX:ErrorFile=/dev/null \
        -XX:-CreateCoredumpOnCrash -cp "$cp" -version >/dev/null 2>&1; then
      mv -f "$tried" "$jsa"
    else
      rm -f "$tried"
    fi
  fi
  if app_cds_fresh "$jsa"; then
    printf ' -XX:SharedArchiveFile=%s -Xlog:cds*=off' "$jsa"
  else
    rm -f "$jsa" "$jsa.new"
    printf ' -XX:ArchiveClassesAtExit=%s -Xlog:cds*=off' "$jsa.new"
  fi
}

# True when no other user can change the directory or one above it: each is owned by this user or
# root and writable by no one else (sticky ones, as /tmp, aside).
app_cds_private_dir() {
  local d=$1 uid owner mode
  uid=$(id -u)
  while :; do
    owner=$(stat -c %u "$d") && mode=$((8#$(stat -c %a "$d"))) || return 1
    [ "$owner" = "$uid" ] || [ "$owner" = 0 ] || return 1
    (( (mode & 8#022) == 0 || (mode & 8#1000) != 0 )) || return 1
    [ "$d" = / ] && return 0
    d=$(dirname "$d")
  done
}
