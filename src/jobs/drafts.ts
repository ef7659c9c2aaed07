import { escapeHtml } from '../views/escape.js';
import type { ActionJobData } from './job-data.js';
import type { ActionQueue } from './queue.js';

/**
 * A draft a guarded action goes on from: a generated blog post (deployed by deploy_blog) or a generated outreach
 * email (sent by send_prospect_email), read from the job that made it, never from what a button or a tool call
 * says of it. The one lookup every surface uses (a result's buttons, the assistant tools).
 */

const DRAFT_ACTION = {
  deploy_blog: 'generate_blog',
  send_prospect_email: 'generate_outreach_email',
} as const;

export type DraftedAction = keyof typeof DRAFT_ACTION;

export interface Draft {
  job: { data: ActionJobData };
  result: Record<string, unknown>;
}

/**
 * The draft `jobKey` made for `guarded`, if that job made one for this client (and, when given, reported in this
 * channel); undefined otherwise (unknown, expired, another action's, another client's or channel's).
 */
export async function findDraft(
  queue: ActionQueue,
  guarded: DraftedAction,
  jobKey: string | undefined,
  where: { clientId?: string; channel?: string | undefined },
): Promise<Draft | undefined> {
  const job = jobKey ? await queue.findJob(jobKey) : undefined;
  const result = job?.data.result;
  if (!job || !result || job.data.action !== DRAFT_ACTION[guarded]) return undefined;
  if (where.clientId !== undefined && job.data.clientId !== where.clientId) return undefined;
  if ('channel' in where && job.data.replyTo.channel !== where.channel) return undefined;
  return { job, result };
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** An outreach draft as the email's fields: its body as one HTML paragraph, escaped. */
export function emailFromDraft(result: Record<string, unknown>): {
  to?: string;
  subject?: string;
  html?: string;
} {
  const body = text(result.body);
  const to = text(result.to);
  const subject = text(result.subject);
  return {
    ...(to ? { to } : {}),
    ...(subject ? { subject } : {}),
    ...(body ? { html: `<p>${escapeHtml(body)}</p>` } : {}),
  };
}
