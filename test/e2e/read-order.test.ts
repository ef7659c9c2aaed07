import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Row } from '../../src/gateway/types.js';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import { bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

/** Reads as people expect them: newest first, keywords as rankings, sorts the gateway cannot do, dates. */

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-read-order');
  await bind(h, 'acme-plumbing');
});
afterAll(async () => {
  await h?.close();
});

/** Sends a read and waits for its page in the channel (the first message posted after it). */
async function page(command: string): Promise<FakeMessage> {
  const before = h.slack.messages(CHANNEL).length;
  await h.gateway(command);
  return h.slack.waitFor(() => h.slack.messages(CHANNEL).slice(before).at(0), {
    what: `a page for ${command}`,
  });
}

/** The reads of `resource` the sandbox received since `from`. */
const readsSince = (from: number, resource: string) =>
  h.sandbox
    .requests()
    .slice(from)
    .filter((r) => r.method === 'GET' && r.resource === resource);

/** Every row of a resource, as the gateway holds them (the sandbox's natural order). */
async function allRows(resource: string): Promise<Row[]> {
  const { rows } = await h.runtime.services.gateway.collect(
    resource,
    { clientId: 'acme-plumbing' },
    { cap: 200_000 },
  );
  return rows;
}

type Block = { type: string; text?: { text?: string } };
/** The mrkdwn of a page's sections. */
const sectionTexts = (m: FakeMessage): string[] =>
  ((m.blocks ?? []) as Block[]).filter((b) => b.type === 'section').map((b) => String(b.text?.text ?? ''));

/** The row lines of a page (`1. *title* · …`), in order. */
function rowLines(m: FakeMessage): string[] {
  return sectionTexts(m)
    .flatMap((s) => s.split('\n'))
    .filter((line) => /^\d+\. /.test(line));
}

describe('newest first', () => {
  it('reads reviews newest first, asking the gateway for created_at descending', async () => {
    const from = h.sandbox.requests().length;
    const m = await page('reviews limit=3');
    expect(readsSince(from, 'reviews')[0]?.fields).toMatchObject({ order: 'created_at', direction: 'desc' });
    const newest =
      (await allRows('reviews'))
        .map((r) => String(r.created_at))
        .sort()
        .at(-1) ?? '';
    expect(textOf(m)).toContain(`|${newest.slice(0, 10)} ${newest.slice(11, 16)} UTC>`);
    expect(textOf(m)).toContain('Newest first (`created_at`)');
  });

  it.each([
    ['tasks', 'seo_tasks'],
    ['calls', 'call_tracking_calls'],
    ['reports', 'seo_reports'],
  ])('heads a `%s` page with the command’s name, not `%s`, on Next too', async (name, resource) => {
    const m = await page(`${name} limit=2`);
    expect(sectionTexts(m)[0]).toMatch(new RegExp(`^\`${name}\` for \\*Acme`));
    expect(m.text.startsWith(`${name} for Acme`)).toBe(true);
    expect(`${m.text}\n${sectionTexts(m).join('\n')}`).not.toContain(resource);
    await h.driver.click(m, { actionId: 'page_next' }, { user: MEMBER });
    const next = await h.slack.waitFor(
      () => h.slack.messages(CHANNEL).find((x) => x.ts === m.ts && x.text.includes('3–4')),
      { what: `page 2 of ${name}` },
    );
    expect(next.text.startsWith(`${name} for Acme`)).toBe(true);
    expect(await page(`get ${resource} limit=1`).then((x) => x.text)).toMatch(new RegExp(`^${resource} for`));
  });

  it('says a `limit` above the page size pages 20 at a time', async () => {
    const m = await page('reviews limit=45');
    expect(m.text).toContain('1–20 of 3,200');
    expect(textOf(m)).toContain('`limit=45`: 20 a page; Next for more');
    expect(textOf(await page('reviews limit=20'))).not.toContain('a page; Next for more');
  });

  it('labels and formats backlink counts, and titles domain metrics and LLM reports by what they are about', async () => {
    const links = rowLines(await page('backlinks limit=3'))[0] ?? '';
    expect(links).toMatch(/ · [\d,]+ external pages · [\d,]+ linking domains/);
    const rows = sectionTexts(await page('backlinks limit=3')).join('\n');
    expect(rows).not.toMatch(/external_pages:|linking_domains:|\d{4,} external/);
    const metrics = rowLines(await page('get domain_metrics limit=2'))[0] ?? '';
    expect(metrics).toMatch(/^1\. \*acmeplumbing\.example\* · DA \d+ · PA \d+ · spam score \d+/);
    const reports = rowLines(await page('get llm_reports limit=2'))[0] ?? '';
    expect(reports).toMatch(
      /^1\. \*Who is the best .*\?\* · Acme Plumbing &amp; Heating · \w+ · visibility \d+/,
    );
    expect(reports).not.toContain('llm_0');
  });

  it('words an asked-for time order as the default is worded: oldest first', async () => {
    const m = await page('reviews order=created_at asc limit=3');
    expect(textOf(m)).toContain('Oldest first (`created_at`)');
    expect(textOf(m)).not.toContain('Order: `created_at`');
  });

  it('applies a bare `asc` to the default order instead of ignoring it', async () => {
    const from = h.sandbox.requests().length;
    const m = await page('reviews asc limit=3');
    expect(readsSince(from, 'reviews')[0]?.fields).toMatchObject({ order: 'created_at', direction: 'asc' });
    const oldest = (await allRows('reviews')).map((r) => String(r.created_at)).sort()[0] ?? '';
    expect(textOf(m)).toContain(`|${oldest.slice(0, 10)} ${oldest.slice(11, 16)} UTC>`);
    expect(textOf(m)).toContain('Oldest first');
  });

  it('reads a resource that docs/gateway-api.md §2.1 orders by another time field by that field (domain_metrics: fetched_at)', async () => {
    const from = h.sandbox.requests().length;
    await page('get domain_metrics limit=2');
    expect(readsSince(from, 'domain_metrics')[0]?.fields).toMatchObject({
      order: 'fetched_at',
      direction: 'desc',
    });
  });
});

describe('keywords as rankings', () => {
  it('shows each keyword once at its latest observation, with position, change, volume, KD and URL', async () => {
    const rows = await allRows('keywords');
    const byKeyword = new Map<string, Row[]>();
    for (const row of rows)
      byKeyword.set(String(row.keyword), [...(byKeyword.get(String(row.keyword)) ?? []), row]);
    const m = await page('keywords');
    const lines = rowLines(m);
    expect(lines).toHaveLength(20);
    const shown = lines.map((line) => /^\d+\. \*([^*]+)\*/.exec(line)?.[1] ?? '');
    expect(new Set(shown).size).toBe(20);
    for (const [i, keyword] of shown.entries()) {
      const history = (byKeyword.get(keyword) ?? []).sort((a, b) =>
        String(b.tracked_at).localeCompare(String(a.tracked_at)),
      );
      const [latest, previous] = history;
      const change = Number(previous?.position) - Number(latest?.position);
      const moved = change > 0 ? `▲${change}` : change < 0 ? `▼${-change}` : '=';
      expect(lines[i]).toContain(
        `#${latest?.position} · ${moved} · vol ${Number(latest?.search_volume).toLocaleString('en-US')} · KD ${latest?.difficulty}`,
      );
      expect(lines[i]).toContain(String(latest?.url).replace(/^https:\/\//, ''));
    }
    expect(textOf(m)).toContain('1–20 of 20,000');
    expect(textOf(m)).toContain('Each keyword at its latest observation');
  });

  it('sorts keywords by volume, position, KD and change, and says over which rows', async () => {
    const volume = await page('keywords order=volume limit=5');
    const volumes = rowLines(volume).map((l) => Number(/vol ([\d,]+)/.exec(l)?.[1]?.replace(/,/g, '')));
    expect(volumes).toEqual([...volumes].sort((a, b) => b - a));
    expect(textOf(volume)).toContain(
      'sorted by volume, highest first, over the 50,000 newest rows (of 100,000)',
    );

    const best = await page('keywords order=position limit=5');
    expect(rowLines(best).map((l) => /#(\d+)/.exec(l)?.[1])).toEqual(['1', '1', '1', '1', '1']);
    const worst = await page('keywords order=position desc limit=3');
    expect(rowLines(worst).map((l) => /#(\d+)/.exec(l)?.[1])).toEqual(['100', '100', '100']);

    const kd = await page('keywords order=kd asc limit=5');
    const kds = rowLines(kd).map((l) => Number(/KD (\d+)/.exec(l)?.[1]));
    expect(kds).toEqual([...kds].sort((a, b) => a - b));

    const change = await page('keywords order=change limit=5');
    const ups = rowLines(change).map((l) => Number(/▲(\d+)/.exec(l)?.[1] ?? -1));
    expect(ups[0]).toBeGreaterThanOrEqual(4);
    expect(ups).toEqual([...ups].sort((a, b) => b - a));
  });

  it('pages a sorted keyword view in place, carrying the sort', async () => {
    const first = await page('keywords order=volume');
    const lastOfFirst = Number(/vol ([\d,]+)/.exec(rowLines(first).at(-1) ?? '')?.[1]?.replace(/,/g, ''));
    const from = h.sandbox.requests().length;
    await h.driver.click(first, { actionId: 'page_next' }, { user: MEMBER });
    const next = await h.slack.waitFor(
      () => h.slack.messages(CHANNEL).find((m) => m.ts === first.ts && textOf(m).includes('21–40 of 20,000')),
      { what: 'page 2 of the sorted keywords' },
    );
    const firstOfNext = Number(/vol ([\d,]+)/.exec(rowLines(next)[0] ?? '')?.[1]?.replace(/,/g, ''));
    expect(firstOfNext).toBeLessThanOrEqual(lastOfFirst);
    expect(textOf(next)).toContain('sorted by volume');
    // The rankings just built are reused: one 1-row read checks they are current, not 50 pages again.
    expect(readsSince(from, 'keywords').map((r) => r.fields?.limit)).toEqual(['1']);
  });
});

describe('sorts the gateway cannot do', () => {
  it('sorts a bounded read itself and says so when rows were left out', async () => {
    const m = await page('get keywords order=volume limit=3');
    expect(textOf(m)).toContain('Sorted by volume, highest first, over the 5,000 newest rows (of 100,000)');
  });

  it('sorts reviews by rating, lowest first, over all 3,200', async () => {
    const m = await page('reviews order=rating');
    const ratings = rowLines(m).map((l) => (l.match(/★/g) ?? []).length);
    expect(ratings.every((r) => r === 1)).toBe(true);
    expect(textOf(m)).toContain('Sorted by rating, lowest first');
    expect(textOf(m)).not.toContain('newest rows');
    const top = await page('reviews order=rating desc limit=3');
    expect(rowLines(top).every((l) => l.includes('★★★★★'))).toBe(true);
  });

  it('sorts tasks by priority, highest first', async () => {
    const tasks = await allRows('seo_tasks');
    const high = tasks.filter((t) => t.priority === 'high').length;
    const m = await page('tasks order=priority');
    expect(high).toBeGreaterThan(20);
    expect(rowLines(m).every((l) => l.includes('priority high'))).toBe(true);
    const low = await page('tasks order=priority asc limit=3');
    expect(rowLines(low).every((l) => l.includes('priority low'))).toBe(true);
  });
});

describe('filters and hints per resource', () => {
  it("lists the resource's own filters and orders, not the global lists", async () => {
    await h.gateway('reviews stars=5');
    const reply = await h.ephemeral((m) => textOf(m).includes('stars'));
    expect(textOf(reply)).toContain('`sentiment=…`');
    expect(textOf(reply)).toContain('`order=rating`');
    expect(textOf(reply)).not.toContain('lead_grade');
    expect(textOf(reply)).not.toContain('linking_domains');
  });

  it('a filter differing only in case says which value matches', async () => {
    await h.gateway('reviews sentiment=Negative');
    const m = await h.ephemeral((x) => textOf(x).includes('sentiment=Negative'));
    expect(textOf(m)).toContain('Did you mean `sentiment=negative`?');
    expect(textOf(m)).toContain('`neutral`, `positive`');
  });

  it('a filter matching nothing lists the values the field has', async () => {
    await h.gateway('tasks status=finished');
    const m = await h.ephemeral((x) => textOf(x).includes('status=finished'));
    expect(textOf(m)).toContain('Nothing matches `status=finished`');
    expect(textOf(m)).toMatch(/Values of `status`: .*`done`/);
  });
});

describe('dates', () => {
  it('labels dates and formats them as Slack dates, never raw ISO or two unlabelled dates', async () => {
    for (const command of [
      'keywords limit=5',
      'tasks limit=5',
      'reviews limit=5',
      'get domain_metrics limit=5',
    ]) {
      const m = await page(command);
      const rows = sectionTexts(m).join('\n');
      const rest = textOf(m).replace(/<!date\^\d+\^\{date_short_pretty\}(?: at \{time\})?\|[^>]+>/g, 'DATE');
      expect(rest, command).not.toMatch(/\d{4}-\d{2}-\d{2}/);
      expect(rows, command).toMatch(/(created|tracked|fetched|updated) <!date\^/);
      expect(
        rows.replace(/(created|tracked|fetched|updated|connected|scored) <!date/g, ''),
        command,
      ).not.toContain('<!date');
    }
  });
});

// Last: a day passing at the sandbox changes the data the tests above compute from.
describe('rankings after a new observation', () => {
  it('builds the rankings again once the gateway has a new observation', async () => {
    await page('keywords limit=1');
    const summary = await h.sandbox.advance();
    const from = h.sandbox.requests().length;
    // Two at once share one build: two 1-row checks and one read of 50,000 rows in 1,000-row pages.
    const [m] = await Promise.all([page('keywords limit=1'), h.gateway('keywords order=kd limit=1')]);
    await h.slack.waitFor(() => h.slack.messages(CHANNEL).find((x) => textOf(x).includes('sorted by kd')), {
      what: 'the second page',
    });
    expect(readsSince(from, 'keywords').length).toBe(2 + 50);
    const day = summary.find((s) => s.clientId === 'acme-plumbing')?.day ?? 'none';
    expect(textOf(m)).toContain(`|${day}>`);
  });
});
