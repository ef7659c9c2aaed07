import type { JobState } from '../jobs/job-state.js';
import type { KnownBlock, SlackMessage } from './blocks.js';
import { context, header, section } from './blocks.js';
import { code, escapeMrkdwn } from './escape.js';
import { JOB_STATE_ICONS } from './job-status.js';
import { fitMessage } from './limits.js';
import { slackDate } from './template.js';

/**
 * `/gateway jobs`: what each job was for, where it stands in words, and when, newest first; says when the list
 * is cut and how to see it all. Pure: no I/O.
 */

/** A job's state as people say it. */
export const JOB_STATE_WORDS: Record<string, string> = {
  queued: 'queued',
  running: 'running',
  done: 'done',
  failed: 'failed',
  'needs-attention': 'needs a person to decide',
  cancelled: 'cancelled',
};

/** Why a job failed, from its failure code (jobs/job-errors.ts `failureCode`), in words. */
const REASONS: Record<string, string> = {
  gateway_bad_request: 'the gateway refused the request as invalid',
  gateway_unauthorized: 'the gateway refused the API key',
  gateway_forbidden: 'the API key may not act for this client',
  gateway_method_not_allowed: 'the gateway refused the request',
  gateway_rate_limited: 'the gateway was rate limiting',
  gateway_server_error: 'the gateway kept failing',
  gateway_connection: 'the gateway could not be reached',
  gateway_timeout: 'the gateway did not answer in time',
  gateway_unknown_outcome: 'the gateway’s answer was lost',
  gateway_action_failed: 'the gateway reported that the action did not complete',
  gateway_invalid_response: 'the gateway’s answer could not be read',
  gateway_response_too_large: 'the gateway’s answer was too large',
  gateway_deadline: 'the gateway took too long to answer',
  gateway_scan_limit: 'the gateway’s pages did not end',
  job_unknown_action: 'the gateway no longer offers this action',
  job_outcome_absent_retry: 'the gateway kept failing',
  job_never_sent_retry: 'the gateway could not be reached',
  job_reconcile_failed: 'the bot could not check the gateway for the record',
  job_safe_repeat: 'the gateway kept failing',
  job_approval_missing: 'it needs a person’s approval',
  job_stalled: 'its worker stopped more than once',
};

/** A failure code as words: "the gateway kept failing (HTTP 500)"; an unknown code is shown as code. */
function reasonWords(failure: string): string {
  const [, name = failure, rest = ''] = /^([a-z0-9_]+)(.*)$/.exec(failure.trim()) ?? [];
  const http = /HTTP (\d{3})/.exec(rest)?.[1];
  const words = REASONS[name];
  if (!words) return code(failure);
  return http ? `${words} (HTTP ${http})` : words;
}

export interface JobListRow {
  /** What the job was for, as English (views/template.ts); mrkdwn, escaped. */
  title: string;
  requestedBy: string;
  state: string;
  enqueuedAt: number;
  finishedAt?: number;
  recordId?: string;
  /** A failure code (never a message: it can name the gateway's address). */
  failedReason?: string;
  cancelledBy?: string;
}

function line(job: JobListRow): string {
  const state = JOB_STATE_WORDS[job.state] ?? escapeMrkdwn(job.state);
  const parts = [`${JOB_STATE_ICONS[job.state as JobState] ?? '•'} ${job.title}`, `<@${job.requestedBy}>`];
  let outcome = state;
  if (job.recordId) outcome += ` → ${code(job.recordId)}`;
  if (job.failedReason) outcome += `: ${reasonWords(job.failedReason)}`;
  if (job.cancelledBy) outcome += ` by <@${job.cancelledBy}>`;
  parts.push(outcome);
  const when = slackDate(job.finishedAt ?? job.enqueuedAt);
  if (when) parts.push(when);
  return parts.join(' · ');
}

/** `all`: the list was asked for whole; otherwise a cut list says how to see the rest. */
export function buildJobList(input: {
  jobs: ReadonlyArray<JobListRow>;
  total: number;
  clientLabel?: string;
  all?: boolean;
}): SlackMessage {
  const { jobs, total } = input;
  if (!jobs.length) {
    // `<url>` would be a link to "url" in mrkdwn, even inside backticks.
    const text = `No jobs in this channel yet. Action commands such as ${code('/gateway audit <url>')} queue one.`;
    return fitMessage({ text, blocks: [section(text)] });
  }
  const blocks: KnownBlock[] = [header('Jobs in this channel')];
  const lines = jobs.map(line);
  // Whole lines per section: a line is never cut in the middle of a word.
  let current: string[] = [];
  let length = 0;
  for (const l of lines) {
    if (current.length && (current.length >= 10 || length + l.length + 1 > 2_900)) {
      blocks.push(section(current.join('\n')));
      current = [];
      length = 0;
    }
    current.push(l);
    length += l.length + 1;
  }
  if (current.length) blocks.push(section(current.join('\n')));
  const cut = total > jobs.length;
  const count = cut
    ? `${jobs.length} of ${total}, newest first; ${code('/gateway jobs all')} lists them all`
    : `${total} job${total === 1 ? '' : 's'}, newest first`;
  blocks.push(context(count));
  return fitMessage({ text: `Jobs in this channel: ${cut ? `${jobs.length} of ${total}` : total}`, blocks });
}
