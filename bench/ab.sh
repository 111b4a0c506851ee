#!/usr/bin/env bash
# A/B test of two server builds or JVM settings, side by side: starts A and B (each persistent, WAL on,
# --throughput off, on its own fresh data directory), preloads 10,000 items of 1 KB into each, warms each up, then
# measures A, B, then B, A, and so on, REPS pairs, and prints every run and both sets of figures. Taking turns puts both
# in the same spells of a shared machine, whose speed drifts by tens of per cent over minutes (docs/PERFORMANCE.md);
# compare the pairs, not runs made minutes apart. The order flips every pair so that neither is always measured first.
# Two instances of one jar can differ by themselves (the same jar as A and B: A won 5 of 6 pairs, by up to 22 %;
# docs/PERFORMANCE.md), so run it again with the jars swapped before believing a difference.
# Usage: [REPS=5] [SECS=8] [CONNECTIONS=8] [RATE=ops/s] [GSIS_A=N] [GSIS_B=N] [CONSUMED=A|B|AB [HOW=follow|retain]] bench/ab.sh WORKLOAD JAR_A JAR_B ["A JVM flags"] ["B JVM flags"]
#   bench/ab.sh put old.jar server/target/partita.jar
#   bench/ab.sh put server/target/partita.jar server/target/partita.jar "" "-XX:+UseTransparentHugePages"
#   CONSUMED=B bench/ab.sh put server/target/partita.jar server/target/partita.jar
# CONSUMED=B registers a change-feed consumer (POST /admin/feed/consumers) on B's table after the preload (AB: on
# both, to compare two builds' recording), so B's
# writes record their changes: what a table with a GSI or a stream costs its writes. HOW=follow (the default): the
# server reads the records as fast as they come; HOW=retain: nobody reads them and they are kept 60 s.
# TLS_A=1 / TLS_B=1 serve that side over HTTPS (a self-signed certificate made for the run, which the load generator
# trusts through a trust store of its own): what TLS costs.
# GSIS_A=N / GSIS_B=N give that side's table N GSIs (KEYS_ONLY; each put moves the item in each): what indexes cost.
# STREAM_A=VIEW / STREAM_B=VIEW give that side's table a stream (e.g. NEW_AND_OLD_IMAGES): what a stream costs.
# RATE runs the load open loop at that many ops/s (with 5 s of warm-up): CPU per operation at the same offered load.
# At full speed the slower server also batches fewer requests per event-loop pass, which adds CPU per operation of
# its own; on a 2-core machine shared with the load generator that second-order cost is not small.
# (after ./mvnw -q -B -pl bench -am package -DskipTests; JVM flags default to a 1 GB G1 heap, and are added to it)
set -euo pipefail
workload=$1
jars=("$2" "$3")
flags=("${4:-}" "${5:-}")
reps=${REPS:-5}
secs=${SECS:-8}
conns=${CONNECTIONS:-8}
ports=(8091 8092)
names=(A B)
pids=()
dirs=()
# shellcheck source=bench/server.sh
source "$(dirname "$0")/server.sh" # for stop_pids; its load is replaced below
cleanup() {
  stop_pids "${pids[@]}"
  rm -rf "${dirs[@]}"
}
trap cleanup EXIT
schemes=(http http)
tls_dir=$(mktemp -d)
dirs+=("$tls_dir")
if [[ -n ${TLS_A:-}${TLS_B:-} ]]; then
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$tls_dir/key.pem" -out "$tls_dir/cert.pem" >/dev/null 2>&1
  keytool -importcert -noprompt -alias partita -file "$tls_dir/cert.pem" -keystore "$tls_dir/trust.p12" \
    -storepass changeit >/dev/null 2>&1
fi
for i in 0 1; do
  dirs+=("$(mktemp -d)")
  tls_var="TLS_${names[$i]}"
  tls_args=()
  if [[ -n ${!tls_var:-} ]]; then
    schemes[i]=https
    tls_args=(--tls-cert "$tls_dir/cert.pem" --tls-key "$tls_dir/key.pem")
  fi
  # shellcheck disable=SC2086
  java -Xms256m -Xmx1g -XX:+UseG1GC ${flags[$i]} -jar "${jars[$i]}" --port "${ports[$i]}" \
    --data-dir "${dirs[$i]}/db" --throughput off "${tls_args[@]}" >/dev/null 2>&1 &
  pids+=($!)
done
load() {
  local scheme=http
  if [[ $1 == "${ports[1]}" ]]; then scheme=${schemes[1]}; else scheme=${schemes[0]}; fi
  java -Djavax.net.ssl.trustStore="$tls_dir/trust.p12" -Djavax.net.ssl.trustStorePassword=changeit \
    -cp bench/target/partita-bench.jar io.partita.bench.load.LoadGenerator --endpoint "$scheme://127.0.0.1:$1" \
    --items 10000 --item-size 1024 "${@:2}"
}
for i in 0 1; do
  for _ in $(seq 100); do
    curl -skf "${schemes[$i]}://127.0.0.1:${ports[$i]}/" >/dev/null 2>&1 && break
    sleep 0.1
  done
  gsis_var="GSIS_${names[$i]}"
  stream_var="STREAM_${names[$i]}"
  stream_args=()
  if [[ -n ${!stream_var:-} ]]; then stream_args=(--stream "${!stream_var}"); fi
  load "${ports[$i]}" --create --gsis "${!gsis_var:-0}" "${stream_args[@]}" --workload get --connections 8 \
    --duration 3 >/dev/null 2>&1
  if [[ ${CONSUMED:-} == *"${names[$i]}"* ]]; then
    how=$([[ ${HOW:-follow} == retain ]] && echo retentionSeconds=60 || echo follow=true)
    curl -skf -X POST "${schemes[$i]}://127.0.0.1:${ports[$i]}/admin/feed/consumers?table=partita-bench&name=ab&$how" >/dev/null
  fi
  # A run with errors exits 1; its errors show in the measured runs' lines (tx2's random items sometimes conflict).
  load "${ports[$i]}" --workload "$workload" --connections "$conns" --duration 10 >/dev/null 2>&1 || true
done
results=$(mktemp)
dirs+=("$results")
rate_args=()
if [[ -n ${RATE:-} ]]; then rate_args=(--rate "$RATE" --warmup 5); fi
for r in $(seq "$reps"); do
  order=(0 1)
  if ((r % 2 == 0)); then order=(1 0); fi
  for i in "${order[@]}"; do
    { load "${ports[$i]}" --workload "$workload" --connections "$conns" --duration "$secs" --server-pid "${pids[$i]}" \
      "${rate_args[@]}" 2>&1 || true; } |
      awk -v name="${names[$i]}" -v rep="$r" '
        /ops\/s/ {for (i = 1; i <= NF; i++) if ($i == "ops/s") {v = $(i - 1); gsub(",", "", v); ops = v}}
        /server \(pid/ {cpu = $(NF - 1)}
        /^errors:/ && !/none/ {sub(/^errors: */, ""); err = ", ERRORS " $0}
        END {printf "%s #%s %s ops/s, server %s us/op%s\n", name, rep, ops, cpu, err}' | tee -a "$results"
  done
done
awk '{ops[$1] = ops[$1] " " $3; cpu[$1] = cpu[$1] " " $6}
     END {for (n in ops) printf "%s ops/s:%s   server us/op:%s\n", n, ops[n], cpu[n]}' "$results" | sort
