import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_KEYS } from '../../src/gateway/spec.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';
import { type Runtime, startRuntime } from '../../src/runtime.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { testConfig } from '../helpers/bot-harness.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

/**
 * A worker starting while the gateway drips its discovery answer (headers, then a byte every 2 s): the worker
 * and its /healthz come up after a bounded wait instead of never (a container would restart in a loop), and the
 * catalogue fills in once discovery answers.
 */

const prefix = uniquePrefix('e2e-slow-discovery');
let slack: FakeSlack;
let sandbox: Sandbox;
let runtime: Runtime | undefined;

beforeAll(async () => {
  slack = await startFakeSlack();
  sandbox = await startSandbox({ knobs: { dripRate: 1, dripMs: 2_000 } });
});
afterAll(async () => {
  await runtime?.stop(5_000);
  await sandbox?.close();
  await slack?.close();
  await testRedis(prefix).cleanup();
});

describe('a worker starting while discovery drips', () => {
  it('serves /healthz within seconds, and the catalogue fills in once discovery answers', async () => {
    const config = testConfig(slack, prefix, {
      SLACK_SIGNING_SECRET: 'slow-discovery-secret',
      ROLE: 'worker',
      GATEWAY_BASE_URL: sandbox.url,
      GATEWAY_API_KEY: SANDBOX_KEYS.full,
      GATEWAY_READ_TIMEOUT: '4s',
    });
    const started = Date.now();
    runtime = await Promise.race([
      startRuntime(config, silentLogger()),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('the worker did not start within 15 s')), 15_000),
      ),
    ]);
    expect(Date.now() - started).toBeLessThan(10_000);
    const health = await request(`http://127.0.0.1:${runtime.port}/healthz`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
    expect(sandbox.requests().some((r) => r.fault === 'drip' && r.resource === undefined)).toBe(true);

    // The gateway recovers: the next refresh fills in the catalogue with what discovery lists.
    sandbox.setKnobs({ dripRate: 0 });
    // A dripping call still in flight is shared by whoever asks meanwhile; it ends at its deadline.
    let discovered: Awaited<ReturnType<Runtime['services']['gateway']['discover']>> | undefined;
    for (let tries = 0; !discovered && tries < 20; tries++) {
      discovered = await runtime.services.gateway.discover({ force: true }).catch(async () => {
        await new Promise((r) => setTimeout(r, 250));
        return undefined;
      });
    }
    if (!discovered) throw new Error('discovery never answered once the gateway recovered');
    const catalogue = await runtime.services.catalogue();
    const known = catalogue.entries().map((e) => e.action);
    for (const action of discovered.actions.map((a) => a.action)) expect(known).toContain(action);
  }, 30_000);
});
