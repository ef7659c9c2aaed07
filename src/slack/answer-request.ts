import type { AppLogger } from '../logger.js';
import type { RequestResult } from '../requests/request.js';
import type { SlackMessage } from '../views/blocks.js';
import { buildDuplicatePrompt } from '../views/duplicate-prompt.js';
import { describeError } from './describe-error.js';

/**
 * What the person who asked sees of a request's result, whatever the surface: a refusal says why and what to
 * do; the duplicate question shows the earlier record with "Generate another"; a queued job speaks for
 * itself in the channel.
 */
export async function answerRequest(
  result: RequestResult,
  reply: (message: SlackMessage) => Promise<void>,
  log: AppLogger,
): Promise<void> {
  if (result.kind === 'refused') await reply(describeError(result.error, log));
  if (result.kind === 'ask') {
    const { entry, earlier, fields, pendingId } = result.question;
    await reply(buildDuplicatePrompt({ entry, earlier, fields, confirmValue: pendingId }));
  }
}
