#!/usr/bin/env bash
# A 3-node Partita cluster on this machine (docs/CLUSTER.md): nodes n1, n2, n3 answer clients on ports 8001, 8002 and
# 8003 and talk Raft on 9001, 9002 and 9003; each keeps its replica in $DIR/n1 … (default ./partita-cluster).
# NODES=5 (3 to 9, kept in $DIR/nodes for the later commands) starts that many members instead, e.g. with
# --cluster-replicas 3 to place each group on three (add and remove then move the groups to their new members).
#
#   cluster/run-local.sh start     starts the nodes in the background (logs in $DIR/n*.log; S3 for exports and imports
#                                  in $DIR/s3, shared by the nodes, unless the arguments give --s3-dir)
#   cluster/run-local.sh status    each node's view: its role, the leader, term and indexes (GET /cluster)
#   cluster/run-local.sh kill N    SIGKILL node N: a crash, for trying failover
#   cluster/run-local.sh restart N starts node N again on its data, with the arguments start was given
#   cluster/run-local.sh stop      stops every node (SIGTERM: a clean stop)
#   cluster/run-local.sh add N     starts node N (NODES+1 to 9) with --cluster-join and has the leader add it
#   cluster/run-local.sh remove N  has the leader remove node N from the members, then stops it
#
# In strict mode (start --credentials FILE), add and remove sign the change with AWS_ACCESS_KEY_ID and
# AWS_SECRET_ACCESS_KEY: a key of an account the file lists in clusterAdmins.
#
# JAR (default server/target/partita.jar; build it with ./mvnw -pl server -am package -DskipTests) and JAVA_OPTS may
# be set; further arguments after start are passed to every node, and again by restart and add (e.g. --throughput
# off, or --tls-cert FILE --tls-key FILE: HTTPS for clients, and TLS between the nodes).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
JAR=${JAR:-server/target/partita.jar}
DIR=${DIR:-partita-cluster}

member() { echo "n$1=127.0.0.1:900$1:800$1"; }

# How many members start starts: NODES, kept in $DIR/nodes for the commands after it.
if [[ ${1:-} == start ]]; then NODES=${NODES:-3}; else NODES=$(cat "$DIR/nodes" 2>/dev/null || echo 3); fi
[[ $NODES =~ ^[3-9]$ ]] || { echo "NODES is 3 to 9, not $NODES" >&2; exit 2; }
MEMBERS=$(for n in $(seq 1 "$NODES"); do member "$n"; done | paste -sd, -)

start_node() {
  local n=$1; shift
  local members=$MEMBERS
  [[ $n -le $NODES ]] || members="$MEMBERS,$(member "$n")"
  mkdir -p "$DIR"
  # The nodes share one directory for S3 (exports and imports), as S3 is one place, unless the arguments name one.
  local s3=(--s3-dir "$DIR/s3") arg
  for arg in "$@"; do [[ $arg == --s3-dir* ]] && s3=(); done
  # shellcheck disable=SC2086
  nohup java ${JAVA_OPTS:-} -jar "$JAR" --host 127.0.0.1 --data-dir "$DIR/n$n" \
    --cluster-members "$members" --node-id "n$n" ${s3[@]+"${s3[@]}"} "$@" >"$DIR/n$n.log" 2>&1 &
  echo $! >"$DIR/n$n.pid"
  echo "node n$n: pid $!, port 800$n, log $DIR/n$n.log"
}

pid_of() { cat "$DIR/n$1.pid" 2>/dev/null || true; }

# The arguments start was given, kept in $DIR/args so that restart and add give a node the same (--tls-cert too).
saved_args() { [[ -f $DIR/args ]] && cat "$DIR/args"; true; }

# curl to node N's public port: HTTPS, trusting the nodes' certificate, when the cluster was started with --tls-cert.
node_curl() {
  local n=$1; shift
  local cert
  cert=$(eval "set -- $(saved_args)"; while [[ $# -gt 0 ]]; do [[ $1 == --tls-cert ]] && { echo "$2"; break; }; shift; done)
  if [[ -n $cert ]]; then
    curl --cacert "$cert" "$@" "https://localhost:800$n/${CURL_PATH:-cluster}"
  else
    curl "$@" "http://127.0.0.1:800$n/${CURL_PATH:-cluster}"
  fi
}

# POSTs a change of the members to the first node that answers (any node forwards it to the leader), signed in strict
# mode.
strict() { [[ " $(saved_args) " == *" --credentials "* ]]; }

# In strict mode, refuses to go on without a key to sign the change with.
need_key() {
  if strict && [[ -z ${AWS_ACCESS_KEY_ID:-} || -z ${AWS_SECRET_ACCESS_KEY:-} ]]; then
    echo "strict mode: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to a key of a clusterAdmins account" >&2
    exit 2
  fi
}

change_members() {
  local n out sign=()
  if strict; then
    sign=(--aws-sigv4 "aws:amz:us-east-1:dynamodb" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY")
  fi
  for n in 1 2 3 4 5 6 7 8 9; do
    if out=$(CURL_PATH=cluster/members node_curl "$n" -s --max-time 900 -w '\n%{http_code}' ${sign[@]+"${sign[@]}"} -X POST \
      -d "$1"); then
      echo "${out%$'\n'*}"
      [[ ${out##*$'\n'} == 200 ]]; return
    fi
  done
  echo "no node answers" >&2; return 1
}

case "${1:-}" in
  start)
    shift
    [[ -f $JAR ]] || { echo "no $JAR: build it with ./mvnw -pl server -am package -DskipTests" >&2; exit 1; }
    mkdir -p "$DIR"
    printf '%q ' "$@" >"$DIR/args"
    echo "$NODES" >"$DIR/nodes"
    for n in $(seq 1 "$NODES"); do start_node "$n" "$@"; done
    ;;
  restart)
    n=${2:?which node: 1 to 9}
    eval "set -- $(saved_args)"
    [[ $n -le $NODES ]] || set -- "$@" --cluster-join
    start_node "$n" "$@"
    ;;
  add)
    n=${2:?which node: $((NODES + 1)) to 9}
    [[ $n =~ ^[1-9]$ && $n -gt $NODES ]] || { echo "add a node $((NODES + 1)) to 9" >&2; exit 2; }
    need_key
    eval "set -- $(saved_args)"
    start_node "$n" --cluster-join "$@"
    sleep 3
    change_members "{\"add\": \"$(member "$n")\"}"
    ;;
  remove)
    n=${2:?which node: 1 to 9}
    need_key
    change_members "{\"remove\": \"n$n\"}"
    pid=$(pid_of "$n")
    [[ -n $pid ]] && kill "$pid" && rm -f "$DIR/n$n.pid" && echo "node n$n (pid $pid) stopping"
    ;;
  kill)
    pid=$(pid_of "${2:?which node: 1 to 9}")
    [[ -n $pid ]] && kill -9 "$pid" && echo "node n$2 (pid $pid) killed"
    ;;
  stop)
    for n in 1 2 3 4 5 6 7 8 9; do
      pid=$(pid_of "$n")
      if [[ -n $pid ]] && kill "$pid" 2>/dev/null; then echo "node n$n (pid $pid) stopping"; fi
      rm -f "$DIR/n$n.pid"
    done
    ;;
  status)
    for n in 1 2 3 4 5 6 7 8 9; do
      [[ $n -le $NODES || -d $DIR/n$n ]] || continue
      printf 'n%s: ' "$n"
      node_curl "$n" -s --max-time 2 || printf 'not answering'
      echo
    done
    ;;
  *)
    sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
