#!/usr/bin/env bash
# Eventually consistent GetItem through a follower of a fresh 3-node cluster on this machine, with the follower
# answering them itself (on: --cluster-follower-reads) or forwarding them to the leader (off) (docs/PERFORMANCE.md).
#
#   bench/follower-reads.sh on|off [CONNECTIONS]
#
# JAR (default server/target/partita.jar) is the server; the load generator is bench/target/partita-bench.jar (build
# both with ./mvnw -pl server,bench -am package -DskipTests). The cluster runs in a temporary directory and is stopped
# at the end. Prints the load generator's summary and the follower's partita_cluster_follower_reads_total.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
MODE=${1:?on or off}
CONNECTIONS=${2:-32}
export JAR=${JAR:-server/target/partita.jar}
DIR=$(mktemp -d -t partita-follower-reads-XXXX)
export DIR
cleanup() {
  cluster/run-local.sh stop >/dev/null 2>&1 || true
  # The nodes may still be writing as they exit.
  for _ in $(seq 1 20); do rm -rf "$DIR" 2>/dev/null && return; sleep 0.5; done
}
trap cleanup EXIT
extra=()
[[ $MODE == on ]] && extra=(--cluster-follower-reads)
JAVA_OPTS=${JAVA_OPTS:--Xmx2g} cluster/run-local.sh start --throughput off "${extra[@]}" >/dev/null
leader="" follower=""
for _ in $(seq 1 120); do
  leader="" follower=""
  for n in 1 2 3; do
    view=$(curl -s "http://127.0.0.1:800$n/cluster" || true)
    if [[ $view == *'"serving":true'* ]]; then leader=$n; elif [[ $view == *'"role":"FOLLOWER"'* ]]; then follower=$n; fi
  done
  [[ -n $leader && -n $follower ]] && break
  sleep 0.5
done
[[ -n $leader && -n $follower ]] || { echo "no leader and follower after 60 s" >&2; exit 1; }
LOAD=(java -cp bench/target/partita-bench.jar io.partita.bench.load.LoadGenerator)
"${LOAD[@]}" --endpoint "http://127.0.0.1:800$leader" --create --items 2000 --workload put --connections 8 \
  --warmup 0 --duration 3 >/dev/null
echo "follower reads $MODE: leader n$leader, reads through n$follower, $CONNECTIONS connections"
"${LOAD[@]}" --endpoint "http://127.0.0.1:800$follower" --items 2000 --workload get --connections "$CONNECTIONS" \
  --warmup 10 --duration 15 | grep -v '^\s*$' | tail -5
curl -s "http://127.0.0.1:800$follower/cluster/metrics" | grep '^partita_cluster_follower_reads_total'
