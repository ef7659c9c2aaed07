import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, CHANNEL, MEMBER, textOf } from '../helpers/bot-harness.js';
import { type CommandHarness, commandHarness } from '../helpers/command-harness.js';

/**
 * One example per surface of the command test harness: a listener called with Bolt's arguments, no Bolt app,
 * no HTTP receiver and no workers, its answers read back from the Slack stand-in.
 */

let h: CommandHarness;

beforeAll(async () => {
  h = await commandHarness('command-harness');
}, 30_000);
afterAll(async () => {
  await h?.close();
});

describe('the command test harness', () => {
  it('commands/: `/gateway help` acks once and answers ephemerally', async () => {
    const { acks } = await h.command('help');
    expect(acks).toBe(1);
    const answer = await h.slack.waitFor(
      () => h.slack.ephemerals(CHANNEL, MEMBER).find((m) => textOf(m).includes('/gateway audit')),
      { what: 'the help answer' },
    );
    expect(answer.ephemeral).toBe(true);
  });

  it('interactions/: Next on a page the command posted turns it in place', async () => {
    await h.command('use acme-plumbing', { user: ADMIN });
    await h.slack.waitFor(() => h.slack.messages(CHANNEL).find((m) => /bound/i.test(m.text)), {
      what: 'the binding message',
    });
    await h.command('get keywords order=created_at');
    const page = await h.slack.waitFor(() => h.slack.messages(CHANNEL).find((m) => m.text.includes('1–20')), {
      what: 'the first page',
    });
    const { acks } = await h.click(page, 'Next');
    expect(acks).toBe(1);
    await h.slack.waitFor(
      () => h.slack.messages(CHANNEL).find((m) => m.ts === page.ts && m.text.includes('21–40')),
      { what: 'page 2 in place' },
    );
  });
});
