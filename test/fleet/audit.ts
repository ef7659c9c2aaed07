import { Queue } from 'bullmq';
import { ACTION_QUEUE } from '../../src/jobs/job-data.js';
import type { FakeMessage, FakeSlack } from '../../src/local/fake-slack/index.js';
import { createRedis } from '../../src/redis/connection.js';
import { type Sandbox, storeResourceOf } from '../../src/sandbox/index.js';
import { within } from './deadline.js';
import type { Fleet } from './fleet.js';

/**
 * What a run did, read from the outside: what Slack received (the stand-in), what the gateway received and
 * created (the sandbox), and the jobs' own records in Redis. Every column of the fault table comes from here.
 */

/** One `/gateway …` sent; `marker` is unique text that its status message and its records carry. */
export interface Sent {
  marker: string;
  text: string;
  channel: string;
  user: string;
  /** The action a job should run, when the command asks for one. */
  action?: string;
  triggerId: string;
  responseUrl: string;
  status: number;
  ackBody: string;
  /** How long the web process took to ack. */
  ackMs: number;
  /** The request itself failed (no web process answered): Slack shows the person an error. */
  failed?: string;
}

export const markerOf = (i: number, tag = 'fx'): string => `${tag}${String(i).padStart(5, '0')}z`;

/** Sends one command through the next web process; a refused connection is recorded, not thrown. */
export async function send(
  fleet: Fleet,
  text: string,
  sent: Omit<Sent, 'text' | 'triggerId' | 'responseUrl' | 'status' | 'ackBody' | 'ackMs'>,
): Promise<Sent> {
  try {
    const r = await fleet.driver().command(text, { user: sent.user, channel: sent.channel });
    return {
      ...sent,
      text,
      triggerId: r.triggerId,
      responseUrl: r.responseUrl,
      status: r.status,
      ackBody: r.body,
      ackMs: r.elapsedMs,
    };
  } catch (error) {
    return {
      ...sent,
      text,
      triggerId: '',
      responseUrl: '',
      status: 0,
      ackBody: '',
      ackMs: 0,
      failed: String(error),
    };
  }
}

export interface JobAudit {
  commands: number;
  /** Ended with a status message in a final state: done, failed (told why), needs attention (a person decides). */
  done: number;
  failed: number;
  attention: number;
  /** Answered without a job: reads and help, an error for the person (e.g. Redis down), or Slack refused (no web answered). */
  told: number;
  /** A job that had not finished when the run ended, or that vanished. */
  lost: number;
  /** A job that ended but whose status message does not say so, a done without its result, or no answer at all. */
  silent: number;
  /** Commands whose action created more than one record at the gateway. */
  duplicates: number;
  details: string[];
}

// The final state, and for a done job its one-line result after a colon (`— done: 3 recommendations`).
const FINAL = /— (done|failed|needs attention)(?::.*)?$/;
const responseId = (url: string) => url.slice(url.lastIndexOf('/') + 1);

function statusMessages(slack: FakeSlack, channels: string[]): Map<string, FakeMessage> {
  const byMarker = new Map<string, FakeMessage>();
  for (const channel of channels) {
    for (const m of slack.messages(channel)) {
      for (const marker of m.text.match(/[a-z]{2}\d{5}z/g) ?? []) byMarker.set(marker, m);
    }
  }
  return byMarker;
}

/** Any answer to a command: Slack's own error, an ack, a response_url post, a modal, a message with its marker. */
export function toldAnything(slack: FakeSlack, s: Sent, statuses?: Map<string, FakeMessage>): boolean {
  if (s.failed || s.status !== 200) return true;
  if (s.ackBody.trim()) return true;
  if (statuses?.has(s.marker)) return true;
  const id = responseId(s.responseUrl);
  return slack.calls.some(
    (c) =>
      c.ok &&
      ((c.method === 'response_url' && c.responseUrl === id) ||
        (c.method === 'views.open' && c.args.trigger_id === s.triggerId)),
  );
}

/** What the person was told in reply to a command's response_url (its texts, in order), for a row's details. */
export function toldWhat(slack: FakeSlack, s: Sent): string[] {
  const id = responseId(s.responseUrl);
  return slack.calls
    .filter((c) => c.ok && c.method === 'response_url' && c.responseUrl === id)
    .map((c) => String(c.args.text ?? ''));
}

/** A read of the queue (Redis answers in milliseconds; one that does not is down). */
const QUEUE_READ_MS = 15_000;

/** Jobs BullMQ still holds unfinished (waiting, delayed, active). */
export async function openJobs(fleet: Fleet): Promise<number> {
  const redis = createRedis(fleet.redisTarget);
  redis.on('error', () => {});
  const queue = new Queue(ACTION_QUEUE, { connection: redis, prefix: fleet.prefix });
  try {
    const counts = await within(
      'BullMQ to count the open jobs',
      QUEUE_READ_MS,
      queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized'),
    );
    return Object.values(counts).reduce((a, b) => a + b, 0);
  } finally {
    await within('the queue to close', QUEUE_READ_MS, queue.close()).catch(() => {});
    redis.disconnect();
  }
}

/** The jobs BullMQ still holds unfinished, one line each: id, state, action, attempts and why it last failed. */
export async function describeOpenJobs(fleet: Fleet, max = 10): Promise<string[]> {
  const redis = createRedis(fleet.redisTarget);
  redis.on('error', () => {});
  const queue = new Queue(ACTION_QUEUE, { connection: redis, prefix: fleet.prefix });
  try {
    const jobs = await within(
      'BullMQ to list the open jobs',
      QUEUE_READ_MS,
      queue.getJobs(['waiting', 'delayed', 'active', 'prioritized'], 0, max - 1),
    );
    return Promise.all(
      jobs.map(
        async (j) =>
          `${j.id} (${await j.getState()}, ${String(j.data?.action)}, ${j.attemptsMade} attempts` +
          `${j.failedReason ? `, last: ${j.failedReason}` : ''})`,
      ),
    );
  } finally {
    await within('the queue to close', QUEUE_READ_MS, queue.close()).catch(() => {});
    redis.disconnect();
  }
}

/**
 * Waits until every action command has settled (a final status, or an answer with no job), up to a deadline. A
 * job says done on its status message before its result card reaches the thread (a gateway read and, with Slack
 * failing, retries lie between): it has settled once the thread has it.
 */
export async function waitSettled(fleet: Fleet, sent: Sent[], timeoutMs: number): Promise<void> {
  const channels = [...new Set(sent.map((s) => s.channel))];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const statuses = statusMessages(fleet.slack, channels);
    const open = sent.filter((s) => {
      const status = s.action ? statuses.get(s.marker) : undefined;
      if (!status) return !toldAnything(fleet.slack, s, statuses);
      const state = FINAL.exec(status.text)?.[1];
      if (!state) return true;
      return state === 'done' && fleet.slack.thread(s.channel, status.ts).length === 0;
    });
    if (open.length === 0) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Records at the gateway per marker, for the actions that were asked for. */
function recordCounts(sandbox: Sandbox, clientId: string, actions: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  const resources = new Set(actions.map((a) => storeResourceOf(a)));
  for (const resource of resources) {
    if (!resource) continue;
    for (const row of sandbox.records(clientId, resource)) {
      for (const marker of new Set(JSON.stringify(row).match(/[a-z]{2}\d{5}z/g)))
        counts.set(marker, (counts.get(marker) ?? 0) + 1);
    }
  }
  return counts;
}

export async function auditJobs(fleet: Fleet, sent: Sent[], clientId: string): Promise<JobAudit> {
  const actions = sent.filter((s) => s.action);
  const channels = [...new Set(sent.map((s) => s.channel))];
  const statuses = statusMessages(fleet.slack, channels);
  const records = recordCounts(fleet.sandbox, clientId, [...new Set(actions.map((s) => s.action ?? ''))]);
  const redis = createRedis(fleet.redisTarget);
  redis.on('error', () => {});
  const audit: JobAudit = {
    commands: sent.length,
    done: 0,
    failed: 0,
    attention: 0,
    told: 0,
    lost: 0,
    silent: 0,
    duplicates: 0,
    details: [],
  };
  try {
    for (const s of sent.filter((x) => !x.action)) {
      if (toldAnything(fleet.slack, s, statuses)) audit.told += 1;
      else {
        audit.silent += 1;
        audit.details.push(`silent: no answer to "${s.text}"`);
      }
    }
    for (const s of actions) {
      if ((records.get(s.marker) ?? 0) > 1) {
        audit.duplicates += 1;
        audit.details.push(`duplicate: ${s.marker} has ${records.get(s.marker)} records (${s.text})`);
      }
      const status = statuses.get(s.marker);
      const state = status ? FINAL.exec(status.text)?.[1] : undefined;
      const job = s.triggerId ? await redis.hgetall(`${fleet.prefix}:actions:cmd-${s.triggerId}`) : {};
      const jobExists = Object.keys(job).length > 0;
      if (state && status) {
        if (state === 'done' && fleet.slack.thread(s.channel, status.ts).length === 0) {
          audit.silent += 1;
          audit.details.push(`silent: ${s.marker} says done with nothing in its thread`);
        } else if (state === 'done') audit.done += 1;
        else if (state === 'failed') audit.failed += 1;
        else audit.attention += 1;
        continue;
      }
      if (status || jobExists) {
        if (job.finishedOn) {
          audit.silent += 1;
          audit.details.push(
            `silent: ${s.marker}'s job ended (${job.failedReason ?? 'completed'}) but Slack shows "${status?.text ?? 'nothing'}"`,
          );
        } else {
          audit.lost += 1;
          audit.details.push(
            `lost: ${s.marker}: ${jobExists ? 'job not finished' : 'no job'}; Slack shows "${status?.text ?? 'nothing'}"`,
          );
        }
        continue;
      }
      if (toldAnything(fleet.slack, s)) audit.told += 1;
      else {
        audit.silent += 1;
        audit.details.push(`silent: ${s.marker}: no job and no answer (${s.text})`);
      }
    }
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
  return audit;
}

/** Slack's errors for a malformed message or view: every one is a Block Kit (or message shape) violation. */
const SHAPE_ERRORS = new Set([
  'invalid_blocks',
  'invalid_arguments',
  'invalid_errors',
  'invalid_response_action',
  'msg_too_long',
  'no_text',
]);

export function blockKitViolations(slack: FakeSlack): { count: number; details: string[] } {
  const bad = slack.calls.filter((c) => !c.ok && c.error && SHAPE_ERRORS.has(c.error));
  return {
    count: bad.length,
    details: bad.slice(0, 5).map((c) => `${c.method}: ${c.error} ${JSON.stringify(c.args).slice(0, 300)}`),
  };
}

/**
 * Control sequences in what the bot posted that no gateway or user text may produce: any `<!…>` (channel,
 * here, everyone, user groups, dates; the bot's own Slack dates excepted), a `<@…>` that is not one of the people who used the bot, a `<#…>`
 * channel link, and a link whose target is not a plain http(s) URL. Read from every mrkdwn text the stand-in
 * holds: channel messages and threads, ephemerals and open views.
 */
export function unescapedMentions(
  slack: FakeSlack,
  channels: string[],
  actors: string[],
  options: {
    /** Links whose target matches count too, http(s) or not: a gateway's link must never work. */
    forbiddenLink?: RegExp;
    /** Bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) count too. */
    bidi?: boolean;
  } = {},
): { count: number; details: string[] } {
  const texts: string[] = [];
  const collect = (m: FakeMessage) => {
    texts.push(m.text);
    mrkdwnTexts(m.blocks, texts);
  };
  for (const channel of channels) {
    for (const m of slack.messages(channel)) {
      collect(m);
      for (const reply of slack.thread(channel, m.ts)) collect(reply);
    }
    for (const m of slack.ephemerals(channel)) collect(m);
  }
  for (const v of slack.views()) mrkdwnTexts(v.view.blocks, texts);
  const allowed = new Set(actors.map((a) => `@${a}`));
  // The dates the bot formats itself (views/template.ts): `{date_short_pretty}` (at `{time}`) with an ISO fallback. Any other
  // `<!date^…>` (the fuzzer types `{date_pretty}|Feb 18`) came from someone's text and should have been escaped.
  const botDate =
    /^!date\^\d+\^\{date_short_pretty\}(?: at \{time\})?\|\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2} UTC)?$/;
  const details: string[] = [];
  for (const text of texts) {
    for (const [, inner] of text.matchAll(/<([^>]*)>/g)) {
      const target = (inner ?? '').split('|')[0] ?? '';
      const ok =
        allowed.has(target) ||
        (/^https?:\/\/[^\s<>|]+$/i.test(target) && !options.forbiddenLink?.test(target)) ||
        botDate.test(inner ?? '');
      if (!ok) details.push(`<${inner}> in ${JSON.stringify(text.slice(0, 200))}`);
    }
    if (options.bidi && /[\u202A-\u202E\u2066-\u2069]/.test(text))
      details.push(`a bidirectional control in ${JSON.stringify(text.slice(0, 200))}`);
  }
  return { count: details.length, details: details.slice(0, 5) };
}

function mrkdwnTexts(node: unknown, out: string[]): void {
  if (Array.isArray(node)) {
    for (const item of node) mrkdwnTexts(item, out);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const obj = node as Record<string, unknown>;
  if (obj.type === 'mrkdwn' && typeof obj.text === 'string') out.push(obj.text);
  for (const value of Object.values(obj)) if (typeof value === 'object') mrkdwnTexts(value, out);
}
