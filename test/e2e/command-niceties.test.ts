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

  it('refuses `keywords desc asc` naming both directions, rather than picking one unsaid', async () => {
    const refused = await newEphemeral(
      MEMBER,
      () => h.gateway('keywords limit=2 desc asc', { user: MEMBER }),
      /direction/,
    );
    expect(textOf(refused)).toContain('Both `desc` and `asc`');
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
