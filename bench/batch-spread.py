# Latency of BatchWriteItem, BatchGetItem, TransactGetItems and TransactWriteItems over one table's group against
# several tables' groups, through one node of a cluster started with --cluster-table-groups (docs/PERFORMANCE.md):
# python3 bench/batch-spread.py [port [count]].
import boto3, time, sys, statistics
port = int(sys.argv[1]) if len(sys.argv) > 1 else 8004
n = int(sys.argv[2]) if len(sys.argv) > 2 else 300
d = boto3.client('dynamodb', endpoint_url=f'http://127.0.0.1:{port}', region_name='us-east-1',
                 aws_access_key_id='x', aws_secret_access_key='y')
names = ['bench1', 'bench2', 'bench3']
existing = d.list_tables()['TableNames']
for t in names:
    if t not in existing:
        d.create_table(TableName=t, AttributeDefinitions=[{'AttributeName': 'pk', 'AttributeType': 'S'}],
                       KeySchema=[{'AttributeName': 'pk', 'KeyType': 'HASH'}], BillingMode='PAY_PER_REQUEST')
def put(t, i): return {'PutRequest': {'Item': {'pk': {'S': f'k{i}'}, 'v': {'S': 'x' * 100}}}}
def run(label, make):
    lat = []
    for i in range(n):
        req = make(i)
        t0 = time.perf_counter()
        r = req()
        lat.append((time.perf_counter() - t0) * 1000)
    lat.sort()
    p50, p99 = lat[len(lat) // 2], lat[int(len(lat) * 0.99) - 1]
    print(f"{label}: mean {statistics.mean(lat):.1f} ms, p50 {p50:.1f}, p99 {p99:.1f}")
def writes(tables, each, i):
    return lambda: d.batch_write_item(RequestItems={t: [put(t, i * each + j) for j in range(each)] for t in tables})
def reads(tables, each, i):
    keys = lambda: [{'pk': {'S': f'k{(i * each + j) % (n * each)}'}} for j in range(each)]
    return lambda: d.batch_get_item(RequestItems={t: {'Keys': keys()} for t in tables})
run('BatchWriteItem 24 items, 1 table ', lambda i: writes(names[:1], 24, i))
run('BatchWriteItem 24 items, 3 tables', lambda i: writes(names, 8, i))
run('BatchGetItem 24 keys, 1 table    ', lambda i: reads(names[:1], 24, i))
run('BatchGetItem 24 keys, 3 tables   ', lambda i: reads(names, 8, i))
def transact_reads(tables, each, i):
    gets = lambda: [{'Get': {'TableName': t, 'Key': {'pk': {'S': f'k{(i * each + j) % (n * each)}'}}}}
                    for t in tables for j in range(each)]
    return lambda: d.transact_get_items(TransactItems=gets())
run('TransactGetItems 24 keys, 1 table', lambda i: transact_reads(names[:1], 24, i))
run('TransactGetItems 24 keys, 3 tables', lambda i: transact_reads(names, 8, i))
def transact_writes(tables, each, i):
    puts = lambda: [{'Put': {'TableName': t, 'Item': {'pk': {'S': f't{i * each + j}'}, 'v': {'S': 'x' * 100}}}}
                    for t in tables for j in range(each)]
    return lambda: d.transact_write_items(TransactItems=puts())
# Four puts (two units each): 24 on one table's group would pass its partition's 1,000 write units a second.
run('TransactWriteItems 4 puts, 1 table', lambda i: transact_writes(names[:1], 4, i))
run('TransactWriteItems 4 puts, 2 tables', lambda i: transact_writes(names[:2], 2, i))
