import type { KnownBlock, SlackMessage } from './blocks.js';
import { context, section } from './blocks.js';
import { escapeMrkdwn } from './escape.js';
import { fitMessage } from './limits.js';

/**
 * The channel message of one action job, updated in place as the job moves: queued → running → done |
 * failed | needs-attention. Its thread holds the result. Pure: no I/O.
 */

export type JobStatusState = 'queued' | 'running' | 'done' | 'failed' | 'needs-attention';

export interface JobStatusInput {
  /** The action's label from the catalogue, e.g. "SEO audit". */
  label: string;
  clientLabel: string;
  requestedBy: string;
  state: JobStatusState;
  /** What the action is about (the url, the keyword); shown after the label. */
  subject?: string;
  /** Jobs that start before this one (queued only). */
  ahead?: number;
  /** One line on the outcome (done, failed, needs-attention). */
  summary?: string;
  /** Set on a retry: the job this one repeats. */
  retryOf?: string;
}

const ICONS: Record<JobStatusState, string> = {
  queued: ':hourglass_flowing_sand:',
  running: ':arrows_counterclockwise:',
  done: ':white_check_mark:',
  failed: ':x:',
  'needs-attention': ':warning:',
};

function stateText(input: JobStatusInput): string {
  switch (input.state) {
    case 'queued':
      return input.ahead && input.ahead > 0 ? `queued, ${input.ahead} ahead` : 'queued';
    case 'running':
      return 'running';
    case 'done':
      return 'done';
    case 'failed':
      return 'failed';
    case 'needs-attention':
      return 'needs attention';
  }
}

/** The main field of an action's fields: the one a person would name it by. */
export function subjectOf(fields: Record<string, unknown>): string | undefined {
  for (const name of ['url', 'keyword', 'topic', 'headline', 'title', 'prospectUrl', 'prompt', 'seed']) {
    const value = fields[name];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return undefined;
}

export function buildJobStatus(input: JobStatusInput): SlackMessage {
  const what = input.subject
    ? `${escapeMrkdwn(input.label)} of ${escapeMrkdwn(input.subject)}`
    : escapeMrkdwn(input.label);
  // requestedBy is a Slack user id from the payload, never gateway data: the mention is meant to render.
  const who = /^[UW][A-Z0-9]+$/.test(input.requestedBy)
    ? `<@${input.requestedBy}>`
    : escapeMrkdwn(input.requestedBy);
  const line = `${what} for ${escapeMrkdwn(input.clientLabel)}, requested by ${who} — ${stateText(input)}`;
  const blocks: KnownBlock[] = [section(`${ICONS[input.state]} ${line}`)];
  const notes: string[] = [];
  if (input.summary) notes.push(escapeMrkdwn(input.summary));
  if (input.retryOf) notes.push('retry of an earlier request');
  if (notes.length) blocks.push(context(notes.join(' · ')));
  return fitMessage({ text: line, blocks });
}
