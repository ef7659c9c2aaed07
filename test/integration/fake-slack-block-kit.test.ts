import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeSlack,
  startFakeSlack,
  validateBlocks,
  validateView,
} from '../../src/local/fake-slack/index.js';
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

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const button = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'button',
  text: { type: 'plain_text', text },
  action_id: 'go',
  ...extra,
});
const modal = (extra: Record<string, unknown> = {}) => ({
  type: 'modal',
  title: { type: 'plain_text', text: 'Blog' },
  blocks: [],
  ...extra,
});

describe('Block Kit limits through chat.postMessage', () => {
  it('accepts 50 blocks and refuses 51 with invalid_blocks naming the limit', async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => section(`row ${i}`));
    await expect(
      client.chat.postMessage({ channel: 'CBLOCKS', text: 't', blocks: fifty }),
    ).resolves.toMatchObject({
      ok: true,
    });
    const error = await client.chat
      .postMessage({ channel: 'CBLOCKS', text: 't', blocks: [...fifty, section('one too many')] })
      .catch((e: { data: unknown }) => e.data);
    expect(error).toMatchObject({
      ok: false,
      error: 'invalid_blocks',
      errors: ['no more than 50 items allowed [json-pointer:/blocks]'],
      response_metadata: { messages: ['[ERROR] no more than 50 items allowed [json-pointer:/blocks]'] },
    });
    expect(slack.messages('CBLOCKS')).toHaveLength(1);
  });

  it('accepts a 3,000-character section and refuses 3,001 with a JSON pointer to it', async () => {
    await expect(
      client.chat.postMessage({ channel: 'CBLOCKS', text: 't', blocks: [section('x'.repeat(3000))] }),
    ).resolves.toMatchObject({ ok: true });
    const blocks = [section('a'), section('b'), section('c'), section('x'.repeat(3001))];
    const error = await client.chat
      .postMessage({ channel: 'CBLOCKS', text: 't', blocks })
      .catch((e: { data: unknown }) => e.data);
    expect(error).toMatchObject({
      error: 'invalid_blocks',
      errors: ['must be less than 3001 characters [json-pointer:/blocks/3/text/text]'],
    });
  });

  it('applies the same limits to chat.update', async () => {
    const posted = await client.chat.postMessage({ channel: 'CBLOCKS', text: 'ok' });
    await expect(
      client.chat.update({ channel: 'CBLOCKS', ts: posted.ts!, text: 't', blocks: [{ type: 'carousel' }] }),
    ).rejects.toMatchObject({ data: { error: 'invalid_blocks' } });
  });
});

describe('validateBlocks', () => {
  it('passes a well-formed message and flags each broken limit where it is', () => {
    const good = [
      { type: 'header', text: { type: 'plain_text', text: 'Keywords' } },
      { type: 'section', fields: Array.from({ length: 10 }, () => ({ type: 'mrkdwn', text: 'f' })) },
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'page 1' }] },
      { type: 'actions', elements: [button('Next', { value: 'offset=10' })] },
      { type: 'divider' },
    ];
    expect(validateBlocks(good, 'message')).toEqual([]);
    expect(validateBlocks([{ type: 'header', text: { type: 'mrkdwn', text: 'h' } }], 'message')).toEqual([
      'must be a valid enum value [json-pointer:/blocks/0/text/type]',
    ]);
    expect(
      validateBlocks([{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }], 'message'),
    ).toEqual(['must be less than 151 characters [json-pointer:/blocks/0/text/text]']);
    expect(
      validateBlocks(
        [{ type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })) }],
        'message',
      ),
    ).toEqual(['must be less than 11 items [json-pointer:/blocks/0/fields]']);
    expect(validateBlocks([{ type: 'actions', elements: [button('b'.repeat(76))] }], 'message')).toEqual([
      'must be less than 76 characters [json-pointer:/blocks/0/elements/0/text/text]',
    ]);
    expect(
      validateBlocks([{ type: 'actions', elements: [button('ok', { value: 'v'.repeat(2001) })] }], 'message'),
    ).toEqual(['must be less than 2001 characters [json-pointer:/blocks/0/elements/0/value]']);
    expect(
      validateBlocks(
        [
          { ...section('a'), block_id: 'same' },
          { ...section('b'), block_id: 'same' },
        ],
        'message',
      ),
    ).toEqual(['duplicate block_id: same [json-pointer:/blocks/1/block_id]']);
    expect(validateBlocks([{ type: 'table' }], 'message')).toEqual([
      'unsupported type: table [json-pointer:/blocks/0/type]',
    ]);
  });

  it('allows 100 blocks in a modal but not in a message', () => {
    const hundred = Array.from({ length: 100 }, () => ({ type: 'divider' }));
    expect(validateBlocks(hundred, 'modal')).toEqual([]);
    expect(validateBlocks(hundred, 'message')).toEqual([
      'no more than 50 items allowed [json-pointer:/blocks]',
    ]);
    expect(validateBlocks([...hundred, { type: 'divider' }], 'modal')).toHaveLength(1);
  });

  it('checks select options and text inputs', () => {
    const select = (options: unknown[]) => ({
      type: 'input',
      label: { type: 'plain_text', text: 'Tone' },
      element: { type: 'static_select', action_id: 'tone', options },
    });
    const option = (text: string, value: string) => ({ text: { type: 'plain_text', text }, value });
    expect(validateBlocks([select([option('Friendly', 'friendly')])], 'modal')).toEqual([]);
    expect(validateBlocks([select([option('o'.repeat(76), 'v'.repeat(151))])], 'modal')).toEqual([
      'must be less than 76 characters [json-pointer:/blocks/0/element/options/0/text/text]',
      'must be less than 151 characters [json-pointer:/blocks/0/element/options/0/value]',
    ]);
    expect(
      validateBlocks([select(Array.from({ length: 101 }, (_, i) => option(`o${i}`, `v${i}`)))], 'modal'),
    ).toEqual(['must be less than 101 items [json-pointer:/blocks/0/element/options]']);
    const input = {
      type: 'input',
      label: { type: 'plain_text', text: 'Body' },
      element: { type: 'plain_text_input', action_id: 'body', initial_value: 'x'.repeat(3001) },
    };
    expect(validateBlocks([input], 'modal')).toEqual([
      'must be less than 3001 characters [json-pointer:/blocks/0/element/initial_value]',
    ]);
  });
});

describe('validateView', () => {
  it('requires a plain_text title of at most 24 characters and a submit button for inputs', () => {
    expect(validateView(modal())).toEqual([]);
    expect(validateView(modal({ title: { type: 'plain_text', text: 't'.repeat(25) } }))).toEqual([
      'must be less than 25 characters [json-pointer:/view/title/text]',
    ]);
    expect(validateView(modal({ submit: { type: 'mrkdwn', text: 'Go' } }))).toEqual([
      'must be a valid enum value [json-pointer:/view/submit/type]',
    ]);
    const input = {
      type: 'input',
      label: { type: 'plain_text', text: 'Keyword' },
      element: { type: 'plain_text_input', action_id: 'keyword' },
    };
    expect(validateView(modal({ blocks: [input] }))).toEqual([
      'must provide submit when the view has input blocks [json-pointer:/view/submit]',
    ]);
    expect(validateView({ ...modal(), type: 'home' })).toEqual([
      'must be a valid enum value [json-pointer:/view/type]',
    ]);
  });
});
