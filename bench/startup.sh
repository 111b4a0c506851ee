#!/usr/bin/env bash
# Time from launching the server jar to the first successful ListTables, then resident memory after 5 s idle.
# Usage: bench/startup.sh [runs] [jar|launcher]   (from the repository root, after building server/target/partita.jar)
#   jar       java -jar server/target/partita.jar (the default)
#   launcher  ./partita, which adds a class-data-sharing archive (made by its first run, which is not counted)
set -euo pipefail
runs=${1:-5}
mode=${2:-jar}
port=${PORT:-8011}
jar=server/target/partita.jar
java_opts=${PARTITA_JAVA_OPTS:--Xms64m -Xmx1g -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError}
list_tables() {
  curl -sf -o /dev/null -X POST "http://127.0.0.1:$port/" \
    -H 'X-Amz-Target: DynamoDB_20120810.ListTables' -H 'Content-Type: application/x-amz-json-1.0' \
    -H 'X-Amz-Date: 20261130T000000Z' \
    -H 'Authorization: AWS4-HMAC-SHA256 Credential=bench/20261130/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0' \
    -d '{}'
}
if [[ "$mode" == launcher && ! -f server/target/partita.jsa ]]; then
  ./partita --port "$port" --in-memory >/dev/null 2>&1 &
  pid=$!
  until list_tables; do sleep 0.05; done
  kill "$pid"; wait "$pid" 2>/dev/null || true
fi
for i in $(seq "$runs"); do
  data=$(mktemp -d)
  start=$(date +%s%N)
  if [[ "$mode" == launcher ]]; then
    ./partita --port "$port" --data-dir "$data" >/dev/null 2>&1 &
  else
    # shellcheck disable=SC2086
    java $java_opts -jar "$jar" --port "$port" --data-dir "$data" >/dev/null 2>&1 &
  fi
  pid=$!
  until list_tables; do sleep 0.005; done
  end=$(date +%s%N)
  sleep 5
  rss_kb=$(awk '/VmRSS/{print $2}' "/proc/$pid/status")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  rm -rf "$data"
  echo "run $i: first ListTables after $(( (end - start) / 1000000 )) ms; idle RSS $(( rss_kb / 1024 )) MB"
done
