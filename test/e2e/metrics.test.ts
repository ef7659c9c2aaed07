import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_LANE } from '../../src/commands/gateway-command.js';
import { bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

/** /metrics as Prometheus sees it, after real traffic through the stand-in and the sandbox. */

let h: Harness;
const scrape = async () => {
  const res = await request(`http://127.0.0.1:${h.runtime.port}/metrics`);
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.body.text();
};
/** The value of one series, or undefined when it is not there. */
const value = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};
/** Scrapes until every series has reached its least value (a job's end is counted just after its reply). */
async function scrapeOnce(least: Record<string, number>): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const text = await scrape();
    const behind = Object.entries(least).filter(([series, n]) => (value(text, series) ?? 0) < n);
    if (!behind.length) return text;
    if (Date.now() > deadline)
      throw new Error(`series never reached their values: ${JSON.stringify(behind)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const done = (label: string) =>
  h.settled((m) => m.text.includes(label) && /done|:white_check_mark:/.test(textOf(m)));

beforeAll(async () => {
  h = await startHarness('e2e-metrics');
  await bind(h, 'harbor-law');
});
afterAll(async () => {
  await h?.close();
});

describe('/metrics', () => {
  it('has the process metrics and every bot metric registered, before anything happened to some', async () => {
    const text = await scrape();
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    for (const name of ['approvals_total', 'digests_posted_total', 'reconciliations_total', 'retries_total'])
      expect(text).toContain(`# TYPE gateway_bot_${name} counter`);
    expect(text).toContain('# TYPE gateway_bot_job_duration_seconds histogram');
    expect(text).toMatch(/^bullmq_job_count\{queue="actions", state="waiting"\} \d+$/m);
  });

  it('counts acks, commands, gateway calls by method and status, and job durations', async () => {
    await h.runAction('blog "estate planning basics" tone=plain');
    await done('estate planning basics');
    const text = await scrapeOnce({
      'gateway_bot_job_duration_seconds_count{queue="actions",outcome="done"}': 1,
    });
    expect(value(text, 'gateway_bot_ack_duration_seconds_count{kind="command"}')).toBeGreaterThanOrEqual(2);
    expect(value(text, 'gateway_bot_commands_total{command="use",outcome="ok"}')).toBe(1);
    expect(value(text, 'gateway_bot_gateway_requests_total{method="POST",status="200"}')).toBe(1);
    expect(value(text, 'gateway_bot_gateway_requests_total{method="GET",status="200"}')).toBeGreaterThan(0);
    expect(
      value(text, 'gateway_bot_gateway_request_duration_seconds_count{method="POST",status="200"}'),
    ).toBe(1);
    expect(value(text, 'gateway_bot_job_duration_seconds_count{queue="actions",outcome="done"}')).toBe(1);
    expect(value(text, 'gateway_bot_actions_enqueued_total{action="generate_blog",repeat="false"}')).toBe(1);
  });

  it('counts a failed POST, its reconciliation and the job retry with their outcomes', async () => {
    h.sandbox.failNext('500', { method: 'POST', action: 'generate_blog' });
    await h.runAction('blog "trust administration" tone=plain');
    await done('trust administration');
    h.sandbox.failNext('500_after_action', { method: 'POST', action: 'generate_blog' });
    await h.runAction('blog "power of attorney" tone=plain');
    await done('power of attorney');
    const text = await scrapeOnce({
      'gateway_bot_job_duration_seconds_count{queue="actions",outcome="done"}': 3,
    });
    expect(value(text, 'gateway_bot_gateway_requests_total{method="POST",status="500"}')).toBe(2);
    // After the 500 the job looks (nothing), retries, and looks again before it may POST: at least once.
    expect(value(text, 'gateway_bot_reconciliations_total{outcome="absent"}')).toBeGreaterThanOrEqual(1);
    expect(value(text, 'gateway_bot_reconciliations_total{outcome="found"}')).toBe(1);
    expect(value(text, 'gateway_bot_retries_total{source="job",reason="job_outcome_absent_retry"}')).toBe(1);
    expect(h.posts('generate_blog')).toHaveLength(4);
  });

  it('counts a GET retry by its error code, and never puts user text, ids or URLs in a label', async () => {
    h.sandbox.failNext('500', { method: 'GET' });
    await h.gateway('keywords');
    await h.message((m) => /keyword/i.test(textOf(m)));
    await h.gateway('no-such-command "https://evil.example/<@U123>"');
    await h.ephemeral((m) => textOf(m).includes('no-such-command'));
    const text = await scrape();
    expect(text).toMatch(
      /gateway_bot_retries_total\{source="gateway_get",reason="gateway_server_error"\} [1-9]/,
    );
    expect(value(text, 'gateway_bot_commands_total{command="unknown",outcome="error"}')).toBe(1);
    for (const leak of ['no-such-command', 'evil.example', 'harbor-law', CHANNEL, MEMBER, 'estate planning'])
      expect(text).not.toContain(leak);
  });

  it('tells a person when the answer queue is full, and counts the refusal as busy, not as an answer', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const answers = h.runtime.services.answers;
    // Full: every running slot taken (they start on the next turn) and every waiting place.
    while (answers.offer(LOCAL_LANE, () => held)) {}
    try {
      const before = value(await scrape(), 'gateway_bot_commands_total{command="help",outcome="ok"}') ?? 0;
      while (answers.offer(LOCAL_LANE, () => held)) {}
      const sent = await h.gateway('help');
      expect(sent.status).toBe(200);
      const refusal = await h.ephemeral((m) => textOf(m).includes('very busy'));
      expect(textOf(refusal)).toContain('Try again in a minute');
      const text = await scrape();
      expect(value(text, 'gateway_bot_commands_total{command="busy",outcome="refused"}')).toBe(1);
      expect(value(text, 'gateway_bot_commands_total{command="help",outcome="ok"}') ?? 0).toBe(before);
    } finally {
      release();
      await answers.drain();
    }
  });
});
