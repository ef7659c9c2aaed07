import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_LANE } from '../../src/commands/gateway-command.js';
import { bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

/** Which answer goes first when answers are waiting: a form's trigger_id dies 3 s after its command. */

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-answer-order');
  await bind(h, 'harbor-law');
});
afterAll(async () => {
  await h?.close();
});

describe('answers behind a backlog', () => {
  it('opens a form in time even when earlier answers are still waiting their turn', async () => {
    const answers = h.runtime.services.answers;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Every running slot held a moment, and behind them answers of half a second each: in arrival order the
    // form's turn would come about 4 s after its command, its trigger_id dead.
    for (let i = 0; i < 16; i++) answers.offer(LOCAL_LANE, () => held);
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 120; i++)
      answers.offer(LOCAL_LANE, () => new Promise<void>((resolve) => setTimeout(resolve, 500)));
    try {
      const sent = await h.gateway('blog');
      expect(sent.status).toBe(200);
      setTimeout(release, 200);
      const form = await h.openModal();
      expect(form.trigger_id).toBe(sent.triggerId);
      expect(h.slack.ephemerals(CHANNEL, MEMBER).map(textOf).join('\n')).not.toContain('in time');
    } finally {
      release();
      await answers.drain();
    }
  });
});
