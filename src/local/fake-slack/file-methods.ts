import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeFile, FakeMessage } from './fake-types.js';
import { nextTs, randomId } from './ids.js';
import { fail, failValidation, type MethodContext, type MethodHandler } from './method-context.js';

/**
 * Slack's current file upload, as the stand-in keeps it: `files.getUploadURLExternal` hands out an address on
 * this server and a file id, a POST of the bytes there stores them (the stand-in keeps every byte, so a test or
 * the demo console can look at the image), and `files.completeUploadExternal` shares the file in a channel or
 * thread as a message carrying it. A Block Kit image block may name an uploaded file (`slack_file`).
 */

/** Slack's own cap on one upload (1 GB); the bot's charts are a few hundred kilobytes. */
const MAX_LENGTH = 1_000_000_000;

const getUploadUrl: MethodHandler = (ctx, args) => {
  const filename = typeof args.filename === 'string' ? args.filename : '';
  const length = Number(args.length);
  if (!filename || !Number.isInteger(length) || length < 1 || length > MAX_LENGTH)
    return failValidation('invalid_arguments', ['filename and a length in bytes are required']);
  const id = randomId('F', 10);
  const altText = typeof args.alt_txt === 'string' ? args.alt_txt : undefined;
  const file: FakeFile = {
    id,
    name: filename,
    length,
    mimetype: mimeOf(filename),
    ...(altText ? { alt_txt: altText } : {}),
  };
  ctx.state.files.set(id, file);
  return { ok: true, upload_url: `${ctx.origin}/upload/${id}`, file_id: id };
};

function mimeOf(filename: string): string {
  return /\.png$/i.test(filename) ? 'image/png' : 'application/octet-stream';
}

/** The ids and titles of `files` (`[{"id":"F…","title":"…"}]`), or undefined when it is not that shape. */
function fileList(value: unknown): Array<{ id: string; title?: string }> | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const list: Array<{ id: string; title?: string }> = [];
  for (const item of value) {
    const id = (item as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return undefined;
    const title = (item as { title?: unknown }).title;
    list.push(typeof title === 'string' ? { id, title } : { id });
  }
  return list;
}

const completeUpload: MethodHandler = (ctx, args) => {
  const list = fileList(args.files);
  if (!list) return failValidation('invalid_arguments', ['files must be a list of {"id", "title"}']);
  const files: FakeFile[] = [];
  for (const { id, title } of list) {
    const file = ctx.state.files.get(id);
    if (!file) return fail('file_not_found');
    if (!file.bytes || file.bytes.length !== file.length) return fail('file_upload_size_mismatch');
    if (title !== undefined) file.title = title;
    files.push(file);
  }
  const channelId = typeof args.channel_id === 'string' && args.channel_id ? args.channel_id : undefined;
  if (channelId) {
    const ch = ctx.state.channel(channelId);
    if (!ch) return fail('channel_not_found');
    if (ch.archived) return fail('is_archived');
    if (!ch.botIsMember) return fail('not_in_channel');
    shareIn(ctx, ch.id, files, args);
  }
  return { ok: true, files: files.map((f) => ({ id: f.id, title: f.title ?? f.name })) };
};

/** The message a shared file arrives with, as Slack posts it: the initial comment and the files. */
function shareIn(
  ctx: MethodContext,
  channel: string,
  files: FakeFile[],
  args: Record<string, unknown>,
): void {
  const threadTs = typeof args.thread_ts === 'string' && args.thread_ts ? args.thread_ts : undefined;
  const message: FakeMessage = {
    ts: nextTs(),
    channel,
    user: ctx.botUserId,
    bot_id: ctx.botId,
    text: typeof args.initial_comment === 'string' ? args.initial_comment : '',
    files: files.map((f) => ({
      id: f.id,
      name: f.name,
      title: f.title ?? f.name,
      mimetype: f.mimetype,
      ...(f.alt_txt ? { alt_txt: f.alt_txt } : {}),
    })),
    ...(threadTs ? { thread_ts: threadTs } : {}),
    via: 'api',
  };
  if (threadTs) {
    const parent = ctx.state.find(channel, threadTs);
    if (parent) {
      parent.thread_ts = parent.ts;
      parent.reply_count = (parent.reply_count ?? 0) + 1;
    }
  }
  for (const f of files) f.shares = [...(f.shares ?? []), { channel, ts: message.ts }];
  ctx.state.list(channel).push(message);
}

export const fileMethods: Record<string, MethodHandler> = {
  'files.getUploadURLExternal': getUploadUrl,
  'files.completeUploadExternal': completeUpload,
};

/**
 * The POST of a file's bytes to the address getUploadURLExternal gave: kept whole. Answers 200 `OK - <length>`
 * as Slack does; an unknown address is a 404. `simulate.outage(['upload'])` and `simulate.ratelimit('upload')`
 * make it fail as the Web API methods do.
 */
export async function handleUpload(
  ctx: MethodContext,
  id: string,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  const record = (ok: boolean, error?: string) =>
    ctx.state.record({
      method: 'upload',
      args: { file_id: id, length: bytes.length },
      at: Date.now(),
      ok,
      ...(error ? { error } : {}),
    });
  const file = ctx.state.files.get(id);
  const outage = ctx.state.outages.get('upload');
  const limit = ctx.state.rateLimits.get('upload');
  if (!file || req.method !== 'POST') {
    record(false, 'not_found');
    res.writeHead(404).end();
  } else if (outage) {
    record(false, `outage_${outage}`);
    if (outage === 'error') res.writeHead(503).end();
  } else if (limit && limit.remaining > 0) {
    limit.remaining -= 1;
    record(false, 'ratelimited');
    res.writeHead(429, { 'retry-after': String(limit.retryAfterSec) }).end();
  } else {
    file.bytes = bytes;
    record(true);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${bytes.length}`);
  }
}

/**
 * Errors for image blocks (and context images) that name a `slack_file` by id that was never uploaded: Slack
 * refuses such a message as `invalid_blocks`.
 */
export function unknownSlackFiles(ctx: MethodContext, blocks: unknown, path = '/blocks'): string[] {
  if (!Array.isArray(blocks)) return [];
  const errors: string[] = [];
  blocks.forEach((block, i) => {
    const b = block as { type?: unknown; slack_file?: { id?: unknown }; elements?: unknown } | null;
    if (b?.type === 'image' && typeof b.slack_file?.id === 'string') {
      const file = ctx.state.files.get(b.slack_file.id);
      if (!file?.bytes)
        errors.push(`invalid slack_file: no file ${b.slack_file.id} [json-pointer:${path}/${i}/slack_file]`);
    }
    if (b?.type === 'context') errors.push(...unknownSlackFiles(ctx, b.elements, `${path}/${i}/elements`));
  });
  return errors;
}
