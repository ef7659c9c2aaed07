import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebClient } from '@slack/web-api';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleFeed } from '../../src/local/console-feed.js';
import { imageSaver } from '../../src/local/console-files.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { actions, button, section } from '../../src/views/blocks.js';

let slack: FakeSlack;
let web: WebClient;
let feed: ConsoleFeed;
const CHANNEL = 'CSEO';

const names = { user: (id: string) => slack.userName(id), channel: () => 'seo' };

beforeAll(async () => {
  slack = await startFakeSlack();
  web = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
});
afterAll(async () => {
  await slack?.close();
});
beforeEach(() => {
  slack.reset();
  feed = new ConsoleFeed(slack, names);
  feed.watch(CHANNEL);
});

describe('the console feed over the local Slack', () => {
  it('prints a new message once, then an edit as (updated), with its buttons numbered', async () => {
    const posted = await web.chat.postMessage({
      channel: CHANNEL,
      text: 'page 1',
      blocks: [
        section('*page 1* for <@UADMIN>'),
        actions('nav', button({ text: 'Next', actionId: 'page_next' })),
      ],
    });
    const first = feed.collect('UADMIN');
    expect(first.lines).toEqual(['── #seo ──', 'gateway: page 1 for @alice', '  [1] Next']);
    expect(first.buttons.map((b) => [b.number, b.text, b.query.actionId, b.message.ts])).toEqual([
      [1, 'Next', 'page_next', posted.ts],
    ]);
    expect(feed.collect('UADMIN').lines).toEqual([]);

    await web.chat.update({
      channel: CHANNEL,
      ts: String(posted.ts),
      text: 'page 2',
      blocks: [
        section('page 2'),
        actions(
          'nav',
          button({ text: 'Previous', actionId: 'page_prev' }),
          button({ text: 'Next', actionId: 'page_next' }),
        ),
      ],
    });
    const second = feed.collect('UADMIN');
    expect(second.lines).toEqual(['gateway (updated): page 2', '  [1] Previous  [2] Next']);
    expect(second.buttons.map((b) => b.text)).toEqual(['Previous', 'Next']);
  });

  it('prints thread replies indented under their parent, naming the parent when it was not just shown', async () => {
    const parent = await web.chat.postMessage({ channel: CHANNEL, text: 'SEO audit — queued' });
    await web.chat.postMessage({ channel: CHANNEL, text: 'another message' });
    feed.collect('UADMIN');
    await web.chat.postMessage({ channel: CHANNEL, thread_ts: String(parent.ts), text: 'Score: *72*/100' });
    expect(feed.collect('UADMIN').lines).toEqual([
      '  ↳ in the thread of “SEO audit — queued”',
      '    gateway: Score: 72/100',
    ]);
  });

  it('shows only the current user’s ephemerals, and not those of others after switching', async () => {
    await web.chat.postEphemeral({ channel: CHANNEL, user: 'UMEMBER', text: 'for bob' });
    await web.chat.postEphemeral({ channel: CHANNEL, user: 'UADMIN', text: 'for alice' });
    expect(feed.collect('UADMIN').lines).toEqual(['── #seo ──', 'gateway (only visible to you): for alice']);
    expect(feed.collect('UMEMBER').lines).toEqual([]);
    await web.chat.postEphemeral({ channel: CHANNEL, user: 'UMEMBER', text: 'later, for bob' });
    expect(feed.collect('UMEMBER').lines).toEqual(['gateway (only visible to you): later, for bob']);
  });

  it('notices a message replaced through a response_url, which carries no edit mark', async () => {
    const posted = await web.chat.postMessage({ channel: CHANNEL, text: 'before' });
    feed.collect('UADMIN');
    const outcome = slack.recordResponse(
      { channel: CHANNEL, user: 'UADMIN', source: { ts: String(posted.ts), ephemeral: false } },
      { replace_original: true, text: 'after' },
      'response_url',
    );
    expect(outcome.ok).toBe(true);
    expect(feed.collect('UADMIN').lines).toEqual(['gateway (updated): after']);
  });

  it('reports a modal once when it opens and again when its content changes', async () => {
    const trigger = slack.newTriggerId('UADMIN');
    const opened = await web.views.open({
      trigger_id: trigger,
      view: { type: 'modal', title: { type: 'plain_text', text: 'Blog' }, blocks: [section('Loading…')] },
    });
    expect(feed.collect('UADMIN').view?.id).toBe(opened.view?.id);
    expect(feed.collect('UADMIN').view).toBeUndefined();
    expect(feed.collect('UMEMBER').view).toBeUndefined();
    await web.views.update({
      view_id: String(opened.view?.id),
      view: { type: 'modal', title: { type: 'plain_text', text: 'Blog' }, blocks: [section('Ready')] },
    });
    expect(feed.collect('UADMIN').view?.view.blocks[0].text.text).toBe('Ready');
  });

  it('saves an uploaded image to a file and prints its path under the message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-images-'));
    const saving = new ConsoleFeed(slack, names, imageSaver(dir));
    saving.watch(CHANNEL);
    const bytes = Buffer.from('\x89PNG the chart');
    const asked = await web.apiCall('files.getUploadURLExternal', {
      filename: 'rankings.png',
      length: bytes.length,
    });
    const { upload_url: url, file_id: id } = asked as { upload_url?: unknown; file_id?: unknown };
    await (await request(String(url), { method: 'POST', body: bytes })).body.dump();
    await web.files.completeUploadExternal({
      files: [{ id: String(id), title: 'Rankings of Acme' }],
      channel_id: CHANNEL,
      initial_comment: 'Rankings of 10 keywords',
    });
    const lines = saving.collect('UADMIN').lines;
    expect(lines[1]).toBe('gateway: Rankings of 10 keywords');
    const path = /^ {2}🖼️ Rankings of Acme → (.+)$/.exec(lines[2] ?? '')?.[1] ?? '';
    expect(path.startsWith(dir)).toBe(true);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });
});
