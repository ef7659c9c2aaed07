import { webApi } from '@slack/bolt';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';

let slack: FakeSlack;
let client: webApi.WebClient;

beforeAll(async () => {
  slack = await startFakeSlack({
    channels: [
      { id: 'CGENERAL', name: 'general' },
      { id: 'CQUIET', name: 'quiet', botIsMember: false },
    ],
  });
  client = new webApi.WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logger: silentLogger(),
  });
});
afterAll(() => slack.close());
beforeEach(() => slack.reset());

const slackError = (error: string) => ({ data: expect.objectContaining({ ok: false, error }) });

describe('fake Slack Web API through a real WebClient', () => {
  it('answers auth.test with the bot identity Bolt needs', async () => {
    const res = await client.auth.test();
    expect(res).toMatchObject({ ok: true, user_id: 'UBOT', bot_id: expect.any(String), team_id: 'T0LOCAL' });
    expect(res.url).toMatch(/^https:\/\//);
    expect(slack.calls[0]).toMatchObject({ method: 'auth.test', ok: true });
  });

  it('posts a message with blocks, decodes the form body and returns Slack’s shape', async () => {
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: '*hi*' } }];
    const res = await client.chat.postMessage({ channel: 'CGENERAL', text: 'hi', blocks });
    expect(res).toMatchObject({ ok: true, channel: 'CGENERAL', ts: expect.stringMatching(/^\d+\.\d{6}$/) });
    expect(res.message).toMatchObject({ type: 'message', text: 'hi', user: 'UBOT', bot_id: slack.botId });
    const [stored] = slack.messages('CGENERAL');
    expect(stored).toMatchObject({ ts: res.ts, text: 'hi', via: 'api' });
    // Slack generates the block_id a block lacks, so later clicks carry one.
    expect(stored?.blocks?.[0]).toMatchObject({ type: 'section', block_id: expect.any(String) });
    expect(slack.calls.at(-1)?.args.blocks).toEqual(blocks);
  });

  it('keeps thread replies out of the channel and counts them on the parent', async () => {
    const parent = await client.chat.postMessage({ channel: 'CGENERAL', text: 'queued' });
    const threadTs = parent.ts!;
    await client.chat.postMessage({ channel: 'CGENERAL', text: 'step 1', thread_ts: threadTs });
    await client.chat.postMessage({
      channel: 'CGENERAL',
      text: 'done',
      thread_ts: threadTs,
      reply_broadcast: true,
    });
    expect(slack.thread('CGENERAL', threadTs).map((m) => m.text)).toEqual(['step 1', 'done']);
    expect(slack.messages('CGENERAL').map((m) => m.text)).toEqual(['queued', 'done']);
    expect(slack.messages('CGENERAL')[0]?.reply_count).toBe(2);
  });

  it('updates and deletes its own messages, and refuses unknown ones', async () => {
    const posted = await client.chat.postMessage({ channel: 'general', text: 'v1' });
    const updated = await client.chat.update({ channel: 'CGENERAL', ts: posted.ts!, text: 'v2' });
    expect(updated).toMatchObject({ ok: true, channel: 'CGENERAL', ts: posted.ts, text: 'v2' });
    expect(slack.messages('CGENERAL')[0]).toMatchObject({ text: 'v2', edited: { ts: expect.any(String) } });
    await expect(
      client.chat.update({ channel: 'CGENERAL', ts: '1.000001', text: 'x' }),
    ).rejects.toMatchObject(slackError('message_not_found'));
    await client.chat.delete({ channel: 'CGENERAL', ts: posted.ts! });
    expect(slack.messages('CGENERAL')).toEqual([]);
  });

  it('stores ephemeral messages for one user only', async () => {
    const res = await client.chat.postEphemeral({ channel: 'CGENERAL', user: 'UMEMBER', text: 'only you' });
    expect(res).toMatchObject({ ok: true, message_ts: expect.any(String) });
    expect(slack.ephemerals('CGENERAL', 'UMEMBER')).toMatchObject([{ text: 'only you', ephemeral: true }]);
    expect(slack.ephemerals('CGENERAL', 'UADMIN')).toEqual([]);
    expect(slack.messages('CGENERAL')).toEqual([]);
  });

  it('refuses posts with Slack’s error codes', async () => {
    await expect(client.chat.postMessage({ channel: 'CGENERAL', text: '' })).rejects.toMatchObject(
      slackError('no_text'),
    );
    await expect(
      client.chat.postMessage({ channel: 'CGENERAL', text: 'x'.repeat(40_001) }),
    ).rejects.toMatchObject(slackError('msg_too_long'));
    await expect(client.chat.postMessage({ channel: 'CNOPE', text: 'x' })).rejects.toMatchObject(
      slackError('channel_not_found'),
    );
    await expect(client.chat.postMessage({ channel: 'CQUIET', text: 'x' })).rejects.toMatchObject(
      slackError('not_in_channel'),
    );
    await expect(
      client.chat.postEphemeral({ channel: 'CQUIET', user: 'UMEMBER', text: 'x' }),
    ).rejects.toMatchObject(slackError('not_in_channel'));
    expect(slack.calls.filter((c) => !c.ok).map((c) => c.error)).toEqual([
      'no_text',
      'msg_too_long',
      'channel_not_found',
      'not_in_channel',
      'not_in_channel',
    ]);
  });

  it('posts to a user id in the bot’s direct message with that user', async () => {
    const res = await client.chat.postMessage({ channel: 'UADMIN', text: 'approval needed' });
    expect(res.channel).toBe('DUADMIN');
    expect(slack.messages('DUADMIN')).toMatchObject([{ text: 'approval needed' }]);
  });

  it('follows simulated channel membership changes', async () => {
    slack.simulate.removeBotFrom('CGENERAL');
    await expect(client.chat.postMessage({ channel: 'CGENERAL', text: 'x' })).rejects.toMatchObject(
      slackError('not_in_channel'),
    );
    expect((await client.conversations.info({ channel: 'CGENERAL' })).channel).toMatchObject({
      is_member: false,
    });
    slack.simulate.addBotTo('CGENERAL');
    await expect(client.chat.postMessage({ channel: 'CGENERAL', text: 'x' })).resolves.toMatchObject({
      ok: true,
    });
  });

  it('tells guests and other workspaces’ people from members in users.info, and lists user groups', async () => {
    expect((await client.users.info({ user: 'UMEMBER' })).user).toMatchObject({
      team_id: slack.teamId,
      is_restricted: false,
      is_ultra_restricted: false,
    });
    expect((await client.users.info({ user: 'UGUEST' })).user).toMatchObject({ is_restricted: true });
    expect((await client.users.info({ user: 'UEXTERNAL' })).user).toMatchObject({ team_id: 'T0PARTNER' });
    slack.simulate.addUser({ id: 'USINGLE', name: 'sam', is_ultra_restricted: true });
    expect((await client.users.info({ user: 'USINGLE' })).user).toMatchObject({
      is_restricted: true,
      is_ultra_restricted: true,
    });
    // Any well-formed id is a full member on first use, like channels.
    expect((await client.users.info({ user: 'UNEWCOMER' })).user).toMatchObject({ team_id: slack.teamId });
    slack.simulate.setUserGroup('SSEO', ['UMEMBER', 'UOTHER']);
    expect((await client.usergroups.users.list({ usergroup: 'SSEO' })).users).toEqual(['UMEMBER', 'UOTHER']);
    await expect(client.usergroups.users.list({ usergroup: 'SNONE' })).rejects.toMatchObject(
      slackError('no_such_subteam'),
    );
  });

  it('answers users.info and conversations.info, and says when they do not exist', async () => {
    const user = await client.users.info({ user: 'UADMIN' });
    expect(user.user).toMatchObject({ id: 'UADMIN', name: 'alice', tz: 'Europe/London', is_admin: true });
    expect(user.user?.profile).toMatchObject({ display_name: 'alice', real_name: 'Alice Admin' });
    await expect(client.users.info({ user: 'nobody' })).rejects.toMatchObject(slackError('user_not_found'));
    const channel = await client.conversations.info({ channel: 'CGENERAL' });
    expect(channel.channel).toMatchObject({
      id: 'CGENERAL',
      name: 'general',
      is_channel: true,
      is_member: true,
    });
    await expect(client.conversations.info({ channel: 'CNOPE' })).rejects.toMatchObject(
      slackError('channel_not_found'),
    );
  });

  it('rejects a wrong token and an unknown method', async () => {
    const stranger = new webApi.WebClient('xoxb-wrong', {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
    });
    await expect(stranger.auth.test()).rejects.toMatchObject(slackError('invalid_auth'));
    await expect(client.apiCall('chat.teleport', {})).rejects.toMatchObject(slackError('unknown_method'));
  });

  it('answers 429 with Retry-After while a rate limit is simulated, then recovers', async () => {
    slack.simulate.ratelimit('chat.postMessage', 1, 7);
    await expect(client.chat.postMessage({ channel: 'CGENERAL', text: 'x' })).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 7,
    });
    slack.simulate.ratelimit('chat.postMessage', 1, 3);
    const res = await request(`${slack.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${slack.botToken}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'channel=CGENERAL&text=x',
    });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('3');
    expect(await res.body.json()).toEqual({ ok: false, error: 'ratelimited' });
    await expect(client.chat.postMessage({ channel: 'CGENERAL', text: 'x' })).resolves.toMatchObject({
      ok: true,
    });
    await expect(client.auth.test()).resolves.toMatchObject({ ok: true });
  });

  it('answers 503, or nothing at all, for the methods of a simulated outage until restored', async () => {
    slack.simulate.outage(['chat.update']);
    const posted = await client.chat.postMessage({ channel: 'CGENERAL', text: 'x' });
    const update = () => client.chat.update({ channel: 'CGENERAL', ts: String(posted.ts), text: 'y' });
    await expect(update()).rejects.toMatchObject({ code: 'slack_webapi_http_error', statusCode: 503 });
    slack.simulate.outage(['chat.update'], 'hang');
    const impatient = new webApi.WebClient(slack.botToken, {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
      timeout: 200,
      logger: silentLogger(),
    });
    await expect(
      impatient.chat.update({ channel: 'CGENERAL', ts: String(posted.ts), text: 'y' }),
    ).rejects.toMatchObject({ code: 'slack_webapi_request_error' });
    slack.simulate.restore();
    await expect(update()).resolves.toMatchObject({ ok: true });
    expect(slack.calls.filter((c) => c.method === 'chat.update').map((c) => c.error ?? 'ok')).toEqual([
      'outage_error',
      'outage_hang',
      'ok',
    ]);
  });

  it('waitFor resolves on the change and names what it waited for when it times out', async () => {
    const waiting = slack.waitFor(() => slack.messages('CGENERAL').find((m) => m.text === 'later'), {
      what: 'the later message',
    });
    await client.chat.postMessage({ channel: 'CGENERAL', text: 'later' });
    await expect(waiting).resolves.toMatchObject({ text: 'later' });
    await expect(slack.waitFor(() => false, { timeoutMs: 60, what: 'a miracle' })).rejects.toThrow(
      /a miracle[\s\S]*chat\.postMessage ok channel=CGENERAL/,
    );
  });
});
