import type { AppLogger } from '../logger.js';
import { describeError } from '../slack/describe-error.js';
import { buildApprovalRefusal } from '../views/approval-card.js';
import type { SlackMessage } from '../views/blocks.js';
import type { DecideOutcome } from './decide.js';

/**
 * What the person who decided is told, on whichever surface they clicked: a refusal says why; a run that
 * could not be queued says why not. Undefined otherwise (the card shows the decision to everyone).
 */
export function decisionAnswer(outcome: DecideOutcome, log: AppLogger): SlackMessage | undefined {
  if (outcome.kind === 'refused') return buildApprovalRefusal(outcome.refusal);
  if (outcome.kind === 'not-queued') return describeError(outcome.error, log);
  return undefined;
}
