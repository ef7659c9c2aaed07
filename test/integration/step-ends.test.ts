/**
 * A Workflow Builder step ends once, whichever process gets there first: several processes' StepEnds (one
 * Redis, the real stand-in) race to end one run, and Slack hears it once; a completion Slack refused (an outage)
 * gives the right back, so a later try ends it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/actions/catalogue.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';
import { StepEnds } from '../../src/workflows/index.js';
import { testConfig } from '../helpers/bot-harness.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

const prefix = uniquePrefix('step-ends');
const { redis, cleanup } = testRedis(prefix);
let slack: FakeSlack;
let processes: StepEnds[];

beforeAll(async () => {
  slack = await startFakeSlack();
  const config = testConfig(slack, prefix);
  const catalogue = buildCatalogue(undefined, { guardedActions: [] });
  processes = Array.from(
    { length: 3 },
    () => new StepEnds({ redis, config, catalogue: async () => catalogue, logger: silentLogger() }),
  );
});
afterAll(async () => {
  await slack?.close();
  await cleanup();
});

const calls = (executionId: string) =>
  slack.calls.filter(
    (c) => c.method.startsWith('functions.') && c.args.function_execution_id === executionId,
  );

describe('a step’s end', () => {
  it('is told to Slack once when three processes end it at the same moment', async () => {
    const run = slack.functions.start('seo_audit', {});
    const [first] = processes;
    expect(await first?.runs.begin(run.executionId, run.token)).toBe(true);
    expect(await first?.runs.begin(run.executionId, run.token)).toBe(false);
    await Promise.all(
      processes.flatMap((p) => [
        p.end(run.executionId, { outputs: { record_id: 'r1', status: 'done', summary: 'ok' } }),
        p.end(run.executionId, { error: 'a second hook' }),
      ]),
    );
    expect(calls(run.executionId).map((c) => [c.method, c.ok])).toHaveLength(1);
    expect(slack.functions.run(run.executionId)?.ended).toBeDefined();
    expect(await redis.exists(`${prefix}:wfstep:token:${run.executionId}`)).toBe(0);
  });

  it('gives the right back when Slack could not be told, so a later try ends it', async () => {
    const run = slack.functions.start('seo_audit', {});
    const [a, b] = processes;
    await a?.runs.begin(run.executionId, run.token);
    slack.simulate.outage(['functions.completeError']);
    await expect(a?.end(run.executionId, { error: 'failed' })).rejects.toThrow();
    slack.simulate.restore();
    await b?.end(run.executionId, { error: 'failed' });
    expect(slack.functions.run(run.executionId)?.ended).toEqual({ ok: false, error: 'failed' });
    expect(calls(run.executionId).filter((c) => c.ok)).toHaveLength(1);
  });
});
