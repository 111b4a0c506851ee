#!/usr/bin/env bash
# Checks the Docker image without a Docker engine: runs the Dockerfile's build-stage steps on this machine (with
# /src standing for the repository), lays out the final stage's files as its COPY lines do, and checks what a
# `docker run` relies on: a non-root USER, the ENTRYPOINT starting the server (as an unprivileged user when run as
# root), listening on the EXPOSEd port, keeping its data in the VOLUME across a restart, answering the HEALTHCHECK,
# and stopping cleanly on SIGTERM (`docker stop`). Where an engine runs, `docker build` checks the rest.
# Usage: .ci/image-check.sh   (from anywhere; needs Java 17, python3 and curl)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
pid=
cleanup() {
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "image-check: FAIL: $*" >&2
  exit 1
}

# The Dockerfile's instructions, stage by stage (continuation lines joined), as JSON.
python3 - "$repo/Dockerfile" >"$work/dockerfile.json" <<'PY'
import json, re, shlex, sys
lines, cur = [], ""
for raw in open(sys.argv[1]):
    line = raw.rstrip("\n")
    if not cur and (not line.strip() or line.lstrip().startswith("#")):
        continue
    if line.endswith("\\"):
        cur += line[:-1] + " "
        continue
    lines.append(cur + line)
    cur = ""
stages = []
for l in lines:
    word, _, rest = l.strip().partition(" ")
    word = word.upper()
    if word == "FROM":
        stages.append({"from": rest.split()[0], "steps": []})
    elif stages:
        stages[-1]["steps"].append([word, rest.strip()])
def form(rest):
    return json.loads(rest) if rest.startswith("[") else ["/bin/sh", "-c", rest]
final = stages[-1]
out = {"build": [s for s in stages[0]["steps"] if s[0] in ("RUN", "COPY", "WORKDIR")] if len(stages) > 1 else [],
       "copies": [], "expose": [], "volume": [], "user": None, "entrypoint": [], "cmd": [], "health": None}
for word, rest in final["steps"]:
    if word == "COPY":
        parts = rest.split()
        if parts[0].startswith("--from="):
            out["copies"].append(parts[1:])
    elif word == "EXPOSE":
        out["expose"] += [p.split("/")[0] for p in rest.split()]
    elif word == "VOLUME":
        out["volume"] += json.loads(rest) if rest.startswith("[") else rest.split()
    elif word == "USER":
        out["user"] = rest
    elif word == "ENTRYPOINT":
        out["entrypoint"] = form(rest)
    elif word == "CMD":
        out["cmd"] = form(rest)
    elif word == "HEALTHCHECK":
        m = re.search(r"\bCMD\s+(.*)$", rest)
        out["health"] = m.group(1) if m else None
print(json.dumps(out))
PY
get() { python3 -c "import json,sys; v=json.load(open('$work/dockerfile.json'))$1; print(v if isinstance(v,str) else json.dumps(v))"; }

user=$(get '["user"]')
[[ $user != null && $user != root && $user != 0 && $user != 0:* && $user != root:* ]] \
  || fail "the final stage must name a non-root USER (it has: $user)"
port=$(get '["expose"][0]')
volume=$(get '["volume"][0]')
[[ $port == 8000 ]] || fail "EXPOSE should be Partita's port 8000, not $port"
echo "image-check: USER $user, EXPOSE $port, VOLUME $volume"

# What .dockerignore keeps out of the build context (its **/NAME/ and NAME/ lines), removed from a copy.
ignored() {
  [[ -f $repo/.dockerignore ]] || return 0
  while read -r pattern; do
    [[ -z $pattern || $pattern == \#* ]] && continue
    name=${pattern%/}
    if [[ $name == '**/'* ]]; then
      find "$1" -depth -name "${name#\*\*/}" -exec rm -rf {} + 2>/dev/null || true
    else
      rm -rf "${1:?}/$name"
    fi
  done <"$repo/.dockerignore"
}

# The build stage, in a directory of its own standing for its /src: only what its COPY lines copy from the
# repository (so that a module the Dockerfile forgets fails here as in `docker build`), then its RUN steps; its /opt is
# the final image's /opt (the jar and its class-data archive, which only maps where it was made).
root="$work/root"
src="$work/src"
mkdir -p "$root/opt" "$src"
n=$(get '["build"].__len__()')
for ((i = 0; i < n; i++)); do
  word=$(get "[\"build\"][$i][0]")
  arg=$(get "[\"build\"][$i][1]")
  case $word in
    WORKDIR) [[ $arg == /src ]] || fail "the build stage works in $arg; this check expects /src" ;;
    COPY)
      read -r -a parts <<<"$arg"
      dest=${parts[${#parts[@]}-1]}
      for from in "${parts[@]:0:${#parts[@]}-1}"; do
        [[ -e $repo/$from ]] || fail "COPY $from: not in the repository"
        if [[ $dest == */ || ${#parts[@]} -gt 2 ]]; then
          mkdir -p "$src/$dest" && cp -r "$repo/$from" "$src/$dest"
        else
          mkdir -p "$(dirname "$src/$dest")" && cp -r "$repo/$from" "$src/$dest"
        fi
      done
      ;;
    RUN)
      ignored "$src"
      step=${arg//\/src\//$src/}
      step=${step//\/opt\//$root/opt/}
      echo "image-check: build stage: ${arg:0:70}..."
      (cd "$src" && bash -c "$step") >"$work/build-$i.log" 2>&1 || { tail -40 "$work/build-$i.log" >&2; fail "build step: $arg"; }
      ;;
  esac
done

# The final stage's files, from its COPY --from lines.
n=$(get '["copies"].__len__()')
for ((i = 0; i < n; i++)); do
  src=$(get "[\"copies\"][$i][0]")
  dest=$(get "[\"copies\"][$i][1]")
  mkdir -p "$root$(dirname "$dest")"
  case $src in
    /src/*) from="$work/src/${src#/src/}" ;;
    /opt/*) from="$root$src" ;;
    *) fail "COPY --from=build $src: only /src and /opt are laid out here" ;;
  esac
  [[ -e $from ]] || fail "COPY $src $dest: no such file after the build"
  [[ $from -ef "$root$dest" ]] || cp "$from" "$root$dest"
done
mkdir -p "$root$volume"

# The ENTRYPOINT and CMD, with the image's paths under $root.
mapfile -t command < <(python3 -c "
import json
d = json.load(open('$work/dockerfile.json'))
for a in d['entrypoint'] + d['cmd']:
    for p in ['/opt/', '$volume']:
        a = a.replace(p, '$root' + p) if (a.startswith(p) or ('=' + p) in a) else a
    print(a)")
as_user=()
if [[ $(id -u) == 0 ]]; then
  # Unprivileged, as the image's user is: nobody, owning only the volume.
  chown -R 65534:65534 "$root$volume"
  chmod -R a+rX "$root"
  chmod a+rx "$work"
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
# The class-data archive maps (-Xshare:on fails where it would be silently ignored).
"${as_user[@]}" "${command[0]}" -Xshare:on "${command[@]:1}" --version >"$work/cds.log" 2>&1 \
  || { cat "$work/cds.log" >&2; fail "the class-data archive does not map for the entry point's class path"; }

start() {
  (cd "$root" && exec "${as_user[@]}" "${command[@]}") >"$work/server.log" 2>&1 &
  pid=$!
  for _ in $(seq 150); do
    curl -sf "http://127.0.0.1:$port/" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$work/server.log" >&2; fail "the entry point exited"; }
    sleep 0.2
  done
  cat "$work/server.log" >&2
  fail "nothing answered on port $port"
}
api() {
  curl -sf "http://127.0.0.1:$port/" -H "X-Amz-Target: DynamoDB_20120810.$1" \
    -H 'Content-Type: application/x-amz-json-1.0' -H 'X-Amz-Date: 20260101T000000Z' \
    -H 'Authorization: AWS4-HMAC-SHA256 Credential=a/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0' \
    -d "$2"
}
stop() {
  kill -TERM "$pid"
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && fail "still running 10 s after SIGTERM"
  wait "$pid" && code=0 || code=$?
  [[ $code == 0 || $code == 143 ]] || { cat "$work/server.log" >&2; fail "exit code $code after SIGTERM"; }
  pid=
}

start
health=$(get '["health"]')
bash -c "$health" || fail "the HEALTHCHECK command failed: $health"
api CreateTable '{"TableName":"image","AttributeDefinitions":[{"AttributeName":"k","AttributeType":"S"}],"KeySchema":[{"AttributeName":"k","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}' >/dev/null \
  || fail "CreateTable"
api PutItem '{"TableName":"image","Item":{"k":{"S":"kept"}}}' >/dev/null || fail "PutItem"
stop
[[ -n $(ls -A "$root$volume") ]] || fail "nothing was written to the volume $volume"
start
api GetItem '{"TableName":"image","Key":{"k":{"S":"kept"}},"ConsistentRead":true}' | grep -q kept \
  || fail "the item did not survive a restart in the volume"
stop
echo "image-check: OK (entry point, class-data archive, port $port, volume $volume, user $user, health check, SIGTERM)"
