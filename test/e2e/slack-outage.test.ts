/**
 * A Slack outage must not hide successes from the ledger: while Slack answers 503 or never
 * answers, a job that succeeds at the gateway records its success at once, and once Slack is back the job
 * posts its result without a second POST. The worker's Slack client gives up within seconds, not half an hour.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionLedger, type LedgerEntry } from '../../src/store/ledger.js';
import { bind, CHANNEL, type Harness, startHarness, textOf } from '../helpers/bot-harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-slack-outage');
  await bind(h, 'harbor-law');
});
afterAll(async () => {
  h.slack.simulate.restore();
  await h?.close();
});

async function ledgerEntry(jobKey: string, timeoutMs: number): Promise<LedgerEntry | undefined> {
  const ledger = new ActionLedger(h.runtime.services.redis, h.prefix);
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    const entry = await ledger.findByJob(jobKey);
    if (entry) return entry;
    await new Promise((r) => setTimeout(r, 25));
  }
  return undefined;
}

describe('Slack down while a job succeeds at the gateway', () => {
  it.each([
    ['answering 503', 'error'],
    ['not answering at all', 'hang'],
  ] as const)(
    'Slack %s: the ledger has the record at once, and the result is posted once Slack is back',
    async (_what, mode) => {
      const url = `https://harbor-law.example/slack-outage-${mode}`;
      const before = h.posts('seo_audit').length;
      // The web role's "queued" message is a chat.postMessage; every update the worker makes is a chat.update.
      h.slack.simulate.outage(['chat.update'], mode);
      const sent = await h.gateway(`audit ${url}`);
      await h.slack.waitFor(() => h.posts('seo_audit')[before], { what: 'the audit POST' });

      const recorded = await ledgerEntry(`cmd-${sent.triggerId}`, 3_000);
      expect(recorded?.fields).toMatchObject({ url });
      // Slack is still down: the status message has not moved past "queued".
      const status = h.slack.messages(CHANNEL).find((m) => m.text.includes(url));
      expect(status && textOf(status)).toMatch(/queued/);
      expect(h.slack.calls.some((c) => c.method === 'chat.update' && c.error === `outage_${mode}`)).toBe(
        true,
      );

      h.slack.simulate.restore();
      const { thread } = await h.settled(
        (m) => m.text.includes(url) && /done|:white_check_mark:/.test(textOf(m)),
      );
      expect(thread.length).toBeGreaterThanOrEqual(1);
      expect(h.posts('seo_audit').filter((p) => p.fields?.url === url)).toHaveLength(1);
    },
  );
});
