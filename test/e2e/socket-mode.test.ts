import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackDriver } from '../../src/local/driver.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { createLogger, silentLogger } from '../../src/logger.js';
import { type Runtime, startRuntime } from '../../src/runtime.js';
import { testConfig, textOf } from '../helpers/bot-harness.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

/** The whole bot over Socket Mode: no signing secret, no events URL; Slack reaches it only over the WebSocket. */

const ADMIN = 'UADMIN';
const MEMBER = 'UMEMBER';
const CHANNEL = 'CSOCKET';

let slack: FakeSlack;
let runtime: Runtime;
let driver: SlackDriver;
let stopped = false;
const prefix = uniquePrefix('e2e-socket');

const latest = (match: (m: FakeMessage) => boolean, what: string) =>
  slack.waitFor(() => slack.messages(CHANNEL).filter(match).at(-1), { what });

beforeAll(async () => {
  slack = await startFakeSlack();
  const config = testConfig(slack, prefix, {
    SLACK_APP_TOKEN: 'xapp-1-fake',
    GATEWAY_BASE_URL: 'sandbox',
    GATEWAY_ADMINS: ADMIN,
    GATEWAY_ACTION_RATE: '1000/1s',
    GATEWAY_ACTION_TIMEOUT: '2s',
  });
  expect(config.slack.mode).toBe('socket');
  const logger = process.env.E2E_LOGS ? createLogger({ level: 'debug' }) : silentLogger();
  runtime = await startRuntime(config, logger, { worker: { reconcileGraceMs: 50, backoffMs: 50 } });
  driver = new SlackDriver({ transport: 'socket', slack });
});

afterAll(async () => {
  // The bot first, so it closes its WebSocket cleanly instead of reconnecting to a stand-in that is gone.
  if (!stopped) await runtime?.stop(5_000);
  await slack?.close();
  await testRedis(prefix).cleanup();
});

describe('Socket Mode', () => {
  it('connects with the app-level token through the stand-in’s Web API, not slack.com', () => {
    expect(slack.socket.connected()).toBe(true);
    const opens = slack.calls.filter((c) => c.method === 'apps.connections.open');
    expect(opens.map((c) => c.ok)).toEqual([true]);
  });

  it('answers /gateway help ephemerally over the socket', async () => {
    const sent = await driver.command('help', { user: MEMBER, channel: CHANNEL });
    expect(sent.status).toBe(200);
    expect(sent.elapsedMs).toBeLessThan(3_000);
    const reply = await slack.waitFor(
      () => slack.ephemerals(CHANNEL, MEMBER).find((m) => textOf(m).includes('/gateway keywords')),
      { what: 'the help text' },
    );
    expect(textOf(reply)).toContain('/gateway audit');
    expect(slack.messages(CHANNEL).some((m) => textOf(m).includes('/gateway keywords'))).toBe(false);
  });

  it('refuses a member binding the channel, then binds it for an admin', async () => {
    await driver.command('use acme-plumbing', { user: MEMBER, channel: CHANNEL });
    await slack.waitFor(
      () => slack.ephemerals(CHANNEL, MEMBER).find((m) => textOf(m).includes('Only admins')),
      { what: 'the refusal' },
    );
    expect(await runtime.services.bindings.get(CHANNEL)).toBeFalsy();
    await driver.command('use acme-plumbing', { user: ADMIN, channel: CHANNEL });
    await latest((m) => m.text.includes('now bound to') && m.text.includes('acme-plumbing'), 'the binding');
    expect((await runtime.services.bindings.get(CHANNEL))?.clientId).toBe('acme-plumbing');
  });

  it('posts a keywords page in the channel and pages forward in place', async () => {
    await driver.command('keywords', { user: MEMBER, channel: CHANNEL });
    const page = await latest((m) => m.text.includes('keywords') && /\b1–20 of/.test(textOf(m)), 'page 1');
    const click = await driver.click(page, { actionId: 'page_next' }, { user: MEMBER });
    expect(click.status).toBe(200);
    await slack.waitFor(
      () => slack.messages(CHANNEL).find((m) => m.ts === page.ts && /\b21–40 of/.test(textOf(m))),
      { what: 'page 2 in place' },
    );
    expect(slack.messages(CHANNEL).filter((m) => /\b21–40 of/.test(textOf(m)))).toHaveLength(1);
  });

  it('runs an audit as a job whose result lands in the status message’s thread', async () => {
    const url = 'https://acme-plumbing.example/socket';
    await driver.command(`audit ${url}`, { user: MEMBER, channel: CHANNEL });
    const status = await slack.waitFor(
      () =>
        slack
          .messages(CHANNEL)
          .find((m) => m.text.includes('SEO audit') && /done|:white_check_mark:/.test(textOf(m))),
      { what: 'the audit done', timeoutMs: 10_000 },
    );
    const replies = await slack.waitFor(
      () => {
        const thread = slack.thread(CHANNEL, status.ts);
        return thread.length ? thread : undefined;
      },
      { what: 'the audit result in the thread' },
    );
    expect(replies.length).toBeGreaterThanOrEqual(1);
  });

  it('opens a modal from a command, keeps it open with the field errors acked, and closes it on a valid submit', async () => {
    await driver.command('blog', { user: MEMBER, channel: CHANNEL });
    const view = await slack.waitFor(
      () =>
        slack
          .views(MEMBER)
          .find(
            (v) =>
              /blog/i.test(v.view.title.text) &&
              v.view.blocks.some((b: { type: string }) => b.type === 'input'),
          ),
      { what: 'the blog modal' },
    );
    const refused = await driver.submit(view, { keyword: '   ' }, { user: MEMBER });
    expect(refused.json?.response_action).toBe('errors');
    expect(Object.keys(slack.getView(view.id)?.errors ?? {})).toContain('keyword');
    const accepted = await driver.submit(view, { keyword: 'socket mode plumbing' }, { user: MEMBER });
    expect(accepted.body).toBe('');
    expect(slack.getView(view.id)).toBeUndefined();
  });

  it('publishes the Home tab when it is opened over the socket', async () => {
    await driver.homeOpened({ user: MEMBER });
    const home = await slack.waitFor(() => slack.home(MEMBER), { what: 'the Home tab' });
    expect(JSON.stringify(home.view.blocks)).toContain('Your recent jobs');
  });

  it('serves /healthz on the runtime’s own port, with no Slack endpoint there', async () => {
    const health = await request(`http://127.0.0.1:${runtime.port}/healthz`);
    await health.body.text();
    expect(health.statusCode).toBe(200);
    const events = await request(`http://127.0.0.1:${runtime.port}/slack/events`, {
      method: 'POST',
      body: '',
    });
    await events.body.text();
    expect(events.statusCode).toBe(404);
  });

  it('serves the assistant tools at /mcp on the same port, with a token minted over the socket', async () => {
    const before = slack.ephemerals(CHANNEL, MEMBER).length;
    await driver.command('mcp token read', { user: MEMBER, channel: CHANNEL });
    const answer = await slack.waitFor(
      () =>
        slack
          .ephemerals(CHANNEL, MEMBER)
          .slice(before)
          .find((m) => /gwb_/.test(textOf(m))),
      { what: 'the token' },
    );
    const token = /gwb_[A-Za-z0-9_-]{20,}/.exec(textOf(answer))?.[0];
    const call = (authorization?: string) =>
      request(`http://127.0.0.1:${runtime.port}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const none = await call();
    expect(none.statusCode).toBe(401);
    await none.body.dump();
    const listed = await call(`Bearer ${token}`);
    expect(listed.statusCode).toBe(200);
    expect(await listed.body.text()).toContain('list_keywords');
  });

  it('times the acks it gives over the socket, as over HTTP', async () => {
    const metrics = await request(`http://127.0.0.1:${runtime.port}/metrics`);
    const text = await metrics.body.text();
    expect(text).toMatch(/^gateway_bot_ack_duration_seconds_count\{kind="command"\} [1-9]/m);
    expect(text).toMatch(/^gateway_bot_ack_duration_seconds_count\{kind="block_actions"\} [1-9]/m);
    expect(text).toMatch(/^gateway_bot_ack_duration_seconds_count\{kind="view_submission"\} [1-9]/m);
  });

  it('closes its socket with the close handshake when it stops, and does not reconnect', async () => {
    await runtime.stop(5_000);
    stopped = true;
    await slack.waitFor(() => !slack.socket.connected(), { what: 'the socket closed', timeoutMs: 2_000 });
    await new Promise((r) => setTimeout(r, 100));
    expect(slack.calls.filter((c) => c.method === 'apps.connections.open')).toHaveLength(1);
    await expect(slack.socket.send('slash_commands', {})).rejects.toMatchObject({
      code: 'socket_not_connected',
    });
  });
});
