import { FORBIDDEN_ADVICE, UNAUTHORIZED_ADVICE } from '../gateway/advice.js';
import type { KnownBlock, SlackMessage } from './blocks.js';
import { actions, button, context, fields, section } from './blocks.js';
import { code, escapeMrkdwn, mrkdwnLink } from './escape.js';
import { fitMessage } from './limits.js';

/**
 * Thread replies of an action job: the result of a success, the gateway's own words on a failure, and the
 * question a person must answer when the outcome is unknown. Every gateway string is escaped here; the
 * button values are job keys (never data). Pure: no I/O.
 */

export const RETRY_ACTION_ID = 'job_retry';
export const RETRY_ANYWAY_ACTION_ID = 'job_retry_anyway';

export interface ResultEntry {
  action: string;
  label: string;
  /** Fields of the result worth showing first, when the catalogue names them. */
  resultFields?: readonly unknown[];
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') {
    return /^https?:\/\//i.test(value.trim()) ? mrkdwnLink(value) : escapeMrkdwn(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)) {
    return escapeMrkdwn(value.map(String).join(', '));
  }
  return code(JSON.stringify(value));
}

function humanName(name: string): string {
  const spaced = name
    .replace(/_/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

function fieldNames(resultFields: readonly unknown[] | undefined): string[] {
  return (resultFields ?? []).flatMap((f) =>
    typeof f === 'string' ? [f] : f && typeof f === 'object' && 'name' in f ? [String(f.name)] : [],
  );
}

/** Any shape: the named result fields first, then the rest, ten at most (Slack's field limit). */
function genericFields(data: Record<string, unknown>, first: string[]): string[] {
  const order = [...first.filter((k) => k in data), ...Object.keys(data).filter((k) => !first.includes(k))];
  return order
    .filter((k) => k !== 'id' && data[k] !== undefined)
    .map((k) => `*${escapeMrkdwn(humanName(k))}:*\n${show(data[k])}`);
}

export function buildActionResult(
  entry: ResultEntry,
  data: Record<string, unknown>,
  options: { note?: string } = {},
): SlackMessage {
  const id = typeof data.id === 'string' || typeof data.id === 'number' ? String(data.id) : undefined;
  const blocks: KnownBlock[] = [];
  let headline: string;
  if (entry.action === 'generate_blog' && typeof data.post_title === 'string') {
    headline = `Drafted: *${escapeMrkdwn(data.post_title)}*`;
    blocks.push(section(`:memo: ${headline}`));
  } else if (entry.action === 'seo_audit' && typeof data.score === 'number') {
    headline = `Audit score *${data.score}*`;
    const lines = [`Score: *${data.score}*/100`];
    if (typeof data.issues_found === 'number') lines.push(`Issues found: *${data.issues_found}*`);
    if (typeof data.url === 'string') lines.push(`URL: ${show(data.url)}`);
    blocks.push(section(`:mag: ${lines.join('\n')}`));
  } else {
    headline = `${escapeMrkdwn(entry.label)} finished`;
    blocks.push(section(`:white_check_mark: ${headline}`));
    const shown = genericFields(data, fieldNames(entry.resultFields));
    if (shown.length) blocks.push(fields(...shown));
  }
  const notes: string[] = [];
  if (id) notes.push(`Record ${code(id)}`);
  if (options.note) notes.push(escapeMrkdwn(options.note));
  if (notes.length) blocks.push(context(notes.join(' · ')));
  const text = `${escapeMrkdwn(entry.label)}: ${headline}${id ? ` (${escapeMrkdwn(id)})` : ''}`;
  return fitMessage({ text, blocks });
}

/** HTTP 200 with status:error: what the gateway said, and a Retry button for a person. */
export function buildActionFailed(input: {
  label: string;
  statusCode: number | undefined;
  message: string;
  jobKey: string;
}): SlackMessage {
  const status = input.statusCode === undefined ? '' : ` (status_code ${input.statusCode})`;
  const line = `${escapeMrkdwn(input.label)} did not complete${status}: ${escapeMrkdwn(input.message)}`;
  const blocks: KnownBlock[] = [
    section(`:x: ${line}`),
    context('Nothing was created and nothing was billed. It is not retried automatically.'),
    actions(`keep:job_failed`, button({ text: 'Retry', actionId: RETRY_ACTION_ID, value: input.jobKey })),
  ];
  return fitMessage({ text: line, blocks });
}

/** 4xx: final; the message and what to do about it. */
export function buildActionRejected(input: {
  label: string;
  status: number | undefined;
  message: string;
  advice?: string;
}): SlackMessage {
  const advice =
    input.advice ??
    (input.status === 401 ? UNAUTHORIZED_ADVICE : input.status === 403 ? FORBIDDEN_ADVICE : undefined);
  const http = input.status ? ` (HTTP ${input.status})` : '';
  const line = `${escapeMrkdwn(input.label)} was refused by the gateway${http}: ${escapeMrkdwn(input.message)}`;
  const blocks: KnownBlock[] = [section(`:no_entry: ${line}`)];
  if (advice) blocks.push(context(escapeMrkdwn(advice)));
  return fitMessage({ text: line, blocks });
}

/** The outcome cannot be known and the bot has no place to look: a person decides. */
export function buildOutcomeUnknown(input: { label: string; jobKey: string; reason: string }): SlackMessage {
  const line = `The outcome of ${escapeMrkdwn(input.label)} is unknown: ${escapeMrkdwn(input.reason)}`;
  const blocks: KnownBlock[] = [
    section(`:warning: ${line}`),
    context(
      'The gateway may have run it. Check the platform before running it again: a second run may create a duplicate and spend credits twice.',
    ),
    actions(
      'keep:job_unknown',
      button({
        text: 'Retry anyway',
        actionId: RETRY_ANYWAY_ACTION_ID,
        value: input.jobKey,
        style: 'danger',
      }),
    ),
  ];
  return fitMessage({ text: line, blocks });
}

/** A failure the job gave up on (persistent 5xx, unreachable gateway): report with time and message. */
export function buildActionGaveUp(input: {
  label: string;
  message: string;
  at: string;
  jobKey: string;
}): SlackMessage {
  const line = `${escapeMrkdwn(input.label)} failed: ${escapeMrkdwn(input.message)}`;
  const blocks: KnownBlock[] = [
    section(`:x: ${line}`),
    context(`At ${escapeMrkdwn(input.at)}. If it persists, report it to the platform with this time.`),
    actions('keep:job_gave_up', button({ text: 'Retry', actionId: RETRY_ACTION_ID, value: input.jobKey })),
  ];
  return fitMessage({ text: line, blocks });
}

/** A guarded action's job that reached a worker without an approved approval: refused, nothing sent. */
export function buildApprovalMissing(input: { label: string }): SlackMessage {
  const line = `${escapeMrkdwn(input.label)} was not run: it needs a person’s approval, and this job carried none.`;
  const blocks: KnownBlock[] = [
    section(`:no_entry: ${line}`),
    context(
      'Nothing was sent to the gateway. Ask for it again once approvals are available, or run it from the agency platform.',
    ),
  ];
  return fitMessage({ text: line, blocks });
}
