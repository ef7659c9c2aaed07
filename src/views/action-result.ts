import { FORBIDDEN_ADVICE, UNAUTHORIZED_ADVICE } from '../gateway/advice.js';
import type { KnownBlock, SlackMessage } from './blocks.js';
import { actions, button, context, section } from './blocks.js';
import { escapeMrkdwn } from './escape.js';
import { fitMessage } from './limits.js';

/**
 * Thread replies of an action job that did not succeed: the gateway's own words on a failure, and the
 * question a person must answer when the outcome is unknown (a success's card is result-card.ts). Every gateway string is escaped here; the
 * button values are job keys (never data). Pure: no I/O.
 */

export const RETRY_ACTION_ID = 'job_retry';
export const RETRY_ANYWAY_ACTION_ID = 'job_retry_anyway';

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
      'Nothing was sent to the gateway. Ask for it again with its command: an approver approves the card, and the approved job runs it.',
    ),
  ];
  return fitMessage({ text: line, blocks });
}
