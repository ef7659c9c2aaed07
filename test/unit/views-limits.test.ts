import type { types } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { fitMessage, fitModal, KEEP_BLOCK_PREFIX } from '../../src/views/limits.js';

type KnownBlock = types.KnownBlock;
type Obj = Record<string, unknown>;

/** Slack's limits, checked independently of the implementation: returns every violation found. */
function violations(kind: 'message' | 'modal', payload: Obj): string[] {
  const bad: string[] = [];
  const max = (what: string, s: unknown, n: number) => {
    if (typeof s === 'string' && s.length > n) bad.push(`${what}: ${s.length} > ${n}`);
  };
  const count = (what: string, a: unknown, n: number) => {
    if (Array.isArray(a) && a.length > n) bad.push(`${what}: ${a.length} items > ${n}`);
  };
  const textOf = (o: unknown) => (o as { text?: unknown } | undefined)?.text;
  const option = (o: Obj) => {
    max('option text', textOf(o.text), 75);
    max('option value', o.value, 150);
    max('option description', textOf(o.description), 75);
  };
  const element = (e: Obj) => {
    max('action_id', e.action_id, 255);
    max('value', e.value, 2000);
    max('placeholder', textOf(e.placeholder), 150);
    max('initial_value', e.initial_value, 3000);
    if (e.type === 'button') max('button text', textOf(e.text), 75);
    if (e.type === 'mrkdwn' || e.type === 'plain_text') max('context text', e.text, 3000);
    count('options', e.options, 100);
    for (const o of (e.options as Obj[] | undefined) ?? []) option(o);
    count('option_groups', e.option_groups, 100);
    for (const g of (e.option_groups as Obj[] | undefined) ?? []) {
      count('group options', g.options, 100);
      for (const o of (g.options as Obj[] | undefined) ?? []) option(o);
    }
    if (e.initial_option) option(e.initial_option as Obj);
  };
  if (kind === 'message') {
    max('text', payload.text, 3000);
    count('message blocks', payload.blocks, 50);
  } else {
    max('title', textOf(payload.title), 24);
    max('submit', textOf(payload.submit), 24);
    max('close', textOf(payload.close), 24);
    count('modal blocks', payload.blocks, 100);
  }
  for (const b of payload.blocks as Obj[]) {
    max('block_id', b.block_id, 255);
    if (b.type === 'section') {
      max('section text', textOf(b.text), 3000);
      count('fields', b.fields, 10);
      for (const f of (b.fields as Obj[] | undefined) ?? []) max('field', f.text, 2000);
      if (b.accessory) element(b.accessory as Obj);
    }
    if (b.type === 'header') max('header', textOf(b.text), 150);
    if (b.type === 'context') {
      count('context elements', b.elements, 10);
      for (const e of b.elements as Obj[]) element(e);
    }
    if (b.type === 'actions') {
      count('actions elements', b.elements, 25);
      for (const e of b.elements as Obj[]) element(e);
    }
    if (b.type === 'input') {
      max('label', textOf(b.label), 2000);
      max('hint', textOf(b.hint), 2000);
      element(b.element as Obj);
    }
  }
  return bad;
}

const long = (n: number, unit = 'x') => unit.repeat(n);
const options = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    text: { type: 'plain_text' as const, text: `${i} ${long(100)}` },
    value: `${i}-${long(300)}`,
  }));

function absurdBlocks(n: number): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  for (let i = 0; i < n; i++) {
    switch (i % 6) {
      case 0:
        blocks.push({
          type: 'section',
          block_id: long(400),
          text: { type: 'mrkdwn', text: long(10_000, 'a &amp; <https://x.example|x> 😀 ') },
          accessory: {
            type: 'static_select',
            action_id: long(300),
            placeholder: { type: 'plain_text', text: long(400) },
            options: options(300),
          },
        });
        break;
      case 1:
        blocks.push({
          type: 'section',
          fields: Array.from({ length: 40 }, () => ({ type: 'mrkdwn' as const, text: long(5000) })),
        });
        break;
      case 2:
        blocks.push({
          type: 'actions',
          elements: Array.from({ length: 30 }, () => ({
            type: 'button' as const,
            text: { type: 'plain_text' as const, text: long(100) },
            action_id: long(300),
            value: long(5000),
          })),
        });
        break;
      case 3:
        blocks.push({ type: 'header', text: { type: 'plain_text', text: long(400) } });
        break;
      case 4:
        blocks.push({
          type: 'context',
          elements: Array.from({ length: 15 }, () => ({ type: 'mrkdwn' as const, text: long(4000) })),
        });
        break;
      default:
        blocks.push({
          type: 'input',
          label: { type: 'plain_text', text: long(3000) },
          hint: { type: 'plain_text', text: long(3000) },
          element: {
            type: 'plain_text_input',
            action_id: long(300),
            initial_value: long(5000),
            placeholder: { type: 'plain_text', text: long(300) },
          },
        });
    }
  }
  return blocks;
}

describe('fitMessage', () => {
  it('satisfies every Slack limit whatever the input', () => {
    const input = { text: long(10_000), blocks: absurdBlocks(500) };
    expect(violations('message', input as unknown as Obj).length).toBeGreaterThan(0); // the validator bites
    const out = fitMessage(input);
    expect(violations('message', out as unknown as Obj)).toEqual([]);
  });

  it('does not change the input', () => {
    const input = { text: long(5000), blocks: absurdBlocks(60) };
    const before = JSON.stringify(input);
    fitMessage(input);
    expect(JSON.stringify(input)).toBe(before);
  });

  it('leaves a message that fits untouched', () => {
    const input = {
      text: 'hi',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'hello' } }] as KnownBlock[],
    };
    expect(fitMessage(input)).toEqual(input);
  });

  it('cuts 80 blocks to 50 and says how many are not shown, keeping the trailing actions block', () => {
    const blocks: KnownBlock[] = Array.from({ length: 80 }, (_, i) => ({
      type: 'section',
      text: { type: 'mrkdwn', text: `row ${i}` },
    }));
    blocks.push({
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: 'Next' }, action_id: 'page_next' }],
    });
    const out = fitMessage({ text: 't', blocks });
    expect(out.blocks).toHaveLength(50);
    expect(out.blocks.at(-1)?.type).toBe('actions');
    const note = out.blocks.at(-2) as types.ContextBlock;
    expect((note.elements[0] as types.MrkdwnElement).text).toBe('…and 32 more not shown');
    expect((out.blocks[47] as types.SectionBlock).text?.text).toBe('row 47');
  });

  it('keeps blocks whose block_id starts with keep: wherever they are', () => {
    const blocks: KnownBlock[] = Array.from({ length: 70 }, (_, i) => ({
      type: 'section',
      block_id: i === 65 ? `${KEEP_BLOCK_PREFIX}summary` : `b${i}`,
      text: { type: 'mrkdwn', text: `row ${i}` },
    }));
    const out = fitMessage({ text: 't', blocks });
    expect(out.blocks).toHaveLength(50);
    expect(out.blocks.some((b) => b.block_id === 'keep:summary')).toBe(true);
  });

  it('replaces the tenth of 40 fields with a count of the rest', () => {
    const out = fitMessage({
      text: 't',
      blocks: [
        {
          type: 'section',
          fields: Array.from({ length: 40 }, (_, i) => ({ type: 'mrkdwn' as const, text: `f${i}` })),
        },
      ],
    });
    const fields = (out.blocks[0] as types.SectionBlock).fields ?? [];
    expect(fields).toHaveLength(10);
    expect(fields[9]?.text).toBe('…and 31 more');
  });

  it('drops an initial option that the option cut removed', () => {
    const opts = options(150);
    const out = fitMessage({
      text: 't',
      blocks: [
        {
          type: 'actions',
          elements: [{ type: 'static_select', action_id: 'a', options: opts, initial_option: opts[120] }],
        },
      ],
    });
    const select = (out.blocks[0] as types.ActionsBlock).elements[0] as types.StaticSelect;
    expect(select.options).toHaveLength(100);
    expect(select.initial_option).toBeUndefined();
  });
});

describe('fitModal', () => {
  it('satisfies every Slack limit whatever the input', () => {
    const view: types.ModalView = {
      type: 'modal',
      callback_id: long(400),
      title: { type: 'plain_text', text: long(30, 'T') },
      submit: { type: 'plain_text', text: long(30, 'S') },
      close: { type: 'plain_text', text: long(30, 'C') },
      blocks: absurdBlocks(500),
    };
    expect(violations('modal', view as unknown as Obj).length).toBeGreaterThan(0);
    const out = fitModal(view);
    expect(violations('modal', out as unknown as Obj)).toEqual([]);
    expect(out.title.text).toBe(`${long(23, 'T')}…`);
    expect(out.blocks).toHaveLength(100);
  });
});
