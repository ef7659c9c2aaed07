import type { AppLogger } from '../logger.js';
import type { Redis } from './connection.js';

/**
 * Redis replicates asynchronously: a failover can lose the last writes a client was told succeeded. Before the
 * bot does what cannot be undone on the strength of its writes (a POST after the "posting" checkpoint, telling a
 * person their job is queued), it asks for `WAIT 1 <ms>`: a replica holds every write this connection made so
 * far (replication is one ordered stream, so the lease, the approval's `running` and the claim before it too).
 *
 * WAIT answers for the connection it is sent on, so it goes on the very connection that wrote; on a cluster it
 * rides in a pipeline behind a command on a key of the slot, which sends it to the node that took the writes.
 * A replica that is attached but slow is waited for longer. With no replica attached it would cost its full
 * timeout every time: after one such answer it is skipped for a while (and logged), and the work goes on, as it
 * would on a Redis without replicas.
 */
export class ReplicaWait {
  #skipUntil = 0;

  constructor(
    /** 0 turns it off (a single Redis with no failover to survive). */
    readonly timeoutMs: number,
    private readonly logger?: AppLogger,
    private readonly skipMs = 10_000,
    private readonly slowReplicaFactor = 8,
  ) {}

  /**
   * Resolves once a replica has the connection's writes, or the wait timed out; `slotKey` names the slot.
   * Answers how many replicas acknowledged (0 when it did not ask).
   *
   * A replica that is attached but slow (a loaded machine) is waited for longer, up to `slowReplicaFactor`
   * times the timeout: going on without it is what lets a failover lose the "posting" checkpoint and a job
   * POST twice. Only a node with no replica attached (the one left after a failover) is skipped for a while.
   */
  async after(redis: Redis, slotKey: string): Promise<number> {
    if (this.timeoutMs <= 0 || Date.now() < this.#skipUntil) return 0;
    const first = await this.#wait(redis, slotKey, this.timeoutMs);
    if (first.acked >= 1) return first.acked;
    if (first.replicas > 0) {
      const again = await this.#wait(redis, slotKey, this.timeoutMs * this.slowReplicaFactor);
      if (again.acked >= 1) return again.acked;
    }
    this.#skipUntil = Date.now() + this.skipMs;
    this.logger?.warn(
      `no Redis replica acknowledged writes within ${this.timeoutMs} ms: going on without (a failover now could lose the last writes); next check in ${this.skipMs / 1_000} s`,
    );
    return 0;
  }

  /** One WAIT on the slot's connection, and how many replicas that node had attached as it answered. */
  async #wait(redis: Redis, slotKey: string, ms: number): Promise<{ acked: number; replicas: number }> {
    const results = await redis.pipeline().exists(slotKey).wait(1, ms).info('replication').exec();
    const [error, acked] = results?.[1] ?? [new Error('WAIT: no answer'), 0];
    if (error) throw error;
    const info = String(results?.[2]?.[1] ?? '');
    const replicas = Number(/connected_slaves:(\d+)/.exec(info)?.[1] ?? 0);
    return { acked: Number(acked), replicas };
  }
}

/** How long the bot waits for a replica in each Redis form: only Cluster and Sentinel fail over by themselves. */
export function replicaWaitMs(form: 'single' | 'cluster' | 'sentinel'): number {
  return form === 'single' ? 0 : 250;
}
