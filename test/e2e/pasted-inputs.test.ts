import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

/** What people paste: coordinates from a map, URLs with spaces or very long, ids the gateway does not know. */

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-pasted-inputs');
  await bind(h, 'acme-plumbing');
});
afterAll(async () => {
  await h?.close();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends a command that must be refused: the refusal's text, with nothing queued or POSTed. */
async function refused(command: string, phrase: string): Promise<string> {
  const posts = h.sandbox.requests().filter((r) => r.method === 'POST').length;
  const messages = h.slack.messages(CHANNEL).length;
  await h.gateway(command);
  const reply = await h.ephemeral((m) => textOf(m).includes(phrase));
  await pause(200);
  expect(h.sandbox.requests().filter((r) => r.method === 'POST').length).toBe(posts);
  expect(h.slack.messages(CHANNEL).length, 'no job status message').toBe(messages);
  return textOf(reply);
}

describe('coordinates copied from a map', () => {
  it('runs `grid "plumber near me" 30.2672, -97.7431` with lat and lng as numbers', async () => {
    const before = h.posts('run_grid_search').length;
    await h.gateway('grid "plumber near me" 30.2672, -97.7431');
    const sent = await h.slack.waitFor(() => h.posts('run_grid_search')[before], { what: 'the grid POST' });
    expect(sent.fields).toMatchObject({ keyword: 'plumber near me', lat: 30.2672, lng: -97.7431 });
  });

  it('refuses decimal commas (`30,2672 -97,7431`), saying to write a point, with no internal field name', async () => {
    const text = await refused('grid "plumber" 30,2672 -97,7431', 'Write decimals with a point');
    expect(text).toContain('• Too many words: \\"-97\\" \\"7431\\"');
    expect(text).not.toContain('`arguments`');
  });
});

describe('addresses the gateway cannot reach', () => {
  it('refuses localhost and IP addresses, saying why', async () => {
    const text = await refused('audit http://localhost:8080/', 'must be a public web address');
    expect(text).toContain('cannot reach localhost');
    expect(text).not.toContain('starting with http://');
  });
});

describe('missing required fields', () => {
  it('`audit` alone opens its form, as `press` alone does, and the form runs it', async () => {
    for (const [command, title] of [
      ['press', /Press release/],
      ['index', /URL indexing/],
      ['audit', /SEO audit/],
    ] as const) {
      await h.gateway(command);
      const modal = await h.openModal(title);
      expect(JSON.stringify(modal.view.blocks), command).toContain('"type":"input"');
    }
    expect(h.posts('seo_audit')).toEqual([]);
    await h.driver.submit(
      await h.openModal(/SEO audit/),
      { url: 'https://acmeplumbing.example/water-heaters' },
      { user: MEMBER },
    );
    const sent = await h.slack.waitFor(() => h.posts('seo_audit')[0], { what: 'the audit POST' });
    expect(sent.fields).toMatchObject({ url: 'https://acmeplumbing.example/water-heaters' });
  });
});

describe('URLs', () => {
  it('refuses a URL with a space, saying how to write one', async () => {
    const text = await refused('audit https://acmeplumbing.example/water heaters', 'cannot contain spaces');
    expect(text).toContain('%20');
    await refused('index "https://acmeplumbing.example/water heaters"', 'cannot contain spaces');
  });

  it('refuses a URL over 2,000 characters', async () => {
    const text = await refused(`index https://acmeplumbing.example/${'a'.repeat(2_001)}`, 'too long');
    expect(text).toContain('at most 2,000 characters');
  });
});

describe('ids the gateway does not know', () => {
  it('refuses a category_id no blog category has, before anything is queued', async () => {
    const text = await refused('blog "pipe bursts in winter" category_id=cat_99', 'no category');
    expect(text).toContain('`cat_99`');
    expect(text).toContain('/gateway get blog_categories');
  });

  it('refuses a call_id no call has', async () => {
    const text = await refused('score-call call_999999 transcript="Hi, my sink leaks."', 'no call id');
    expect(text).toContain('`call_999999`');
  });

  it('runs with ids the gateway knows', async () => {
    // call_000001 was scored before: past the id check, the duplicate question is what comes next.
    await h.gateway('score-call call_000001 transcript="Hi, my sink leaks."', { user: MEMBER });
    await h.ephemeral((m) => textOf(m).includes('already exists') && textOf(m).includes('call_000001'));
    const before = h.posts('generate_blog').length;
    await h.gateway('blog "pipe bursts in winter" category_id=cat_02');
    const blog = await h.slack.waitFor(() => h.posts('generate_blog')[before], { what: 'the blog POST' });
    expect(blog.fields).toMatchObject({ category_id: 'cat_02' });
  });
});
