import type { ActionEntry } from '../actions/catalogue.js';
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
