#!/usr/bin/env bash
# What throughput enforcement costs: GetItem and PutItem throughput and server CPU per operation with
# `--throughput off` and `--throughput enforce`, on a table provisioned high enough never to throttle
# (100,000 RCU and WCU: 134 partitions). Persistent storage with the WAL on, 1 KB items, 8 connections.
# Usage: bench/enforcement.sh [seconds per run, default 10] [repetitions, default 2] [workloads, default "get put"]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
reps=${2:-2}
workloads=${3:-get put}
cp=bench/target/partita-bench.jar
[[ -f $cp && -f server/target/partita.jar ]] || ./mvnw -q -B -pl bench -am package -DskipTests
load() { java -cp "$cp" io.partita.bench.load.LoadGenerator "$@"; }
for rep in $(seq "$reps"); do
  for mode in off enforce; do
    data=$(mktemp -d)
    java -Xms256m -Xmx1g -XX:+UseG1GC -jar server/target/partita.jar --port 8060 --data-dir "$data" \
      --throughput "$mode" >/dev/null 2>&1 &
    pid=$!
    sleep 2
    load --endpoint http://127.0.0.1:8060 --create --provisioned 100000,100000 --items 10000 --item-size 1024 \
      --workload get --connections 8 --duration 5 >/dev/null
    for w in $workloads; do
      out=$(load --endpoint http://127.0.0.1:8060 --items 10000 --item-size 1024 --workload "$w" --connections 8 \
        --duration "$secs" --warmup 3 --server-pid "$pid")
      echo "rep $rep $mode $w: $(echo "$out" | grep -E 'ops/s|throttles|server \(pid' | tr -s ' ' | tr '\n' ' ')"
    done
    kill "$pid"; wait "$pid" 2>/dev/null || true; rm -rf "$data"
  done
done
