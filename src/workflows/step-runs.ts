import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Redis } from '../redis/connection.js';

/**
 * What a running Workflow Builder step keeps in Redis, keyed by its `function_execution_id`, so any web or
 * worker process can end it, once:
 * - `begin`: the first delivery of an execution claims it; a redelivered `function_executed` finds it taken.
 * - the execution's token, sealed (AES-256-GCM under a key derived from the bot token, which every process
 *   has and Redis does not), with a TTL: it never goes into job data or a log, and it is deleted once the
 *   step has ended (or when the TTL runs out, whichever is first).
 * - a guarded step's approval id → its execution, for the approval's outcome and its run's end.
 * - `claimEnd`: the one process that ends the step; every other (a redelivery, a second hook) finds it taken.
 */

export class StepRuns {
  readonly #key: Buffer;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    /** A secret every process has (the bot token): the sealing key is derived from it, never stored. */
    secret: string,
    /** How long a step may wait (the approval TTL and then some): its keys live this long. */
    private readonly ttlMs: number,
  ) {
    this.#key = createHash('sha256').update(`workflow-step-token\0${secret}`).digest();
  }

  #k(kind: string, id: string): string {
    return `${this.prefix}:wfstep:${kind}:${id}`;
  }

  /** True for the first delivery of the execution: its token is kept (sealed) for its end. */
  async begin(executionId: string, token: string): Promise<boolean> {
    const claimed = await this.redis.set(this.#k('begun', executionId), '1', 'PX', this.ttlMs, 'NX');
    if (claimed !== 'OK') return false;
    await this.redis.set(this.#k('token', executionId), this.#seal(token), 'PX', this.ttlMs);
    return true;
  }

  /** A guarded step waits on this approval. */
  async waitOnApproval(approvalId: string, executionId: string): Promise<void> {
    await this.redis.set(this.#k('approval', approvalId), executionId, 'PX', this.ttlMs);
  }

  byApproval(approvalId: string): Promise<string | null> {
    return this.redis.get(this.#k('approval', approvalId));
  }

  /**
   * The right to end the step, taken once across processes; with it, the token (undefined when it is gone:
   * the TTL ran out). `release` gives the right back when Slack could not be told.
   */
  async claimEnd(executionId: string): Promise<{ token: string | undefined } | undefined> {
    const claimed = await this.redis.set(this.#k('ended', executionId), '1', 'PX', this.ttlMs, 'NX');
    if (claimed !== 'OK') return undefined;
    const sealed = await this.redis.get(this.#k('token', executionId));
    return { token: sealed ? this.#open(sealed) : undefined };
  }

  async release(executionId: string): Promise<void> {
    await this.redis.del(this.#k('ended', executionId));
  }

  /** The step has ended: its token is no longer needed. */
  async forget(executionId: string): Promise<void> {
    await this.redis.del(this.#k('token', executionId));
  }

  #seal(token: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  #open(sealed: string): string | undefined {
    try {
      const raw = Buffer.from(sealed, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      // Sealed under another bot token (rotated): the step cannot be told, and its TTL ends it at Slack.
      return undefined;
    }
  }
}
