import { webApi } from '@slack/bolt';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';

/**
 * The stand-in's file upload, through a real WebClient and real HTTP: getUploadURLExternal, the POST of the
 * bytes, completeUploadExternal into a channel or a thread; the bytes are kept; an image block naming the file
 * (`slack_file`) is accepted, one naming a file never uploaded is refused as Slack refuses it.
 */

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
/** What getUploadURLExternal answers: where to POST the bytes, and the file's id. */
const address = (answer: object) => {
  const { upload_url, file_id } = answer as { upload_url?: unknown; file_id?: unknown };
  return { upload_url: String(upload_url), file_id: String(file_id) };
};
const BYTES = Buffer.from('\x89PNG fake image bytes');

async function upload(bytes = BYTES): Promise<string> {
  const asked = address(
    await client.apiCall('files.getUploadURLExternal', {
      filename: 'chart.png',
      length: BYTES.length,
      alt_txt: 'A chart: #3 to #1',
    }),
  );
  const res = await request(asked.upload_url, { method: 'POST', body: bytes });
  expect(res.statusCode).toBe(200);
  expect(await res.body.text()).toBe(`OK - ${bytes.length}`);
  return asked.file_id;
}

describe('the stand-in’s file upload', () => {
  it('keeps the bytes and shares the file in a thread with its comment and alt text', async () => {
    const parent = await client.chat.postMessage({ channel: 'CGENERAL', text: 'digest' });
    const id = await upload();
    const done = await client.files.completeUploadExternal({
      files: [{ id, title: 'Reviews' }],
      channel_id: 'CGENERAL',
      thread_ts: String(parent.ts),
      initial_comment: 'the chart',
    });
    expect(done.files?.[0]).toMatchObject({ id, title: 'Reviews' });
    expect(slack.file(id)?.bytes?.equals(BYTES)).toBe(true);
    const [reply] = slack.thread('CGENERAL', String(parent.ts));
    expect(reply).toMatchObject({
      text: 'the chart',
      files: [{ id, title: 'Reviews', mimetype: 'image/png', alt_txt: 'A chart: #3 to #1' }],
    });
  });

  it('refuses a completion before the bytes arrived, or with fewer bytes than announced, or in a channel without the bot', async () => {
    const asked = address(
      await client.apiCall('files.getUploadURLExternal', { filename: 'a.png', length: 10 }),
    );
    const complete = (channel = 'CGENERAL') =>
      client.files.completeUploadExternal({ files: [{ id: asked.file_id }], channel_id: channel });
    await expect(complete()).rejects.toMatchObject(slackError('file_upload_size_mismatch'));
    await (await request(asked.upload_url, { method: 'POST', body: 'short' })).body.dump();
    await expect(complete()).rejects.toMatchObject(slackError('file_upload_size_mismatch'));
    const id = await upload();
    await expect(
      client.files.completeUploadExternal({ files: [{ id }], channel_id: 'CQUIET' }),
    ).rejects.toMatchObject(slackError('not_in_channel'));
    await expect(client.apiCall('files.getUploadURLExternal', { filename: 'x.png' })).rejects.toMatchObject(
      slackError('invalid_arguments'),
    );
  });

  it('accepts an image block that names an uploaded file, and refuses one that names no upload', async () => {
    const id = await upload();
    await client.files.completeUploadExternal({ files: [{ id }] });
    const image = (fileId: string) => [{ type: 'image', slack_file: { id: fileId }, alt_text: 'chart' }];
    const posted = await client.chat.postMessage({ channel: 'CGENERAL', text: 'chart', blocks: image(id) });
    expect(posted.ok).toBe(true);
    await expect(
      client.chat.postMessage({ channel: 'CGENERAL', text: 'chart', blocks: image('F0NOPE') }),
    ).rejects.toMatchObject(slackError('invalid_blocks'));
    await expect(
      client.chat.postMessage({
        channel: 'CGENERAL',
        text: 'chart',
        blocks: [{ type: 'image', slack_file: { id, url: 'https://x' }, alt_text: 'chart' }],
      }),
    ).rejects.toMatchObject(slackError('invalid_blocks'));
  });
});
