import type { types } from '@slack/bolt';
import type { SlackMessage } from './blocks.js';
import { code, escapeMrkdwn } from './escape.js';
import { fitMessage } from './limits.js';

const ICONS: Record<string, string> = {
  queued: ':hourglass_flowing_sand:',
  running: ':arrows_counterclockwise:',
  done: ':white_check_mark:',
  failed: ':x:',
  'needs-attention': ':warning:',
};

/** One job's line, as the queue summarises it (jobs/queue.ts `JobSummary` fits) with the action's label. */
interface JobListRow {
  label: string;
  clientLabel: string;
  requestedBy: string;
  state: string;
  enqueuedAt: number;
  finishedAt?: number;
  recordId?: string;
  failedReason?: string;
}

/** `/gateway jobs`: one line per job, newest first, within Slack's limits. */
export function buildJobList(jobs: ReadonlyArray<JobListRow>): SlackMessage {
  if (!jobs.length) {
    // `<url>` would be a link to "url" in mrkdwn, even inside backticks.
    const text = `No jobs in this channel yet. Action commands such as ${code('/gateway audit <url>')} queue one.`;
    return fitMessage({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });
  }
  const lines = jobs.map((job) => {
    const when = new Date(job.finishedAt ?? job.enqueuedAt).toISOString().slice(0, 16).replace('T', ' ');
    const record = job.recordId ? ` → ${code(job.recordId)}` : '';
    const reason = job.failedReason ? ` (${escapeMrkdwn(job.failedReason.slice(0, 120))})` : '';
    return `${ICONS[job.state] ?? ''} *${escapeMrkdwn(job.label)}* for ${escapeMrkdwn(job.clientLabel)} by <@${job.requestedBy}> · ${job.state}${record}${reason} · ${when} UTC`;
  });
  const blocks: types.KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: 'Jobs in this channel' } },
  ];
  for (let i = 0; i < lines.length; i += 10) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: lines.slice(i, i + 10).join('\n') } });
  }
  return fitMessage({ text: `${jobs.length} jobs in this channel`, blocks });
}
