#!/usr/bin/env bash
# A 3-node Partita cluster on this machine (docs/CLUSTER.md): nodes n1, n2, n3 answer clients on ports 8001, 8002 and
# 8003 and talk Raft on 9001, 9002 and 9003; each keeps its replica in $DIR/n1 … (default ./partita-cluster).
#
#   cluster/run-local.sh start     starts the nodes in the background (logs in $DIR/n*.log)
#   cluster/run-local.sh status    each node's view: its role, the leader, term and indexes (GET /cluster)
#   cluster/run-local.sh kill N    SIGKILL node N (1-3): a crash, for trying failover
#   cluster/run-local.sh restart N starts node N again on its data
#   cluster/run-local.sh stop      stops every node (SIGTERM: a clean stop)
#
# JAR (default server/target/partita.jar; build it with ./mvnw -pl server -am package -DskipTests) and JAVA_OPTS may
# be set; further arguments after start are passed to every node (e.g. --throughput off).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
JAR=${JAR:-server/target/partita.jar}
DIR=${DIR:-partita-cluster}
MEMBERS="n1=127.0.0.1:9001:8001,n2=127.0.0.1:9002:8002,n3=127.0.0.1:9003:8003"

start_node() {
  local n=$1; shift
  mkdir -p "$DIR"
  # shellcheck disable=SC2086
  nohup java ${JAVA_OPTS:-} -jar "$JAR" --host 127.0.0.1 --data-dir "$DIR/n$n" \
    --cluster-members "$MEMBERS" --node-id "n$n" "$@" >"$DIR/n$n.log" 2>&1 &
  echo $! >"$DIR/n$n.pid"
  echo "node n$n: pid $!, port 800$n, log $DIR/n$n.log"
}

pid_of() { cat "$DIR/n$1.pid" 2>/dev/null || true; }

case "${1:-}" in
  start)
    shift
    [[ -f $JAR ]] || { echo "no $JAR: build it with ./mvnw -pl server -am package -DskipTests" >&2; exit 1; }
    for n in 1 2 3; do start_node "$n" "$@"; done
    ;;
  restart)
    start_node "${2:?which node: 1, 2 or 3}"
    ;;
  kill)
    pid=$(pid_of "${2:?which node: 1, 2 or 3}")
    [[ -n $pid ]] && kill -9 "$pid" && echo "node n$2 (pid $pid) killed"
    ;;
  stop)
    for n in 1 2 3; do
      pid=$(pid_of "$n")
      if [[ -n $pid ]] && kill "$pid" 2>/dev/null; then echo "node n$n (pid $pid) stopping"; fi
      rm -f "$DIR/n$n.pid"
    done
    ;;
  status)
    for n in 1 2 3; do
      printf 'n%s: ' "$n"
      curl -s --max-time 2 "http://127.0.0.1:800$n/cluster" || printf 'not answering'
      echo
    done
    ;;
  *)
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
