#!/usr/bin/env bash
# Steady-state CPU per operation of one server jar: starts it (persistent, WAL on, --throughput off) on a fresh data
# directory, preloads 10,000 items of 1 KB, and for each workload runs WARM seconds unmeasured, then SECS measured
# with the load generator, printing throughput, latency, the server's CPU per operation, and which of its threads
# spent that CPU (from /proc/PID/task, over the middle of the measured run). Alternate two jars to compare changes:
#   for j in old.jar new.jar old.jar new.jar; do bench/steady.sh $j 12 12 8 get put; done
# Usage: [RATE=ops/s] [CONSUMED=follow|retain] bench/steady.sh JAR [WARM] [SECS] [CONNECTIONS] [WORKLOAD...]
#   (after ./mvnw -q -B -pl bench -am package; CONSUMED registers a change-feed consumer on the table after the
#   preload, as bench/ab.sh does: "follow", one the server reads as fast as records come; "retain", one that reads
#   nothing and keeps 60 s of records, as a stream nobody reads keeps its 24 hours; RATE runs every load open loop at
#   that many ops/s, to compare CPU per operation at the same load)
set -euo pipefail
jar=$1
warm=${2:-12}
secs=${3:-12}
conns=${4:-8}
shift $(($# < 4 ? $# : 4))
rate=()
if [[ -n ${RATE:-} ]]; then rate=(--rate "$RATE"); fi
workloads=("${@:-get}")
port=${PORT:-8061}
# shellcheck source=bench/server.sh
source "$(dirname "$0")/server.sh"
start_server "$jar" "$port"
# CPU ticks per thread name (digits folded, so "GC Thread#1" and "#2" add up).
threads() {
  for t in /proc/"$pid"/task/*; do
    printf '%s\t%s\n' "$(tr -d '\n' <"$t/comm" | tr '0-9' 'N')" "$(sed 's/.*) //' "$t/stat" | awk '{print $12 + $13}')"
  done 2>/dev/null | awk -F'\t' '{s[$1] += $2} END {for (k in s) print s[k] "\t" k}'
}
load --create --workload get --connections 8 --duration 2 >/dev/null 2>&1
if [[ -n ${CONSUMED:-} ]]; then
  how=$([[ $CONSUMED == retain ]] && echo retentionSeconds=60 || echo follow=true)
  curl -sf -X POST "http://127.0.0.1:$port/admin/feed/consumers?table=partita-bench&name=steady&$how" >/dev/null
fi
for w in "${workloads[@]}"; do
  load --workload "$w" --connections "$conns" --duration "$warm" "${rate[@]}" >/dev/null 2>&1
  (
    sleep 3
    threads >"$data/before"
    sleep $((secs > 5 ? secs - 5 : 1))
    threads >"$data/after"
  ) &
  sampler=$!
  load --workload "$w" --connections "$conns" --duration "$secs" --server-pid "$pid" "${rate[@]}" 2>&1 \
    | grep -E 'ops/s|^(get|put|update|query10|query100|scan|batchget|mix) |CPU'
  wait "$sampler"
  awk -F'\t' 'NR == FNR {b[$2] = $1; next} {d = $1 - b[$2]; if (d > 0) {t += d; s[$2] = d}}
    END {printf "server threads:"; for (k in s) printf " %s %.1f%%", k, 100 * s[k] / t; print ""}' \
    "$data/before" "$data/after"
done
