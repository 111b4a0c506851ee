#!/usr/bin/env python3
# A Query of a global secondary index on a table cut by ranges (merged over its groups) against one on a table kept whole
# (a stream keeps it whole), on a local cluster of four nodes (cluster/run-local.sh start --cluster-replicas 3
# --cluster-table-groups --cluster-partition-groups --cluster-min-ranges 3): docs/PERFORMANCE.md.
# Usage: AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=y python3 bench/gsi-query.py make|run
import boto3, time, threading, statistics, sys
from botocore.config import Config
cfg=Config(max_pool_connections=32, retries={'mode':'standard'})
def cl(port=8001): return boto3.client('dynamodb', endpoint_url='http://127.0.0.1:%d'%port, region_name='us-east-1', aws_access_key_id='x', aws_secret_access_key='y', config=cfg)
c=cl()
def make(name, stream):
    try: c.delete_table(TableName=name); time.sleep(3)
    except Exception: pass
    kw=dict(TableName=name, AttributeDefinitions=[{'AttributeName':'pk','AttributeType':'S'},{'AttributeName':'g','AttributeType':'S'},{'AttributeName':'n','AttributeType':'N'}],
      KeySchema=[{'AttributeName':'pk','KeyType':'HASH'}], BillingMode='PAY_PER_REQUEST',
      GlobalSecondaryIndexes=[{'IndexName':'byG','KeySchema':[{'AttributeName':'g','KeyType':'HASH'},{'AttributeName':'n','KeyType':'RANGE'}],'Projection':{'ProjectionType':'ALL'}}])
    if stream: kw['StreamSpecification']={'StreamEnabled':True,'StreamViewType':'KEYS_ONLY'}
    c.create_table(**kw); c.get_waiter('table_exists').wait(TableName=name)
    for i in range(2000):
        c.put_item(TableName=name, Item={'pk':{'S':'p%d'%i},'g':{'S':'g%d'%(i%100)},'n':{'N':str(i)},'x':{'S':'x'*100}})
def run(name, secs=10, threads=8):
    lat=[]; lock=threading.Lock(); stop=time.time()+secs
    def w(k):
        cc=cl(8001+k%4); mine=[]; i=k
        while time.time()<stop:
            t=time.perf_counter()
            r=cc.query(TableName=name, IndexName='byG', KeyConditionExpression='g = :g', ExpressionAttributeValues={':g':{'S':'g%d'%(i%100)}}, Limit=10)
            assert len(r['Items'])==10, r
            mine.append(time.perf_counter()-t); i+=7
        with lock: lat.extend(mine)
    ts=[threading.Thread(target=w,args=(k,)) for k in range(threads)]
    [t.start() for t in ts]; [t.join() for t in ts]
    lat.sort()
    return len(lat)/secs, lat[len(lat)//2]*1000, lat[int(len(lat)*0.99)]*1000
if sys.argv[1]=='make':
    make('gsi-cut', False); make('gsi-whole', True)
else:
    for rep in range(3):
        for name in ['gsi-cut','gsi-whole']:
            q,p50,p99=run(name)
            print('%s: %.0f Query/s, p50 %.1f ms, p99 %.1f ms' % (name,q,p50,p99), flush=True)
