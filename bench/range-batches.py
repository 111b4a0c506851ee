# Latency of BatchWriteItem (of 25 and of 1), BatchGetItem and TransactWriteItems on a table kept whole against one
# cut into four ranges' groups, one client in turn through one node of a cluster started with
# --cluster-partition-groups (docs/PERFORMANCE.md): python3 bench/range-batches.py [endpoint [suffix]]; run it again
# with another suffix (it makes its tables, named after it, each time), the cut table first.
import boto3, time, statistics, sys
ep = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8001"
suffix = sys.argv[2] if len(sys.argv) > 2 else "1"
d = boto3.client("dynamodb", endpoint_url=ep, region_name="us-east-1",
                 aws_access_key_id="x", aws_secret_access_key="x")
def create(name, wcu):
    d.create_table(TableName=name, AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                   ProvisionedThroughput={"ReadCapacityUnits": 10, "WriteCapacityUnits": wcu})
    while d.describe_table(TableName=name)["Table"]["TableStatus"] != "ACTIVE":
        time.sleep(0.5)
def timed(f, n):
    out = []
    for i in range(n):
        t = time.perf_counter(); f(i); out.append((time.perf_counter() - t) * 1000)
    out.sort()
    return "median %.1f ms, p90 %.1f ms" % (statistics.median(out), out[int(len(out) * 0.9)])
# 3,999 write units need four partitions (four groups); 999, one (the table stays whole).
for name, wcu in [("cut" + suffix, 3999), ("whole" + suffix, 999)]:
    create(name, wcu)
    for _ in range(5):  # warm up
        d.put_item(TableName=name, Item={"pk": {"S": "w"}})
    def write(i):
        items = {name: [{"PutRequest": {"Item": {"pk": {"S": "k%d-%d" % (i, j)}, "v": {"S": "x" * 100}}}}
                        for j in range(25)]}
        while items:
            items = d.batch_write_item(RequestItems=items)["UnprocessedItems"]
    def get(i):
        keys = {name: {"Keys": [{"pk": {"S": "k%d-%d" % (i, j)}} for j in range(25)]}}
        while keys:
            keys = d.batch_get_item(RequestItems=keys)["UnprocessedKeys"]
    def tx(i):
        d.transact_write_items(TransactItems=[{"Put": {"TableName": name, "Item": {"pk": {"S": "t%d-%d" % (i, j)}}}}
                                              for j in range(4)])
    def one(i):
        items = {name: [{"PutRequest": {"Item": {"pk": {"S": "o%d" % i}, "v": {"S": "x" * 100}}}}]}
        while items:
            items = d.batch_write_item(RequestItems=items)["UnprocessedItems"]
    print(name, "BatchWriteItem(25):", timed(write, 60))
    print(name, "BatchWriteItem(1):", timed(one, 60))
    print(name, "BatchGetItem(25):", timed(get, 60))
    print(name, "TransactWriteItems(4):", timed(tx, 60))
