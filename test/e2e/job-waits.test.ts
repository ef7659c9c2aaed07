import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import { ADMIN, bind, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

/**
 * A queued job says why it waits and about how long, and its requester (or an admin) can cancel it from its
 * message while it has not started. The action rate is one POST every 20 s here, so the second job waits.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-job-waits', { GATEWAY_ACTION_RATE: '1/20s' });
  await bind(h, 'harbor-law');
});
afterAll(async () => {
  await h?.close();
});

const statusOf = (word: string) => h.message((m) => m.text.includes(word) && m.text.includes('requested by'));
const posts = (action: string) => h.posts(action);

describe('a queued job', () => {
  let queued: FakeMessage;

  it('says why it waits and about how long, with a Cancel button', async () => {
    await h.gateway('audit https://harbor-law.example/first');
    await h.message((m) => m.text.includes('/first') && m.text.includes('— done'));
    await h.gateway('map "wills and probate" depth=2');
    queued = await statusOf('wills and probate');
    expect(queued.text).toMatch(
      /^Topical map of “wills and probate” for Harbor Law Group, requested by <@UMEMBER> — queued: 1 action every 20 s, about (1\d|2[01]) s$/,
    );
    expect(JSON.stringify(queued.blocks)).toMatch(/"action_id":"job_cancel","value":"[^"]+"/);
  });

  it('refuses Cancel from someone who neither asked for it nor is an admin, and it stays queued', async () => {
    await h.driver.click(queued, { actionId: 'job_cancel' }, { user: 'UOTHER' });
    const refusal = await h.ephemeral((m) => textOf(m).includes('cancel'), { user: 'UOTHER' });
    expect(textOf(refusal)).toContain('Only the person who asked for this job or an admin can cancel it');
    expect((await statusOf('wills and probate')).text).toMatch(/— queued/);
  });

  it('is cancelled by its requester before it starts: the message says so and nothing reaches the gateway', async () => {
    await h.driver.click(queued, { actionId: 'job_cancel' }, { user: MEMBER });
    const cancelled = await h.message(
      (m) => m.text.includes('wills and probate') && m.text.includes('cancelled'),
    );
    expect(cancelled.text).toMatch(/— cancelled$/);
    expect(textOf(cancelled)).toContain(
      'cancelled by <@UMEMBER> before it started; nothing was sent to the gateway',
    );
    expect(JSON.stringify(cancelled.blocks)).not.toContain('job_cancel');
    await new Promise((r) => setTimeout(r, 300));
    expect(posts('generate_topical_map')).toEqual([]);
    await h.gateway('jobs');
    const list = await h.ephemeral((m) => textOf(m).includes('Jobs in this channel'));
    expect(textOf(list)).toContain(
      'Topical map of “wills and probate” · <@UMEMBER> · cancelled by <@UMEMBER>',
    );
  });

  it('an admin may cancel anyone’s queued job', async () => {
    await h.gateway('gbp "Free will week"');
    const message = await statusOf('Free will week');
    expect(message.text).toMatch(/— queued: 1 action every 20 s, about \d+ s$/);
    await h.driver.click(message, { actionId: 'job_cancel' }, { user: ADMIN });
    const cancelled = await h.message(
      (m) => m.text.includes('Free will week') && m.text.includes('cancelled'),
    );
    expect(textOf(cancelled)).toContain('cancelled by <@UADMIN>');
    expect(posts('generate_gbp_post')).toEqual([]);
  });

  it('says so when Cancel is pressed after the job started, and the job runs to its end', async () => {
    await h.gateway('index https://harbor-law.example/started');
    const waiting = structuredClone(await statusOf('/started'));
    expect(waiting.text).toMatch(/— queued/);
    // The window opens again and the job starts; a press on the queued message's button comes too late.
    await h.slack.waitFor(() => posts('index_url')[0], { what: 'the index POST', timeoutMs: 25_000 });
    await h.driver.click(waiting, { actionId: 'job_cancel' }, { user: MEMBER });
    const late = await h.ephemeral((m) => /already (started|ended)/.test(textOf(m)));
    expect(textOf(late)).toMatch(
      /This job has already started, so it can no longer be cancelled|already ended/,
    );
    await h.message((m) => m.text.includes('/started') && m.text.includes('— done'));
    expect(posts('index_url')).toHaveLength(1);
  }, 40_000);
});

describe('the waits of jobs queued together', () => {
  it('grow with the jobs ahead', async () => {
    const channel = 'CWAITS';
    await bind(h, 'bright-dental', channel);
    for (const topic of ['implants', 'veneers', 'braces']) {
      await h.gateway(`map "${topic}"`, { user: ADMIN, channel });
      await h.message((m) => m.text.includes(`“${topic}”`), channel);
    }
    const texts = await h.slack.waitFor(
      () => {
        const found = ['implants', 'veneers', 'braces'].map(
          (t) =>
            h.slack.messages(channel).find((m) => m.text.includes(`“${t}”`) && m.text.includes('queued'))
              ?.text,
        );
        return found.every(Boolean) ? (found as string[]) : undefined;
      },
      { what: 'three queued messages' },
    );
    const seconds = texts.map(
      (t) => Number(/about (\d+) (s|min)/.exec(t)?.[1] ?? 0) * (/min$/.test(t) ? 60 : 1),
    );
    expect(texts[1]).toMatch(/\d ahead/);
    expect(seconds[2]).toBeGreaterThan(seconds[0] ?? 0);
    for (const m of h.slack.messages(channel).filter((x) => x.text.includes('queued')))
      await h.driver.click(m, { actionId: 'job_cancel' }, { user: ADMIN });
  });
});

describe('an approved run that is still waiting', () => {
  it('cancelled from its message: its approval is cancelled too, audited, its card says who, and it can be asked again', async () => {
    const channel = 'CAPPRCANCEL';
    await bind(h, 'harbor-law', channel);
    // Two audits: whether or not this window's one POST is still free, one of them waits for the rate, and
    // the approved run has to wait behind it (up to 20 s more; its Cancel comes within seconds).
    for (const page of ['first', 'second'])
      await h.gateway(`audit https://harbor-law.example/before-the-deploy-${page}`, { channel });
    await h.slack.waitFor(
      () =>
        h.slack
          .messages(channel)
          .find((m) => m.text.includes('/before-the-deploy-') && m.text.includes('— queued')),
      { what: 'an audit waiting for the rate' },
    );
    const postId = String(h.sandbox.records('harbor-law', 'blogs')[0]?.id);
    await h.gateway(`deploy ${postId}`, { channel });
    const card = await h.message((m) => m.text.startsWith('Approval needed'), channel);
    await h.driver.click(card, { actionId: 'approval_approve' }, { user: ADMIN });
    const run = await h.slack.waitFor(
      () =>
        h.slack
          .thread(channel, card.ts)
          .find((m) => m.text.includes('— queued') && JSON.stringify(m.blocks).includes('job_cancel')),
      { what: 'the approved run, queued' },
    );
    await h.driver.click(run, { actionId: 'job_cancel' }, { user: MEMBER });
    const cancelled = await h.slack.waitFor(
      () => {
        const now = h.slack.messages(channel).find((m) => m.ts === card.ts);
        return now && textOf(now).includes('cancelled by <@UMEMBER>') ? now : undefined;
      },
      { what: 'the card to say who cancelled the run' },
    );
    expect(cancelled.text).toMatch(/^Approval cancelled/);
    expect(textOf(cancelled)).toContain('Approved by <@UADMIN>');
    expect(textOf(cancelled)).not.toContain('queued');

    await h.gateway('history', { channel });
    const history = await h.ephemeral((m) => textOf(m).includes('Approvals and guarded actions'), {
      channel,
    });
    expect(textOf(history)).toMatch(/\*cancelled\* by <@UMEMBER> · Blog deploy/);

    // The same payload can be asked for again: a new card, not "already approved and is running".
    await h.gateway(`deploy ${postId}`, { channel });
    const again = await h.message((m) => m.text.startsWith('Approval needed') && m.ts !== card.ts, channel);
    expect(textOf(again)).toContain(postId);
    expect(posts('deploy_blog')).toEqual([]);
  }, 60_000);
});
