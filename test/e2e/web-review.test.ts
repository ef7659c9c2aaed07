import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-web-review');
  await bind(h, 'acme-plumbing');
});
afterAll(async () => {
  await h?.close();
});

const posts = (action: string) => h.posts(action);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const openModal = (title: RegExp) => h.openModal(title);

describe('commands that used to answer with the wrong thing', () => {
  it('`run` without an action asks for one and lists them, instead of "no `run` command"', async () => {
    await h.gateway('run');
    const reply = await h.ephemeral((m) => textOf(m).includes('needs an action name'));
    expect(textOf(reply)).toContain('seo_audit');
    expect(textOf(reply)).not.toContain('no `run` command');
  });

  it('`run` with a mistyped action suggests the closest one', async () => {
    await h.gateway('run seo_audti');
    const reply = await h.ephemeral((m) => textOf(m).includes('seo_audti'));
    expect(textOf(reply)).toContain('/gateway run seo_audit');
  });

  it('`help audit` and `help backlinks refresh` show the usage once prefixed', async () => {
    await h.gateway('help audit');
    const audit = await h.ephemeral((m) => textOf(m).includes('Example:') && textOf(m).includes('audit'));
    expect(textOf(audit)).toContain('/gateway audit');
    expect(textOf(audit)).not.toContain('/gateway /gateway');
    await h.gateway('help backlinks refresh');
    const refresh = await h.ephemeral((m) => textOf(m).includes('Example:') && textOf(m).includes('refresh'));
    expect(textOf(refresh)).toContain('/gateway backlinks refresh');
    expect(textOf(refresh)).not.toContain('/gateway /gateway');
  });
});

describe('binding', () => {
  it('re-binding to the same client changes nothing and announces nothing again', async () => {
    const announced = () => h.slack.messages(CHANNEL).filter((m) => m.text.includes('now bound')).length;
    const before = announced();
    await h.gateway('use acme-plumbing', { user: ADMIN });
    const reply = await h.ephemeral((m) => textOf(m).includes('already bound'), { user: ADMIN });
    expect(textOf(reply)).toContain('acme-plumbing');
    expect(announced()).toBe(before);
  });

  it('binding a channel the bot is not in says the binding holds and how to invite it', async () => {
    const channel = 'CNOTIN';
    await h.gateway('status', { channel });
    await h.ephemeral(() => true, { channel });
    h.slack.simulate.removeBotFrom(channel);
    await h.gateway('use bright-dental', { user: ADMIN, channel });
    const reply = await h.ephemeral((m) => textOf(m).includes('/invite'), { user: ADMIN, channel });
    expect(textOf(reply)).toContain('now bound to');
    expect((await h.runtime.services.bindings.get(channel))?.clientId).toBe('bright-dental');
  });
});

describe('modal submissions', () => {
  const geo = { keyword: 'leak repair', city: 'Austin', state: 'TX' };

  it('a form opened for one client is not run after the channel was re-bound to another', async () => {
    const channel = 'CREBIND';
    await bind(h, 'acme-plumbing', channel);
    await h.gateway('geo', { channel });
    const view = await openModal(/geo/i);
    await bind(h, 'bright-dental', channel);
    const before = posts('generate_geo_article').length;
    await h.driver.submit(view, geo, { user: MEMBER });
    const reply = await h.ephemeral((m) => textOf(m).includes('another client'), { channel });
    expect(textOf(reply)).toContain('Nothing was run');
    await pause(300);
    expect(posts('generate_geo_article').length).toBe(before);
    expect(h.slack.messages(channel).some((m) => textOf(m).includes('Geo article'))).toBe(false);
  });

  it('a form submitted after the bot was removed from the channel still gets an answer, by DM', async () => {
    const channel = 'CREMOVED';
    await bind(h, 'acme-plumbing', channel);
    await h.gateway('geo', { channel });
    const view = await openModal(/geo/i);
    h.slack.simulate.removeBotFrom(channel);
    await h.driver.submit(view, { ...geo, keyword: 'slab leak' }, { user: MEMBER });
    const dm = await h.slack.waitFor(
      () => h.slack.messages(`D${MEMBER}`).find((m) => textOf(m).includes('/invite')),
      { what: 'a DM saying the bot is not in the channel' },
    );
    expect(textOf(dm)).toContain('not in this channel');
  });
});

describe('buttons', () => {
  it('"Generate another" after "Cancel" says nothing more was generated', async () => {
    const before = posts('generate_blog').length;
    await h.gateway('blog "sump pump basics" tone=plain');
    await h.slack.waitFor(() => posts('generate_blog')[before], { what: 'the first blog POST' });
    await h.message((m) => m.text.includes('sump pump') && /done|white_check_mark/.test(textOf(m)));
    await h.gateway('blog "sump pump basics" tone=plain');
    const prompt = await h.ephemeral((m) => textOf(m).includes('already exists'));
    await h.driver.click(prompt, { actionId: 'duplicate_cancel' }, { user: MEMBER });
    await h.driver.click(prompt, { actionId: 'duplicate_confirm' }, { user: MEMBER });
    const reply = await h.ephemeral((m) => textOf(m).includes('already answered'));
    expect(textOf(reply)).toContain('run the command again');
    await pause(300);
    expect(posts('generate_blog').length).toBe(before + 1);
  });
});
