import type { AddressInfo } from 'node:net';
import { App, type BlockAction, type ButtonAction } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SlackDriver, signSlackRequest } from '../../src/local/driver.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';

const SECRET = 'local-signing-secret';
const CHANNEL = 'CDRIVER';
let slack: FakeSlack;
let app: App;
let driver: SlackDriver;
const seen: {
  commands: string[];
  clicks: BlockAction<ButtonAction>[];
  submissions: string[];
  closed: string[];
} = {
  commands: [],
  clicks: [],
  submissions: [],
  closed: [],
};

const blogModal = {
  type: 'modal' as const,
  callback_id: 'blog_form',
  title: { type: 'plain_text' as const, text: 'New blog' },
  submit: { type: 'plain_text' as const, text: 'Queue' },
  notify_on_close: true,
  blocks: [
    {
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: 'Preview' }, action_id: 'preview' }],
    },
    {
      type: 'input',
      block_id: 'kw',
      label: { type: 'plain_text' as const, text: 'Keyword' },
      element: { type: 'plain_text_input' as const, action_id: 'keyword' },
    },
    {
      type: 'input',
      block_id: 'tone',
      optional: true,
      label: { type: 'plain_text' as const, text: 'Tone' },
      element: {
        type: 'static_select' as const,
        action_id: 'tone',
        options: [
          { text: { type: 'plain_text' as const, text: 'Friendly' }, value: 'friendly' },
          { text: { type: 'plain_text' as const, text: 'Formal' }, value: 'formal' },
        ],
      },
    },
  ],
};

/** A tiny bot: one command, one button, one modal, the shapes the real listeners use. */
function buildApp(): App {
  const bolt = new App({
    token: slack.botToken,
    signingSecret: SECRET,
    clientOptions: { slackApiUrl: slack.apiUrl },
    logger: silentLogger(),
  });
  bolt.command('/gateway', async ({ command, ack, client }) => {
    seen.commands.push(command.text);
    if (command.text === 'blog') {
      await ack();
      await client.views.open({ trigger_id: command.trigger_id, view: blogModal });
      return;
    }
    if (command.text === 'loud') return ack({ response_type: 'in_channel', text: 'everyone sees this' });
    if (command.text === 'private') {
      await ack();
      await client.chat.postEphemeral({
        channel: command.channel_id,
        user: command.user_id,
        text: 'only you',
        blocks: [
          {
            type: 'actions',
            elements: [
              { type: 'button', text: { type: 'plain_text', text: 'Dismiss' }, action_id: 'dismiss' },
            ],
          },
        ],
      });
      return;
    }
    await ack(`working on ${command.text}`);
    await client.chat.postMessage({
      channel: command.channel_id,
      text: `queued ${command.text}`,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: `queued *${command.text}*` } },
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              text: { type: 'plain_text', text: 'Approve' },
              action_id: 'approve',
              value: 'req-42',
              style: 'primary',
            },
          ],
        },
      ],
    });
  });
  bolt.action<BlockAction<ButtonAction>>('approve', async ({ ack, body, respond }) => {
    await ack();
    seen.clicks.push(body);
    await respond({ replace_original: true, text: `approved by <@${body.user.id}>` });
  });
  bolt.action<BlockAction<ButtonAction>>('dismiss', async ({ ack, body, respond }) => {
    await ack();
    seen.clicks.push(body);
    await respond({ delete_original: true });
  });
  bolt.action<BlockAction<ButtonAction>>('preview', async ({ ack, body, client }) => {
    await ack();
    seen.clicks.push(body);
    await client.views.push({
      trigger_id: body.trigger_id,
      view: { type: 'modal', title: { type: 'plain_text', text: 'Preview' }, blocks: [{ type: 'divider' }] },
    });
  });
  bolt.view({ callback_id: 'blog_form', type: 'view_closed' }, async ({ ack, view }) => {
    await ack();
    seen.closed.push(view.id);
  });
  bolt.view('blog_form', async ({ ack, view }) => {
    const keyword = view.state.values.kw?.keyword?.value ?? '';
    if (keyword.length < 3)
      return ack({ response_action: 'errors', errors: { kw: 'Use at least 3 characters' } });
    await ack();
    seen.submissions.push(`${keyword}/${view.state.values.tone?.tone?.selected_option?.value ?? '-'}`);
  });
  return bolt;
}

beforeAll(async () => {
  slack = await startFakeSlack();
  app = buildApp();
  // Bolt 5's default receiver is HTTPReceiver; start() takes net.ListenOptions and resolves with the server.
  const server = await app.start({ port: 0, host: '127.0.0.1' });
  const { port } = server.address() as AddressInfo;
  driver = new SlackDriver({
    eventsUrl: `http://127.0.0.1:${port}/slack/events`,
    signingSecret: SECRET,
    slack,
  });
});
afterAll(async () => {
  await app.stop();
  await slack.close();
});
beforeEach(() => {
  slack.reset();
  seen.commands.length = 0;
  seen.clicks.length = 0;
  seen.submissions.length = 0;
  seen.closed.length = 0;
});

describe('SlackDriver against a real Bolt app', () => {
  it('sends a signed slash command; the ack is shown to the user and the post lands in the channel', async () => {
    const sent = await driver.command('audit https://example.com', { user: 'UMEMBER', channel: CHANNEL });
    expect(sent.status).toBe(200);
    expect(sent.elapsedMs).toBeLessThan(3000);
    expect(seen.commands).toEqual(['audit https://example.com']);
    expect(slack.ephemerals(CHANNEL, 'UMEMBER')).toMatchObject([
      { text: 'working on audit https://example.com', via: 'ack' },
    ]);
    const posted = await slack.waitFor(() => slack.messages(CHANNEL)[0], { what: 'the queued message' });
    expect(posted).toMatchObject({ text: 'queued audit https://example.com', user: 'UBOT', via: 'api' });
    expect(sent.responseUrl.startsWith(slack.origin)).toBe(true);
  });

  it('records an in_channel ack in the channel', async () => {
    await driver.command('loud', { user: 'UMEMBER', channel: CHANNEL });
    expect(slack.messages(CHANNEL)).toMatchObject([{ text: 'everyone sees this', via: 'ack' }]);
    expect(slack.ephemerals(CHANNEL)).toEqual([]);
  });

  it('clicks a button by its text; the handler gets Slack’s block_actions body and replaces the message', async () => {
    await driver.command('deploy', { user: 'UMEMBER', channel: CHANNEL });
    const card = await slack.waitFor(() => slack.messages(CHANNEL)[0], { what: 'the card' });
    const sent = await driver.click(card, 'Approve', { user: 'UADMIN' });
    expect(sent.status).toBe(200);
    const body = seen.clicks[0];
    expect(body).toMatchObject({
      type: 'block_actions',
      user: { id: 'UADMIN', username: 'alice', team_id: slack.teamId },
      api_app_id: slack.appId,
      team: { id: slack.teamId },
      container: { type: 'message', message_ts: card.ts, channel_id: CHANNEL, is_ephemeral: false },
      channel: { id: CHANNEL },
      message: { ts: card.ts, text: 'queued deploy' },
      trigger_id: sent.triggerId,
      actions: [{ action_id: 'approve', value: 'req-42', type: 'button', style: 'primary' }],
    });
    expect(body?.actions[0]?.block_id).toBe(
      (card.blocks?.[1] as { block_id?: string } | undefined)?.block_id,
    );
    expect(body?.actions[0]?.block_id).toEqual(expect.any(String));
    await slack.waitFor(() => slack.messages(CHANNEL)[0]?.text.startsWith('approved'), {
      what: 'the replaced card',
    });
    expect(slack.messages(CHANNEL)).toMatchObject([{ ts: card.ts, text: 'approved by <@UADMIN>' }]);
  });

  it('clicks a button in an ephemeral message like Slack: no message, is_ephemeral, a working response_url', async () => {
    await driver.command('private', { user: 'UMEMBER', channel: CHANNEL });
    const note = await slack.waitFor(() => slack.ephemerals(CHANNEL, 'UMEMBER')[0], {
      what: 'the ephemeral',
    });
    await driver.click(note, { actionId: 'dismiss' }, { user: 'UMEMBER' });
    expect(seen.clicks[0]).toMatchObject({ container: { is_ephemeral: true, message_ts: note.ts } });
    expect(seen.clicks[0]).not.toHaveProperty('message');
    await slack.waitFor(() => slack.ephemerals(CHANNEL).length === 0, { what: 'the ephemeral deleted' });
  });

  it('says which buttons exist when the one asked for is not there', async () => {
    await driver.command('deploy', { user: 'UMEMBER', channel: CHANNEL });
    const card = await slack.waitFor(() => slack.messages(CHANNEL)[0], { what: 'the card' });
    await expect(driver.click(card, 'Reject', { user: 'UADMIN' })).rejects.toThrow(
      /"Approve" \(action_id=approve/,
    );
  });

  it('submits a modal: an errors response keeps it open, a good one closes it', async () => {
    await driver.command('blog', { user: 'UMEMBER', channel: CHANNEL });
    const view = await slack.waitFor(() => slack.views('UMEMBER')[0], { what: 'the blog modal' });
    expect(view.view).toMatchObject({ callback_id: 'blog_form', title: { text: 'New blog' } });

    const rejected = await driver.submit(view, { keyword: 'ab' }, { user: 'UMEMBER' });
    expect(rejected.json).toEqual({ response_action: 'errors', errors: { kw: 'Use at least 3 characters' } });
    expect(slack.views('UMEMBER')).toMatchObject([
      { id: view.id, errors: { kw: 'Use at least 3 characters' } },
    ]);

    await driver.submit(view, { 'kw.keyword': 'best plumber austin', tone: 'Formal' }, { user: 'UMEMBER' });
    expect(seen.submissions).toEqual(['best plumber austin/formal']);
    expect(slack.views('UMEMBER')).toEqual([]);
  });

  it('clicks a button inside a modal with a view container, and the fresh trigger pushes a view', async () => {
    await driver.command('blog', { user: 'UMEMBER', channel: CHANNEL });
    const view = await slack.waitFor(() => slack.views('UMEMBER')[0], { what: 'the blog modal' });
    const sent = await driver.click(view, 'Preview', { user: 'UMEMBER' });
    expect(seen.clicks[0]).toMatchObject({
      type: 'block_actions',
      container: { type: 'view', view_id: view.id },
      view: { id: view.id, callback_id: 'blog_form', hash: view.hash },
      trigger_id: sent.triggerId,
    });
    expect(seen.clicks[0]).not.toHaveProperty('response_url');
    const stack = await slack.waitFor(() => slack.views('UMEMBER')[1] && slack.views('UMEMBER'), {
      what: 'the pushed preview',
    });
    expect(stack.map((v) => v.view.title.text)).toEqual(['New blog', 'Preview']);
  });

  it('sends view_closed when a modal that asked for it is closed', async () => {
    await driver.command('blog', { user: 'UMEMBER', channel: CHANNEL });
    const view = await slack.waitFor(() => slack.views('UMEMBER')[0], { what: 'the blog modal' });
    const sent = await driver.close(view, { user: 'UMEMBER' });
    expect(sent?.status).toBe(200);
    expect(seen.closed).toEqual([view.id]);
    expect(slack.views('UMEMBER')).toEqual([]);
  });

  it('refuses to submit a form Slack’s client would not send', async () => {
    await driver.command('blog', { user: 'UMEMBER', channel: CHANNEL });
    const view = await slack.waitFor(() => slack.views('UMEMBER')[0], { what: 'the blog modal' });
    await expect(driver.submit(view, {}, { user: 'UMEMBER' })).rejects.toThrow(/required input kw.keyword/);
    await expect(driver.submit(view, { keyword: 'x', colour: 'red' }, { user: 'UMEMBER' })).rejects.toThrow(
      /no input named colour/,
    );
    await expect(
      driver.submit(view, { keyword: 'xyz', tone: 'Shouty' }, { user: 'UMEMBER' }),
    ).rejects.toThrow(/not an option/);
  });

  it('gets 401 for a forged signature or a stale timestamp, and no handler runs', async () => {
    const body = new URLSearchParams({
      command: '/gateway',
      text: 'deploy',
      user_id: 'UMEMBER',
      channel_id: CHANNEL,
      team_id: slack.teamId,
      trigger_id: slack.newTriggerId('UMEMBER'),
      response_url: slack.newResponseUrl(CHANNEL, 'UMEMBER'),
    }).toString();
    const forged = await driver.raw(body, signSlackRequest('not-the-secret', body));
    expect(forged.status).toBe(401);
    const stale = await driver.raw(body, signSlackRequest(SECRET, body, Math.floor(Date.now() / 1000) - 600));
    expect(stale.status).toBe(401);
    expect(seen.commands).toEqual([]);
    expect(slack.calls).toEqual([]);
    // The same body correctly signed goes through, so the 401s above are the signature's doing.
    expect((await driver.raw(body, signSlackRequest(SECRET, body))).status).toBe(200);
    expect(seen.commands).toEqual(['deploy']);
  });
});
