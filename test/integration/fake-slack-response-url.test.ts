import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';

let slack: FakeSlack;

beforeAll(async () => {
  // Slack's own lifetime: a short one here made every URL of these tests expire on a slow machine.
  slack = await startFakeSlack();
});
afterAll(() => slack.close());
beforeEach(() => slack.reset());

/** Posts the way Bolt's respond() does: JSON, no token. */
async function respond(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, json: await res.body.json() };
}

describe('fake Slack response_url', () => {
  it('shows a response to the user only unless it is in_channel', async () => {
    const url = slack.newResponseUrl('CRESP', 'UMEMBER');
    expect(url.startsWith(slack.origin)).toBe(true);
    expect(await respond(url, { text: 'just you' })).toEqual({ status: 200, json: { ok: true } });
    expect(await respond(url, { text: 'everyone', response_type: 'in_channel' })).toMatchObject({
      status: 200,
    });
    expect(slack.ephemerals('CRESP', 'UMEMBER')).toMatchObject([
      { text: 'just you', ephemeral: true, forUser: 'UMEMBER', via: 'response_url' },
    ]);
    expect(slack.messages('CRESP')).toMatchObject([
      { text: 'everyone', via: 'response_url', bot_id: slack.botId },
    ]);
    expect(slack.calls.map((c) => [c.method, c.ok])).toEqual([
      ['response_url', true],
      ['response_url', true],
    ]);
  });

  it('replaces or deletes the message the interaction came from', async () => {
    const card = slack.newResponseUrl('CRESP', 'UMEMBER');
    await respond(card, { text: 'card', response_type: 'in_channel' });
    const [posted] = slack.messages('CRESP');
    const fromClick = slack.newResponseUrl('CRESP', 'UMEMBER', { ts: posted!.ts, ephemeral: false });
    await respond(fromClick, { text: 'approved', replace_original: true });
    expect(slack.messages('CRESP')).toMatchObject([{ ts: posted!.ts, text: 'approved' }]);

    const note = slack.newResponseUrl('CRESP', 'UMEMBER');
    await respond(note, { text: 'private note' });
    const [ephemeral] = slack.ephemerals('CRESP', 'UMEMBER');
    const fromEphemeral = slack.newResponseUrl('CRESP', 'UMEMBER', { ts: ephemeral!.ts, ephemeral: true });
    await respond(fromEphemeral, { delete_original: true });
    expect(slack.ephemerals('CRESP')).toEqual([]);
    await respond(fromClick, { delete_original: 'true' });
    expect(slack.messages('CRESP')).toEqual([]);
  });

  it('refuses invalid blocks with 400 so respond() throws', async () => {
    const url = slack.newResponseUrl('CRESP', 'UMEMBER');
    const res = await respond(url, { blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) });
    expect(res).toMatchObject({ status: 400, json: { ok: false, error: 'invalid_blocks' } });
    expect(slack.ephemerals('CRESP')).toEqual([]);
  });

  it('works five times, then answers 404 used_url; an old one answers expired_url', async () => {
    const url = slack.newResponseUrl('CRESP', 'UMEMBER');
    for (let i = 0; i < 5; i++) expect((await respond(url, { text: `n${i}` })).status).toBe(200);
    expect(await respond(url, { text: 'sixth' })).toEqual({
      status: 404,
      json: { ok: false, error: 'used_url' },
    });
    // A second stand-in whose URLs die after 30 ms instead of Slack's 30 minutes.
    const quick = await startFakeSlack({ responseUrlTtlMs: 30 });
    try {
      const old = quick.newResponseUrl('CRESP', 'UMEMBER');
      await new Promise((r) => setTimeout(r, 60));
      expect(await respond(old, { text: 'late' })).toEqual({
        status: 404,
        json: { ok: false, error: 'expired_url' },
      });
      expect(quick.ephemerals('CRESP')).toEqual([]);
    } finally {
      await quick.close();
    }
    expect(await respond(`${slack.origin}/response/RNOPE`, { text: 'x' })).toMatchObject({ status: 404 });
    expect(slack.ephemerals('CRESP')).toHaveLength(5);
  });
});
