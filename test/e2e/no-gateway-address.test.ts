import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-no-address');
  await bind(h, 'acme-plumbing');
});
afterAll(async () => {
  await h?.close();
});

/** Everything Slack was sent in a message: its text and blocks. */
const shown = (m: { text: string; blocks?: unknown }) => textOf(m as Parameters<typeof textOf>[0]);

describe('the gateway’s address stays out of Slack', () => {
  it('an action whose outcome stays unknown on every attempt: the thread and `jobs` show code and time only', async () => {
    // Every attempt's POST runs and then answers 500: the outcome is unknown each time, and the job gives up.
    h.sandbox.failNext('500_after_action', { method: 'POST', action: 'seo_audit', count: 5 });
    await h.gateway('audit https://acme-plumbing.example/lost');
    const status = await h.slack.waitFor(
      () =>
        h.slack
          .messages(CHANNEL)
          .find((m) => m.text.includes('SEO audit') && /failed/.test(shown(m)) && shown(m).includes('lost')),
      { what: 'the audit marked failed', timeoutMs: 25_000 },
    );
    const thread = await h.slack.waitFor(() => {
      const replies = h.slack.thread(CHANNEL, status.ts);
      return replies.length ? replies : undefined;
    });
    const said = [status, ...thread].map(shown).join('\n');
    expect(said).toContain('gateway_unknown_outcome after gateway_server_error (HTTP 500)');
    expect(said).toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    expect(said).not.toContain('http://127.0.0.1');
    expect(said).not.toContain(h.sandbox.origin);

    // The thread is told just before BullMQ records the job as failed: ask until `jobs` lists it so.
    let jobs = '';
    for (let i = 0; i < 20 && !/:x:|:warning:/.test(jobs); i++) {
      await new Promise((r) => setTimeout(r, 200));
      const before = h.slack.ephemerals(CHANNEL, MEMBER).length;
      await h.gateway('jobs');
      jobs = shown(await h.slack.waitFor(() => h.slack.ephemerals(CHANNEL, MEMBER)[before]));
    }
    expect(jobs).toContain('SEO audit');
    expect(jobs).not.toContain('http://');
  }, 40_000);

  it('a read the gateway refuses without words of its own says its code, not the request line', async () => {
    h.sandbox.setKnobs({ errorRate: 1 });
    try {
      await h.gateway('reviews');
      const reply = await h.ephemeral((m) => shown(m).includes('not answering'), { user: MEMBER });
      expect(shown(reply)).toContain('gateway_server_error (HTTP 500)');
      expect(shown(reply)).not.toContain('http://');
    } finally {
      h.sandbox.setKnobs({ errorRate: 0 });
    }
  });
});
