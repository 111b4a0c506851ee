#!/usr/bin/env python3
"""How stale a follower's eventually consistent reads are (docs/PERFORMANCE.md, docs/CLUSTER.md).

Against a running cluster started with --cluster-follower-reads (cluster/run-local.sh start --cluster-follower-reads):
300 times, puts a new value of one item through the leader, then reads it through a follower without ConsistentRead
until the follower answers that value. Prints how many first reads answered the old value, and the time from the
put's acknowledgement until the follower answered the new one (each including one GetItem's own time).

    python3 bench/follower_lag.py LEADER_PORT FOLLOWER_PORT    (e.g. 8002 8001; cluster/run-local.sh status)

Needs boto3.
"""
import sys
import time

import boto3
from botocore.config import Config

ROUNDS = 300


def client(port):
    return boto3.client(
        "dynamodb",
        endpoint_url=f"http://127.0.0.1:{port}",
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
        config=Config(retries={"max_attempts": 10}),
    )


def main():
    leader, follower = client(sys.argv[1]), client(sys.argv[2])
    try:
        leader.create_table(
            TableName="follower-lag",
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
        )
    except leader.exceptions.ResourceInUseException:
        pass
    key = {"id": {"S": "k"}}
    # The follower opens its reader on the new table a moment after the leader made it.
    while True:
        try:
            follower.get_item(TableName="follower-lag", Key=key)
            break
        except follower.exceptions.ResourceNotFoundException:
            time.sleep(0.05)
    lags, stale = [], 0
    for i in range(ROUNDS):
        leader.put_item(TableName="follower-lag", Item={"id": {"S": "k"}, "v": {"N": str(i)}})
        started = time.perf_counter()
        first = True
        while True:
            item = follower.get_item(TableName="follower-lag", Key=key).get("Item")
            if item and item["v"]["N"] == str(i):
                break
            if first:
                stale += 1
                first = False
        lags.append((time.perf_counter() - started) * 1000)
        time.sleep(0.02)
    lags.sort()
    print(
        f"stale first reads: {stale}/{ROUNDS}; the follower answered the new value after"
        f" p50 {lags[len(lags) // 2]:.1f} ms, p90 {lags[len(lags) * 9 // 10]:.1f} ms, max {lags[-1]:.1f} ms"
    )


if __name__ == "__main__":
    main()
