"""How long a RestoreTableToPointInTime takes, as a client sees it (docs/PERFORMANCE.md); or, with `backup`, a
CreateBackup and each RestoreTableFromBackup of it.

Usage: python3 bench/restore-time.py PORT ITEMS [RESTORES [backup]]

Makes a table of 3,000 WCU with PITR on, writes ITEMS items of 1 KB with BatchWriteItem (what is left unprocessed sent
again), then restores it RESTORES times (3 by default) with UseLatestRestorableTime, each timed at the client, and
counts each restored table's items with consistent Scans. Against a single node (java -jar server/target/partita.jar
-inMemory -port PORT) or a local cluster (cluster/run-local.sh start --cluster-replicas 3 --cluster-table-groups
--cluster-partition-groups --cluster-min-ranges 3, PORT 8001), whose tables it cuts in three.
"""
import sys
import time
import uuid

import boto3
import botocore.config

port, n = sys.argv[1], int(sys.argv[2])
restores = int(sys.argv[3]) if len(sys.argv) > 3 else 3
backup = len(sys.argv) > 4 and sys.argv[4] == 'backup'
d = boto3.client('dynamodb', endpoint_url=f'http://127.0.0.1:{port}', region_name='us-east-1',
                 aws_access_key_id='x', aws_secret_access_key='y',
                 config=botocore.config.Config(read_timeout=300, retries={'max_attempts': 1}))
t = 'src' + uuid.uuid4().hex[:6]
d.create_table(TableName=t, AttributeDefinitions=[{'AttributeName': 'pk', 'AttributeType': 'S'}],
               KeySchema=[{'AttributeName': 'pk', 'KeyType': 'HASH'}],
               ProvisionedThroughput={'ReadCapacityUnits': 3000, 'WriteCapacityUnits': 3000})
d.get_waiter('table_exists').wait(TableName=t)
d.update_continuous_backups(TableName=t, PointInTimeRecoverySpecification={'PointInTimeRecoveryEnabled': True})
pad = 'x' * 900
for i in range(0, n, 25):
    req = {t: [{'PutRequest': {'Item': {'pk': {'S': f'k{j}'}, 'v': {'S': pad}}}} for j in range(i, min(n, i + 25))]}
    while req:
        req = d.batch_write_item(RequestItems=req).get('UnprocessedItems') or None
        if req:
            time.sleep(0.05)
arn = None
if backup:
    start = time.perf_counter()
    arn = d.create_backup(TableName=t, BackupName='timed')['BackupDetails']['BackupArn']
    print(f'backup of {n} items (1 KB): {(time.perf_counter() - start) * 1000:.0f} ms')
times = []
for r in range(restores):
    start = time.perf_counter()
    if backup:
        d.restore_table_from_backup(BackupArn=arn, TargetTableName=f'{t}r{r}')
    else:
        d.restore_table_to_point_in_time(SourceTableName=t, TargetTableName=f'{t}r{r}', UseLatestRestorableTime=True)
    times.append(time.perf_counter() - start)
    page = d.scan(TableName=f'{t}r{r}', Select='COUNT', ConsistentRead=True)
    count = page['Count']
    while 'LastEvaluatedKey' in page:
        page = d.scan(TableName=f'{t}r{r}', Select='COUNT', ConsistentRead=True,
                      ExclusiveStartKey=page['LastEvaluatedKey'])
        count += page['Count']
    assert count == n, f'{count} of {n} items restored'
print(f'restore of {n} items (1 KB):', ', '.join(f'{x * 1000:.0f} ms' for x in times))
