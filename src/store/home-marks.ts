import type { Redis } from '../redis/connection.js';
import { defineScript, runScript } from '../redis/scripts.js';

/**
 * Whose Home tab is out of date, in Redis, so that any process can say so (a web process deciding an approval,
 * a worker ending a job, the digest worker stopping a digest) and the web role re-publishes it. Only people who
 * opened Home in the last seven days are marked (nobody else would see the change). A mark is due two seconds
 * after the first change it collects: the changes of those two seconds make one publish (the debounce). Taking
 * a due mark is one ZREM, so of several web processes exactly one publishes it.
 */

const DAY_MS = 86_400_000;
/** Home is kept current for people who opened it this recently. */
const HOME_SEEN_MS = 7 * DAY_MS;
/** The changes of this long make one publish. */
const HOME_DEBOUNCE_MS = 2_000;
/**
 * Re-publishes (not opens, not answers to clicks) a workspace gets: at most 18 in any 15 s, so at most 72 in any
 * minute, under views.publish's own limit with room for the opens and clicks, and spread over the minute rather
 * than spent at its start. A mark left over waits for room and then shows the state of that moment, so a busy
 * minute costs latency, never a wrong tab.
 */
const BUDGET = { windowMs: 15_000, max: 18 };

/**
 * KEYS: due marks (zset person → due time), re-publishes of the last minute (zset stamp → time).
 * ARGV: now, how many at most, the window (ms), the budget. Takes due marks within the budget, atomically, so
 * of several processes each person is taken once and the minute's budget holds whoever takes them.
 */
const takeDueScript = defineScript(
  'gwHomeTakeDue',
  2,
  `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]))
local room = tonumber(ARGV[4]) - redis.call('ZCARD', KEYS[2])
local want = math.min(tonumber(ARGV[2]), room)
if want <= 0 then return {} end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, want)
for i, user in ipairs(due) do
  redis.call('ZREM', KEYS[1], user)
  redis.call('ZADD', KEYS[2], now, now .. ':' .. user)
end
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[3]) * 2)
return due
`,
);

export class HomeMarks {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    /** `admins`: whose tabs show the queue's counts, so every job's end is theirs too. */
    private readonly options: { debounceMs?: number; admins?: readonly string[] } = {},
  ) {}

  #key(name: string): string {
    return `${this.prefix}:home:${name}`;
  }

  /** `user` opened Home; `approver`: they see what waits for approvers, so approval changes are theirs too. */
  async opened(user: string, approver: boolean, now = Date.now()): Promise<void> {
    const old = now - HOME_SEEN_MS;
    const pipe = this.redis.pipeline();
    pipe.zadd(this.#key('seen'), now, user);
    pipe.zremrangebyscore(this.#key('seen'), '-inf', old);
    if (approver) pipe.zadd(this.#key('approvers'), now, user);
    else pipe.zrem(this.#key('approvers'), user);
    pipe.zremrangebyscore(this.#key('approvers'), '-inf', old);
    await pipe.exec();
  }

  /** Marks those of `users` who opened Home lately; an earlier mark not yet due stands (the debounce). */
  async mark(users: readonly string[], now = Date.now()): Promise<void> {
    await this.#markSeen(users, now, now + (this.options.debounceMs ?? HOME_DEBOUNCE_MS), 'NX');
  }

  /**
   * A job changed: its requester's tab, debounced. A job ended: the tabs that show it (its requester's jobs, the
   * admins' queue counts) are due at once, a mark still waiting out its debounce included, so a tab published a
   * moment before (an approval from Home) does not go on showing the job running while its card says it is done.
   */
  readonly jobChanged = async (
    job: { requestedBy: string },
    change: { ended: boolean },
    now = Date.now(),
  ): Promise<void> => {
    if (!change.ended) return this.mark([job.requestedBy], now);
    await this.#markSeen([job.requestedBy, ...(this.options.admins ?? [])], now, now, 'LT');
  };

  async #markSeen(users: readonly string[], now: number, due: number, mode: 'NX' | 'LT'): Promise<void> {
    const unique = [...new Set(users.filter(Boolean))];
    if (!unique.length) return;
    const scores = await this.redis.zmscore(this.#key('seen'), ...unique);
    const seen = unique.filter((_, i) => Number(scores[i] ?? 0) > now - HOME_SEEN_MS);
    if (!seen.length) return;
    const members = seen.flatMap((u) => [due, u]);
    if (mode === 'NX') await this.redis.zadd(this.#key('due'), 'NX', ...members);
    else await this.redis.zadd(this.#key('due'), 'LT', ...members);
  }

  /** An approval changed: its requester's Home, and every approver's who opened Home lately. */
  async approvalChanged(requester: string, now = Date.now()): Promise<void> {
    const approvers = await this.redis.zrangebyscore(this.#key('approvers'), now - HOME_SEEN_MS, '+inf');
    await this.mark([requester, ...approvers], now);
  }

  /** Something every Home shows changed (a digest stopped). */
  async everyone(now = Date.now()): Promise<void> {
    await this.mark(await this.redis.zrangebyscore(this.#key('seen'), now - HOME_SEEN_MS, '+inf'), now);
  }

  /**
   * Up to `limit` people whose marks are due, each taken by exactly one caller, within the workspace's budget
   * of re-publishes (shared by every process).
   */
  async takeDue(limit: number, now = Date.now()): Promise<string[]> {
    return (await runScript(
      this.redis,
      takeDueScript,
      [this.#key('due'), this.#key('published')],
      [now, limit, BUDGET.windowMs, BUDGET.max],
    )) as string[];
  }

  /** Publishes for `user` again after `ms` (Slack said to wait, or the publish failed). */
  async later(user: string, ms: number, now = Date.now()): Promise<void> {
    await this.redis.zadd(this.#key('due'), 'GT', now + ms, user);
  }

  /** The answer to a person's last click on their tab, shown at its top for a minute (any process publishes it). */
  async setNotice(user: string, notice: unknown): Promise<void> {
    await this.redis.set(this.#key(`notice:${user}`), JSON.stringify(notice), 'EX', 60);
  }

  async notice(user: string): Promise<unknown> {
    const raw = await this.redis.get(this.#key(`notice:${user}`));
    return raw ? (JSON.parse(raw) as unknown) : undefined;
  }

  /** The hash of the Home view last published for `user` (views.publish's guard against an older state). */
  lastHash(user: string): Promise<string | null> {
    return this.redis.get(this.#key(`hash:${user}`));
  }

  async setHash(user: string, hash: string): Promise<void> {
    await this.redis.set(this.#key(`hash:${user}`), hash, 'PX', HOME_SEEN_MS);
  }
}
