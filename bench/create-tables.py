# CreateTable's time through boto3 on a local cluster (docs/PERFORMANCE.md), e.g. one started with
# NODES=4 cluster/run-local.sh start --cluster-replicas 3 --cluster-table-groups: makes N tables (default 8), each
# through the next node, and prints each call's time and the first write's after it.
# python3 bench/create-tables.py [N]
import boto3, sys, time
kw = dict(region_name='us-east-1', aws_access_key_id='x', aws_secret_access_key='y')
n = int(sys.argv[1]) if len(sys.argv) > 1 else 8
made = []
for i in range(n):
    d = boto3.client('dynamodb', endpoint_url=f'http://127.0.0.1:{8001 + i % 4}', **kw)
    name = f'ct{int(time.time() * 1000) % 100000000}-{i}'
    t0 = time.time()
    d.create_table(TableName=name, AttributeDefinitions=[{'AttributeName': 'pk', 'AttributeType': 'S'}],
                   KeySchema=[{'AttributeName': 'pk', 'KeyType': 'HASH'}], BillingMode='PAY_PER_REQUEST')
    t1 = time.time()
    d.put_item(TableName=name, Item={'pk': {'S': 'a'}})
    t2 = time.time()
    made.append((t1 - t0) * 1000)
    print(f'{name}: CreateTable {(t1 - t0) * 1000:.0f} ms, then PutItem {(t2 - t1) * 1000:.0f} ms')
made.sort()
print(f'median {made[len(made) // 2]:.0f} ms, min {made[0]:.0f}, max {made[-1]:.0f}')
