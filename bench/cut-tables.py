# CreateTable of tables cut into Raft groups, to ACTIVE, through boto3 on a local cluster (docs/PERFORMANCE.md,
# "Segments that start at 1 MB"), e.g. one started with
# NODES=4 cluster/run-local.sh start --cluster-replicas 3 --cluster-table-groups --cluster-partition-groups:
# makes four tables of 4,000 write units (four groups each) through node 1, one after another, and prints each one's
# time from CreateTable to ACTIVE after LABEL.
# python3 bench/cut-tables.py LABEL
import boto3, time, sys
c = boto3.client('dynamodb', endpoint_url='http://localhost:8001', region_name='us-east-1', aws_access_key_id='x', aws_secret_access_key='y')
for _ in range(60):
    try:
        c.list_tables(); break
    except Exception:
        time.sleep(1)
times = []
for i in range(4):
    t0 = time.time()
    c.create_table(TableName='cut%d' % i, AttributeDefinitions=[{'AttributeName': 'pk', 'AttributeType': 'S'}],
                   KeySchema=[{'AttributeName': 'pk', 'KeyType': 'HASH'}],
                   ProvisionedThroughput={'ReadCapacityUnits': 10, 'WriteCapacityUnits': 4000})
    c.get_waiter('table_exists').wait(TableName='cut%d' % i, WaiterConfig={'Delay': 0.2, 'MaxAttempts': 300})
    while c.describe_table(TableName='cut%d' % i)['Table']['TableStatus'] != 'ACTIVE':
        time.sleep(0.1)
    times.append(time.time() - t0)
print(sys.argv[1], ' '.join('%.2f' % t for t in times))
