# Transfers between two tables' groups while nodes are killed (docs/CLUSTER.md, "A Raft group per table"): a check of
# TransactWriteItems over several groups under crashes, by hand. Start a cluster first, e.g.
#   DIR=/tmp/kills NODES=4 cluster/run-local.sh start --cluster-replicas 3 --cluster-table-groups
# then: DIR=/tmp/kills python3 cluster/transfers-under-kills.py [seconds]
# Six clients move amounts between acct_a and acct_b (a conditional debit in one table's group, a credit in the
# other's, one transaction each) through random nodes, while a node is killed with SIGKILL and restarted every 13 s or
# so. Afterwards (and 40 s for the resolvers to end the parts left behind) the balances must sum to what they started
# at, and no item may be held by a transaction. Each node's log before a restart is kept in $DIR/logs.
import boto3, os, random, subprocess, sys, threading, time
from botocore.config import Config

DIR = os.environ.get('DIR', 'partita-cluster')
SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 90
NODES = int(open(os.path.join(DIR, 'nodes')).read().strip())
HERE = os.path.dirname(os.path.abspath(__file__))
PORTS = [8000 + n for n in range(1, NODES + 1)]
K = 5  # accounts in each table


def client(port):
    return boto3.client('dynamodb', endpoint_url=f'http://127.0.0.1:{port}', region_name='us-east-1',
                        aws_access_key_id='a', aws_secret_access_key='b',
                        config=Config(retries={'max_attempts': 8, 'mode': 'standard'}, connect_timeout=3,
                                      read_timeout=20))


d = client(PORTS[0])
for t in ['acct_a', 'acct_b']:
    d.create_table(TableName=t, KeySchema=[{'AttributeName': 'pk', 'KeyType': 'HASH'}],
                   AttributeDefinitions=[{'AttributeName': 'pk', 'AttributeType': 'S'}],
                   BillingMode='PAY_PER_REQUEST')
time.sleep(2)
for i in range(K):
    for t in ['acct_a', 'acct_b']:
        d.put_item(TableName=t, Item={'pk': {'S': f'k{i}'}, 'bal': {'N': '1000'}})

outcomes = {'committed': 0, 'cancelled': 0, 'failed': 0}
failures = {}
lock = threading.Lock()
stop = time.time() + SECONDS


def mover():
    while time.time() < stop:
        c = client(random.choice(PORTS))
        a, b = random.choice([('acct_a', 'acct_b'), ('acct_b', 'acct_a')])
        k = f'k{random.randrange(K)}'
        amount = str(random.randint(1, 20))
        try:
            c.transact_write_items(TransactItems=[
                {'Update': {'TableName': a, 'Key': {'pk': {'S': k}}, 'UpdateExpression': 'SET bal = bal - :v',
                            'ConditionExpression': 'bal >= :v', 'ExpressionAttributeValues': {':v': {'N': amount}}}},
                {'Update': {'TableName': b, 'Key': {'pk': {'S': k}}, 'UpdateExpression': 'SET bal = bal + :v',
                            'ExpressionAttributeValues': {':v': {'N': amount}}}}])
            kind = 'committed'
        except c.exceptions.TransactionCanceledException:
            kind = 'cancelled'
        except Exception as e:  # its outcome not known to the client (it may have committed)
            kind = 'failed'
            with lock:
                name = type(e).__name__
                failures[name] = failures.get(name, 0) + 1
        with lock:
            outcomes[kind] += 1


def killer():
    os.makedirs(os.path.join(DIR, 'logs'), exist_ok=True)
    while time.time() < stop - 20:
        time.sleep(7)
        n = random.randint(1, NODES)
        subprocess.run([os.path.join(HERE, 'run-local.sh'), 'kill', str(n)], capture_output=True,
                       env={**os.environ, 'DIR': DIR})
        print('killed n%d' % n, flush=True)
        time.sleep(6)
        with open(os.path.join(DIR, f'n{n}.log'), 'rb') as log, \
                open(os.path.join(DIR, 'logs', f'n{n}.log'), 'ab') as kept:
            kept.write(log.read())
        subprocess.run([os.path.join(HERE, 'run-local.sh'), 'restart', str(n)], capture_output=True,
                       env={**os.environ, 'DIR': DIR})
        print('restarted n%d' % n, flush=True)


threads = [threading.Thread(target=mover) for _ in range(6)] + [threading.Thread(target=killer)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(outcomes, failures)
print('waiting 40 s for the parts left behind to be ended')
time.sleep(40)
total = sum(int(d.get_item(TableName=t, Key={'pk': {'S': f'k{i}'}}, ConsistentRead=True)['Item']['bal']['N'])
            for i in range(K) for t in ['acct_a', 'acct_b'])
held = 0
for i in range(K):
    for t in ['acct_a', 'acct_b']:
        try:
            d.update_item(TableName=t, Key={'pk': {'S': f'k{i}'}}, UpdateExpression='SET touched = :t',
                          ExpressionAttributeValues={':t': {'N': '1'}})
        except d.exceptions.TransactionConflictException:
            held += 1
print(f'total {total} (expected {2000 * K}), items still held {held}')
sys.exit(0 if total == 2000 * K and held == 0 else 1)
