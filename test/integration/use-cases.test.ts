import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestApproval } from '../../src/approvals/index.js';
import { bindChannel, findClient } from '../../src/bindings/index.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';
import { readResourceAnswer } from '../../src/reads/index.js';
import { UserError } from '../../src/requests/index.js';
import { type Runtime, startRuntime } from '../../src/runtime.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { slackReplyTarget } from '../../src/slack/reply-target.js';
import { ADMIN, CHANNEL, MEMBER, testConfig } from '../helpers/bot-harness.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

// Binding a channel, reading a resource and asking for an approval, each as a use case: the core services over
// real Redis, the in-process sandbox and the Slack stand-in, with no Bolt, no command and no worker.
const prefix = uniquePrefix('use-cases');
let slack: FakeSlack;
let runtime: Runtime;
let sandbox: Sandbox;
const { cleanup } = testRedis(prefix);
const CLIENT = 'harbor-law';

beforeAll(async () => {
  slack = await startFakeSlack();
  runtime = await startRuntime(testConfig(slack, prefix), silentLogger(), { roles: [] });
  if (!runtime.sandbox) throw new Error('expected the in-process sandbox');
  sandbox = runtime.sandbox;
  slack.simulate.joinChannel(CHANNEL, MEMBER);
});

afterAll(async () => {
  await runtime?.stop();
  await slack?.close();
  await cleanup();
});

const gets = (resource: string) =>
  sandbox.requests().filter((r) => r.method === 'GET' && r.resource === resource).length;

describe('binding a channel', () => {
  it('finds a client by its id, and names the closest one for a typo without binding anything', async () => {
    const found = await findClient(runtime.services, CLIENT);
    expect(found.clientId).toBe(CLIENT);
    expect(found.clientLabel).not.toBe('');
    const typo = await findClient(runtime.services, 'harbour-law').catch((e: unknown) => e);
    expect(typo).toBeInstanceOf(UserError);
    expect((typo as UserError).options.hint).toContain(`Did you mean \`${CLIENT}\`?`);
    expect(await runtime.services.bindings.get('CTYPO')).toBeUndefined();
  });

  it('saves the binding and posts its confirmation through the port it is given', async () => {
    const found = await findClient(runtime.services, CLIENT);
    const posted: string[] = [];
    await bindChannel(runtime.services, { ...found, channel: CHANNEL, user: MEMBER }, async (message) => {
      posted.push(message.text);
    });
    expect(await runtime.services.bindings.get(CHANNEL)).toMatchObject({ clientId: CLIENT, boundBy: MEMBER });
    expect(posted).toHaveLength(1);
    expect(posted[0]).toContain(found.clientLabel);
  });

  it('keeps the binding when the bot may not post there, and says how to invite it', async () => {
    const found = await findClient(runtime.services, CLIENT);
    const notInChannel = Object.assign(new Error('not_in_channel'), { data: { error: 'not_in_channel' } });
    const refused = await bindChannel(runtime.services, { ...found, channel: 'CNOTIN', user: MEMBER }, () =>
      Promise.reject(notInChannel),
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UserError);
    expect((refused as UserError).options.hint).toContain('/invite');
    expect(await runtime.services.bindings.get('CNOTIN')).toMatchObject({ clientId: CLIENT });
  });
});

describe('reading a resource', () => {
  const binding = { clientId: CLIENT, clientLabel: 'Harbor Law' };

  it('answers a page of the channel’s client in one gateway read', async () => {
    const before = gets('keywords');
    const query = { limit: 10, offset: 0 };
    const answer = await readResourceAnswer(runtime.services, MEMBER, binding, 'keywords', query);
    expect(answer.empty).toBe(false);
    expect(JSON.stringify(answer.message.blocks)).toContain('keyword');
    expect(gets('keywords') - before).toBe(1);
  });

  it('tells the person alone what to try when a filter matches nothing', async () => {
    const query = { limit: 10, offset: 0, filter: { field: 'status', value: 'no-such-status' } };
    const answer = await readResourceAnswer(runtime.services, MEMBER, binding, 'keywords', query);
    expect(answer.empty).toBe(true);
  });
});

describe('asking for an approval', () => {
  it('posts one card for a guarded action, however often the same request is delivered, and no POST', async () => {
    const entry = (await runtime.services.catalogue()).byAction('deploy_blog');
    if (!entry) throw new Error('deploy_blog is not in the catalogue');
    const postId = String(sandbox.records(CLIENT, 'blogs')[0]?.id);
    const ask = {
      entry,
      requester: MEMBER,
      channel: CHANNEL,
      clientId: CLIENT,
      fields: { post_id: postId },
      requestKey: 'trigger-1',
    };
    const cardsBefore = slack.messages(CHANNEL).length;
    const record = await requestApproval(runtime.services, ask);
    expect(record).toMatchObject({ action: 'deploy_blog', requestedBy: MEMBER, state: 'pending' });
    expect(await requestApproval(runtime.services, ask)).toBeUndefined();
    const cards = slack.messages(CHANNEL).slice(cardsBefore);
    expect(cards).toHaveLength(1);
    expect(JSON.stringify(cards[0])).toContain(postId);
    expect(sandbox.requests().filter((r) => r.method === 'POST')).toHaveLength(0);
  });
});

describe('cancelling a queued job', () => {
  it('lets its requester or an admin cancel it while it waits, nobody else, and then says it is gone', async () => {
    await runtime.services.bindings.set({
      ...{ channel: CHANNEL, clientId: CLIENT, clientLabel: 'Harbor Law' },
      ...{ boundBy: ADMIN, boundAt: new Date().toISOString() },
    });
    slack.simulate.joinChannel(CHANNEL, 'UOTHER');
    const jobKey = `cancel-${Date.now()}`;
    const result = await runtime.services.requests.submit({
      requester: MEMBER,
      clientId: CLIENT,
      action: 'seo_audit',
      fields: { url: 'https://harbor-law.example/cancel' },
      replyTo: slackReplyTarget(CHANNEL),
      requestKey: jobKey,
    });
    expect(result).toMatchObject({ kind: 'queued', jobKey });
    const code = (e: unknown) => (e instanceof UserError ? e.code : e);
    expect(await runtime.services.requests.cancel(jobKey, 'UOTHER', CHANNEL).catch(code)).toBe(
      'not_requester',
    );
    expect(await runtime.services.requests.cancel(jobKey, MEMBER, 'COTHER').catch(code)).toBe('wrong_client');
    await runtime.services.requests.cancel(jobKey, MEMBER, CHANNEL);
    expect(await runtime.services.queue.findJob(jobKey)).toBeUndefined();
    expect(await runtime.services.requests.cancel(jobKey, ADMIN, CHANNEL).catch(code)).toBe(
      'request_expired',
    );
    // Its status message now says who cancelled it.
    const status = slack
      .messages(CHANNEL)
      .find((m) => JSON.stringify(m).includes('harbor-law.example/cancel'));
    expect(JSON.stringify(status)).toMatch(new RegExp(`[Cc]ancel+ed by <@${MEMBER}>`));
    // No worker runs in this process: nothing reached the gateway.
    expect(sandbox.requests().filter((r) => r.action === 'seo_audit')).toHaveLength(0);
  });
});
