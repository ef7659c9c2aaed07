import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bind, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

/** `use`: a mistyped client id gets a suggestion, and re-binding a bound channel asks first. */

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-setup-binding');
});
afterAll(async () => {
  await h?.close();
});

const boundTo = async (channel: string) => (await h.runtime.services.bindings.get(channel))?.clientId;

describe('use with an unknown client id', () => {
  it('says there is no such client and suggests the closest id, checking the client list first', async () => {
    const from = h.sandbox.requests().length;
    await h.gateway('use acme', { user: ADMIN, channel: 'CTYPO' });
    const reply = await h.ephemeral((m) => textOf(m).includes('No client'), {
      user: ADMIN,
      channel: 'CTYPO',
    });
    expect(textOf(reply)).toContain('No client `acme`.');
    expect(textOf(reply)).toContain('Did you mean `acme-plumbing`?');
    expect(textOf(reply)).not.toMatch(/regenerat|scope/i);
    const clientReads = h.sandbox
      .requests()
      .slice(from)
      .filter((r) => r.resource === 'clients');
    expect(clientReads.length).toBeGreaterThanOrEqual(2);
    expect(await boundTo('CTYPO')).toBeUndefined();
  });

  it('suggests a client by a word of its name', async () => {
    await h.gateway('use dental', { user: ADMIN, channel: 'CTYPO' });
    const reply = await h.ephemeral((m) => textOf(m).includes('No client `dental`'), {
      user: ADMIN,
      channel: 'CTYPO',
    });
    expect(textOf(reply)).toContain('Did you mean `bright-dental`?');
  });
});

describe('re-binding a bound channel', () => {
  it('names the client bound now and asks with buttons; nothing changes until an admin confirms', async () => {
    await bind(h, 'acme-plumbing', 'CREBIND');
    await h.gateway('use bright-dental', { user: ADMIN, channel: 'CREBIND' });
    const question = await h.ephemeral((m) => textOf(m).includes('Bind it to'), {
      user: ADMIN,
      channel: 'CREBIND',
    });
    expect(textOf(question)).toContain('Acme Plumbing &amp; Heating');
    expect(textOf(question)).toContain('`acme-plumbing`');
    expect(textOf(question)).toContain('Bright Dental Studio');
    expect(await boundTo('CREBIND')).toBe('acme-plumbing');
    // A copy as the admin's Slack may still show it after the answer replaced it.
    const stale = structuredClone(question);

    await h.driver.click(question, { actionId: 'rebind_confirm' }, { user: MEMBER });
    await h.ephemeral((m) => textOf(m).includes('Only admins'), { user: MEMBER, channel: 'CREBIND' });
    expect(await boundTo('CREBIND')).toBe('acme-plumbing');

    await h.driver.click(question, { actionId: 'rebind_confirm' }, { user: ADMIN });
    await h.message((m) => m.text.includes('now bound to') && m.text.includes('bright-dental'), 'CREBIND');
    expect(await boundTo('CREBIND')).toBe('bright-dental');

    // The same question clicked again is stale: the channel is no longer bound to Acme.
    await h.driver.click(stale, { actionId: 'rebind_confirm' }, { user: ADMIN });
    await h.ephemeral((m) => textOf(m).includes('binding changed'), { user: ADMIN, channel: 'CREBIND' });
    expect(await boundTo('CREBIND')).toBe('bright-dental');
  });

  it('keeps the binding when the admin chooses Keep', async () => {
    await bind(h, 'harbor-law', 'CKEEP');
    await h.gateway('use acme-plumbing', { user: ADMIN, channel: 'CKEEP' });
    const question = await h.ephemeral((m) => textOf(m).includes('Bind it to'), {
      user: ADMIN,
      channel: 'CKEEP',
    });
    const posted = h.slack.messages('CKEEP').length;
    await h.driver.click(question, { actionId: 'rebind_cancel' }, { user: ADMIN });
    const kept = await h.slack.waitFor(
      () => h.slack.ephemerals('CKEEP', ADMIN).find((m) => textOf(m).includes('nothing changed')),
      { what: 'the kept answer' },
    );
    expect(kept.text).toBe('Kept Harbor Law Group (`harbor-law`): nothing changed.');
    expect(await boundTo('CKEEP')).toBe('harbor-law');
    expect(h.slack.messages('CKEEP').length).toBe(posted);
  });
});

describe('an unbound channel', () => {
  it('tells an admin to bind it, and a member to ask an admin (named)', async () => {
    await h.gateway('audit https://acmeplumbing.example/', { user: ADMIN, channel: 'CNEW' });
    const toAdmin = await h.ephemeral((m) => textOf(m).includes('not bound'), {
      user: ADMIN,
      channel: 'CNEW',
    });
    expect(textOf(toAdmin)).toContain('Bind it with `/gateway use &lt;client_id&gt;`');
    expect(textOf(toAdmin)).not.toContain('Ask an admin');
    await h.gateway('audit https://acmeplumbing.example/', { user: MEMBER, channel: 'CNEW' });
    const toMember = await h.ephemeral((m) => textOf(m).includes('not bound'), {
      user: MEMBER,
      channel: 'CNEW',
    });
    expect(textOf(toMember)).toContain('Ask an admin to run');
    expect(textOf(toMember)).toContain(`<@${ADMIN}>`);
  });
});
