import type { JobState } from '../jobs/job-state.js';
import type { KnownBlock, SlackMessage } from './blocks.js';
import { actions, button, context, section } from './blocks.js';
import { escapeMrkdwn } from './escape.js';
import { fitMessage } from './limits.js';

/**
 * The channel message of one action job, updated in place as the job moves: queued → running → done |
 * failed | needs-attention (or cancelled while queued). Its thread holds the result. A queued job says why it
 * waits and about how long, and carries a Cancel button. Pure: no I/O.
 */

export const CANCEL_JOB_ACTION_ID = 'job_cancel';

/** Why a queued job waits, and about how long (jobs/rate-limit.ts estimates it). */
export interface JobWait {
  /** Jobs that start before this one. */
  ahead: number;
  /** About how long until it starts; 0 or unset: at once. */
  ms?: number;
  /** The action rate (GATEWAY_ACTION_RATE), when it is what holds the job. */
  rate?: { max: number; windowMs: number };
  /** The whole queue is slowed: after repeated gateway faults, or because the gateway answered 429. */
  slowed?: 'faults' | 'rate-limited';
}

export interface JobStatusInput {
  /** What the job is, as English: "SEO audit of https://…" (views/template.ts); mrkdwn, escaped. */
  title: string;
  clientLabel: string;
  requestedBy: string;
  state: JobState;
  /** Queued only: why it waits. */
  wait?: JobWait;
  /** Queued only: the job's key, for its Cancel button. */
  cancelKey?: string;
  /** Done only: the result in a few words (views/result-card.ts `resultSummary`); mrkdwn, escaped. */
  result?: string;
  /** One line on the outcome (done, failed, needs-attention, cancelled); mrkdwn, escaped by the caller. */
  summary?: string;
  /** Set on a retry: the job this one repeats. */
  retryOf?: string;
  /** Asked for through an assistant (an assistant-tool token), not in Slack. */
  viaAssistant?: boolean;
}

/** One icon per job state, on status messages and in `/gateway jobs`. */
export const JOB_STATE_ICONS: Record<JobState, string> = {
  queued: ':hourglass_flowing_sand:',
  running: ':arrows_counterclockwise:',
  done: ':white_check_mark:',
  failed: ':x:',
  'needs-attention': ':warning:',
  cancelled: ':no_entry_sign:',
};

/** "about 40 s", "about 3 min". */
export function aboutDuration(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1_000));
  if (s < 90) return `about ${s} s`;
  const min = Math.round(s / 60);
  return min < 90 ? `about ${min} min` : `about ${Math.round(min / 60)} h`;
}

/** "10 actions a minute", "1 action every 10 s". */
export function rateWords(rate: { max: number; windowMs: number }): string {
  const per =
    rate.windowMs === 60_000
      ? 'a minute'
      : rate.windowMs === 1_000
        ? 'a second'
        : rate.windowMs === 3_600_000
          ? 'an hour'
          : `every ${aboutDuration(rate.windowMs).replace('about ', '')}`;
  return `${rate.max} action${rate.max === 1 ? '' : 's'} ${per}`;
}

function waitText(wait: JobWait | undefined): string {
  if (!wait) return 'queued';
  const reasons: string[] = [];
  if (wait.slowed === 'faults') reasons.push('the gateway keeps failing, so the queue is slowed');
  else if (wait.slowed === 'rate-limited') reasons.push('the gateway asked the bot to slow down');
  else if (wait.rate && wait.ms) reasons.push(rateWords(wait.rate));
  if (wait.ahead > 0) reasons.push(`${wait.ahead} ahead`);
  if (wait.ms && wait.ms > 0) reasons.push(aboutDuration(wait.ms));
  return reasons.length ? `queued: ${reasons.join(', ')}` : 'queued';
}

function stateText(input: JobStatusInput): string {
  switch (input.state) {
    case 'queued':
      return waitText(input.wait);
    case 'needs-attention':
      return 'needs attention';
    case 'done':
      return input.result ? `done: ${input.result}` : 'done';
    default:
      return input.state;
  }
}

export function buildJobStatus(input: JobStatusInput): SlackMessage {
  // requestedBy is a Slack user id from the payload, never gateway data: the mention is meant to render.
  const who = /^[UW][A-Z0-9]+$/.test(input.requestedBy)
    ? `<@${input.requestedBy}>`
    : escapeMrkdwn(input.requestedBy);
  const line = `${input.title} for ${escapeMrkdwn(input.clientLabel)}, requested by ${who}${input.viaAssistant ? ' through an assistant' : ''} — ${stateText(input)}`;
  const blocks: KnownBlock[] = [section(`${JOB_STATE_ICONS[input.state]} ${line}`)];
  const notes: string[] = [];
  if (input.summary) notes.push(input.summary);
  if (input.retryOf) notes.push('retry of an earlier request');
  if (notes.length) blocks.push(context(notes.join(' · ')));
  if (input.state === 'queued' && input.cancelKey) {
    blocks.push(
      actions(
        'keep:job_queued',
        button({ text: 'Cancel', actionId: CANCEL_JOB_ACTION_ID, value: input.cancelKey }),
      ),
    );
  }
  return fitMessage({ text: line, blocks });
}
