import type { ActionEntry } from '../actions/index.js';
import { UserError, UserErrorCode } from './user-error.js';

/** Why a request is not run, in the words the person reads (every surface shows the same). */

export const unavailableAction = (action: string) =>
  new UserError(UserErrorCode.Unavailable, `The gateway no longer lists the \`${action}\` action.`, {
    hint: '`/gateway help` lists what it offers now.',
  });

export const reboundChannel = () =>
  new UserError(UserErrorCode.WrongClient, 'This channel is now bound to another client.', {
    hint: 'Nothing was run. Run the command again for the current client.',
  });

export function guardedRefusal(entry: Pick<ActionEntry, 'label'>): UserError {
  return new UserError(UserErrorCode.Guarded, `${entry.label} needs a person’s approval before it runs.`, {
    hint: 'Ask for it with its command (`/gateway deploy`, `/gateway email`, …): an approver approves the card, and only then does it run.',
  });
}

export function alreadyQueued(requestKey: string, retryOf: string | undefined): UserError {
  const what = retryOf ? 'That job was already retried' : 'That request was already queued';
  return new UserError(
    UserErrorCode.AlreadyQueued,
    `${what} (job \`${requestKey}\`); nothing new was queued.`,
    {
      hint: retryOf
        ? 'The retry’s result is in its own thread: use the buttons there, or run the command again.'
        : 'Run the command again to ask for it anew.',
    },
  );
}

/**
 * A required field the request lacks: refused before any card or job, whichever surface sent it (a form and the
 * command line ask for it first; this is for everything else). Says what to give and where to find it.
 */
export function missingField(
  entry: Pick<ActionEntry, 'label' | 'command' | 'fields' | 'usage'>,
  fields: Record<string, unknown>,
): UserError | undefined {
  const missing = entry.fields.find((f) => f.required && isEmpty(fields[f.name]));
  if (!missing) return undefined;
  const how = missing.optionsFrom
    ? `Run \`/gateway ${entry.command}\` alone and choose one in its form, or give \`${missing.name}\` as the usage line shows.`
    : `Give \`${missing.name}\` as the usage line shows.`;
  return new UserError(
    UserErrorCode.BadArguments,
    `${entry.label} needs its ${missing.label.toLowerCase()} (${missing.name}), so nothing was asked for or run.`,
    {
      ...(missing.requiredBecause ? { detail: sentence(missing.requiredBecause) } : {}),
      hint: missing.find ? `${how} ${missing.find}` : how,
      usage: entry.usage,
    },
  );
}

const isEmpty = (value: unknown) =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

const sentence = (clause: string) => `${clause.charAt(0).toUpperCase()}${clause.slice(1)}.`;
