import type { FilesCompleteUploadExternalArguments, WebClient } from '@slack/web-api';
import { Agent, type Dispatcher, request } from 'undici';

/**
 * A file into a channel (or a thread) with Slack's current upload flow: `files.getUploadURLExternal` gives an
 * address and a file id, the bytes are POSTed there, and `files.completeUploadExternal` shares the file with its
 * message. (The older `files.upload` is deprecated and not used.) The two Web API calls go through the
 * WebClient, so its retry policy covers their 5xx; a 429 waits Retry-After as every other call of slack/ does
 * (`waitOut`, from slack-poster.ts). The POST of the bytes, which is not a Web API call, gets the same policy
 * here: a 5xx or a lost connection is tried again with backoff, a 429 waits Retry-After.
 */

export interface UploadedFile {
  bytes: Buffer;
  filename: string;
  title: string;
  /** What the image shows, in words: screen readers and notifications read it. */
  altText: string;
}

export interface UploadPlace {
  channel: string;
  threadTs?: string | undefined;
  /** The message the file is shared with (mrkdwn, already escaped). */
  comment: string;
}

/** How a Web API call waits out 429s (slack-poster.ts's policy, handed in so both share it). */
export type RateLimitWait = <T>(call: () => Promise<T>) => Promise<T>;

const UPLOAD_TIMEOUT_MS = 15_000;
const UPLOAD_TRIES = 3;
const UPLOAD_MAX_WAITS = 5;

let uploadAgent: Dispatcher | undefined;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class UploadError extends Error {
  override readonly name = 'UploadError';
  readonly code = 'slack_upload_failed';
}

/** The bytes, POSTed to the address Slack gave (no token: the address is the authority). */
async function postBytes(url: string, bytes: Buffer): Promise<void> {
  uploadAgent ??= new Agent({ headersTimeout: UPLOAD_TIMEOUT_MS, bodyTimeout: UPLOAD_TIMEOUT_MS });
  let backoff = 500;
  let waits = 0;
  for (let attempt = 1; ; attempt++) {
    let status: number;
    let retryAfter: string | undefined;
    try {
      const res = await request(url, {
        method: 'POST',
        body: bytes,
        headers: { 'content-type': 'application/octet-stream' },
        dispatcher: uploadAgent,
      });
      await res.body.dump();
      status = res.statusCode;
      retryAfter = String(res.headers['retry-after'] ?? '');
    } catch (error) {
      if (attempt >= UPLOAD_TRIES) throw new UploadError(`the file upload failed: ${String(error)}`);
      await sleep(backoff);
      backoff *= 2;
      continue;
    }
    if (status >= 200 && status < 300) return;
    if (status === 429 && waits < UPLOAD_MAX_WAITS) {
      waits++;
      attempt--;
      await sleep(Math.max(1, Number.parseInt(retryAfter, 10) || 1) * 1_000);
      continue;
    }
    if (status < 500 || attempt >= UPLOAD_TRIES)
      throw new UploadError(`the file upload was answered HTTP ${status}`);
    await sleep(backoff);
    backoff *= 2;
  }
}

/** Uploads `file` and shares it at `place`; resolves with Slack's file id. */
export async function uploadFile(
  slack: WebClient,
  waitOut: RateLimitWait,
  file: UploadedFile,
  place: UploadPlace,
): Promise<string> {
  const asked = await waitOut(() =>
    // Slack's documented argument is `alt_txt`; the SDK's typed method names it otherwise, so it is called by name.
    slack.apiCall('files.getUploadURLExternal', {
      filename: file.filename,
      length: file.bytes.length,
      alt_txt: file.altText,
    }),
  );
  const { upload_url: url, file_id: id } = asked as { upload_url?: unknown; file_id?: unknown };
  if (typeof url !== 'string' || typeof id !== 'string' || !url || !id)
    throw new UploadError('Slack gave no upload address');
  await postBytes(url, file.bytes);
  const files: FilesCompleteUploadExternalArguments['files'] = [{ id, title: file.title }];
  const shared = { files, initial_comment: place.comment };
  const { threadTs } = place;
  await waitOut(() =>
    threadTs
      ? slack.files.completeUploadExternal({ ...shared, channel_id: place.channel, thread_ts: threadTs })
      : slack.files.completeUploadExternal({ ...shared, channel_id: place.channel }),
  );
  return id;
}
