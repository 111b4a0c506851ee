#!/usr/bin/env bash
# Sustained overwrites: starts one server jar (persistent, WAL on, --throughput off, G1 with a GC log) on a fresh data
# directory, preloads 10,000 items of 1 KB, then runs RUNS back-to-back `put` runs of SECS seconds at 8 connections,
# printing after each its throughput, latency, CPU per operation, the server's RSS and the heap after the last GC,
# and at the end the distribution of GC pauses. Memory or latency that grows from run to run is the thing to look for.
# Usage: bench/sustain.sh JAR [RUNS] [SECS]   (after ./mvnw -q -B -pl bench -am package -DskipTests)
set -euo pipefail
jar=$1
runs=${2:-3}
secs=${3:-30}
port=${PORT:-8064}
# shellcheck source=bench/server.sh
source "$(dirname "$0")/server.sh"
start_server "$jar" "$port"
load --create --workload get --connections 8 --duration 2 >/dev/null 2>&1
for i in $(seq "$runs"); do
  load --workload put --connections 8 --duration "$secs" --server-pid "$pid" 2>&1 \
    | awk '/ops\/s/ {for (i=1;i<=NF;i++) if ($i=="ops/s") printf "%s ops/s ", $(i-1)}
           /^put / {printf "p50 %s p99 %s ms ", $3, $5}
           /server \(pid/ {printf "server %s %s ", $(NF-1), $NF}'
  echo "RSS $(awk '/VmRSS/ {print int($2 / 1024)}' /proc/$pid/status) MB," \
    "heap after last GC $(grep -o '[0-9]*M->[0-9]*M([0-9]*M)' "$data/gc.log" | tail -1)"
done
grep 'Pause' "$data/gc.log" | sed -n 's/.* \([0-9.]*\)ms$/\1/p' | sort -n \
  | awk '{a[NR] = $1} END {if (NR) printf "GC pauses: %d, median %.2f ms, p90 %.2f ms, max %.2f ms\n",
         NR, a[int((NR + 1) / 2)], a[int(NR * 0.9)], a[NR]}'
