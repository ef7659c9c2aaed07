import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bind, CHANNEL, type Harness, startHarness, textOf } from '../helpers/bot-harness.js';

/** `/gateway rankings`: the keywords' rankings view under the word the digests and the assistant tools use. */

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-rankings-command');
  await bind(h, 'acme-plumbing');
}, 30_000);
afterAll(async () => {
  await h?.close();
});

/** The page posted in the channel for `text`: its rows, without the heading that names the command. */
async function page(text: string): Promise<string> {
  const before = h.slack.messages(CHANNEL).length;
  await h.gateway(text);
  const posted = await h.slack.waitFor(
    () =>
      h.slack
        .messages(CHANNEL)
        .slice(before)
        .find((m) => /1–3 of/.test(textOf(m))),
    { what: `the page of ${text}`, timeoutMs: 20_000 },
  );
  return textOf(posted);
}

describe('/gateway rankings', () => {
  it('shows the rankings view with the keywords sorts, as `keywords` does', async () => {
    const rankings = await page('rankings order=change limit=3');
    const keywords = await page('keywords order=change limit=3');
    expect(rankings).toMatch(/sorted by change, biggest climbs first/);
    // Each row's keyword and position, as the page's section shows them.
    const rows = (t: string) => [...t.matchAll(/\d+\. \*([^*]+)\* · #(\d+)/g)].map((m) => `${m[1]} #${m[2]}`);
    expect(rows(rankings)).toHaveLength(3);
    expect(rows(rankings)).toEqual(rows(keywords));
  });

  it('is in help', async () => {
    const before = h.slack.ephemerals(CHANNEL).length;
    await h.gateway('help');
    const help = await h.slack.waitFor(() =>
      h.slack
        .ephemerals(CHANNEL)
        .slice(before)
        .find((m) => textOf(m).includes('/gateway keywords')),
    );
    expect(textOf(help)).toContain('/gateway rankings');
  });
});
