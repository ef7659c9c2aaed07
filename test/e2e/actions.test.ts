import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import { ADMIN, bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

let h: Harness;

beforeAll(async () => {
  // generate_faq is one only discovery lists: members may run it once it is allowed.
  h = await startHarness('e2e-actions', { GATEWAY_ALLOWED_ACTIONS: 'generate_faq' });
  await bind(h, 'harbor-law');
});
afterAll(async () => {
  await h?.close();
});

const posts = (action: string) => h.posts(action);
const runAction = (command: string) => h.runAction(command);
const openModal = (title: RegExp) => h.openModal(title);

/** The job's status message in the channel once it reached `state`, and its thread. */
const settled = (label: string, state: RegExp) =>
  h.settled((m) => m.text.includes(label) && state.test(textOf(m)));

const CASES: Array<[command: string, action: string, label: string, body: Record<string, unknown>]> = [
  [
    'audit https://harbor-law.example/services',
    'seo_audit',
    'SEO audit',
    { url: 'https://harbor-law.example/services' },
  ],
  [
    'optimize https://harbor-law.example/divorce keyword="divorce lawyer"',
    'optimize_page',
    'Page optimisation',
    { url: 'https://harbor-law.example/divorce', keyword: 'divorce lawyer' },
  ],
  [
    'ideas seed="estate planning" location="Boston, MA"',
    'generate_keywords',
    'Keyword ideas',
    { seed: 'estate planning', location: 'Boston, MA' },
  ],
  [
    'map "estate planning" depth=3',
    'generate_topical_map',
    'Topical map',
    { topic: 'estate planning', depth: 3 },
  ],
  [
    'blog "probate lawyer boston" tone=friendly',
    'generate_blog',
    'Blog',
    { keyword: 'probate lawyer boston', tone: 'friendly' },
  ],
  [
    'image "Choosing an executor" style=watercolor',
    'generate_blog_image',
    'image',
    { title: 'Choosing an executor', style: 'watercolor' },
  ],
  [
    'geo keyword="wills" city=Boston state=MA',
    'generate_geo_article',
    'Geo',
    { keyword: 'wills', city: 'Boston', state: 'MA' },
  ],
  [
    'press "Harbor Law opens a second office" body_points="Opens May 1"',
    'generate_press_release',
    'ress',
    { headline: 'Harbor Law opens a second office' },
  ],
  [
    'gbp "Free will review week" cta="Book now"',
    'generate_gbp_post',
    'ost',
    { topic: 'Free will review week', cta: 'Book now' },
  ],
  [
    'index https://harbor-law.example/blog/wills',
    'index_url',
    'ndex',
    { url: 'https://harbor-law.example/blog/wills' },
  ],
  ['backlinks refresh', 'fetch_backlinks', 'acklink', {}],
  [
    'outreach https://boston-family-blog.example/resources tone=warm',
    'generate_outreach_email',
    'utreach',
    { prospectUrl: 'https://boston-family-blog.example/resources', tone: 'warm' },
  ],
  [
    'grid "estate lawyer" 42.3601 -71.0589 radius=5',
    'run_grid_search',
    'rid',
    { keyword: 'estate lawyer', lat: 42.3601, lng: -71.0589, radius: 5 },
  ],
  [
    'llm "Harbor Law" who is the best estate lawyer in Boston',
    'run_llm_visibility',
    'LLM',
    { brand_name: 'Harbor Law', prompt: 'who is the best estate lawyer in Boston' },
  ],
  [
    'score-call call_000001 transcript="I need help with a will."',
    'score_call',
    'all',
    { call_id: 'call_000001', transcript: 'I need help with a will.' },
  ],
  ['run generate_faq topic="wills and trusts"', 'generate_faq', 'FAQ', { topic: 'wills and trusts' }],
];

/** The actions whose result card showed a time (as a Slack date); checked not to be none, after the cases. */
const cardsWithTimes: string[] = [];

describe('every action from Slack', () => {
  it.each(CASES)(
    '%s → %s: the POST reaches the gateway, the channel sees the job and its result',
    async (command, action, label, body) => {
      const before = posts(action).length;
      await runAction(command);
      const sent = await h.slack.waitFor(() => posts(action)[before], {
        what: `POST ${action}`,
        timeoutMs: 10_000,
      });
      expect(sent.clientId).toBe('harbor-law');
      expect(sent.fields).toMatchObject(body);
      const { status, thread } = await settled(label, /done|:white_check_mark:/);
      expect(thread.length).toBeGreaterThanOrEqual(1);
      expect(posts(action).length).toBe(before + 1);
      // A readable card: no field dump, no JSON, no raw timestamps, no "finished" (the status says done).
      const card = textOf(thread[0] as FakeMessage);
      expect(card).not.toMatch(/\\"[a-z_]+\\":|\{\\"/);
      expect(card).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?![^|]*>)/);
      expect(card).not.toMatch(/finished|Created at|Updated at|\bLat\b|\bLng\b/);
      expect(card).toMatch(/Record `[a-z]+_\d+`|Backlinks/);
      // Times as Slack dates, in each reader's time zone: a card that speaks of a time shows it as one.
      const speaksOfTime = /created|Fetched|Tracked|Scored/.test(card);
      expect(speaksOfTime && !/<!date\^\d+\^/.test(card)).toBe(false);
      if (speaksOfTime) cardsWithTimes.push(action);
      // The message and its thread say different things: the summary there, the detail here.
      expect(status.text).not.toBe(thread[0]?.text);
      expect(status.text).not.toMatch(/finished/);
    },
  );

  it('shows times as Slack dates on the cards that have them (some do)', () => {
    expect(cardsWithTimes.length).toBeGreaterThan(0);
  });

  it('shows keyword ideas as a short table of keyword, volume and KD, the status with how many', async () => {
    await runAction('ideas seed="probate lawyer" location="Boston, MA"');
    const { status, thread } = await settled('Keyword ideas from “probate lawyer”', /done/);
    expect(status.text).toMatch(
      /Keyword ideas from “probate lawyer” near Boston, MA .*— done: 5 keyword ideas$/,
    );
    const table = (thread[0]?.blocks ?? []).map((b) => JSON.stringify(b)).find((b) => b.includes('```'));
    expect(table).toMatch(/5 ideas\*, by volume/);
    expect(table).toMatch(/Keyword +Volume +KD/);
    expect(table).toMatch(/probate lawyer near me +[\d,]+ +\d+/);
  });

  it('shows a grid search by its place and radius, not by Lat and Lng', async () => {
    await runAction('grid "probate attorney" 42.3601 -71.0589 radius=3');
    const { status, thread } = await settled('probate attorney', /done/);
    const card = textOf(thread[0] as FakeMessage);
    expect(status.text).toContain('Local grid search for “probate attorney” around');
    expect(card).toContain('42.3601° N, 71.0589° W');
    expect(card).toContain('openstreetmap.org/?mlat=42.3601&amp;mlon=-71.0589');
    expect(card).toContain('radius 3');
    expect(card).toMatch(/Average rank\*\\n[\d.]+/);
    expect(card).not.toMatch(/Lat|Lng|30\.2672/);
  });

  it('titles read as English: an action only discovery lists is “FAQ about …”', async () => {
    await runAction('run generate_faq topic="living trusts"');
    const { status, thread } = await settled('living trusts', /done/);
    expect(status.text).toMatch(
      /^FAQ about “living trusts” for Harbor Law Group, requested by <@UMEMBER> — done/,
    );
    expect(textOf(thread[0] as FakeMessage)).toContain('What should I know about living trusts?');
    expect(status.text).not.toMatch(/Generate faq/i);
  });

  it.each([
    ['deploy', 'deploy_blog'],
    ['email to=ed@boston-family-blog.example subject="Hello" html="<p>Hi</p>"', 'send_prospect_email'],
  ])('%s asks for an approval (a card, or the form first) and sends nothing', async (command, action) => {
    const cards = h.slack.messages(CHANNEL).length;
    const views = h.slack.views().length;
    await h.gateway(command);
    await h.slack.waitFor(
      () =>
        h.slack
          .messages(CHANNEL)
          .slice(cards)
          .find((m) => m.text.startsWith('Approval needed')) ??
        (h.slack.views().length > views || undefined),
      { what: `the approval card of ${command}` },
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(posts(action)).toEqual([]);
  });
});

describe('bad input', () => {
  it.each([
    ['audit not-a-url', 'url'],
    ['grid "plumber" 91 0', 'lat'],
    ['map "x" depth=-2', 'depth'],
    ['audit https://harbor-law.example/ colour=red', 'colour'],
  ])('%s is refused on the field (%s) before anything is queued', async (command, field) => {
    const jobsBefore = await h.runtime.services.queue.queue.count();
    const postsBefore = h.sandbox.requests().filter((r) => r.method === 'POST').length;
    await h.gateway(command);
    const reply = await h.ephemeral((m) => textOf(m).includes(field) && textOf(m).includes('not valid'));
    expect(textOf(reply)).toContain('/gateway');
    expect(await h.runtime.services.queue.queue.count()).toBe(jobsBefore);
    expect(h.sandbox.requests().filter((r) => r.method === 'POST').length).toBe(postsBefore);
  });

  it('opens a modal for a blog without a keyword and shows field errors there, losing nothing', async () => {
    await h.gateway('blog');
    const view = await openModal(/^Blog article/);
    expect(view.view.title.text.length).toBeLessThanOrEqual(24);
    const refused = await h.driver.submit(view, { keyword: '   ' }, { user: MEMBER });
    expect(refused.json?.response_action).toBe('errors');
    expect(Object.keys(refused.json?.errors ?? {})).toContain('keyword');
    expect(h.slack.views(MEMBER).at(-1)?.id).toBe(view.id);
    const before = posts('generate_blog').length;
    await h.driver.submit(view, { keyword: 'living trust boston' }, { user: MEMBER });
    await h.slack.waitFor(() => posts('generate_blog')[before], { what: 'the blog POST' });
    expect(posts('generate_blog')[before]?.fields).toMatchObject({ keyword: 'living trust boston' });
  });
});

describe('duplicates and double clicks', () => {
  it('asks before a second blog with the same keyword, and "Generate another" creates exactly one more', async () => {
    await runAction('blog "wills vs trusts" tone=plain');
    await settled('wills vs trusts', /done|:white_check_mark:/);
    const before = posts('generate_blog').length;
    await runAction('blog "Wills vs Trusts" tone=plain');
    const prompt = await h.ephemeral((m) => textOf(m).includes('already exists'));
    expect(posts('generate_blog').length).toBe(before);
    await Promise.all([
      h.driver.click(prompt, { actionId: 'duplicate_confirm' }, { user: MEMBER }),
      h.driver.click(prompt, { actionId: 'duplicate_confirm' }, { user: MEMBER }),
    ]);
    await h.slack.waitFor(() => posts('generate_blog')[before], { what: 'the confirmed blog POST' });
    await new Promise((r) => setTimeout(r, 500));
    expect(posts('generate_blog').length).toBe(before + 1);
  });

  it('asks before repeating an action the gateway cannot list, from the bot’s own ledger', async () => {
    await runAction('ideas seed="living will" location="Cambridge, MA"');
    await settled('living will', /done|:white_check_mark:/);
    const before = posts('generate_keywords').length;
    await runAction('ideas seed="Living Will" location="Cambridge, MA"');
    const prompt = await h.ephemeral(
      (m) => textOf(m).includes('already exists') && textOf(m).includes('iving'),
    );
    expect(textOf(prompt)).toContain('duplicate_confirm');
    await new Promise((r) => setTimeout(r, 300));
    expect(posts('generate_keywords').length).toBe(before);
  });

  it('"Cancel" on the duplicate prompt generates nothing', async () => {
    await runAction('blog "probate timeline" tone=plain');
    await settled('probate timeline', /done|:white_check_mark:/);
    const before = posts('generate_blog').length;
    await runAction('blog "probate timeline" tone=plain');
    const prompt = await h.ephemeral(
      (m) => textOf(m).includes('already exists') && textOf(m).includes('probate timeline'),
    );
    await h.driver.click(prompt, { actionId: 'duplicate_cancel' }, { user: MEMBER });
    await new Promise((r) => setTimeout(r, 500));
    expect(posts('generate_blog').length).toBe(before);
  });

  it('a modal submitted twice is one job and one POST', async () => {
    await h.gateway('geo');
    const view = await openModal(/geo/i);
    const before = posts('generate_geo_article').length;
    const values = { keyword: 'power of attorney', city: 'Salem', state: 'MA' };
    // Slack redelivers: the same view submitted twice, concurrently.
    const current = h.slack.getView(view.id);
    if (!current) throw new Error('modal not open');
    await Promise.all([
      h.driver.submit(current, values, { user: MEMBER }),
      h.driver.submit(current, values, { user: MEMBER }).catch(() => undefined),
    ]);
    await h.slack.waitFor(() => posts('generate_geo_article')[before], { what: 'the geo POST' });
    await new Promise((r) => setTimeout(r, 500));
    expect(posts('generate_geo_article').length).toBe(before + 1);
  });

  it('a Retry button clicked twice runs one new job', async () => {
    h.sandbox.failNext('status_error', { method: 'POST', action: 'index_url' });
    await runAction('index https://harbor-law.example/retry-me');
    const { thread } = await settled('retry-me', /failed|:x:/);
    const withButton = thread.find((m) => textOf(m).includes('job_retry'));
    if (!withButton) throw new Error('no Retry button in the thread');
    expect(textOf(withButton)).toContain('502');
    const before = posts('index_url').length;
    await Promise.all([
      h.driver.click(withButton, { actionId: 'job_retry' }, { user: MEMBER }),
      h.driver.click(withButton, { actionId: 'job_retry' }, { user: MEMBER }),
    ]);
    await h.slack.waitFor(() => posts('index_url')[before], { what: 'the retried POST' });
    await new Promise((r) => setTimeout(r, 500));
    expect(posts('index_url').length).toBe(before + 1);
  });

  it('after an outcome nobody can tell, "Retry anyway" clicked twice runs one new job', async () => {
    h.sandbox.failNext('drop_after_action', { method: 'POST', action: 'index_url' });
    const before = posts('index_url').length;
    await runAction('index https://harbor-law.example/unknown-outcome');
    const { status, thread } = await settled('unknown-outcome', /needs attention|:warning:/);
    expect(textOf(status)).toContain('needs attention');
    const withButton = thread.find((m) => textOf(m).includes('job_retry_anyway'));
    if (!withButton) throw new Error('no "Retry anyway" button in the thread');
    expect(posts('index_url').length).toBe(before + 1);
    await Promise.all([
      h.driver.click(withButton, { actionId: 'job_retry_anyway' }, { user: MEMBER }),
      h.driver.click(withButton, { actionId: 'job_retry_anyway' }, { user: MEMBER }),
    ]);
    await h.slack.waitFor(() => posts('index_url')[before + 1], { what: 'the POST a person asked for' });
    await new Promise((r) => setTimeout(r, 500));
    expect(posts('index_url').length).toBe(before + 2);
  });

  it('a command Slack delivers twice is one job', async () => {
    const before = posts('seo_audit').length;
    const url = 'https://harbor-law.example/twice';
    const first = await h.gateway(`audit ${url}`);
    // Same trigger_id and body, as Slack's redelivery would carry.
    const body = new URLSearchParams({
      command: '/gateway',
      text: `audit ${url}`,
      user_id: MEMBER,
      user_name: 'bob',
      channel_id: CHANNEL,
      channel_name: 'seo',
      team_id: h.slack.teamId,
      trigger_id: first.triggerId,
      response_url: first.responseUrl,
      api_app_id: h.slack.appId,
    }).toString();
    const { signSlackRequest } = await import('../../src/local/driver.js');
    await h.driver.raw(body, { ...signSlackRequest('e2e-signing-secret', body), 'x-slack-retry-num': '1' });
    await h.slack.waitFor(() => posts('seo_audit')[before], { what: 'the audit POST' });
    await new Promise((r) => setTimeout(r, 500));
    expect(posts('seo_audit').filter((p) => p.fields?.url === url).length).toBe(1);
  });
});

describe('jobs', () => {
  it('names what each job was for, in words, and says why one failed without cutting a word', async () => {
    await h.gateway('jobs all');
    const reply = await h.ephemeral((m) => textOf(m).includes('Jobs in this channel'));
    const text = textOf(reply);
    expect(text).toContain(
      'SEO audit of <https://harbor-law.example/services|https://harbor-law.example/services>',
    );
    expect(text).toContain('Blog article about “probate lawyer boston”');
    expect(text).toContain('Topical map of “estate planning”');
    expect(text).toMatch(/<!date\^\d+\^/);
    // The status:error job of the Retry test: a reason in words, not an internal code or state name.
    expect(text).toContain('failed: the gateway reported that the action did not complete');
    expect(text).toContain('needs a person to decide');
    expect(text).not.toMatch(/needs-attention|gateway_action_failed|job_[a-z_]+/);
  });

  it('says when the list is cut, and `jobs all` lists them all', async () => {
    const channel = 'CJOBS';
    await bind(h, 'harbor-law', channel);
    for (let i = 1; i <= 23; i++) {
      await h.gateway(`index https://harbor-law.example/page-${i}`, { user: MEMBER, channel });
    }
    await h.slack.waitFor(
      () => (h.slack.messages(channel).filter((m) => /— done/.test(m.text)).length >= 23 ? true : undefined),
      { what: '23 jobs done', timeoutMs: 20_000 },
    );
    await h.gateway('jobs', { user: MEMBER, channel });
    const short = await h.ephemeral((m) => textOf(m).includes('Jobs in this channel'), {
      user: MEMBER,
      channel,
    });
    expect(textOf(short)).toContain('20 of 23, newest first; `/gateway jobs all` lists them all');
    expect(textOf(short)).toContain('page-23');
    expect(textOf(short)).not.toContain('page-3|');
    await h.gateway('jobs all', { user: ADMIN, channel });
    const all = await h.ephemeral((m) => textOf(m).includes('Jobs in this channel'), {
      user: ADMIN,
      channel,
    });
    expect(textOf(all)).toContain('23 jobs, newest first');
    expect(textOf(all)).toContain('page-1|');
  });
});
