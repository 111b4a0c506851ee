#!/usr/bin/env bash
# Latency at half load, as issue #6 defines it: starts one server jar (persistent, WAL on, --throughput off, G1 with a
# GC log) on a fresh data directory, preloads 10,000 items of 1 KB, measures the closed-loop maximum of WORKLOAD at 8
# connections, then runs it open loop (wrk2-style, latency from the intended send time) at half that rate, REPS times,
# printing the percentiles, the CPU per operation on both sides and the GC pauses during each open-loop run. In turn
# with each of those runs it runs the fixed-response server (the HTTP ceiling, started beside it on PORT+1) open loop
# at the same rate, for the machine's own tail in the same spell.
# Each open-loop line ends with the share of CPU time the hypervisor took from this machine's vCPUs meanwhile (steal,
# from /proc/stat): on a virtual machine a few per cent of it puts milliseconds into any server's p99.
# The generator warms up for 10 s at the open-loop rate first: its own JIT compiling during the measured seconds took
# a core's worth of CPU from a machine with two, and the server's tail with it (docs/PERFORMANCE.md).
# Usage: bench/halfload.sh JAR [SECS] [WORKLOAD] [REPS]   (after ./mvnw -q -B -pl bench -am package -DskipTests)
set -euo pipefail
jar=$1
secs=${2:-15}
workload=${3:-get}
reps=${4:-2}
port=${PORT:-8065}
# shellcheck source=bench/server.sh
source "$(dirname "$0")/server.sh"
start_server "$jar" "$port"
run() { load --workload "$workload" --connections 8 --server-pid "$pid" "$@"; }
summary() {
  awk '/ops\/s/ {for (i=1;i<=NF;i++) if ($i=="ops/s") printf "%s ops/s ", $(i-1)}
       /^[a-z0-9]+ +[0-9,]+ +[0-9.]+/ && !/ops/ {printf "p50 %s p90 %s p99 %s p99.9 %s ms ", $3, $4, $5, $6}
       /client CPU/ {printf "client %s server %s µs/op", $3, $(NF-1)}
       /^errors:/ && !/none/ {sub(/^errors: */, ""); err = " ERRORS " $0}
       END {printf "%s", err}'
}
# The aggregate cpu line of /proc/stat; steal_since LINE prints the steal share of the CPU time since then.
cpu_ticks() { head -1 /proc/stat 2>/dev/null || echo cpu; }
steal_since() {
  printf '%s\n%s\n' "$1" "$(cpu_ticks)" | awk '{for (i = 2; i <= 9; i++) t[NR] += $i; s[NR] = $9}
    END {if (t[2] > t[1]) printf ", steal %.1f%%", 100 * (s[2] - s[1]) / (t[2] - t[1])}'
  echo
}
run --create --duration 2 >/dev/null 2>&1
run --duration 10 >/dev/null 2>&1
printf 'closed loop:        '
max=$(run --duration "$secs" 2>&1 | tee "$data/max" | awk '/ops\/s/ {for (i=1;i<=NF;i++) if ($i=="ops/s") print $(i-1)}')
summary <"$data/max"
echo
rate=$(echo "$max" | tr -d , | awk '{printf "%d", $1 / 2}')
# The fixed-response server beside it, for what this machine's scheduling alone puts into the tail at that rate. The
# two take turns, so each pair of lines shares a spell of the machine (its speed and steal drift over minutes).
partita_port=$port
partita_pid=$pid
ceiling_port=$((port + 1))
java -Xms256m -Xmx1g -XX:+UseG1GC -cp bench/target/partita-bench.jar io.partita.bench.load.FixedResponseServer \
  --port "$ceiling_port" >/dev/null 2>&1 &
ceiling_pid=$!
trap 'stop_pids $partita_pid $ceiling_pid; rm -rf "$data"' EXIT
for _ in $(seq 100); do
  curl -s "http://127.0.0.1:$ceiling_port/" >/dev/null 2>&1 && break
  sleep 0.1
done
port=$ceiling_port
pid=$ceiling_pid
run --duration 10 >/dev/null 2>&1
for i in $(seq "$reps"); do
  port=$partita_port
  pid=$partita_pid
  n0=$(grep -c 'Pause' "$data/gc.log" || true)
  printf 'open loop %6s/s: ' "$rate"
  t0=$(cpu_ticks)
  run --rate "$rate" --warmup 10 --duration "$secs" 2>&1 | summary
  steal_since "$t0"
  grep 'Pause' "$data/gc.log" | tail -n +$((n0 + 1)) | sed -n 's/.* \([0-9.]*\)ms$/\1/p' | sort -n \
    | awk '{a[NR] = $1} END {if (NR) printf "  GC pauses during it: %d, median %.2f ms, max %.2f ms\n", NR,
           a[int((NR + 1) / 2)], a[NR]}'
  port=$ceiling_port
  pid=$ceiling_pid
  printf 'ceiling   %6s/s: ' "$rate"
  t0=$(cpu_ticks)
  run --rate "$rate" --warmup 10 --duration "$secs" 2>&1 | summary
  steal_since "$t0"
done
