#!/usr/bin/env bash
# One run that measures Partita (persistent, WAL on), dynalite (in memory) and a fixed-response Netty server (the
# HTTP ceiling) with the same load generator, workloads and connection counts on this machine.
# Usage: [WARMUP=seconds] [REPS=n] [BEFORE=old.jar] bench/compare.sh [seconds] [dynalite-dir]
#        (after ./mvnw -q -B -pl bench -am package -DskipTests; dynalite from `npm install dynalite` in dynalite-dir,
#        default /tmp/dynalite; skipped if absent. BEFORE adds an earlier Partita build, persistent too, as "before":
#        the way to check a change stays within noise of the build before it, next to the ceiling)
#
# The servers run side by side, and each workload is measured REPS times (default 3) in turn: Partita, ceiling,
# dynalite, then ceiling, dynalite, Partita, and so on (each round starts with the next server). This machine's speed
# drifts by tens of per cent over minutes (docs/PERFORMANCE.md), so measuring one server after the other put each in
# a different spell; taking turns spreads a slow spell over all of them. Each measurement prints a line; the summary
# gives the medians and Partita's ratios to the others.
set -euo pipefail
secs=${1:-10}
dyn_dir=${2:-/tmp/dynalite}
warm=${WARMUP:-10}
reps=${REPS:-3}
cp=bench/target/partita-bench.jar
# shellcheck source=bench/server.sh
source "$(dirname "$0")/server.sh" # for stop_pids; its load is replaced below
load() { java -cp "$cp" io.partita.bench.load.LoadGenerator "$@"; }

declare -A port pid
names=()
data=$(mktemp -d)
stop_all() {
  local pids=()
  for n in "${names[@]}"; do pids+=("${pid[$n]}"); done
  stop_pids "${pids[@]}"
  rm -rf "$data"
}
trap stop_all EXIT
# --throughput off: dynalite and the ceiling enforce no limits, and the on-demand table's four partitions would cap
# PutItem at 4,000 WCU/s. docs/PERFORMANCE.md measures what enforcement costs separately (bench/enforcement.sh).
java -Xms256m -Xmx1g -XX:+UseG1GC -jar server/target/partita.jar --port 8050 --data-dir "$data" --throughput off \
  >/dev/null 2>&1 &
pid[partita]=$!; port[partita]=8050; names+=(partita)
java -cp "$cp" io.partita.bench.load.FixedResponseServer --port 8051 >/dev/null 2>&1 &
pid[ceiling]=$!; port[ceiling]=8051; names+=(ceiling)
if [[ -n ${BEFORE:-} ]]; then
  mkdir -p "$data/before"
  java -Xms256m -Xmx1g -XX:+UseG1GC -jar "$BEFORE" --port 8053 --data-dir "$data/before" --throughput off \
    >/dev/null 2>&1 &
  pid[before]=$!; port[before]=8053; names+=(before)
fi
if [[ -x "$dyn_dir/node_modules/.bin/dynalite" ]]; then
  "$dyn_dir/node_modules/.bin/dynalite" --port 8052 >/dev/null 2>&1 &
  pid[dynalite]=$!; port[dynalite]=8052; names+=(dynalite)
fi
sleep 3

hash_args=(--items 10000 --item-size 1024)
# Query of one partition returning 10 items of 1 KB: a hash+range table, 1,000 partitions of 10 items.
range_args=(--table bench-range --range-key --items 10000 --item-size 1024 --items-per-partition 10)
for n in "${names[@]}"; do
  url="http://127.0.0.1:${port[$n]}"
  # Create and preload the tables (the fixed-response server answers {} to everything: it has none, and would never
  # report one ACTIVE).
  if [[ $n != ceiling ]]; then
    load --endpoint "$url" --create "${hash_args[@]}" --workload get --connections 8 --duration 5 >/dev/null 2>&1 || true
    load --endpoint "$url" --create "${range_args[@]}" --workload query10 --connections 8 --duration 2 \
      >/dev/null 2>&1 || true
  fi
  # Warm up every measured workload first: the JIT compiles a path the first time it runs hot, and figures taken
  # while it does so (it took a quarter of the server's CPU in a 15 s profile) describe the compiler, not the path.
  for w in put get; do
    load --endpoint "$url" "${hash_args[@]}" --workload "$w" --connections 8 --duration "$warm" >/dev/null 2>&1 || true
  done
  load --endpoint "$url" "${range_args[@]}" --workload query10 --connections 8 --duration "$warm" >/dev/null 2>&1 || true
done

declare -A ops
for conns in 8 32; do
  for w in get put q10; do
    if [[ $w == q10 ]]; then args=("${range_args[@]}" --workload query10); else args=("${hash_args[@]}" --workload "$w"); fi
    for rep in $(seq "$reps"); do
      # Each round starts with the next server, so that none is always measured first (see bench/ab.sh).
      for k in "${!names[@]}"; do
        n=${names[$(((k + rep - 1) % ${#names[@]}))]}
        line=$(load --endpoint "http://127.0.0.1:${port[$n]}" "${args[@]}" --connections "$conns" --duration "$secs" \
          --server-pid "${pid[$n]}" 2>&1 \
          | awk '/ops\/s/ {for (i=1;i<=NF;i++) if ($i=="ops/s") {v=$(i-1); gsub(",","",v); printf "%s ops/s ", v}}
                 /^(get|put|query10) / {printf "p50 %s p99 %s ms ", $3, $5}
                 /server \(pid/ {printf "server %s %s", $(NF-1), $NF}
                 /^errors:/ && !/none/ {sub(/^errors: */, ""); err = " ERRORS " $0}
                 END {printf "%s", err}') || true
        printf '%-10s %-4s c=%-3s #%s %s\n' "$n" "$w" "$conns" "$rep" "$line"
        ops[$n,$w,$conns]+="${line%% ops/s*} "
      done
    done
  done
done

median() { tr ' ' '\n' | grep -E '^[0-9]+$' | sort -n | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]; else print 0}'; }
echo
echo "medians of $reps runs (ops/s); Partita as a share of the ceiling and a multiple of dynalite"
for conns in 8 32; do
  for w in get put q10; do
    p=$(echo "${ops[partita,$w,$conns]}" | median)
    c=$(echo "${ops[ceiling,$w,$conns]}" | median)
    printf '%-4s c=%-3s partita %6s  ceiling %6s (%s %%)' "$w" "$conns" "$p" "$c" \
      "$(awk -v a="$p" -v b="$c" 'BEGIN {printf "%.0f", b ? 100 * a / b : 0}')"
    if [[ -n ${pid[dynalite]:-} ]]; then
      d=$(echo "${ops[dynalite,$w,$conns]}" | median)
      printf '  dynalite %6s (%sx)' "$d" "$(awk -v a="$p" -v b="$d" 'BEGIN {printf "%.1f", b ? a / b : 0}')"
    fi
    if [[ -n ${pid[before]:-} ]]; then
      o=$(echo "${ops[before,$w,$conns]}" | median)
      printf '  before %6s (%s %% of the ceiling)' "$o" \
        "$(awk -v a="$o" -v b="$c" 'BEGIN {printf "%.0f", b ? 100 * a / b : 0}')"
    fi
    echo
  done
done
