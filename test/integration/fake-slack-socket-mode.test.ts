import { request, WebSocket } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, FakeSocketError, startFakeSlack } from '../../src/local/fake-slack/index.js';

/** The stand-in's Socket Mode through undici's WebSocket, the client @slack/socket-mode itself uses. */

let slack: FakeSlack;
const open: WebSocket[] = [];

beforeAll(async () => {
  slack = await startFakeSlack();
});
afterEach(async () => {
  for (const ws of open.splice(0)) ws.close();
  await slack.waitFor(() => !slack.socket.connected(), { what: 'every socket closed' });
});
afterAll(() => slack.close());

async function connectionsOpen(token?: string): Promise<{ ok: boolean; url?: string; error?: string }> {
  const res = await request(`${slack.apiUrl}apps.connections.open`, {
    method: 'POST',
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return (await res.body.json()) as { ok: boolean; url?: string; error?: string };
}

/** Connects and resolves with the socket and its first message (the hello). */
function connect(url: string): Promise<{ ws: WebSocket; hello: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    open.push(ws);
    ws.addEventListener('message', (e) => resolve({ ws, hello: JSON.parse(String(e.data)) }), { once: true });
    ws.addEventListener('error', () => reject(new Error('websocket error')), { once: true });
  });
}

describe('apps.connections.open', () => {
  it('gives an app-level token a WebSocket URL on the stand-in', async () => {
    const opened = await connectionsOpen('xapp-1-test');
    expect(opened).toMatchObject({ ok: true });
    expect(opened.url).toMatch(
      new RegExp(`^${slack.origin.replace('http', 'ws')}/socket-mode\\?ticket=\\w+$`),
    );
  });

  it('refuses the bot token and a missing token, as Slack does', async () => {
    expect(await connectionsOpen(slack.botToken)).toEqual({ ok: false, error: 'not_allowed_token_type' });
    expect(await connectionsOpen()).toEqual({ ok: false, error: 'not_authed' });
  });
});

describe('the Socket Mode WebSocket', () => {
  it('greets with hello and resolves an envelope when the client acks it', async () => {
    const { url } = await connectionsOpen('xapp-1-test');
    const { ws, hello } = await connect(String(url));
    expect(hello).toMatchObject({
      type: 'hello',
      num_connections: 1,
      debug_info: { host: 'local' },
      connection_info: { app_id: slack.appId },
    });
    expect(slack.socket.connected()).toBe(true);
    const received: Array<Record<string, unknown>> = [];
    ws.addEventListener('message', (e) => {
      const envelope = JSON.parse(String(e.data));
      received.push(envelope);
      ws.send(JSON.stringify({ envelope_id: envelope.envelope_id, payload: { text: 'pong' } }));
    });
    const ack = await slack.socket.send('slash_commands', { command: '/gateway', text: 'help' });
    expect(ack.ackPayload).toEqual({ text: 'pong' });
    expect(received[0]).toMatchObject({
      envelope_id: ack.envelope_id,
      type: 'slash_commands',
      payload: { command: '/gateway', text: 'help' },
      accepts_response_payload: true,
    });
    // Acked well inside Slack's 3 s.
    expect(ack.elapsedMs).toBeLessThan(3_000);
  });

  it('rejects an envelope the client never acks, with a stable code', async () => {
    const { url } = await connectionsOpen('xapp-1-test');
    await connect(String(url));
    const sent = slack.socket.send('interactive', { type: 'block_actions' }, { timeoutMs: 100 });
    await expect(sent).rejects.toBeInstanceOf(FakeSocketError);
    await expect(sent).rejects.toMatchObject({ code: 'socket_ack_timeout' });
  });

  it('refuses to send while no client is connected', async () => {
    await expect(slack.socket.send('slash_commands', {})).rejects.toMatchObject({
      code: 'socket_not_connected',
    });
  });

  it('refuses a ticket that was already used', async () => {
    const { url } = await connectionsOpen('xapp-1-test');
    await connect(String(url));
    await expect(connect(String(url))).rejects.toThrow('websocket error');
  });

  it('completes the close handshake the client starts', async () => {
    const { url } = await connectionsOpen('xapp-1-test');
    const { ws } = await connect(String(url));
    const closed = new Promise<number>((resolve) =>
      ws.addEventListener('close', (e) => resolve(e.code), { once: true }),
    );
    ws.close(1000);
    expect(await closed).toBe(1000);
    expect(slack.socket.connected()).toBe(false);
  });
});
