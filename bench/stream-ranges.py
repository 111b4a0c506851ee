"""What a stream of a table cut by ranges costs its readers, against a whole table's (docs/PERFORMANCE.md).

Against a local cluster started without --cluster-min-ranges (cluster/run-local.sh start --cluster-replicas 3
--cluster-table-groups --cluster-partition-groups): `make` creates `stream-whole` (on demand: one group) and `stream-cut`
(1,500 write units: two ranges), each with a NEW_AND_OLD_IMAGES stream and ITEMS items of about 100 bytes; `run` times,
for each table in turn through each node, DescribeStream (ROUNDS times) and a read of every record (GetShardIterator
then GetRecords to the end of each shard), and prints medians.
"""
import statistics
import sys
import time

import boto3

ITEMS = 2000
ROUNDS = 30
PORTS = [8001, 8002, 8003]
TABLES = {"stream-whole": {"BillingMode": "PAY_PER_REQUEST"},
          "stream-cut": {"ProvisionedThroughput": {"ReadCapacityUnits": 100, "WriteCapacityUnits": 1500}}}


def clients(port):
    kw = dict(endpoint_url="http://127.0.0.1:%d" % port, region_name="us-east-1",
              aws_access_key_id="x", aws_secret_access_key="y")
    return boto3.client("dynamodb", **kw), boto3.client("dynamodbstreams", **kw)


def make():
    ddb, _ = clients(PORTS[0])
    for name, how in TABLES.items():
        ddb.create_table(TableName=name, AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}, **how)
        ddb.get_waiter("table_exists").wait(TableName=name)
        for start in range(0, ITEMS, 25):
            ddb.batch_write_item(RequestItems={name: [
                {"PutRequest": {"Item": {"pk": {"S": "k%d" % i}, "v": {"S": "x" * 90}}}}
                for i in range(start, min(ITEMS, start + 25))]})


def run():
    for name in TABLES:
        describe, read, counts = [], [], []
        for port in PORTS:
            ddb, streams = clients(port)
            arn = ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"]
            for _ in range(ROUNDS):
                t = time.perf_counter()
                shards = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
                describe.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            n = 0
            for s in shards:
                it = streams.get_shard_iterator(StreamArn=arn, ShardId=s["ShardId"],
                                                ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
                while it:
                    r = streams.get_records(ShardIterator=it)
                    n += len(r["Records"])
                    it = r.get("NextShardIterator") if r["Records"] else None
            read.append(time.perf_counter() - t)
            counts.append(n)
        print("%s: %d shards; DescribeStream median %.1f ms (p90 %.1f); every record read in %s s (%s records)"
              % (name, len(shards), statistics.median(describe), sorted(describe)[int(len(describe) * 0.9)],
                 " ".join("%.2f" % x for x in read), " ".join(str(c) for c in counts)))


if __name__ == "__main__":
    {"make": make, "run": run}[sys.argv[1]]()
