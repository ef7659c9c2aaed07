import type { SaveImage } from './console-files.js';
import { indentUnder, type RenderNames, renderMessageBody } from './console-render.js';
import type { FakeMessage, FakeSlack, FakeView } from './fake-slack/index.js';

/**
 * What changed in the local Slack since the console last looked: new channel messages, edits (chat.update
 * and replace_original alike: the content's signature changed), thread replies under their parent, the
 * current user's ephemerals, and the modal on top of the user's stack. A cursor of signatures, not of
 * counts, because messages change in place.
 */

export interface ButtonTarget {
  number: number;
  text: string;
  message: FakeMessage;
  query: { actionId: string; value?: string };
}

export interface FeedBatch {
  lines: string[];
  /** The numbered buttons of this batch, in print order (empty when it showed none). */
  buttons: ButtonTarget[];
  /** Every message this batch printed (new or changed), as `channel:ts`: older buttons on them are gone. */
  touched: string[];
  /** The modal on top of the user's stack when it is new or changed since the last batch. */
  view?: FakeView;
}

interface Item {
  order: string;
  message: FakeMessage;
  kind: 'new' | 'updated';
  where: 'channel' | 'thread' | 'ephemeral';
}

const BOT_NAME = 'gateway';

/** A message's identity across its versions. */
export const messageKey = (m: FakeMessage) => `${m.channel}:${m.ts}`;

const signature = (m: FakeMessage) => `${m.text}\u0000${JSON.stringify(m.blocks ?? null)}`;
const firstLine = (text: string, max = 60) => {
  const line = text.split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

export class ConsoleFeed {
  private readonly seen = new Map<string, string>();
  private readonly channels = new Set<string>();
  private viewSeen = '';
  private lastChannel = '';
  private lastThread = '';
  /** Orders items without a new ts (replace_original) after everything already shown. */
  private lastOrder = '';

  constructor(
    private readonly slack: FakeSlack,
    private readonly names: RenderNames,
    /** Where a file a message carries (a chart) is written; its path is printed under the message. */
    private readonly saveImage?: SaveImage,
  ) {}

  /** A line per file the message carries: its title and, once saved, the path to open it at. */
  private fileLines(m: FakeMessage): string[] {
    return (m.files ?? []).map((ref) => {
      const bytes = this.slack.file(ref.id)?.bytes;
      const where = bytes && this.saveImage ? ` → ${this.saveImage(`${ref.id}-${ref.name}`, bytes)}` : '';
      return `🖼️ ${ref.title}${where}`;
    });
  }

  watch(channel: string): void {
    this.channels.add(channel);
  }

  /** Everything new or changed for `user` since the last call. */
  collect(user: string): FeedBatch {
    const items: Item[] = [];
    for (const channel of this.channels) {
      for (const m of this.slack.messages(channel)) {
        this.consider(items, `m:${channel}:${m.ts}`, m, 'channel');
        if (m.reply_count || m.thread_ts === m.ts) {
          for (const r of this.slack.thread(channel, m.ts)) {
            if (!r.broadcast) this.consider(items, `m:${channel}:${r.ts}`, r, 'thread');
          }
        }
      }
      for (const e of this.slack.ephemerals(channel)) {
        const key = `e:${channel}:${e.ts}`;
        // Another user's ephemerals are never shown; marking them seen keeps them hidden after `as …`.
        if (e.forUser !== user) this.seen.set(key, signature(e));
        else this.consider(items, key, e, 'ephemeral');
      }
    }
    items.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
    const batch: FeedBatch = { lines: [], buttons: [], touched: [] };
    for (const item of items) this.print(batch, item);
    const view = this.slack.views(user).at(-1);
    const viewSig = view ? `${view.id}:${view.hash}:${JSON.stringify(view.errors ?? null)}` : '';
    if (viewSig !== this.viewSeen) {
      this.viewSeen = viewSig;
      if (view) batch.view = view;
    }
    return batch;
  }

  private consider(items: Item[], key: string, m: FakeMessage, where: Item['where']): void {
    const sig = signature(m);
    const before = this.seen.get(key);
    if (before === sig) return;
    this.seen.set(key, sig);
    const order = before === undefined ? m.ts : (m.edited?.ts ?? `${this.lastOrder}~`);
    if (order > this.lastOrder) this.lastOrder = order;
    items.push({ order, message: m, kind: before === undefined ? 'new' : 'updated', where });
  }

  private print(batch: FeedBatch, item: Item): void {
    const { message: m } = item;
    batch.touched.push(messageKey(m));
    const body = renderMessageBody(m, { names: this.names, firstButton: batch.buttons.length + 1 });
    for (const b of body.buttons) {
      batch.buttons.push({
        number: b.number,
        text: b.text,
        message: m,
        query: b.value === undefined ? { actionId: b.actionId } : { actionId: b.actionId, value: b.value },
      });
    }
    if (m.channel !== this.lastChannel) {
      batch.lines.push(`── #${this.names.channel(m.channel)} ──`);
      this.lastChannel = m.channel;
    }
    // Slack separates rows with blank lines; a terminal reads better without them.
    const lines = [...body.lines.filter((l) => l.trim() !== ''), ...this.fileLines(m)];
    const updated = item.kind === 'updated' ? ' (updated)' : '';
    if (item.where === 'thread') {
      const parentTs = m.thread_ts ?? '';
      if (this.lastThread !== parentTs) {
        const parent = this.slack.messages(m.channel).find((p) => p.ts === parentTs);
        const about = parent
          ? firstLine(renderMessageBody(parent, { names: this.names }).lines[0] ?? '')
          : '';
        batch.lines.push(`  ↳ in the thread of “${about}”`);
        this.lastThread = parentTs;
      }
      batch.lines.push(...indentUnder(`    ${BOT_NAME}${updated}: `, lines, '      '));
      return;
    }
    this.lastThread = item.where === 'channel' ? m.ts : '';
    const who = item.where === 'ephemeral' ? `${BOT_NAME} (only visible to you)` : BOT_NAME;
    batch.lines.push(...indentUnder(`${who}${updated}: `, lines, '  '));
  }
}
