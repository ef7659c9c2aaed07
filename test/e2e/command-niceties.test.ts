import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

/** Small things a newcomer trips over: ids in another case, a typo of `all`, an action's own name, time zones. */

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-command-niceties');
});
afterAll(async () => {
  await h?.close();
});

const newEphemeral = async (user: string, send: () => Promise<unknown>, match: RegExp) => {
  const before = h.slack.ephemerals(CHANNEL, user).length;
  await send();
  return h.slack.waitFor(
    () =>
      h.slack
        .ephemerals(CHANNEL, user)
        .slice(before)
        .find((m) => match.test(textOf(m))),
    { what: `an ephemeral matching ${match}` },
  );
};

describe('command niceties', () => {
  it('binds a client named in another case to its id as the gateway spells it', async () => {
    await h.gateway('use ACME-PLUMBING', { user: ADMIN });
    await h.message((m) => m.text.includes('now bound to'));
    expect((await h.runtime.services.bindings.get(CHANNEL))?.clientId).toBe('acme-plumbing');
    const again = await newEphemeral(
      ADMIN,
      () => h.gateway('use Acme-Plumbing', { user: ADMIN }),
      /already/i,
    );
    expect(textOf(again)).toContain('acme-plumbing');
  });

  it('answers `keywords desc asc` with the last direction typed, and says which it used', async () => {
    const posted = h.slack.messages(CHANNEL).length;
    await h.gateway('keywords limit=2 desc asc', { user: MEMBER });
    const page = await h.slack.waitFor(
      () =>
        h.slack
          .messages(CHANNEL)
          .slice(posted)
          .find((m) => m.text.startsWith('keywords for')),
      { what: 'the keywords page' },
    );
    expect(textOf(page)).toContain('Both `desc` and `asc` given: used `asc`, the last one');
    expect(textOf(page)).toContain('oldest first');
  });

  /** The keywords (row titles) of a page, in order. */
  const titles = (m: { blocks?: unknown }) =>
    [...JSON.stringify(m.blocks ?? []).matchAll(/\d+\. \*([^*]+)\*/g)].map((x) => x[1] ?? '');

  it('filters `keywords keyword~text` by text in any case, bot-side over a bounded read, saying so; Next keeps it', async () => {
    const posted = h.slack.messages(CHANNEL).length;
    await h.gateway('keywords keyword~WATER limit=3', { user: MEMBER });
    const page = await h.slack.waitFor(
      () =>
        h.slack
          .messages(CHANNEL)
          .slice(posted)
          .find((m) => m.text.startsWith('keywords for')),
      { what: 'the matched keywords page' },
    );
    const first = titles(page);
    expect(first).toHaveLength(3);
    for (const k of first) expect(k.toLowerCase()).toContain('water');
    // The rankings read is bounded (the newest 50,000 rows of acme-plumbing's 100,000), and the page says so.
    expect(textOf(page)).toContain('Each keyword with “WATER” in it at its latest observation');
    expect(textOf(page)).toMatch(/over the 50,000 newest rows \(of 100,000\)/);
    await h.driver.click(page, { actionId: 'page_next' }, { user: MEMBER });
    const next = await h.slack.waitFor(
      () => {
        const now = h.slack.messages(CHANNEL).find((m) => m.ts === page.ts);
        return now && /4–6 of/.test(now.text) ? now : undefined;
      },
      { what: 'the second page of matches' },
    );
    const second = titles(next);
    expect(second).toHaveLength(3);
    for (const k of second) expect(k.toLowerCase()).toContain('water');
    expect(second).not.toEqual(first);

    // A read the gateway pages for: at most 5,000 rows looked at, and the page says where it stopped.
    const before = h.slack.messages(CHANNEL).length;
    await h.gateway('get keywords keyword~water limit=2', { user: MEMBER });
    const scanned = await h.slack.waitFor(
      () =>
        h.slack
          .messages(CHANNEL)
          .slice(before)
          .find((m) => m.text.startsWith('keywords for')),
      { what: 'the scanned keywords page' },
    );
    expect(textOf(scanned)).toContain(
      'over the 5,000 newest rows read (of 100,000): later ones were not looked at',
    );
    for (const k of titles(scanned)) expect(k.toLowerCase()).toContain('water');

    const none = await newEphemeral(
      MEMBER,
      () => h.gateway('keywords keyword~zzqx', { user: MEMBER }),
      /No rows/,
    );
    expect(textOf(none)).toContain('Nothing matches `keyword~zzqx`');
    const refused = await newEphemeral(
      MEMBER,
      () => h.gateway('reviews keyword~late', { user: MEMBER }),
      /text match/,
    );
    expect(textOf(refused)).toContain('`reviews` takes no `~` text match');
  });

  it('lists blogs with their category and author by name, each state said once and no field left out', async () => {
    const categories = h.sandbox.records('acme-plumbing', 'blog_categories');
    const authors = h.sandbox.records('acme-plumbing', 'blog_authors');
    const posts = [...h.sandbox.records('acme-plumbing', 'blogs')].sort((a, b) =>
      String(b.created_at).localeCompare(String(a.created_at)),
    );
    const newest = posts[0] as Record<string, unknown>;
    const nameOf = (rows: typeof categories, id: unknown) => String(rows.find((r) => r.id === id)?.name);
    const posted = h.slack.messages(CHANNEL).length;
    await h.gateway('blogs limit=3', { user: MEMBER });
    const page = await h.slack.waitFor(
      () =>
        h.slack
          .messages(CHANNEL)
          .slice(posted)
          .find((m) => m.text.startsWith('blogs for')),
      { what: 'the blogs page' },
    );
    const text = textOf(page);
    expect(text).toContain(`${nameOf(categories, newest.category_id)} (\`${String(newest.category_id)}\`)`);
    expect(text).toContain(`by ${nameOf(authors, newest.author_id)} (\`${String(newest.author_id)}\`)`);
    expect(text).not.toMatch(/published · published|published yes|more fields|category_id:|author_id:/);
  });

  it('shows a drafted blog’s category and author by name on its result card', async () => {
    const categories = h.sandbox.records('acme-plumbing', 'blog_categories');
    const category = categories[1] as Record<string, unknown>;
    await h.runAction(`blog "niceties named category" category_id=${String(category.id)}`);
    const { thread } = await h.settled(
      (m) => m.text.includes('niceties named category') && /done/.test(m.text),
    );
    const card = thread.map(textOf).join('\n');
    expect(card).toContain(`*Category*\\n${String(category.name)} (\`${String(category.id)}\`)`);
    expect(card).toMatch(/\*Author\*\\n[^(`]+ \(`author_\d+`\)/);
    expect(card).not.toContain('Author ID');
  });

  it('says in `help deploy` that a post id is required and why, and that its form offers the newest posts', async () => {
    const help = await newEphemeral(MEMBER, () => h.gateway('help deploy', { user: MEMBER }), /Usage:/);
    const text = textOf(help);
    expect(text).toContain('/gateway deploy &lt;post_id&gt;');
    expect(text).toContain(
      'post_id is required: the gateway’s document does not say what `deploy_blog` does',
    );
    expect(text).toContain('its form offers the newest to choose from');
  });

  it('suggests `jobs all` for `jobs al`', async () => {
    const note = await newEphemeral(MEMBER, () => h.gateway('jobs al', { user: MEMBER }), /ignored/);
    expect(textOf(note)).toContain('Did you mean `/gateway jobs all`?');
  });

  it('answers `help generate_blog` with the help of `blog`', async () => {
    const help = await newEphemeral(
      MEMBER,
      () => h.gateway('help generate_blog', { user: MEMBER }),
      /Usage:|There is no/,
    );
    expect(textOf(help)).toContain('Usage: `/gateway blog');
  });

  it('stores `tz=` as the time zone database spells it, and refuses an abbreviation with an Area/City example', async () => {
    await h.gateway('digest reviews daily 08:00 tz=america/new_york', { user: ADMIN });
    await h.message((m) => m.text.includes('subscribed this channel'));
    expect((await h.runtime.services.digests.get(CHANNEL, 'reviews'))?.tz).toBe('America/New_York');
    const refused = await newEphemeral(
      ADMIN,
      () => h.gateway('digest rankings daily 08:00 tz=EST', { user: ADMIN }),
      /abbreviation/,
    );
    expect(textOf(refused)).toContain('Area/City');
    expect(textOf(refused)).toContain('tz=America/New_York');
    expect(await h.runtime.services.digests.get(CHANNEL, 'rankings')).toBeFalsy();
  });
});
