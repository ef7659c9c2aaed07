import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

/**
 * Who may do what (docs/security.md), through the real bot: the stand-in's users.info and
 * usergroups.users.list tell guests, other workspaces' people and group members apart.
 */

const GUEST = 'UGUEST'; // the stand-in's multi-channel guest
const EXTERNAL = 'UEXTERNAL'; // the stand-in's Slack Connect user from T0PARTNER
const OUTSIDER = 'UOTHER'; // a full member, but not in GATEWAY_MEMBERS
const GROUPIE = 'UGROUPIE'; // a member through the SSEO user group
const APPROVER = 'UAPPROVER'; // an approver through the SAPPROVE user group, not an admin, not a member

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-access', {
    GATEWAY_MEMBERS: `${MEMBER},SSEO`,
    GATEWAY_APPROVERS: 'SAPPROVE',
  });
  h.slack.simulate.setUserGroup('SSEO', [GROUPIE]);
  h.slack.simulate.setUserGroup('SAPPROVE', [APPROVER]);
  h.slack.simulate.addUser({ id: 'USINGLE', name: 'sam', is_ultra_restricted: true });
  await bind(h, 'acme-plumbing');
});
afterAll(async () => {
  await h?.close();
});

const reads = (resource: string) => h.sandbox.requests().filter((r) => r.resource === resource).length;
const posts = (action: string) => h.posts(action).length;
const refusal = (user: string, words: string) =>
  h.ephemeral((m) => textOf(m).includes(words), { user, channel: CHANNEL });
const settle = () => new Promise((r) => setTimeout(r, 300));

describe('the client roster', () => {
  it.each(['clients', 'get clients'])('`%s` is refused to a member and reads nothing', async (command) => {
    const before = reads('clients');
    await h.gateway(command, { user: MEMBER });
    expect(textOf(await refusal(MEMBER, 'Only admins can list the agency’s clients'))).toContain(
      `<@${ADMIN}>`,
    );
    await settle();
    expect(reads('clients')).toBe(before);
  });

  it('is shown to an admin, and its Next button is refused to a member', async () => {
    await h.gateway('clients', { user: ADMIN });
    const reply = await refusal(ADMIN, 'bright-dental');
    expect(textOf(reply)).toContain('acme-plumbing');
    await h.gateway('get clients limit=1', { user: ADMIN });
    // The page is the admin's alone; a member's click on it can only be forged.
    const page = await refusal(ADMIN, 'page_next');
    const before = reads('clients');
    await h.driver.click(page, { actionId: 'page_next' }, { user: MEMBER });
    await refusal(MEMBER, 'Only admins can list the agency’s clients');
    await settle();
    expect(reads('clients')).toBe(before);
  });
});

describe('when Slack cannot say who someone is', () => {
  it('refuses and says to try again, rather than letting anyone through', async () => {
    const user = 'UNEWHIRE';
    h.slack.simulate.ratelimit('users.info', 10, 30);
    const before = posts('seo_audit');
    await h.gateway('audit https://acme-plumbing.example/unchecked', { user });
    const reply = await refusal(user, 'I could not check who you are');
    expect(textOf(reply)).toContain('Try again');
    await settle();
    expect(posts('seo_audit')).toBe(before);
    h.slack.simulate.ratelimit('users.info', 0);
  });
});

describe('guests and other workspaces’ people', () => {
  it.each([
    [GUEST, 'Guests cannot use the gateway bot'],
    ['USINGLE', 'Guests cannot use the gateway bot'],
    [EXTERNAL, 'only for people of the workspace it is installed in'],
  ])(
    '%s is refused every command, reads and actions alike, and nothing reaches the gateway',
    async (user, words) => {
      const readsBefore = reads('keywords');
      const postsBefore = posts('seo_audit');
      for (const command of ['help', 'keywords', 'audit https://acme-plumbing.example/guest']) {
        const before = h.slack.ephemerals(CHANNEL, user).length;
        await h.gateway(command, { user });
        const reply = await h.slack.waitFor(() => h.slack.ephemerals(CHANNEL, user)[before]);
        expect(textOf(reply)).toContain(words);
      }
      await settle();
      expect(reads('keywords')).toBe(readsBefore);
      expect(posts('seo_audit')).toBe(postsBefore);
      // Who someone is is asked once and remembered for a few minutes, not per command.
      const lookups = h.slack.calls.filter((c) => c.method === 'users.info' && c.args.user === user);
      expect(lookups).toHaveLength(1);
    },
  );

  it('a guest’s or an external user’s click on a page button is refused and the page stays', async () => {
    await h.gateway('keywords order=tracked_at', { user: MEMBER });
    const page = await h.message((m) => m.text.includes('keywords') && m.text.includes('1–20'));
    const before = reads('keywords');
    for (const [user, words] of [
      [GUEST, 'Guests cannot'],
      [EXTERNAL, 'only for people of the workspace'],
    ] as const) {
      await h.driver.click(page, { actionId: 'page_next' }, { user });
      await refusal(user, words);
    }
    await settle();
    expect(reads('keywords')).toBe(before);
    expect(h.slack.messages(CHANNEL).find((m) => m.ts === page.ts)?.text).toContain('1–20');
  });

  it('a submission from a guest runs nothing and says why by direct message', async () => {
    await h.gateway('blog', { user: MEMBER });
    const view = await h.openModal(/blog/i, MEMBER);
    const before = posts('generate_blog');
    await h.driver.submit(view, { keyword: 'guest blog' }, { user: GUEST });
    await h.slack.waitFor(() =>
      h.slack.messages(`D${GUEST}`).find((m) => textOf(m).includes('Guests cannot use the gateway bot')),
    );
    await settle();
    expect(posts('generate_blog')).toBe(before);
  });
});

describe('Enterprise Grid', () => {
  it('a user of another workspace of the org who also belongs to this one is not refused as external', async () => {
    h.slack.simulate.addUser({
      id: 'UGRID',
      name: 'gus',
      team_id: 'T0SISTER',
      enterprise_teams: ['T0SISTER', h.slack.teamId],
    });
    h.slack.simulate.addUser({
      id: 'UGRIDOUT',
      name: 'gia',
      team_id: 'T0SISTER',
      enterprise_teams: ['T0SISTER'],
    });
    await h.gateway('help', { user: 'UGRID' });
    await h.ephemeral((m) => textOf(m).includes('/gateway keywords'), { user: 'UGRID' });
    await h.gateway('help', { user: 'UGRIDOUT' });
    await refusal('UGRIDOUT', 'only for people of the workspace it is installed in');
  });
});

describe('GATEWAY_MEMBERS', () => {
  it('refuses an action to a full member who is not listed, who may still read', async () => {
    const before = posts('seo_audit');
    await h.gateway('audit https://acme-plumbing.example/outsider', { user: OUTSIDER });
    const refused = await refusal(OUTSIDER, 'not among the people who may run actions');
    // The refusal names the people who can help, not a configuration variable.
    expect(textOf(refused)).toContain(`<@${ADMIN}>`);
    expect(textOf(refused)).not.toContain('GATEWAY_');
    await h.gateway('reviews', { user: OUTSIDER });
    await h.message((m) => m.text.includes('reviews for'));
    await settle();
    expect(posts('seo_audit')).toBe(before);
  });

  it('lets a member of a listed user group run an action', async () => {
    const before = posts('seo_audit');
    await h.gateway('audit https://acme-plumbing.example/groupie', { user: GROUPIE });
    await h.slack.waitFor(() => h.posts('seo_audit')[before], { what: 'the group member’s POST' });
    expect(h.posts('seo_audit')[before]?.fields).toMatchObject({
      url: 'https://acme-plumbing.example/groupie',
    });
  });
});

describe('actions only discovery lists', () => {
  it('run for admins only until GATEWAY_ALLOWED_ACTIONS names them', async () => {
    const before = posts('generate_faq');
    await h.gateway('run generate_faq topic="drain care"', { user: MEMBER });
    await refusal(MEMBER, '`generate_faq` is new on the gateway');
    await settle();
    expect(posts('generate_faq')).toBe(before);
    await h.gateway('run generate_faq topic="drain care"', { user: ADMIN });
    await h.slack.waitFor(() => h.posts('generate_faq')[before], { what: 'the admin’s POST' });
  });
});

describe('Retry', () => {
  it('is refused to someone else, and works for an approver', async () => {
    h.sandbox.failNext('status_error', { method: 'POST', action: 'index_url' });
    await h.gateway('index https://acme-plumbing.example/retry-access', { user: MEMBER });
    const { thread } = await h.settled(
      (m) => m.text.includes('retry-access') && /failed|:x:/.test(textOf(m)),
    );
    const withButton = thread.find((m) => textOf(m).includes('job_retry'));
    if (!withButton) throw new Error('no Retry button in the thread');
    const before = posts('index_url');
    await h.driver.click(withButton, { actionId: 'job_retry' }, { user: OUTSIDER });
    await refusal(OUTSIDER, 'Only the person who asked for this job, an admin or an approver');
    await settle();
    expect(posts('index_url')).toBe(before);
    // The refused click used nothing up: an approver's click still runs one new job.
    await h.driver.click(withButton, { actionId: 'job_retry' }, { user: APPROVER });
    await h.slack.waitFor(() => h.posts('index_url')[before], { what: 'the approver’s retry' });
  });
});
