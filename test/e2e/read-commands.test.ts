import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { validateBlocks } from '../../src/local/fake-slack/index.js';
import { ADMIN, bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-read');
  await bind(h, 'acme-plumbing');
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.setKnobs({ errorRate: 0, latencyMs: 0 });
});

describe('help', () => {
  it('answers help ephemerally with one line per command and an example', async () => {
    const sent = await h.gateway('help');
    expect(sent.status).toBe(200);
    const reply = await h.ephemeral((m) => textOf(m).includes('/gateway keywords'));
    const text = textOf(reply);
    for (const command of ['clients', 'use', 'status', 'get', 'reviews', 'audit', 'blog', 'jobs']) {
      expect(text).toContain(`/gateway ${command}`);
    }
    expect(h.slack.messages(CHANNEL).some((m) => textOf(m).includes('/gateway keywords'))).toBe(false);
  });

  it('explains one command in detail', async () => {
    await h.gateway('help get');
    const reply = await h.ephemeral(
      (m) => textOf(m).includes('order=') && textOf(m).includes('/gateway get'),
    );
    expect(textOf(reply)).toContain('limit=');
  });

  it('suggests the closest command for a typo', async () => {
    await h.gateway('keywrods');
    const reply = await h.ephemeral((m) => textOf(m).includes('keywrods'));
    expect(textOf(reply)).toContain('/gateway keywords');
  });
});

describe('binding a channel', () => {
  it('refuses a non-admin and keeps the binding', async () => {
    await h.gateway('use bright-dental', { user: MEMBER });
    const reply = await h.ephemeral((m) => textOf(m).includes('Only admins'));
    expect(textOf(reply)).toContain(`<@${ADMIN}>`);
    expect(textOf(reply)).not.toContain('GATEWAY_ADMINS');
    expect((await h.runtime.services.bindings.get(CHANNEL))?.clientId).toBe('acme-plumbing');
  });

  it('refuses a client the key cannot reach, with the 403 advice', async () => {
    await h.gateway('use no-such-client', { user: ADMIN });
    const reply = await h.ephemeral((m) => textOf(m).includes('no-such-client'), { user: ADMIN });
    expect(textOf(reply)).toMatch(/regenerat/i);
    expect((await h.runtime.services.bindings.get(CHANNEL))?.clientId).toBe('acme-plumbing');
  });

  it('tells an unbound channel to ask an admin', async () => {
    await h.gateway('keywords', { channel: 'CUNBOUND' });
    const reply = await h.ephemeral((m) => textOf(m).includes('not bound'), { channel: 'CUNBOUND' });
    expect(textOf(reply)).toContain('/gateway use');
    expect(textOf(reply)).toContain(`<@${ADMIN}>`);
  });

  it('tells an admin in an unbound channel to bind it, read with the claim', async () => {
    await h.gateway('keywords', { channel: 'CUNBOUND2', user: ADMIN });
    const reply = await h.ephemeral((m) => textOf(m).includes('not bound'), {
      channel: 'CUNBOUND2',
      user: ADMIN,
    });
    expect(textOf(reply)).toContain('Bind it with `/gateway use');
    expect(textOf(reply)).not.toContain('Ask an admin');
  });

  it('shows the status of a bound channel', async () => {
    await h.gateway('status');
    const reply = await h.ephemeral((m) => textOf(m).includes('Client:'));
    expect(textOf(reply)).toContain('acme-plumbing');
    expect(textOf(reply)).toContain('the key reaches this client');
  });
});

describe('reads', () => {
  it('reads every resource the discovery call lists, in the channel', async () => {
    const { resources } = await h.runtime.services.gateway.discover();
    expect(resources.length).toBeGreaterThan(30);
    // The client roster is for admins alone, never the channel (below); every other resource is for anyone.
    for (const resource of resources.filter((r) => r !== 'clients')) {
      const before = h.slack.messages(CHANNEL).length;
      await h.gateway(`get ${resource} limit=3`);
      const posted = await h.slack.waitFor(
        () =>
          h.slack
            .messages(CHANNEL)
            .slice(before)
            .find((m) => m.text.includes(resource)),
        {
          what: `a page of ${resource}`,
        },
      );
      expect(validateBlocks(posted.blocks ?? [], 'message')).toEqual([]);
    }
    const failed = h.slack.calls.filter((c) => !c.ok);
    expect(failed).toEqual([]);
  });

  it('answers `get clients` to the admin alone, as `clients` does, under its own heading', async () => {
    const before = h.slack.messages(CHANNEL).length;
    await h.gateway('get clients', { user: ADMIN });
    const reply = await h.ephemeral((m) => textOf(m).includes('bright-dental'), { user: ADMIN });
    expect(textOf(reply)).toContain('*Clients the agency key reaches* · 1–3 of 3');
    expect(textOf(reply)).not.toContain('for *Acme');
    await h.gateway('clients', { user: ADMIN });
    const roster = await h.ephemeral((m) => textOf(m).includes('bright-dental') && m !== reply, {
      user: ADMIN,
    });
    expect(roster.text).toBe(reply.text);
    // Unbound, too, like `clients`.
    await h.gateway('get clients', { user: ADMIN, channel: 'CUNBOUND' });
    await h.ephemeral((m) => textOf(m).includes('bright-dental'), { user: ADMIN, channel: 'CUNBOUND' });
    await new Promise((r) => setTimeout(r, 200));
    expect(
      h.slack
        .messages(CHANNEL)
        .slice(before)
        .filter((m) => textOf(m).includes('bright-dental')),
    ).toEqual([]);
  });

  it('pages forward and back in place', async () => {
    await h.gateway('get keywords order=tracked_at desc');
    const page = await h.message((m) => m.text.includes('keywords') && textOf(m).includes('1–20 of 100,000'));
    await h.driver.click(page, { actionId: 'page_next' }, { user: MEMBER });
    const next = await h.slack.waitFor(
      () => h.slack.messages(CHANNEL).find((m) => m.ts === page.ts && textOf(m).includes('21–40 of 100,000')),
      { what: 'page 2 in place' },
    );
    await h.driver.click(next, { actionId: 'page_prev' }, { user: MEMBER });
    await h.slack.waitFor(
      () => h.slack.messages(CHANNEL).find((m) => m.ts === page.ts && textOf(m).includes('1–20 of 100,000')),
      { what: 'page 1 again in place' },
    );
  });

  it('fetches no more rows than a message shows for `limit=1000`, and Next carries on after them', async () => {
    const before = h.sandbox.requests().length;
    await h.gateway('get keywords limit=1000 order=created_at');
    const page = await h.message(
      (m) => textOf(m).includes('Newest first (`created_at`)') && m.text.includes('1–20'),
    );
    const reads = h.sandbox
      .requests()
      .slice(before)
      .filter((r) => r.resource === 'keywords');
    expect(reads.map((r) => Number(r.fields?.limit))).toEqual([20]);
    expect(page.blocks?.length).toBeLessThanOrEqual(50);
    expect(validateBlocks(page.blocks ?? [], 'message')).toEqual([]);
    await h.driver.click(page, { actionId: 'page_next' }, { user: MEMBER });
    await h.slack.waitFor(
      () => h.slack.messages(CHANNEL).find((m) => m.ts === page.ts && m.text.includes('21–40 of 100,000')),
      { what: 'page 2 in place' },
    );
    const next = h.sandbox
      .requests()
      .filter((r) => r.resource === 'keywords')
      .at(-1);
    expect(next?.fields).toMatchObject({ limit: '20', offset: '20' });
  });

  it('refuses a bad order with the orders that fit the resource, before anything is read', async () => {
    const before = h.sandbox.requests().length;
    await h.gateway('backlinks order=position');
    const reply = await h.ephemeral((m) => textOf(m).includes('position'));
    expect(textOf(reply)).toContain('order=linking_domains');
    expect(textOf(reply)).toContain('order=created_at');
    expect(textOf(reply)).not.toContain('tracked_at');
    expect(h.sandbox.requests().length).toBe(before);
  });

  it('refuses an unknown resource with the closest match', async () => {
    await h.gateway('get reveiws');
    const reply = await h.ephemeral((m) => textOf(m).includes('reveiws'));
    expect(textOf(reply)).toContain('reviews');
  });

  it('tells people to invite the bot when it is not in the channel', async () => {
    h.slack.simulate.removeBotFrom('CNOTIN');
    await bind(h, 'acme-plumbing', 'CSEO2');
    await h.runtime.services.bindings.set({
      channel: 'CNOTIN',
      clientId: 'acme-plumbing',
      clientLabel: 'Acme',
      boundBy: ADMIN,
      boundAt: new Date().toISOString(),
    });
    await h.gateway('keywords', { channel: 'CNOTIN' });
    const reply = await h.ephemeral((m) => textOf(m).includes('/invite'), { channel: 'CNOTIN' });
    expect(textOf(reply)).toContain('not in this channel');
  });

  it('says the gateway is down, without a stack trace, when it keeps failing', async () => {
    h.sandbox.setKnobs({ errorRate: 1 });
    await h.gateway('reviews');
    const reply = await h.ephemeral((m) => textOf(m).includes('not answering'));
    expect(textOf(reply)).not.toMatch(/at .*\.ts:\d+/);
  });
});

describe('refusals of what a read cannot do', () => {
  /** The newest answer to MEMBER after `command`. */
  async function refusal(command: string) {
    const answered = h.slack.ephemerals(CHANNEL, MEMBER).length;
    await h.gateway(command);
    return textOf(
      await h.slack.waitFor(() => h.slack.ephemerals(CHANNEL, MEMBER).slice(answered).at(0), {
        what: `the answer to ${command}`,
      }),
    );
  }

  it('says it cannot filter by rating but can sort by it', async () => {
    const text = await refusal('reviews rating=5');
    expect(text).toContain('I cannot filter `reviews` by `rating`, but I can sort by it: `order=rating`.');
    expect(text).not.toContain('not something I can filter or sort by');
    expect(text).toContain('`sentiment=…`');
  });

  it('says which filter to keep when two are given, with a command to copy', async () => {
    const two = await refusal('tasks status=pending category_id=cat_links');
    expect(two).toContain(
      'The gateway filters on one field at a time: keep `status=pending` or `category_id=cat_links`.',
    );
    expect(two).toContain('For example `/gateway tasks status=pending`.');
    const twice = await refusal('reviews sentiment=negative sentiment=positive');
    expect(twice).toContain('`sentiment` is given twice: the gateway matches one value at a time.');
    expect(twice).toContain('Keep one, e.g. `/gateway reviews sentiment=negative`');
  });

  it('says a negative offset must be 0 or more, not up to 9007199254740991', async () => {
    const text = await refusal('reviews offset=-5');
    expect(text).toContain('`offset` must be a whole number, 0 or more.');
    expect(text).not.toContain('9007199254740991');
  });
});

describe('jobs', () => {
  it.each([
    ['jobs foo', '`foo`'],
    ['jobs all extra', '`extra`'],
  ])('`%s` says which words it ignored', async (command, ignored) => {
    const answered = h.slack.ephemerals(CHANNEL, MEMBER).length;
    await h.gateway(command);
    const note = await h.slack.waitFor(
      () =>
        h.slack
          .ephemerals(CHANNEL, MEMBER)
          .slice(answered)
          .find((m) => textOf(m).includes('so I ignored')),
      { what: `the note after ${command}` },
    );
    expect(note.text).toBe(
      `:information_source: \`/gateway jobs\` takes only \`all\` after its name, so I ignored ${ignored}.`,
    );
  });
});

describe('a read that matches nothing', () => {
  it.each([
    [
      'reviews sentiment=bad',
      /Nothing matches `sentiment=bad`.*Values of `sentiment`: `negative`, `neutral`, `positive`/,
    ],
    ['reviews sentiment=Negative', /Did you mean `sentiment=negative`\?/],
    ['keywords status=PAUSED', /Did you mean `status=paused`\?/],
    ['blogs published=maybe', /Values of `published`: `false`, `true`/],
    ['reviews offset=999999', /Offset 999,999 is past the last row \(3,200 in all\): try `offset=0`/],
    ['reviews sentiment=', /`sentiment=` has no value.*Values of `sentiment`: `negative`/],
  ])('`%s` answers the person alone with what to try, and posts nothing', async (command, words) => {
    const posted = h.slack.messages(CHANNEL).length;
    const answered = h.slack.ephemerals(CHANNEL, MEMBER).length;
    await h.gateway(command);
    const reply = await h.slack.waitFor(() => h.slack.ephemerals(CHANNEL, MEMBER).slice(answered).at(0), {
      what: `the answer to ${command}`,
    });
    expect(textOf(reply)).toMatch(words);
    expect(textOf(reply)).not.toContain('page_prev');
    await new Promise((r) => setTimeout(r, 200));
    expect(h.slack.messages(CHANNEL).slice(posted)).toEqual([]);
  });
});

describe('status while the gateway fails', () => {
  it('says the gateway is not answering, without its address', async () => {
    h.sandbox.setKnobs({ errorRate: 1 });
    try {
      await h.gateway('status');
      const reply = await h.ephemeral(
        (m) => textOf(m).includes('Client:') && textOf(m).includes('not answering'),
      );
      expect(textOf(reply)).toContain('HTTP 500');
      expect(textOf(reply)).not.toContain('127.0.0.1');
    } finally {
      h.sandbox.setKnobs({ errorRate: 0 });
    }
  });
});

describe('escaping', () => {
  it('shows dataset strings with <!channel> and forged links literally', async () => {
    await bind(h, 'bright-dental', 'CDENTAL');
    await h.gateway('reviews asc', { channel: 'CDENTAL' });
    const page = await h.message((m) => m.text.includes('reviews'), 'CDENTAL');
    const raw = JSON.stringify(page.blocks) + page.text;
    expect(raw).toContain('&lt;!channel&gt;');
    expect(raw).not.toContain('<!channel>');
    expect(raw).not.toMatch(/<https:\/\/evil[^>]*\|/);
  });
});

describe('request verification', () => {
  it('refuses a forged signature and a stale timestamp, with no side effect', async () => {
    const before = h.slack.calls.length;
    const body = new URLSearchParams({
      command: '/gateway',
      text: 'use harbor-law',
      user_id: ADMIN,
      channel_id: CHANNEL,
      trigger_id: 'forged.1',
      response_url: `${h.slack.origin}/nowhere`,
      team_id: h.slack.teamId,
    }).toString();
    const now = Math.floor(Date.now() / 1000);
    const forged = await h.driver.raw(body, {
      'x-slack-request-timestamp': String(now),
      'x-slack-signature': `v0=${'0'.repeat(64)}`,
    });
    expect(forged.status).toBe(401);
    const { signSlackRequest } = await import('../../src/local/driver.js');
    const stale = await h.driver.raw(body, {
      ...signSlackRequest('e2e-signing-secret', body, now - 60 * 10),
    });
    expect(stale.status).toBe(401);
    await new Promise((r) => setTimeout(r, 200));
    expect(h.slack.calls.length).toBe(before);
    expect((await h.runtime.services.bindings.get(CHANNEL))?.clientId).toBe('acme-plumbing');
  });
});
