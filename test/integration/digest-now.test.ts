import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askDigestNow } from '../../src/digests/index.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';
import { type Runtime, startRuntime } from '../../src/runtime.js';
import { ADMIN, CHANNEL, MEMBER, testConfig } from '../helpers/bot-harness.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

// `digest now` as a use case: the core services over real Redis, no Bolt, no command and no worker (so a queued
// digest stays on its way).
const prefix = uniquePrefix('digest-now');
let slack: FakeSlack;
let runtime: Runtime;
const { cleanup } = testRedis(prefix);

beforeAll(async () => {
  slack = await startFakeSlack();
  runtime = await startRuntime(testConfig(slack, prefix), silentLogger(), {
    roles: [],
  });
});

afterAll(async () => {
  await runtime?.stop();
  await slack?.close();
  await cleanup();
});

const ask = (user: string, kind: 'reviews' | 'rankings', request: string, channel = CHANNEL) =>
  askDigestNow(runtime.services, { user, channel, kind, request, isAdmin: user === ADMIN });
const queued = () => runtime.services.digestQueue.queue.getJobCounts('waiting', 'prioritized', 'delayed');

describe('askDigestNow', () => {
  it('queues one digest per channel and kind while it is on its way, naming who asked for it', async () => {
    expect(await ask(MEMBER, 'reviews', 'T1')).toEqual({ kind: 'queued' });
    expect(await ask('UOTHER', 'reviews', 'T2')).toEqual({ kind: 'on-its-way', by: MEMBER });
    expect(await ask(ADMIN, 'reviews', 'T3')).toEqual({ kind: 'on-its-way', by: MEMBER });
    const counts = await queued();
    expect((counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0)).toBe(1);
  });

  it('queues another kind, or the same kind in another channel, as a digest of its own', async () => {
    expect(await ask(MEMBER, 'rankings', 'T4')).toEqual({ kind: 'queued' });
    expect(await ask(MEMBER, 'reviews', 'T5', 'COTHER')).toEqual({ kind: 'queued' });
    const counts = await queued();
    expect((counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0)).toBe(3);
  });
});
