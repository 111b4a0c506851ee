# Sourced by the bench scripts. start_server JAR PORT starts a server jar in the background on a fresh data directory
# (persistent, WAL on, --throughput off; JVM flags from $JAVA_OPTS, else a 1 GB G1 heap; a GC log in $data/gc.log),
# waits for it to listen, and stops it and removes the directory when the script exits. It sets $pid and $data.
# load ARGS... runs the load generator against it with 10,000 items of 1 KB. stop_pids PID... stops servers.
start_server() {
  port=$2
  data=$(mktemp -d)
  # shellcheck disable=SC2086
  java ${JAVA_OPTS:--Xms256m -Xmx1g -XX:+UseG1GC} -Xlog:gc:file="$data/gc.log" -jar "$1" --port "$2" \
    --data-dir "$data/db" --throughput off >/dev/null 2>&1 &
  pid=$!
  trap 'stop_pids $pid; rm -rf "$data"' EXIT
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$2/" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "server did not start on port $2" >&2
  return 1
}

load() {
  java -cp bench/target/partita-bench.jar io.partita.bench.load.LoadGenerator --endpoint "http://127.0.0.1:$port" \
    --items 10000 --item-size 1024 "$@"
}

# Sends SIGTERM, and SIGKILL to whatever still runs 15 s later: a server build that hangs in its shutdown must not hang
# the script that measured it. Then reaps them.
stop_pids() {
  (($#)) || return 0
  kill "$@" 2>/dev/null || true
  local p alive
  for _ in $(seq 150); do
    alive=0
    for p in "$@"; do
      # A child that has exited but is not reaped yet is a zombie, which kill -0 still finds.
      [[ $(ps -o stat= -p "$p" 2>/dev/null) == [^Z]* ]] && alive=1
    done
    ((alive)) || break
    sleep 0.1
  done
  kill -9 "$@" 2>/dev/null || true
  wait "$@" 2>/dev/null || true
}
