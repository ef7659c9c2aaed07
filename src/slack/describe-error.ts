import { AccessError } from '../access/access-error.js';
import {
  type GatewayError,
  GatewayErrorCode,
  isGatewayError,
  publicDetail,
  publicErrorLine,
} from '../gateway/errors.js';
import type { AppLogger } from '../logger.js';
import { UserError } from '../requests/user-error.js';
import type { SlackMessage } from '../views/blocks.js';
import { buildErrorMessage } from '../views/error-message.js';

/** The Slack Web API error code of a failed call, if that is what `error` is. */
function slackErrorCode(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | undefined)?.data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/** Slack said the bot cannot post in that channel (never invited, removed, or the channel is gone). */
export function isNotInChannel(error: unknown): boolean {
  const code = slackErrorCode(error);
  return code === 'not_in_channel' || code === 'channel_not_found';
}

/**
 * Turns any failure into the ephemeral message a person sees: what went wrong and what to do next. Unexpected
 * errors are logged with their details and shown without them (never a stack trace).
 */
export function describeError(error: unknown, logger: AppLogger): SlackMessage {
  if (error instanceof UserError || error instanceof AccessError) {
    return buildErrorMessage({ title: error.title, ...error.options });
  }
  if (error && typeof error === 'object' && (error as { code?: unknown }).code === 'unterminated_quote') {
    return buildErrorMessage({
      title: 'That command has a quote that is never closed.',
      detail: (error as Error).message,
      hint: 'Close the quote, e.g. `/gateway ideas seed="best plumber austin"`.',
    });
  }
  if (isGatewayError(error)) return describeGatewayError(error, logger);
  if (isNotInChannel(error)) {
    return buildErrorMessage({
      title: 'I am not in this channel, so I cannot post here.',
      hint: 'Invite me with `/invite @gateway`, then run the command again.',
    });
  }
  const slackCode = slackErrorCode(error);
  if (slackCode === 'expired_trigger_id' || slackCode === 'invalid_trigger_id') {
    // Slack lets a form open only within 3 s of the command; a slow moment ran past that.
    return buildErrorMessage({
      title: 'Slack did not let me open the form in time.',
      hint: 'Run the command again; the form should open at once.',
    });
  }
  logger.error('command failed', error);
  return buildErrorMessage({
    title: 'Something went wrong on our side.',
    hint: 'Try again. If it keeps happening, tell the people who run the bot.',
  });
}

/** A gateway failure as a person reads it; the details the channel must not see go to the log. */
function describeGatewayError(error: GatewayError, logger: AppLogger): SlackMessage {
  switch (error.code) {
    case GatewayErrorCode.BadRequest:
      return buildErrorMessage({
        title: 'The gateway refused the request.',
        detail: publicDetail(error),
        hint: 'Fix the value it names and try again.',
      });
    case GatewayErrorCode.Unauthorized:
      return buildErrorMessage({
        title: 'The gateway did not accept the bot’s API key.',
        hint: error.advice,
      });
    case GatewayErrorCode.Forbidden:
      return buildErrorMessage({
        title: 'The gateway refused access.',
        detail: publicDetail(error),
        hint: error.advice,
      });
    case GatewayErrorCode.ResponseTooLarge:
      logger.warn('gateway answer too large', error.message);
      return buildErrorMessage({
        title: 'The gateway’s answer was too large to read.',
        hint: 'Ask for fewer rows, e.g. `limit=20`, or narrow it with a filter.',
      });
    case GatewayErrorCode.Deadline:
      logger.warn('gateway read ran past its deadline', error.message);
      return buildErrorMessage({
        title: 'The gateway took too long to answer, so I stopped waiting.',
        detail: publicErrorLine(error),
        hint: 'Try again in a minute. If it keeps happening, tell the people who run the bot (the time helps them).',
      });
    case GatewayErrorCode.Busy:
      return buildErrorMessage({
        title: 'I am very busy reading from the gateway right now, so I did not start this read.',
        hint: 'Try again in a minute.',
      });
    case GatewayErrorCode.ScanLimit:
      logger.warn('gateway pages did not end', error.message);
      return buildErrorMessage({
        title: 'The gateway kept sending pages past the rows it said it had, so I stopped reading.',
        detail: publicErrorLine(error),
        hint: 'Nothing was shown from the partial read. Try again later; if it keeps happening, tell the people who run the bot.',
      });
    case GatewayErrorCode.RateLimited:
      return buildErrorMessage({
        title: 'The gateway is busy right now.',
        hint: 'Wait a minute and try again.',
      });
    default:
      // The message names the gateway's address and the request: for the log, not for the channel.
      logger.warn('gateway call failed', error);
      return buildErrorMessage({
        title: 'The gateway is not answering right now.',
        detail: publicErrorLine(error),
        hint: 'Try again in a few minutes. If it keeps failing, tell the people who run the bot (the time helps them).',
      });
  }
}
