# PartiQL SELECTs that read several ranges of a table cut into Raft groups, against the same table whole, through
# boto3 on a local cluster (docs/PERFORMANCE.md, "Cluster mode"), e.g. one started with
# NODES=4 cluster/run-local.sh start --cluster-replicas 3 --cluster-table-groups --cluster-partition-groups:
# makes a table of 4,000 write units (cut into groups) and an on-demand one (whole), 30 partition keys of 3 items
# each in both, then times RUNS (default 200) of each statement, and of a Scan, through node 2, in turns (after 50
# turns untimed, so that the JIT has compiled what each runs), and prints median and p90 in ms.
# python3 bench/select-walks.py [RUNS]
import boto3, sys, time
kw = dict(region_name='us-east-1', aws_access_key_id='x', aws_secret_access_key='y')
runs = int(sys.argv[1]) if len(sys.argv) > 1 else 200
d = boto3.client('dynamodb', endpoint_url='http://127.0.0.1:8002', **kw)
schema = dict(AttributeDefinitions=[{'AttributeName': 'pk', 'AttributeType': 'S'},
                                    {'AttributeName': 'sk', 'AttributeType': 'N'}],
              KeySchema=[{'AttributeName': 'pk', 'KeyType': 'HASH'}, {'AttributeName': 'sk', 'KeyType': 'RANGE'}])
suffix = str(int(time.time()) % 100000)
tables = {'cut': 'walk-cut-' + suffix, 'whole': 'walk-whole-' + suffix}
d.create_table(TableName=tables['cut'], ProvisionedThroughput={'ReadCapacityUnits': 10, 'WriteCapacityUnits': 4000},
               **schema)
d.create_table(TableName=tables['whole'], BillingMode='PAY_PER_REQUEST', **schema)
for t in tables.values():
    d.get_waiter('table_exists').wait(TableName=t, WaiterConfig={'Delay': 0.2, 'MaxAttempts': 300})
    while d.describe_table(TableName=t)['Table']['TableStatus'] != 'ACTIVE':
        time.sleep(0.1)
    for i in range(30):
        for sk in range(3):
            d.put_item(TableName=t, Item={'pk': {'S': 'p%d' % i}, 'sk': {'N': str(sk)}, 'v': {'S': 'x' * 100}})
values = [{'S': 'p%d' % i} for i in (29, 3, 17, 8, 22, 0, 11, 5, 14, 26)]
statements = {
    'SELECT of every range': ('SELECT pk, sk FROM "%s"', []),
    'SELECT of 10 IN values': ('SELECT pk, sk FROM "%s" WHERE pk IN [' + ','.join('?' * len(values)) + ']', values),
    'SELECT of one key': ('SELECT pk, sk FROM "%s" WHERE pk = ?', values[:1]),
}
cases = {}
for name, (stmt, params) in statements.items():
    for kind, t in tables.items():
        args = {'Statement': stmt % t}
        if params:
            args['Parameters'] = params
        items = len(d.execute_statement(**args)['Items'])
        cases[f'{name}, {kind}: {items} items'] = lambda args=args: d.execute_statement(**args)
for kind, t in tables.items():
    cases[f'Scan, {kind}'] = lambda t=t: d.scan(TableName=t)
# In turns, so that each case meets the same JIT and the same machine: 50 turns untimed, then RUNS timed.
took = {name: [] for name in cases}
for turn in range(50 + runs):
    for name, run in cases.items():
        t0 = time.perf_counter()
        run()
        if turn >= 50:
            took[name].append((time.perf_counter() - t0) * 1000)
for name, ms in took.items():
    ms.sort()
    print(f'{name}, median {ms[len(ms) // 2]:.1f} ms, p90 {ms[len(ms) * 9 // 10]:.1f} ms')
