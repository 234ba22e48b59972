import { describe, expect, it } from 'vitest';
import { parseReplication } from '../../src/backend/redis/promotion-watch.ts';

/*
 * What INFO replication says of a node, as the promotion watch reads it
 * (src/backend/redis/promotion-watch.ts): its role, its connected replicas, and the histories
 * that tell a replica promoted over a primary (its previous history is that primary's) from a
 * primary of anything else. The watch at work: test/backend/redis-replica-loss.test.ts.
 */
describe('INFO replication as the promotion watch reads it', () => {
  it('a primary: role, count, each connected replica\'s address (IPv6 too), its history', () => {
    const info = '# Replication\r\nrole:master\r\nconnected_slaves:2\r\nslave0:ip=127.0.0.1,port=6380,state=online,offset=42,lag=0\r\n'
      + 'slave1:ip=::1,port=6381,state=wait_bgsave,offset=0,lag=0\r\nmaster_failover_state:no-failover\r\n'
      + 'master_replid:8b9c2a5d4e6f708192a3b4c5d6e7f80912a3b4c5\r\nmaster_replid2:0000000000000000000000000000000000000000\r\n';
    expect(parseReplication(info)).toEqual({
      primary: true, count: 2, replicas: ['127.0.0.1|6380', '::1|6381'],
      replid: '8b9c2a5d4e6f708192a3b4c5d6e7f80912a3b4c5', replid2: '0000000000000000000000000000000000000000',
    });
  });

  it('a replica promoted (REPLICAOF NO ONE, a failover): its previous history is its old primary\'s', () => {
    const info = '# Replication\r\nrole:master\r\nconnected_slaves:0\r\nmaster_replid:f00d\r\nmaster_replid2:8b9c\r\n';
    expect(parseReplication(info)).toMatchObject({ primary: true, count: 0, replicas: [], replid: 'f00d', replid2: '8b9c' });
    expect(parseReplication('# Replication\r\nrole:slave\r\nmaster_host:127.0.0.1\r\nconnected_slaves:0\r\n')).toMatchObject({ primary: false, count: 0, replicas: [] });
  });
});
