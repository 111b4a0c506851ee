#!/usr/bin/env bash
# One run that measures Partita (persistent, WAL on), dynalite (in memory) and a fixed-response Netty server (the
# HTTP ceiling) with the same load generator, workloads and connection counts on this machine.
# Usage: [WARMUP=seconds] bench/compare.sh [seconds] [dynalite-dir]   (after ./mvnw -q -B -pl bench -am package -DskipTests;
#        dynalite from `npm install dynalite` in dynalite-dir, default /tmp/dynalite; skipped if absent)
set -euo pipefail
secs=${1:-10}
dyn_dir=${2:-/tmp/dynalite}
warm=${WARMUP:-10}
cp=bench/target/partita-bench.jar
load() { java -cp "$cp" io.partita.bench.load.LoadGenerator "$@"; }
measure() { # name port pid
  local name=$1 port=$2 pid=$3
  # Create and preload the table (the fixed-response server has none: it would never report it ACTIVE).
  [[ $name == ceiling ]] || load --endpoint "http://127.0.0.1:$port" --create --items 10000 --item-size 1024 \
    --workload get --connections 8 --duration 5 >/dev/null 2>&1 || true
  # Warm up every measured workload first: the JIT compiles a path the first time it runs hot, and figures taken
  # while it does so (it took a quarter of the server's CPU in a 15 s profile) describe the compiler, not the path.
  load --endpoint "http://127.0.0.1:$port" --items 10000 --item-size 1024 --workload put \
    --connections 8 --duration "$warm" >/dev/null 2>&1 || true
  load --endpoint "http://127.0.0.1:$port" --items 10000 --item-size 1024 --workload get \
    --connections 8 --duration "$warm" >/dev/null 2>&1 || true
  for conns in 8 32; do
    for w in get put; do
      printf '%-10s %-4s c=%-3s ' "$name" "$w" "$conns"
      load --endpoint "http://127.0.0.1:$port" --items 10000 --item-size 1024 --workload "$w" \
        --connections "$conns" --duration "$secs" --server-pid "$pid" 2>&1 \
        | awk '/ops\/s/ {for (i=1;i<=NF;i++) if ($i=="ops/s") printf "%s ops/s ", $(i-1)}
               /^(get|put) / {printf "p50 %s p99 %s ms ", $3, $5}
               /server \(pid/ {printf "server %s %s", $(NF-1), $NF}'
      echo
    done
  done
  # Query of one partition returning 10 items of 1 KB (hash+range table, 1,000 partitions of 10 items).
  # (The fixed-response server answers {} to everything, so there is no table to create there.)
  [[ $name == ceiling ]] || load --endpoint "http://127.0.0.1:$port" --table bench-range --create --range-key \
    --items 10000 --item-size 1024 --items-per-partition 10 --workload query10 --connections 8 --duration "$warm" \
    >/dev/null 2>&1 || true
  for conns in 8 32; do
    printf '%-10s %-4s c=%-3s ' "$name" q10 "$conns"
    load --endpoint "http://127.0.0.1:$port" --table bench-range --range-key --items 10000 --item-size 1024 \
      --items-per-partition 10 --workload query10 --connections "$conns" --duration "$secs" --server-pid "$pid" 2>&1 \
      | awk '/ops\/s/ {for (i=1;i<=NF;i++) if ($i=="ops/s") printf "%s ops/s ", $(i-1)}
             /^query10 / {printf "p50 %s p99 %s ms ", $3, $5}
             /server \(pid/ {printf "server %s %s", $(NF-1), $NF}'
    echo
  done
}
data=$(mktemp -d)
# --throughput off: dynalite and the ceiling enforce no limits, and the on-demand table's four partitions would cap
# PutItem at 4,000 WCU/s. docs/PERFORMANCE.md measures what enforcement costs separately (bench/enforcement.sh).
java -Xms256m -Xmx1g -XX:+UseG1GC -jar server/target/partita.jar --port 8050 --data-dir "$data" --throughput off \
  >/dev/null 2>&1 &
p=$!; sleep 2; measure partita 8050 $p; kill $p; wait $p 2>/dev/null || true; rm -rf "$data"
java -cp "$cp" io.partita.bench.load.FixedResponseServer --port 8051 >/dev/null 2>&1 &
p=$!; sleep 1; measure ceiling 8051 $p; kill $p; wait $p 2>/dev/null || true
if [[ -x "$dyn_dir/node_modules/.bin/dynalite" ]]; then
  "$dyn_dir/node_modules/.bin/dynalite" --port 8052 >/dev/null 2>&1 &
  p=$!; sleep 1; measure dynalite 8052 $p; kill $p; wait $p 2>/dev/null || true
fi
