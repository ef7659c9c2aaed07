/**
 * Security and Slack-correctness review, end to end: hostile gateway data and hostile typed text
 * must reach Slack as inert text (no ping, no mention, no forged link), every message must fit Slack's limits,
 * and no key, token or signing secret may reach a message, a log or Redis. Hostile data is planted in the
 * sandbox gateway (the stand-in for the outside world); everything the bot sends is read from the local Slack
 * stand-in's call log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_KEYS } from '../../src/gateway/spec.js';
import { signSlackRequest } from '../../src/local/driver.js';
import type { FakeCall, FakeMessage } from '../../src/local/fake-slack/index.js';
import { createRedis } from '../../src/redis/connection.js';
import { SAMPLE_CLIENTS } from '../../src/sandbox/index.js';
import {
  ADMIN,
  bind,
  CHANNEL,
  type Harness,
  MEMBER,
  SIGNING_SECRET,
  startHarness,
  textOf,
} from '../helpers/bot-harness.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';

/** Every mrkdwn control sequence that could ping, mention or link, and a bare `&`. */
const PING =
  '<!channel> <!here> <!everyone> <@U0123ABCD> <#C0EVIL> <!subteam^S0EVIL> <https://evil.example|click here> <mailto:x@evil.example|mail> & co';
/** How Slack delivers the same characters typed into a slash command: `&`, `<`, `>` as entities. */
const typed = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const EVIL_CLIENT_ID = '<!channel>&<@U0123ABCD>';
/**
 * Bidirectional overrides, isolates and marks (left-to-right, right-to-left, the Arabic letter mark): shown raw,
 * they reverse or reorder what follows them.
 */
const BIDI = '\u202Eexe.fdp\u202C \u2066isolated\u2069 \u202Aembedded\u202C \u200Fmarked\u200E \u061Carabic';
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const ESCAPED_CHANNEL = '&lt;!channel&gt;';

let h: Harness;
const logLines: string[] = [];
let restoreStdout: (() => void) | undefined;
const savedNames = new Map<string, string>();

/** Plants a client name in the sandbox's client list (the gateway's `resource=clients` answer). */
function plantClientName(id: string, name: string): void {
  const client = SAMPLE_CLIENTS.find((c) => c.id === id) as { name: string } | undefined;
  if (!client) throw new Error(`no sample client ${id}`);
  if (!savedNames.has(id)) savedNames.set(id, client.name);
  client.name = name;
}

beforeAll(async () => {
  // The harness logs through process.stdout at debug level when E2E_LOGS is set: capture those lines (and keep
  // them off the console) so the test can read every log line the bot wrote, with no secrets list to help it.
  const write = process.stdout.write;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = String(chunk);
    if (text.startsWith('{"level"')) {
      logLines.push(text);
      return true;
    }
    return (write as (...args: unknown[]) => boolean).call(process.stdout, chunk, ...rest);
  }) as typeof process.stdout.write;
  restoreStdout = () => {
    process.stdout.write = write;
  };
  const hadLogs = process.env.E2E_LOGS;
  process.env.E2E_LOGS = '1';
  try {
    plantClientName('harbor-law', `Harbor ${PING} Law ${BIDI}`);
    h = await startHarness('e2e-security');
  } finally {
    if (hadLogs === undefined) delete process.env.E2E_LOGS;
    else process.env.E2E_LOGS = hadLogs;
  }
  plantRows();
  await bind(h, 'harbor-law');
});

afterAll(async () => {
  await h?.close();
  for (const [id, name] of savedNames) plantClientName(id, name);
  restoreStdout?.();
});

function plantRows(): void {
  const at = '2099-01-01T00:00:00Z';
  const c = 'harbor-law';
  h.sandbox.insertRows(c, 'reviews', [
    {
      id: 'rev_evil',
      author: PING,
      rating: 1,
      sentiment: 'negative',
      text: `${PING} ${BIDI}`,
      created_at: at,
      [PING]: PING,
    },
  ]);
  h.sandbox.insertRows(c, 'seo_tasks', [
    { id: 'task_evil', title: PING, priority: PING, status: PING, created_at: at },
  ]);
  h.sandbox.insertRows(c, 'keywords', [
    {
      id: 'kw_evil',
      keyword: PING,
      position: 1,
      url: 'https://evil.example/<!channel>|<@U0123ABCD>',
      created_at: at,
    },
  ]);
  h.sandbox.insertRows(c, 'backlinks', [
    { id: 'bl_evil', source_url: 'javascript:alert(1)', anchor: PING, domain_authority: 1, created_at: at },
  ]);
  h.sandbox.insertRows(c, 'citations', [
    { id: 'cit_evil', directory: PING, status: PING, url: `https://x.example/${PING}`, created_at: at },
  ]);
  h.sandbox.insertRows(c, 'blogs', [
    {
      id: 'blog_evil',
      post_title: `Click to approve ${PING}`,
      keyword: 'hostile duplicate',
      url: 'https://evil.example/phish',
      status: 'published',
      published: true,
      created_at: at,
    },
  ]);
  h.sandbox.insertRows(c, 'blog_categories', [{ id: 'cat_evil', name: PING, created_at: at }]);
}

// ---------------------------------------------------------------------------------------------------------
// Reading what the bot sent

type Text = { where: string; text: string };

/** Every mrkdwn string of a call: the top-level `text` (notifications render it as mrkdwn) and mrkdwn objects. */
function mrkdwnOf(call: FakeCall): Text[] {
  const out: Text[] = [];
  const args = call.args;
  if (typeof args.text === 'string' && args.mrkdwn !== false && args.mrkdwn !== 'false') {
    out.push({ where: `${call.method} text`, text: args.text });
  }
  const walk = (node: unknown, where: string) => {
    if (Array.isArray(node)) {
      for (const [i, n] of node.entries()) walk(n, `${where}[${i}]`);
    } else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (o.type === 'mrkdwn' && typeof o.text === 'string') out.push({ where, text: o.text });
      for (const [k, v] of Object.entries(o)) walk(v, `${where}.${k}`);
    }
  };
  walk(parse(args.blocks), `${call.method} blocks`);
  walk(parse(args.attachments), `${call.method} attachments`);
  const view = parse(args.view) as { blocks?: unknown } | undefined;
  walk(view?.blocks, `${call.method} view`);
  return out;
}

function parse(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
}

const ACTORS = new Set([ADMIN, MEMBER]);

function hostOf(url: string): string {
  return url
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .split(/[/?#&]/)[0]!
    .toLowerCase();
}

/**
 * What Slack would turn into a ping, a mention or a link that hides its address. The bot's own mentions of
 * the people acting in this test are allowed; a link must be http(s) and its label must show its host.
 */
function problemsIn(t: Text, opts: { links: boolean }): string[] {
  const problems: string[] = [];
  for (const m of t.text.matchAll(/<([^<>]*)>/g)) {
    const inner = m[1] ?? '';
    const bad = (why: string) => problems.push(`${t.where}: ${why}: ${m[0]}`);
    // The bot's own dates (views/template.ts) are the one `<!…>` it may send: `{date_short_pretty}`, an ISO fallback.
    if (
      /^!date\^\d+\^\{date_short_pretty\}(?: at \{time\})?\|\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2} UTC)?$/.test(
        inner,
      )
    )
      continue;
    if (inner.startsWith('!')) bad('special mention');
    else if (inner.startsWith('@')) {
      if (!ACTORS.has(inner.slice(1).split('|')[0] ?? '')) bad('user mention not from the payload');
    } else if (inner.startsWith('#')) bad('channel link');
    else if (/^[a-z][a-z0-9+.-]*:/i.test(inner)) {
      const bar = inner.indexOf('|');
      const url = bar < 0 ? inner : inner.slice(0, bar);
      if (!/^https?:\/\//i.test(url)) bad('non-http link');
      else if (opts.links && bar >= 0) {
        const label = inner
          .slice(bar + 1)
          .replace(/^https?:\/\//i, '')
          .toLowerCase();
        const host = hostOf(url);
        const shown = label.replace(/…$/, '');
        if (!label.startsWith(host) && !host.startsWith(shown)) bad('link label hides its address');
      }
    } else bad('unknown <…> form');
  }
  return problems;
}

/** Slack calls since `from` that carry text to a person. */
function sentSince(from: number): FakeCall[] {
  return h.slack.calls
    .slice(from)
    .filter((c) => !c.method.startsWith('auth.') && !c.method.endsWith('.info'));
}

function expectInert(from: number, opts: { links: boolean } = { links: true }): Text[] {
  const calls = sentSince(from);
  const texts = calls.flatMap(mrkdwnOf);
  expect(texts.flatMap((t) => problemsIn(t, opts))).toEqual([]);
  // No bidirectional control in anything sent, mrkdwn or plain text (labels, buttons, options).
  expect(
    calls.map((c) => `${c.method}: ${JSON.stringify(c.args)}`).filter((t) => BIDI_CONTROL.test(t)),
  ).toEqual([]);
  expect(calls.filter((c) => !c.ok).map((c) => `${c.method}: ${c.error}`)).toEqual([]);
  return texts;
}

const joined = (texts: Text[]) => texts.map((t) => t.text).join('\n');

const mrkdwnOfMessage = (m: FakeMessage): Text[] =>
  mrkdwnOf({ method: 'message', args: { text: m.text, blocks: m.blocks }, at: 0, ok: true });

/** Sends a command and waits for a new ephemeral answer to the sender that contains `phrase`. */
async function answer(command: string, phrase: string, as: { user?: string; channel?: string } = {}) {
  const channel = as.channel ?? CHANNEL;
  const user = as.user ?? MEMBER;
  const before = h.slack.ephemerals(channel, user).length;
  await h.gateway(command, { user, channel });
  return h.slack.waitFor(
    () =>
      h.slack
        .ephemerals(channel, user)
        .slice(before)
        .find((m) => textOf(m).includes(phrase)),
    { what: `an answer to ${command} with "${phrase}"` },
  );
}

const runAction = (command: string, values: Record<string, string> = {}) => h.runAction(command, values);

/** The thread replies of the newest channel status message that matches, once there are some. */
const threadOf = async (match: (m: FakeMessage) => boolean, channel = CHANNEL) =>
  (await h.settled(match, channel)).thread;

// ---------------------------------------------------------------------------------------------------------

describe('the scanner these tests rely on', () => {
  it('flags pings, foreign mentions, channel links, non-http links and links that hide their address', () => {
    const scan = (text: string) => problemsIn({ where: 't', text }, { links: true });
    expect(scan('hi <!channel>')).toHaveLength(1);
    expect(scan('<!subteam^S1>')).toHaveLength(1);
    expect(scan('<@U0123ABCD>')).toHaveLength(1);
    expect(scan('<#C1|general>')).toHaveLength(1);
    expect(scan('<javascript:alert(1)|x>')).toHaveLength(1);
    expect(scan('<https://evil.example|click here>')).toHaveLength(1);
    expect(scan(`requested by <@${MEMBER}>`)).toEqual([]);
    expect(scan('<https://a.example/x|a.example/x> <https://a.example>')).toEqual([]);
    expect(scan('tracked <!date^1748865600^{date_short_pretty}|2025-06-02>')).toEqual([]);
    expect(scan('<!date^1392734382^{date_pretty}|Feb 18>')).toHaveLength(1);
    expect(scan('&lt;!channel&gt; &lt;https://evil.example|click&gt; &amp;')).toEqual([]);
  });
});

describe('gateway data in Slack messages', () => {
  it('the binding confirmation, status and client list show a hostile client name as text', async () => {
    const confirmation = h.slack.messages(CHANNEL).find((m) => m.text.includes('now bound to'));
    expect(confirmation?.text).toContain(ESCAPED_CHANNEL);
    const from = h.slack.calls.length;
    await answer('status', 'Client:');
    await answer('clients', 'clients');
    const texts = expectInert(from);
    expect(joined(texts)).toContain(`Harbor ${ESCAPED_CHANNEL}`);
    // The confirmation was sent before `from`: check it on its own.
    expect(problemsIn({ where: 'use', text: textOf(confirmation as FakeMessage) }, { links: true })).toEqual(
      [],
    );
  });

  it('resource pages show hostile rows, keys and URLs as text, and a page turned in place stays so', async () => {
    const from = h.slack.calls.length;
    const reads: Array<[string, string]> = [
      ['get reviews id=rev_evil', 'reviews'],
      ['get seo_tasks id=task_evil', 'seo_tasks'],
      ['get keywords id=kw_evil', 'keywords'],
      ['get backlinks id=bl_evil', 'backlinks'],
      ['get citations id=cit_evil', 'citations'],
      ['get blogs id=blog_evil', 'blogs'],
      ['get blog_categories id=cat_evil', 'blog_categories'],
    ];
    for (const [command, resource] of reads) {
      const before = h.slack.messages(CHANNEL).length;
      await h.gateway(command);
      await h.slack.waitFor(
        () =>
          h.slack
            .messages(CHANNEL)
            .slice(before)
            .find((m) => m.text.startsWith(resource)),
        { what: `a page of ${resource}` },
      );
    }
    await h.gateway('reviews order=created_at desc limit=2');
    const page = await h.message((m) => m.text.startsWith('reviews') && textOf(m).includes('1–2 of'));
    await h.driver.click(page, { actionId: 'page_next' }, { user: MEMBER });
    await h.slack.waitFor(
      () => h.slack.messages(CHANNEL).find((m) => m.ts === page.ts && textOf(m).includes('3–4 of')),
      { what: 'page 2 in place' },
    );
    const all = joined(expectInert(from));
    expect(all).toContain(ESCAPED_CHANNEL);
    expect(all).toContain('&lt;@U0123ABCD&gt;');
    expect(all).toContain('&lt;https://evil.example|click here&gt;');
    expect(all).toContain('&amp; co');
  });
});

describe('digests', () => {
  const channel = 'CSECDIGEST';
  const digestsIn = () =>
    h.slack
      .messages(channel)
      .filter((m) => (m.metadata as { event_type?: string })?.event_type === 'gateway_digest');

  it('the first digest (its baseline) and a digest of hostile reviews show the client name and rows as text', async () => {
    await bind(h, 'harbor-law', channel);
    const from = h.slack.calls.length;
    await h.gateway('digest now reviews', { user: ADMIN, channel });
    const baseline = await h.slack.waitFor(() => digestsIn()[0], { what: 'the baseline', timeoutMs: 20_000 });
    expect(textOf(baseline)).toContain('from now on');
    expect(textOf(baseline)).toContain(`Harbor ${ESCAPED_CHANNEL}`);

    h.sandbox.insertRows('harbor-law', 'reviews', [
      {
        id: 'rev_evil_new',
        author: `${PING} ${BIDI}`,
        rating: 1,
        sentiment: PING,
        text: `${PING} ${BIDI}`,
        created_at: '2099-01-02T00:00:00Z',
      },
    ]);
    await h.gateway('digest now reviews', { user: ADMIN, channel });
    const digest = await h.slack.waitFor(() => digestsIn()[1], { what: 'the digest', timeoutMs: 20_000 });
    const thread = await h.slack.waitFor(
      () => (h.slack.thread(channel, digest.ts).length ? h.slack.thread(channel, digest.ts) : undefined),
      { what: 'the digest thread' },
    );
    expect(textOf(thread[0] as FakeMessage)).toContain(ESCAPED_CHANNEL);
    const all = joined(expectInert(from));
    expect(all).toContain(`Reviews for Harbor ${ESCAPED_CHANNEL}`);
    expect(all).toContain('exe.fdp');
  });

  it('a rankings baseline and a rankings digest with a hostile new keyword show it as text', async () => {
    const rankings = () =>
      digestsIn().filter(
        (m) => (m.metadata as { event_payload?: { kind?: string } }).event_payload?.kind === 'rankings',
      );
    const from = h.slack.calls.length;
    await h.gateway('digest now rankings', { user: ADMIN, channel });
    await h.slack.waitFor(() => rankings()[0], { what: 'the rankings baseline', timeoutMs: 20_000 });
    h.sandbox.insertRows('harbor-law', 'keywords', [
      {
        id: 'kw_evil_new',
        keyword: `${PING} ${BIDI}`,
        position: 2,
        url: 'javascript:alert(1)',
        created_at: '2099-01-02T00:00:00Z',
      },
    ]);
    await h.gateway('digest now rankings', { user: ADMIN, channel });
    const digest = await h.slack.waitFor(() => rankings()[1], {
      what: 'the rankings digest',
      timeoutMs: 20_000,
    });
    const thread = await h.slack.waitFor(
      () => (h.slack.thread(channel, digest.ts).length ? h.slack.thread(channel, digest.ts) : undefined),
      { what: 'the rankings thread' },
    );
    expect(thread.map(textOf).join('\n')).toContain(ESCAPED_CHANNEL);
    const all = joined(expectInert(from));
    expect(all).toContain(`Rankings for Harbor ${ESCAPED_CHANNEL}`);
  });
});

describe('approvals', () => {
  it('a card, its run, the history and the job list show a hostile client name and post title as text', async () => {
    const from = h.slack.calls.length;
    const before = h.slack.messages(CHANNEL).length;
    await h.gateway('deploy blog_evil');
    const card = await h.slack.waitFor(
      () =>
        h.slack
          .messages(CHANNEL)
          .slice(before)
          .find((m) => m.text.startsWith('Approval needed')),
      { what: 'the approval card' },
    );
    expect(textOf(card)).toContain(`Harbor ${ESCAPED_CHANNEL}`);
    await h.driver.click(card, { actionId: 'approval_approve' }, { user: ADMIN });
    await h.slack.waitFor(
      () => h.slack.messages(CHANNEL).find((m) => m.ts === card.ts && /^Approval (done|failed)/.test(m.text)),
      { what: 'the card to show the outcome', timeoutMs: 10_000 },
    );
    await answer('history', 'Approvals and guarded actions', { user: ADMIN });
    await answer('jobs', 'Jobs in this channel');
    const all = joined(expectInert(from));
    expect(all).toContain(`Harbor ${ESCAPED_CHANNEL}`);
    expect(all).toContain(`Click to approve ${ESCAPED_CHANNEL}`);
  });
});

describe('actions', () => {
  it('a typed keyword with entities and mentions, echoed by the record, stays text in status and result', async () => {
    const from = h.slack.calls.length;
    // Slack sends typed `<!channel>` as entities and a picked mention as `<@U…|name>`.
    await runAction(`blog "${typed('<!channel> & <https://evil.example|x>')} <@U0123ABCD|bob> tips"`);
    const thread = await threadOf(
      (m) => m.text.includes('tips') && /done|:white_check_mark:/.test(textOf(m)),
    );
    expect(textOf(thread[0] as FakeMessage)).toContain('Drafted');
    const all = joined(expectInert(from));
    expect(all).toContain(ESCAPED_CHANNEL);
    expect(all).toContain('&lt;@U0123ABCD&gt;');
  });

  it('the modal shows hostile blog categories as plain text options only', async () => {
    const from = h.slack.calls.length;
    await h.gateway('blog "harmless keyword" --form');
    const view = await h.slack.waitFor(
      () => h.slack.views(MEMBER).find((v) => JSON.stringify(v.view.blocks).includes('cat_evil')),
      { what: 'the blog modal with its categories' },
    );
    expectInert(from);
    const modals = sentSince(from).filter((c) => c.method === 'views.update' || c.method === 'views.open');
    // The category reached the modal (plain_text shows it literally, which is safe) and nowhere as mrkdwn.
    expect(JSON.stringify(modals.map((c) => c.args.view))).toContain('<!channel>');
    expect(joined(modals.flatMap(mrkdwnOf))).not.toContain('!channel');
    await h.driver.close(view, { user: MEMBER });
  });

  it('a hostile post id in a deploy stays text in its refusal (no such post), and no card is posted', async () => {
    const from = h.slack.calls.length;
    // A deploy's post is read before its card: the gateway has no post by that id, so it is refused, echoing it.
    const cards = h.slack.messages(CHANNEL).length;
    const refusal = await answer('deploy "<!channel>&<@U0123ABCD>"', 'so nothing was queued');
    // Slack turns a typed <!channel> into @channel in command text (the stand-in too); the mention stays text.
    expect(textOf(refusal)).toContain('&amp;&lt;@U0123ABCD&gt;');
    await new Promise((r) => setTimeout(r, 200));
    expect(
      h.slack
        .messages(CHANNEL)
        .slice(cards)
        .filter((m) => m.text.startsWith('Approval needed')),
    ).toEqual([]);
    expectInert(from);
  });

  it('the duplicate prompt shows a hostile earlier title as text', async () => {
    const from = h.slack.calls.length;
    await runAction('blog "hostile duplicate"');
    const prompt = await h.ephemeral((m) => textOf(m).includes('already exists'));
    expect(textOf(prompt)).toContain(`Click to approve ${ESCAPED_CHANNEL}`);
    // Links are judged in the skipped test below; this one is about pings and mentions.
    expectInert(from, { links: false });
  });

  // Fixed hole: the earlier record's address was shown behind its (gateway) title.
  it('the duplicate prompt never hides a gateway URL behind a gateway title', async () => {
    const from = h.slack.calls.length;
    await runAction('blog "hostile duplicate"');
    await h.ephemeral((m) => textOf(m).includes('already exists'));
    expectInert(from, { links: true });
  });
});

describe('gateway errors', () => {
  it('a 403 whose text echoes a hostile client id stays text in reads, status, job replies and jobs', async () => {
    const channel = 'CEVIL';
    await h.runtime.services.bindings.set({
      channel,
      clientId: EVIL_CLIENT_ID,
      clientLabel: PING,
      boundBy: ADMIN,
      boundAt: new Date().toISOString(),
    });
    const from = h.slack.calls.length;
    const refused = await answer('keywords', 'refused access', { channel });
    expect(joined(mrkdwnOfMessage(refused))).toContain(`Client "${ESCAPED_CHANNEL}&amp;&lt;@U0123ABCD&gt;"`);
    await answer('status', 'Client:', { channel });
    await h.gateway('backlinks refresh', { channel });
    const thread = await threadOf((m) => /failed|:x:/.test(textOf(m)), channel);
    expect(textOf(thread[0] as FakeMessage)).toContain('refused by the gateway');
    await answer('jobs', 'Jobs in this channel', { channel });
    const all = joined(expectInert(from));
    expect(all).toContain(`Client "${ESCAPED_CHANNEL}`);
  });
});

describe('typed text echoed back', () => {
  it('unknown commands, resources, values, filters and unclosed quotes echo typed mentions as text', async () => {
    const from = h.slack.calls.length;
    await answer(typed('<!channel>'), 'There is no');
    await answer(`get ${typed('<!here>')}`, 'no resource called');
    await answer(`keywords order=${typed('<@U0123ABCD>')}`, 'cannot be');
    await answer(`ideas seed="${typed('<!channel> <https://evil.example|x>')}`, 'never closed');
    await answer(`help ${typed('<!everyone>')}`, 'There is no');
    await answer(`audit ${typed('<https://evil.example|click>')}`, 'not valid');
    await answer(`use ${typed('<!channel>')}`, 'No client', { user: ADMIN });
    // A filter value is echoed in the answer to a read that matched nothing.
    await answer(`keywords status=${typed('<!channel>')}`, 'Nothing matches');
    const all = joined(expectInert(from));
    expect(all).toContain(ESCAPED_CHANNEL);
    expect(all).toContain('&lt;!here&gt;');
    expect(all).toContain('&lt;@U0123ABCD&gt;');
  });
});

describe('Slack limits', () => {
  // Fixed hole: the `use` confirmation did not go through fitMessage.
  it('confirms a binding to a client with a very long name, within the limits', async () => {
    plantClientName('bright-dental', `Bright ${'&'.repeat(700)} Dental`);
    const from = h.slack.calls.length;
    await h.gateway('use bright-dental', { user: ADMIN, channel: 'CLONG' });
    await h.message((m) => m.text.includes('now bound to'), 'CLONG');
    expectInert(from);
  });
});

describe('request verification', () => {
  it('refuses a body changed after signing and a request with no signature, with no side effect', async () => {
    const from = h.slack.calls.length;
    const form = (text: string) =>
      new URLSearchParams({
        command: '/gateway',
        text,
        user_id: ADMIN,
        channel_id: CHANNEL,
        trigger_id: `tampered.${text.length}`,
        response_url: `${h.slack.origin}/nowhere`,
        team_id: h.slack.teamId,
      }).toString();
    const signed = signSlackRequest(SIGNING_SECRET, form('status'));
    const tampered = await h.driver.raw(form('use bright-dental'), { ...signed });
    expect(tampered.status).toBe(401);
    const unsigned = await h.driver.raw(form('use bright-dental'), {});
    expect(unsigned.status).toBe(401);
    const wrongSecret = await h.driver.raw(form('use bright-dental'), {
      ...signSlackRequest('not-the-secret', form('use bright-dental')),
    });
    expect(wrongSecret.status).toBe(401);
    await new Promise((r) => setTimeout(r, 200));
    expect(h.slack.calls.length).toBe(from);
    expect((await h.runtime.services.bindings.get(CHANNEL))?.clientId).toBe('harbor-law');
  });
});

describe('secrets', () => {
  const secrets = () => [h.slack.botToken, SIGNING_SECRET, SANDBOX_KEYS.full];

  it('no Slack message, modal or response carries the bot token, the signing secret or the gateway key', () => {
    expect(h.slack.calls.length).toBeGreaterThan(20);
    const sent = JSON.stringify(h.slack.calls.map((c) => c.args));
    for (const secret of secrets()) expect(sent).not.toContain(secret);
  });

  it('job data, the pending duplicate stash, the ledger and every other Redis key hold no key or token', async () => {
    const redis = createRedis(TEST_REDIS_URL);
    try {
      const dump: string[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${h.prefix}*`, 'COUNT', 500);
        cursor = next;
        for (const key of keys) dump.push(key, JSON.stringify(await redisValue(redis, key)));
      } while (cursor !== '0');
      const text = dump.join('\n');
      // The data is there to be checked: a job of this file that failed, the duplicate prompt's stash.
      expect(text).toContain('hostile duplicate');
      expect(text).toContain('failedReason');
      for (const secret of secrets()) expect(text).not.toContain(secret);
    } finally {
      await redis.quit();
    }
  });

  it('debug logs carry no key, token or signing secret, even without a secrets list to redact', () => {
    const logs = logLines.join('');
    // The gateway client logs every request's headers: the Authorization value must be redacted in each.
    const withHeaders = logLines.filter((l) => l.includes('authorization'));
    expect(withHeaders.length).toBeGreaterThan(10);
    for (const line of withHeaders) expect(line).toMatch(/authorization\\":\\"\[redacted\]/);
    for (const secret of secrets()) expect(logs).not.toContain(secret);
  });
});

async function redisValue(redis: ReturnType<typeof createRedis>, key: string): Promise<unknown> {
  const type = await redis.type(key);
  switch (type) {
    case 'string':
      return redis.get(key);
    case 'hash':
      return redis.hgetall(key);
    case 'list':
      return redis.lrange(key, 0, -1);
    case 'set':
      return redis.smembers(key);
    case 'zset':
      return redis.zrange(key, 0, -1);
    case 'stream':
      return redis.xrange(key, '-', '+');
    default:
      return type;
  }
}
