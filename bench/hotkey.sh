#!/usr/bin/env bash
# The hot-key simulator: a PROVISIONED table gets a fixed total load below its provisioned rate while the share of
# requests that go to one partition key grows step by step; that partition throttles at its ceiling (1000 WCU/s,
# 3000 RCU/s) although the table has capacity to spare. Prints a table per share and writes a chart.
# Usage: bench/hotkey.sh [endpoint] [options...]   (endpoint default http://localhost:8000; any directory)
#   bench/hotkey.sh http://localhost:8123 --step-seconds 3 --shares 0,25,50,75,100 --chart /tmp/hotkey.html
#   bench/hotkey.sh --help   lists the options (--op read, --offered, --wcu, --rcu, --item-kb, --tenants ...)
# Builds bench/target/partita-bench.jar first (./mvnw -q -B -pl bench -am package -DskipTests) if it is missing or
# older than the bench sources. The server must be running already; it is not started here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jar=$root/bench/target/partita-bench.jar
endpoint=http://localhost:8000
if [[ $# -gt 0 && $1 != -* ]]; then endpoint=$1; shift; fi
if [[ ! -f "$jar" || -n $(find "$root/bench/src/main" -newer "$jar" -print -quit) ]]; then
  (cd "$root" && ./mvnw -q -B -pl bench -am package -DskipTests)
fi
# A small serial-GC heap: the client sends a few hundred requests a second and should leave the CPUs to the server.
# shellcheck disable=SC2086
exec java ${HOTKEY_JAVA_OPTS:--Xms64m -Xmx512m -XX:+UseSerialGC} -cp "$jar" \
  io.partita.bench.hotkey.HotKeyScenario --endpoint "$endpoint" "$@"
