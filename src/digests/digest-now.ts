import { UserError, UserErrorCode } from '../requests/index.js';
import type { CoreServices } from '../services.js';
import { timeLeft } from '../views/digest-common.js';
import { DigestQueue } from './digest-queue.js';
import type { DigestKind } from './filters.js';
import { DigestNowGuard } from './now-guard.js';

/** What `digest now` uses: the digest store and queue, the cooldown's settings and Redis. */
type DigestNowDeps = Pick<CoreServices, 'redis' | 'digests' | 'digestQueue' | 'config'>;

/** Who asks for a digest now, where, of which kind; `request` names the ask (Slack's trigger id). */
export interface DigestNowRequest {
  user: string;
  channel: string;
  kind: DigestKind;
  request: string;
  isAdmin: boolean;
}

export type DigestNowOutcome =
  | { kind: 'queued' }
  /** One is already on its way for this (channel, kind), asked for by `by` when known. */
  | { kind: 'on-its-way'; by?: string };

/**
 * `digest now`, the use case: a full scan charged to the agency key, so one on its way per (channel, kind), and
 * for non-admins a cooldown per (person, channel, kind) (refused with a UserError saying the time left). Queues
 * the job; whatever fails after a claim gives the claim back.
 */
export async function askDigestNow(
  services: DigestNowDeps,
  ask: DigestNowRequest,
): Promise<DigestNowOutcome> {
  const guard = new DigestNowGuard(services.redis, services.digests.prefix);
  const holder = { user: ask.user, jobId: DigestQueue.nowJobId(ask.request), at: Date.now() };
  const claim = await guard.claim(ask.channel, ask.kind, holder, (id) => services.digestQueue.stateOf(id));
  if (!claim.claimed) return { kind: 'on-its-way', ...(claim.holder.user ? { by: claim.holder.user } : {}) };
  const cooled = !ask.isAdmin;
  try {
    if (cooled) await startCooldown(services, guard, ask);
    try {
      await services.digestQueue.enqueueNow(ask.channel, ask.kind, ask.user, ask.request);
    } catch (error) {
      if (cooled) await guard.endCooldown(ask.user, ask.channel, ask.kind);
      throw error;
    }
  } catch (error) {
    await guard.release(ask.channel, ask.kind, holder.jobId);
    throw error;
  }
  return { kind: 'queued' };
}

async function startCooldown(services: DigestNowDeps, guard: DigestNowGuard, ask: DigestNowRequest) {
  const cooldownMs = services.config.digestNowCooldownMs;
  const started = await guard.cooldown(ask.user, ask.channel, ask.kind, cooldownMs);
  if (started.started) return;
  throw new UserError(
    UserErrorCode.TooSoon,
    `You asked for this channel’s ${ask.kind} digest lately; you can ask for it again in ${timeLeft(started.leftMs)}.`,
    {
      hint: `Each \`digest now\` reads all of the client’s data, so a person may ask for one channel’s digest of one kind once every ${timeLeft(cooldownMs)}; scheduled digests are not limited.`,
    },
  );
}
