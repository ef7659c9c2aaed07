import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import { recentAnchor, startSandbox } from '../../src/sandbox/index.js';
import { ADMIN, CHANNEL, MEMBER, textOf } from '../helpers/bot-harness.js';
import { type CommandHarness, commandHarness } from '../helpers/command-harness.js';

/**
 * `/gateway chart …` through the `/gateway` listener, the sandbox gateway and the Slack stand-in: the image
 * arrives through Slack's upload flow (getUploadURLExternal, the POST, completeUploadExternal) in the channel,
 * with its line of figures; a client without history, a bad argument and hostile names each get what they should.
 */

const HOSTILE_CHANNEL = 'CHOSTILE';
let h: CommandHarness;

beforeAll(async () => {
  h = await commandHarness('charts-command');
  for (const [channel, client] of [
    [CHANNEL, 'acme-plumbing'],
    [HOSTILE_CHANNEL, 'bright-dental'],
  ] as const) {
    await h.command(`use ${client}`, { user: ADMIN, channel });
    await h.slack.waitFor(() => h.slack.messages(channel).find((m) => /bound/i.test(m.text)), {
      what: 'the binding',
    });
  }
}, 30_000);
afterAll(async () => {
  await h?.close();
});

/** The next channel message carrying a file, after `before` messages. */
function fileMessage(channel: string, before: number): Promise<FakeMessage> {
  return h.slack.waitFor(
    () =>
      h.slack
        .messages(channel)
        .slice(before)
        .find((m) => m.files?.length),
    { what: 'a message with a chart', timeoutMs: 20_000 },
  );
}

const calls = (method: string) => h.slack.calls.filter((c) => c.method === method && c.ok);

describe('/gateway chart', () => {
  it('posts the rankings chart in the channel through the upload flow, with its figures as text and alt text', async () => {
    const before = h.slack.messages(CHANNEL).length;
    await h.command('chart rankings');
    const posted = await fileMessage(CHANNEL, before);
    expect(calls('files.getUploadURLExternal')).toHaveLength(1);
    expect(calls('upload')).toHaveLength(1);
    expect(calls('files.completeUploadExternal')).toHaveLength(1);
    expect(h.slack.calls.some((c) => c.method === 'files.upload')).toBe(false);
    expect(posted.text).toMatch(
      /Rankings of 10 keywords for Acme Plumbing &amp; Heating, \d{4}-\d{2}-\d{2} to/,
    );
    expect(posted.text).toContain('asked by <@UMEMBER>');
    const ref = posted.files?.[0];
    expect(ref?.alt_txt).toMatch(/^Line chart of the ranking positions of 10 keywords .*#\d+ to #\d+/);
    const file = h.slack.file(ref?.id ?? '');
    const png = PNG.sync.read(file?.bytes ?? Buffer.alloc(0));
    expect([png.width, png.height]).toEqual([2400, 1200]);
  });

  it('answers the same chart again from the cache, without rendering or reading the keywords again', async () => {
    const reads = () => h.runtime.sandbox?.requests().filter((r) => r.resource === 'keywords').length ?? 0;
    const readsBefore = reads();
    const before = h.slack.messages(CHANNEL).length;
    await h.command('chart rankings');
    const again = await fileMessage(CHANNEL, before);
    // One 1-row read says the data did not change; the rankings rows are not read again.
    expect(reads() - readsBefore).toBe(1);
    const [first, second] = calls('upload').map((c) => h.slack.file(String(c.args.file_id))?.bytes);
    expect(second?.equals(first ?? Buffer.alloc(0))).toBe(true);
    expect(again.files).toHaveLength(1);
  });

  it('reads back as far as the 90 days need when the newest 50,000 rows stop short, and draws every week', async () => {
    const before = h.slack.messages(CHANNEL).length;
    await h.command('chart rankings "plumber austin" "emergency plumber austin"');
    const posted = await fileMessage(CHANNEL, before);
    // Acme has 20,000 keywords tracked weekly over five weeks: 100,000 rows, twice what the rankings read takes.
    const to = /, (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})/.exec(posted.text)?.[2] ?? '';
    expect(posted.text).not.toContain('were not read');
    expect(posted.files?.[0]?.title).toMatch(/^Rankings of Acme Plumbing & Heating, \d{4}-\d{2}-\d{2} to /);
    // The picture starts at the oldest of the five weeks (four weeks and a day or two before today), not at the
    // oldest the first 50,000 rows held (two weeks back).
    const start = /Acme Plumbing & Heating, (\d{4}-\d{2}-\d{2}) to /.exec(
      posted.files?.[0]?.alt_txt ?? '',
    )?.[1];
    const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000;
    expect(days).toBeGreaterThanOrEqual(28);
  });

  it('charts the keywords asked for and says which ones the client does not track', async () => {
    const before = h.slack.messages(CHANNEL).length;
    await h.command('chart rankings "plumber austin" "Emergency Plumber Austin" "no such keyword"');
    const posted = await fileMessage(CHANNEL, before);
    expect(posted.text).toContain('Rankings of 2 keywords');
    expect(posted.text).toContain('not tracked: no such keyword');
    expect(posted.files?.[0]?.alt_txt).toContain('emergency plumber austin: #');
  });

  it('posts the reviews chart, stacked by rating with the average', async () => {
    const before = h.slack.messages(CHANNEL).length;
    await h.command('chart reviews');
    const posted = await fileMessage(CHANNEL, before);
    expect(posted.text).toMatch(
      /Reviews of Acme Plumbing &amp; Heating, \d{4}-\d{2} to \d{4}-\d{2} · [\d,]+ reviews, average \d\.\d★/,
    );
    expect(posted.files?.[0]?.alt_txt).toMatch(/^Bar chart of [\d,]+ reviews per month by star rating/);
  });

  it('keeps hostile keyword names escaped in the message, and the image is still drawn', async () => {
    const before = h.slack.messages(HOSTILE_CHANNEL).length;
    const long = 'x'.repeat(500);
    await h.command(`chart rankings "best <dentist> & co" "<@UADMIN> \u202Eevil" ${long}`, {
      channel: HOSTILE_CHANNEL,
    });
    const posted = await fileMessage(HOSTILE_CHANNEL, before);
    expect(posted.text).toContain('*best &lt;dentist&gt; &amp; co*');
    expect(posted.text).toContain('&lt;@UADMIN&gt; evil');
    expect(posted.text).not.toContain('<@UADMIN>');
    expect(posted.text).not.toContain('\u202E');
    expect(posted.text).not.toContain(long);
    expect(posted.files?.[0]?.alt_txt).toContain('best <dentist> & co: #');
  });

  it('waits out a 429 from Slack on the upload URL and on the bytes, as every Slack call does', async () => {
    h.slack.simulate.ratelimit('files.getUploadURLExternal', 1, 1);
    h.slack.simulate.ratelimit('upload', 1, 1);
    const before = h.slack.messages(CHANNEL).length;
    await h.command('chart reviews from=2026-01-01');
    const posted = await fileMessage(CHANNEL, before);
    const limited = h.slack.calls.filter((c) => c.error === 'ratelimited').map((c) => c.method);
    expect(limited).toEqual(expect.arrayContaining(['files.getUploadURLExternal', 'upload']));
    expect(h.slack.file(posted.files?.[0]?.id ?? '')?.bytes?.length).toBeGreaterThan(10_000);
  });

  it('says, to the person alone, when the period asked for holds no positions', async () => {
    const uploads = calls('files.getUploadURLExternal').length;
    const posted = h.slack.messages(CHANNEL).length;
    await h.command('chart rankings from=2001-01-01 to=2001-02-01');
    const answer = await h.slack.waitFor(
      () =>
        h.slack
          .ephemerals(CHANNEL, MEMBER)
          .find((m) => textOf(m).includes('no positions were tracked from 2001-01-01')),
      { what: 'the nothing-to-chart answer' },
    );
    expect(textOf(answer)).toContain('Nothing to chart yet');
    expect(textOf(answer)).toMatch(/Tracked positions run from \d{4}-\d{2}-\d{2} to/);
    expect(calls('files.getUploadURLExternal')).toHaveLength(uploads);
    expect(h.slack.messages(CHANNEL)).toHaveLength(posted);
  });

  it('refuses a bad chart kind or date with the usage, uploading nothing', async () => {
    const uploads = calls('files.getUploadURLExternal').length;
    await h.command('chart backlinks');
    await h.slack.waitFor(
      () => h.slack.ephemerals(CHANNEL, MEMBER).find((m) => textOf(m).includes('Which chart?')),
      { what: 'the refusal' },
    );
    await h.command('chart reviews from=2026-13-01');
    await h.slack.waitFor(
      () => h.slack.ephemerals(CHANNEL, MEMBER).find((m) => textOf(m).includes('takes a date as YYYY-MM-DD')),
      { what: 'the date refusal' },
    );
    expect(calls('files.getUploadURLExternal')).toHaveLength(uploads);
  });
});

/**
 * A gateway with a client that has no data yet (the sandbox's clients all have history): a real HTTP server on
 * loopback answering discovery, the client roster and empty reads, as docs/gateway-api.md §4 shapes them.
 */
async function emptyGateway(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const resource = url.searchParams.get('resource');
    const body = !resource
      ? { resources: ['clients', 'keywords', 'reviews'], actions: [] }
      : {
          resource,
          ...(resource === 'clients' ? {} : { client_id: url.searchParams.get('client_id') }),
          data: resource === 'clients' ? [{ id: 'new-client', name: 'New Client', status: 'active' }] : [],
          pagination: { total: resource === 'clients' ? 1 : 0, limit: 100, offset: 0, has_more: false },
        };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/gateway`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('/gateway chart for a client with no history', () => {
  it('answers “nothing to chart yet” to the person alone, and uploads no empty image', async () => {
    const gateway = await emptyGateway();
    const empty = await commandHarness('charts-empty', {
      GATEWAY_BASE_URL: gateway.url,
      GATEWAY_API_KEY: 'key-1',
    });
    try {
      await empty.command('use new-client', { user: ADMIN });
      await empty.slack.waitFor(() => empty.slack.messages(CHANNEL).find((m) => /bound/i.test(m.text)), {
        what: 'the binding',
      });
      for (const [kind, what] of [
        ['rankings', 'New Client has no keyword rankings at the gateway'],
        ['reviews', 'New Client has no reviews at the gateway'],
      ] as const) {
        await empty.command(`chart ${kind}`);
        const answer = await empty.slack.waitFor(
          () => empty.slack.ephemerals(CHANNEL, MEMBER).find((m) => textOf(m).includes(what)),
          { what: `the ${kind} answer` },
        );
        expect(textOf(answer)).toContain('Nothing to chart yet');
      }
      expect(empty.slack.calls.filter((c) => c.method.startsWith('files.'))).toHaveLength(0);
      expect(empty.slack.messages(CHANNEL).filter((m) => m.files)).toHaveLength(0);
    } finally {
      await empty.close();
      await gateway.close();
    }
  });
});

describe('/gateway chart of a client with more rows than one chart reads', () => {
  it('says the period actually drawn, in the line, title and alt text, where the read cap cuts the 90 days', async () => {
    // 60,000 keywords tracked weekly over five weeks: 300,000 rows, past the 250,000 one chart reads.
    const sandbox = await startSandbox({ largeKeywordRows: 300_000, anchorDate: recentAnchor() });
    const big = await commandHarness('charts-cut', {
      GATEWAY_BASE_URL: sandbox.url,
      GATEWAY_API_KEY: 'sandbox-key',
    });
    try {
      await big.command('use acme-plumbing', { user: ADMIN });
      await big.slack.waitFor(() => big.slack.messages(CHANNEL).find((m) => /bound/i.test(m.text)), {
        what: 'the binding',
      });
      await big.command('chart rankings "plumber austin"');
      const posted = await big.slack.waitFor(() => big.slack.messages(CHANNEL).find((m) => m.files?.length), {
        what: 'the chart',
        timeoutMs: 60_000,
      });
      const readFrom = /positions before (\d{4}-\d{2}-\d{2}) were not read/.exec(posted.text)?.[1] ?? '';
      expect(readFrom).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      // The period drawn, not the 90 days asked for: from the oldest date read.
      const drawn = new RegExp(`Acme Plumbing &(amp;)? Heating, ${readFrom} to \\d{4}-\\d{2}-\\d{2}`);
      expect(posted.text).toMatch(drawn);
      expect(posted.files?.[0]?.title).toMatch(drawn);
      expect(posted.files?.[0]?.alt_txt).toMatch(drawn);
      // 250,000 rows of 60,000 a week reach four weeks back, where the newest 50,000 rows held one.
      const to = new RegExp(`${readFrom} to (\\d{4}-\\d{2}-\\d{2})`).exec(posted.text)?.[1];
      const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${readFrom}T00:00:00Z`)) / 86_400_000;
      expect(days).toBeGreaterThanOrEqual(21);
    } finally {
      await big.close();
      await sandbox.close();
    }
  }, 90_000);
});
