"""How much of a table's capacity a table cut by ranges admits, against a single node's (docs/PERFORMANCE.md).

Usage: python3 bench/capacity-ranges.py PORT NODES uniform|hot|ondemand

Against a local cluster that cuts every table in three (cluster/run-local.sh start --cluster-replicas 3
--cluster-table-groups --cluster-partition-groups --cluster-min-ranges 3, NODES=4 and PORT=8001) or a single node
(NODES=1). Eight threads put items of about 10 KB (10 write units each) with no retries, spread over the nodes:
- uniform: a new provisioned table of 10 write units, each put a new key, until 200 puts were throttled: how much of
  the table's 3,000 units of burst (300 s at 10 units) the whole table admits;
- hot: the same, every put of one key (one range): the burst a hot key may borrow through adaptive capacity;
- ondemand: a new on-demand table whose OnDemandThroughput caps writes at 100 units a second, new keys, for 15 s: the
  rate it admits.
"""
import os
import random
import sys
import threading
import time

import boto3
from botocore.config import Config

port, nodes, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
os.environ.setdefault("AWS_ACCESS_KEY_ID", "x")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "y")


def client(p):
    return boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{p}", region_name="us-east-1",
                        config=Config(retries={"max_attempts": 1}, read_timeout=30))


ddb = client(port)
name = f"capacity-{mode}-{random.randint(0, 10**6)}"
keys = [{"AttributeName": "pk", "AttributeType": "S"}]
schema = [{"AttributeName": "pk", "KeyType": "HASH"}]
if mode == "ondemand":
    ddb.create_table(TableName=name, AttributeDefinitions=keys, KeySchema=schema, BillingMode="PAY_PER_REQUEST",
                     OnDemandThroughput={"MaxWriteRequestUnits": 100})
else:
    ddb.create_table(TableName=name, AttributeDefinitions=keys, KeySchema=schema,
                     ProvisionedThroughput={"ReadCapacityUnits": 10, "WriteCapacityUnits": 10})
while ddb.describe_table(TableName=name)["Table"]["TableStatus"] != "ACTIVE":
    time.sleep(0.5)

blob = "x" * 9900
admitted, throttled = [0], [0]
lock = threading.Lock()
start = time.time()
seconds = 15 if mode == "ondemand" else 120


def run(t):
    c = client(port + (t % nodes))
    i = 0
    while time.time() - start < seconds and (mode == "ondemand" or throttled[0] < 200):
        i += 1
        pk = "hot" if mode == "hot" else f"k{t}-{i}"
        try:
            c.put_item(TableName=name, Item={"pk": {"S": pk}, "b": {"S": blob}})
            with lock:
                admitted[0] += 1
        except c.exceptions.ClientError as e:
            if e.response["Error"]["Code"] not in ("ThrottlingException", "ProvisionedThroughputExceededException"):
                raise
            with lock:
                throttled[0] += 1


threads = [threading.Thread(target=run, args=(t,)) for t in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
took = time.time() - start
units = admitted[0] * 10
print(f"{mode}: {units} write units admitted in {took:.1f} s ({units / took:.0f}/s), {throttled[0]} puts throttled")
