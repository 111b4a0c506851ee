# ListStreams, ListBackups, ListContributorInsights and ListExports without a table through each node of a local
# cluster started with --cluster-table-groups
# (docs/PERFORMANCE.md): makes five tables, each with a stream and a backup, then lists and pages through every node.
# python3 bench/account-lists.py
import boto3, time
kw=dict(region_name='us-east-1', aws_access_key_id='x', aws_secret_access_key='y')
d=boto3.client('dynamodb', endpoint_url='http://127.0.0.1:8001', **kw)
for i in range(5):
    d.create_table(TableName=f'lt{i}', AttributeDefinitions=[{'AttributeName': 'pk', 'AttributeType': 'S'}],
                   KeySchema=[{'AttributeName': 'pk', 'KeyType': 'HASH'}], BillingMode='PAY_PER_REQUEST',
                   StreamSpecification={'StreamEnabled': True, 'StreamViewType': 'NEW_IMAGE'})
    d.create_backup(TableName=f'lt{i}', BackupName=f'bk-{i}')
for port in [8001,8002,8003,8004]:
    s=boto3.client('dynamodbstreams', endpoint_url=f'http://127.0.0.1:{port}', **kw)
    t0=time.time(); r=s.list_streams(); dt=(time.time()-t0)*1000
    print(port, 'streams', [x['TableName'] for x in r['Streams']], r.get('LastEvaluatedStreamArn'), f'{dt:.0f} ms')
    p1=s.list_streams(Limit=2); p2=s.list_streams(Limit=2, ExclusiveStartStreamArn=p1['LastEvaluatedStreamArn'])
    print('  paged', [x['TableName'] for x in p1['Streams']], [x['TableName'] for x in p2['Streams']])
    dd=boto3.client('dynamodb', endpoint_url=f'http://127.0.0.1:{port}', **kw)
    t0=time.time(); b=dd.list_backups(); dt=(time.time()-t0)*1000
    print('  backups', [x['BackupName'] for x in b['BackupSummaries']], f'{dt:.0f} ms')
    b1=dd.list_backups(Limit=3); b2=dd.list_backups(Limit=3, ExclusiveStartBackupArn=b1['LastEvaluatedBackupArn'])
    names = lambda page: [x['BackupName'] for x in page['BackupSummaries']]
    print('  paged', names(b1), names(b2), b2.get('LastEvaluatedBackupArn'))
try:
    d.list_backups(Limit=0)
except Exception as e: print('bad:', e)
for port in [8001,8002,8003,8004]:
    dd=boto3.client('dynamodb', endpoint_url=f'http://127.0.0.1:{port}', **kw)
    t0=time.time(); c=dd.list_contributor_insights(); dt=(time.time()-t0)*1000
    c1=dd.list_contributor_insights(MaxResults=3)
    c2=dd.list_contributor_insights(MaxResults=3, NextToken=c1['NextToken'])
    tables = lambda page: [x['TableName'] for x in page['ContributorInsightsSummaries']]
    print(port, 'insights', tables(c), f'{dt:.0f} ms', 'paged', tables(c1), tables(c2))
    t0=time.time(); e=dd.list_exports(); dt=(time.time()-t0)*1000
    print('  exports', e['ExportSummaries'], f'{dt:.0f} ms')
try:
    d.list_exports(NextToken='bm8tc3VjaC1leHBvcnQ')
except Exception as e: print('bad token:', e)
