import { setTimeout as sleep } from 'node:timers/promises';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';

let slack: FakeSlack;
let client: webApi.WebClient;

beforeAll(async () => {
  slack = await startFakeSlack();
  client = new webApi.WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    retryConfig: { retries: 0 },
    logger: silentLogger(),
  });
});
afterAll(() => slack.close());
beforeEach(() => slack.reset());

const modal = (title: string, extra: Record<string, unknown> = {}) => ({
  type: 'modal' as const,
  title: { type: 'plain_text' as const, text: title },
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Loading…' } }],
  ...extra,
});
const slackError = (error: string) => ({ data: expect.objectContaining({ ok: false, error }) });

describe('fake Slack views.*', () => {
  it('opens a modal for the trigger’s user and returns the view as Slack does', async () => {
    const trigger = slack.newTriggerId('UMEMBER');
    const res = await client.views.open({
      trigger_id: trigger,
      view: modal('Blog', { callback_id: 'blog', private_metadata: 'C1', external_id: 'blog-1' }),
    });
    expect(res.view).toMatchObject({
      id: expect.stringMatching(/^V/),
      type: 'modal',
      callback_id: 'blog',
      private_metadata: 'C1',
      external_id: 'blog-1',
      state: { values: {} },
      hash: expect.any(String),
      previous_view_id: null,
      app_id: slack.appId,
    });
    expect(res.view?.root_view_id).toBe(res.view?.id);
    expect(slack.views('UMEMBER')).toMatchObject([
      { id: res.view?.id, user: 'UMEMBER', trigger_id: trigger },
    ]);
    expect(slack.views('UADMIN')).toEqual([]);
  });

  it('refuses an expired, unknown or reused trigger', async () => {
    // A second stand-in whose triggers die after 30 ms instead of Slack's 3 s.
    const quick = await startFakeSlack({ triggerTtlMs: 30 });
    const quickClient = new webApi.WebClient(quick.botToken, {
      slackApiUrl: quick.apiUrl,
      retryConfig: { retries: 0 },
    });
    const late = quick.newTriggerId('UMEMBER');
    await sleep(50);
    await expect(quickClient.views.open({ trigger_id: late, view: modal('Late') })).rejects.toMatchObject(
      slackError('expired_trigger_id'),
    );
    await quick.close();
    await expect(client.views.open({ trigger_id: '1.2.nope', view: modal('Unknown') })).rejects.toMatchObject(
      slackError('invalid_trigger_id'),
    );
    const once = slack.newTriggerId('UMEMBER');
    await client.views.open({ trigger_id: once, view: modal('First') });
    await expect(client.views.open({ trigger_id: once, view: modal('Again') })).rejects.toMatchObject(
      slackError('trigger_exchanged'),
    );
    expect(slack.views()).toHaveLength(1);
  });

  it('refuses a view that breaks a limit with invalid_arguments and the reason', async () => {
    const error = await client.views
      .open({ trigger_id: slack.newTriggerId('UMEMBER'), view: modal('A title far longer than twenty-four') })
      .catch((e: { data: unknown }) => e.data);
    expect(error).toMatchObject({
      error: 'invalid_arguments',
      response_metadata: {
        messages: ['[ERROR] must be less than 25 characters [json-pointer:/view/title/text]'],
      },
    });
    expect(slack.views()).toEqual([]);
  });

  it('updates by view_id or external_id and refuses a stale hash', async () => {
    const opened = await client.views.open({
      trigger_id: slack.newTriggerId('UMEMBER'),
      view: modal('Blog', { external_id: 'ext-1' }),
    });
    const id = opened.view?.id as string;
    const firstHash = opened.view?.hash as string;
    const updated = await client.views.update({
      view_id: id,
      hash: firstHash,
      view: modal('Blog ready', { external_id: 'ext-1' }),
    });
    expect(updated.view).toMatchObject({ id, title: { text: 'Blog ready' } });
    expect(updated.view?.hash).not.toBe(firstHash);
    await expect(
      client.views.update({ view_id: id, hash: firstHash, view: modal('Stale') }),
    ).rejects.toMatchObject(slackError('hash_conflict'));
    await client.views.update({ external_id: 'ext-1', view: modal('By external id') });
    expect(slack.views('UMEMBER')[0]?.view.title.text).toBe('By external id');
    await expect(client.views.update({ view_id: 'VMISSING', view: modal('Gone') })).rejects.toMatchObject(
      slackError('not_found'),
    );
  });

  it('pushes onto the stack up to three views', async () => {
    const root = await client.views.open({ trigger_id: slack.newTriggerId('UMEMBER'), view: modal('Root') });
    const pushed = await client.views.push({
      trigger_id: slack.newTriggerId('UMEMBER'),
      view: modal('Second'),
    });
    expect(pushed.view).toMatchObject({ root_view_id: root.view?.id, previous_view_id: root.view?.id });
    await client.views.push({ trigger_id: slack.newTriggerId('UMEMBER'), view: modal('Third') });
    await expect(
      client.views.push({ trigger_id: slack.newTriggerId('UMEMBER'), view: modal('Fourth') }),
    ).rejects.toMatchObject(slackError('push_limit_reached'));
    expect(slack.views('UMEMBER').map((v) => v.view.title.text)).toEqual(['Root', 'Second', 'Third']);
  });
});
