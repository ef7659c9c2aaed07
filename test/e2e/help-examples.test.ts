import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

/** `help` itself: it lists `run <action>`, explains itself, and every example it shows works on the sandbox. */

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-help-examples');
  await bind(h, 'acme-plumbing');
});
afterAll(async () => {
  await h?.close();
});

const decode = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('help', () => {
  it('lists `run <action>` and explains it, and `help help` explains help', async () => {
    await h.gateway('help');
    const full = await h.ephemeral((m) => textOf(m).includes('Gateway bot commands'));
    expect(textOf(full)).toContain('`/gateway run &lt;action&gt; [field=value …]`');
    await h.gateway('help run');
    const run = await h.ephemeral((m) => textOf(m).includes('Usage: `/gateway run &lt;action&gt;'));
    expect(textOf(run)).toContain('new ones included');
    // The actions `run` can run, from the gateway's own list, new ones included.
    expect(textOf(run)).toMatch(/Actions: .*`generate_faq`.*`seo_audit`/);
    await h.gateway('help get');
    const get = await h.ephemeral((m) => textOf(m).includes('Usage: `/gateway get &lt;resource&gt;'));
    expect(textOf(get)).toMatch(/Resources: .*`backlinks`.*`reviews`.*`seo_tasks`/);
    await h.gateway('help fooo');
    const unknown = await h.ephemeral((m) => textOf(m).includes('no `fooo` command'));
    expect(textOf(unknown)).toContain('`/gateway help` lists every command');
    await h.gateway('help help');
    const help = await h.ephemeral((m) => textOf(m).includes('Usage: `/gateway help [command]`'));
    expect(textOf(help)).not.toContain(':warning:');
  });

  it('`help digest` lists the filters and `tz=`, and `help digest now` is the digest help', async () => {
    await h.gateway('help digest');
    const digest = await h.ephemeral((m) => textOf(m).includes('Usage: `/gateway digest'));
    for (const filter of [
      'sentiment=',
      'rating&lt;=N',
      'min_change=N',
      'top=N',
      'keyword~text',
      'tz=Area/City',
    ])
      expect(textOf(digest)).toContain(filter);
    const before = h.slack.ephemerals(CHANNEL, MEMBER).length;
    await h.gateway('help digest now');
    const now = await h.ephemeral(
      (m) => h.slack.ephemerals(CHANNEL, MEMBER).indexOf(m) >= before && textOf(m).includes('Usage:'),
    );
    expect(textOf(now)).toContain('digest now reviews|rankings');
    expect(textOf(now)).not.toContain('There is no');
  });

  it('every example in help works against the sandbox', async () => {
    await h.gateway('help', { user: ADMIN });
    const full = await h.ephemeral((m) => textOf(m).includes('Gateway bot commands'), { user: ADMIN });
    const mrkdwn = ((full.blocks ?? []) as Array<{ text?: { text?: string } }>)
      .map((b) => b.text?.text ?? '')
      .join('\n');
    const examples = [...mrkdwn.matchAll(/e\.g\. `\/gateway ([^`]+)`/g)].map((m) => decode(m[1] ?? ''));
    expect(examples.length).toBeGreaterThan(30);
    const failures: string[] = [];
    for (const example of examples) {
      const eph = h.slack.ephemerals(CHANNEL, ADMIN).length;
      const msgs = h.slack.messages(CHANNEL).length;
      const views = h.slack.views(ADMIN).length;
      const gets = h.sandbox.requests().length;
      await h.gateway(example, { user: ADMIN });
      await h.slack.waitFor(
        () =>
          h.slack.ephemerals(CHANNEL, ADMIN).length > eph ||
          h.slack.messages(CHANNEL).length > msgs ||
          h.slack.views(ADMIN).length > views ||
          undefined,
        { what: `an answer to ${example}`, timeoutMs: 10_000 },
      );
      await pause(250);
      const answers = h.slack.ephemerals(CHANNEL, ADMIN).slice(eph).map(textOf);
      const posted = h.slack.messages(CHANNEL).slice(msgs);
      // A guarded action's example asks for an approval: its card is what the example shows, not an error.
      const errors = answers.filter((t) => t.includes(':warning:') && !t.includes('approval'));
      if (errors.length > 0) failures.push(`${example}: ${errors[0]?.slice(0, 300)}`);
      if (posted.some((m) => textOf(m).includes('No rows'))) failures.push(`${example}: no rows`);
      // An action's job: its POST reaches the sandbox and succeeds.
      if (posted.some((m) => /hourglass|queued/i.test(textOf(m)))) {
        const post = await h.slack.waitFor(
          () =>
            h.sandbox
              .requests()
              .slice(gets)
              .find((r) => r.method === 'POST' && r.status > 0),
          { what: `the POST of ${example}`, timeoutMs: 10_000 },
        );
        if (post.status !== 200) failures.push(`${example}: POST answered ${post.status}`);
      }
    }
    expect(failures).toEqual([]);
    // Over 30 examples, each a command and a quarter-second pause: 13-14 s on a loaded machine, so more than
    // the default 20 s; each step keeps its own 10 s limit.
  }, 60_000);
});

describe('commands that take no words', () => {
  it('report the words they ignored instead of dropping them', async () => {
    await h.gateway('status please', { user: MEMBER });
    const note = await h.ephemeral((m) => textOf(m).includes('ignored'));
    expect(textOf(note)).toContain('`/gateway status` takes nothing after its name, so I ignored `please`.');
    await h.ephemeral((m) => textOf(m).includes('Client:'));
  });

  it('`digest status` with words after it answers, and names the words it ignored (not the subscribe usage)', async () => {
    await h.gateway('digest status extra', { user: MEMBER });
    const note = await h.ephemeral((m) => textOf(m).includes('digest status` takes'));
    expect(textOf(note)).toContain(
      '`/gateway digest status` takes nothing after its name, so I ignored `extra`.',
    );
    expect(textOf(note)).not.toContain('daily|weekly');
    await h.ephemeral((m) => /digest/i.test(textOf(m)) && !textOf(m).includes('ignored'));
  });
});
