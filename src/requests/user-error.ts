/**
 * An error meant for the person who typed the command: a title, what to do next, and the usage where it helps.
 * Shown ephemerally; never a stack trace.
 */
export const UserErrorCode = {
  UnknownCommand: 'unknown_command',
  BadArguments: 'bad_arguments',
  NotBound: 'channel_not_bound',
  NotAdmin: 'not_admin',
  NotInChannel: 'bot_not_in_channel',
  UnknownResource: 'unknown_resource',
  Guarded: 'action_guarded',
  Expired: 'request_expired',
  WrongClient: 'wrong_client',
  Unavailable: 'unavailable',
  AlreadyQueued: 'already_queued',
  JobStarted: 'job_started',
  NotRequester: 'not_requester',
  TooSoon: 'too_soon',
  NothingToChart: 'nothing_to_chart',
  OverBudget: 'over_budget',
} as const;
export type UserErrorCode = (typeof UserErrorCode)[keyof typeof UserErrorCode];

export class UserError extends Error {
  override readonly name = 'UserError';
  constructor(
    readonly code: UserErrorCode,
    readonly title: string,
    readonly options: { hint?: string; usage?: string; detail?: string; people?: readonly string[] } = {},
  ) {
    super(title);
  }
}

/**
 * `admins`: the people named in the refusal, so the person knows whom to ask (not a configuration variable).
 * An admin who asks is told to bind it, not to ask themselves.
 */
export const notBoundError = (admins: readonly string[] = [], asker?: string) =>
  asker !== undefined && admins.includes(asker)
    ? new UserError(UserErrorCode.NotBound, 'This channel is not bound to a client yet.', {
        hint: 'Bind it with `/gateway use <client_id>` (`/gateway clients` lists them).',
      })
    : new UserError(UserErrorCode.NotBound, 'This channel is not bound to a client yet.', {
        hint: `Ask an admin to run \`/gateway use <client_id>\` here (\`/gateway clients\` lists them)${admins.length ? ':' : '.'}`,
        people: admins,
      });

export const notAdminError = (what: string, admins: readonly string[] = []) =>
  new UserError(UserErrorCode.NotAdmin, `Only admins can ${what}.`, {
    hint: admins.length ? 'Ask an admin to do it:' : 'Ask an admin to do it.',
    people: admins,
  });
