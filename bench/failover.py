#!/usr/bin/env python3
"""How long a 3-node cluster takes to accept writes again after its leader dies (docs/PERFORMANCE.md).

Starts the cluster with cluster/run-local.sh (in a fresh directory), writes to it without pause from one client that
tries the nodes in turn, and CYCLES times kills the leader with SIGKILL, notes the time from the kill to the first
acknowledged PutItem after it, restarts the killed node and waits for it to catch up. Prints each cycle and the
median.

    JAR=server/target/partita.jar CYCLES=5 python3 bench/failover.py

Needs boto3. The election timeout is Ratis's 1-2 s (ClusterNode.Timings.defaults).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import boto3
from botocore.config import Config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIR = tempfile.mkdtemp(prefix="partita-failover-")
ENV = dict(os.environ, DIR=DIR)
CYCLES = int(os.environ.get("CYCLES", "5"))


def local(*args):
    return subprocess.run([os.path.join(ROOT, "cluster", "run-local.sh"), *args], env=ENV, check=True,
                          capture_output=True, text=True).stdout


def view(n):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:800{n}/cluster", timeout=1) as r:
            return json.load(r)
    except OSError:
        return None


def leader():
    for n in (1, 2, 3):
        v = view(n)
        if v and v.get("role") == "LEADER" and v.get("serving"):
            return n
    return None


def wait_for(what, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = what()
        if value:
            return value
        time.sleep(0.05)
    sys.exit("timed out waiting for the cluster")


# One attempt per call, short timeouts: the script does the retrying, so it sees the first moment a write succeeds.
config = Config(retries={"max_attempts": 1, "mode": "standard"}, connect_timeout=0.5, read_timeout=5)
clients = {n: boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:800{n}", region_name="us-east-1",
                           aws_access_key_id="local", aws_secret_access_key="local", config=config)
           for n in (1, 2, 3)}


def put(n, i):
    try:
        clients[n].put_item(TableName="failover", Item={"id": {"S": f"k{i % 100}"}, "v": {"N": str(i)}})
        return True
    except Exception:  # noqa: BLE001 - any failure means "not yet"
        return False


try:
    local("start", "--throughput", "off")
    first = wait_for(leader)
    clients[first].create_table(TableName="failover", BillingMode="PAY_PER_REQUEST",
                                AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                                KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
    times = []
    i = 0
    for cycle in range(1, CYCLES + 1):
        dead = wait_for(leader)
        for _ in range(200):  # writes flowing before the kill
            i += 1
            put(dead, i)
        local("kill", str(dead))
        killed = time.monotonic()
        node = dead
        while True:
            i += 1
            node = node % 3 + 1
            if node != dead and put(node, i):
                break
        took = time.monotonic() - killed
        times.append(took)
        print(f"cycle {cycle}: leader n{dead} killed; first acknowledged write {took * 1000:.0f} ms later "
              f"(through n{node}, leader now n{leader()})", flush=True)
        local("restart", str(dead))
        wait_for(lambda: (v := view(dead)) and v["appliedIndex"] >= view(leader() or dead)["commitIndex"] - 5)
    print(f"median {statistics.median(times) * 1000:.0f} ms, min {min(times) * 1000:.0f}, "
          f"max {max(times) * 1000:.0f} over {len(times)} kills")
finally:
    subprocess.run([os.path.join(ROOT, "cluster", "run-local.sh"), "stop"], env=ENV, capture_output=True)
    time.sleep(2)
    shutil.rmtree(DIR, ignore_errors=True)
