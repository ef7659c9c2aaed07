/** A refusal by the access policy: a code to compare, and what the person reads (title, what to do). */
export const AccessErrorCode = {
  Guest: 'access_guest',
  External: 'access_external',
  NotMember: 'access_not_member',
  AdminOnlyRead: 'access_admin_only_read',
  AdminOnlyAction: 'access_admin_only_action',
  NotRequester: 'access_not_requester',
  Unchecked: 'access_unchecked',
} as const;
export type AccessErrorCode = (typeof AccessErrorCode)[keyof typeof AccessErrorCode];

function wording(code: AccessErrorCode, action = ''): { title: string; hint: string } {
  switch (code) {
    case AccessErrorCode.Guest:
      return {
        title: 'Guests cannot use the gateway bot.',
        hint: 'Ask a full member of the workspace to run it for you.',
      };
    case AccessErrorCode.External:
      return {
        title: 'The gateway bot works only for people of the workspace it is installed in.',
        hint: 'This channel is shared with another organisation: ask someone from the agency to run it.',
      };
    case AccessErrorCode.NotMember:
      return {
        title: 'You are not among the people who may run actions.',
        hint: 'Ask an admin to add you, or a user group you are in, to the members who may:',
      };
    case AccessErrorCode.AdminOnlyRead:
      return {
        title: 'Only admins can list the agency’s clients.',
        hint: '`/gateway status` shows this channel’s client. For the list, ask an admin:',
      };
    case AccessErrorCode.AdminOnlyAction:
      return {
        title: `\`${action}\` is new on the gateway, so only admins can run it for now.`,
        hint: 'An admin can run it for you, or open it to everyone by adding it to `GATEWAY_ALLOWED_ACTIONS` in the bot’s configuration:',
      };
    case AccessErrorCode.NotRequester:
      return {
        title: 'Only the person who asked for this job, an admin or an approver can run it again.',
        hint: 'Ask them, or run the command yourself.',
      };
    case AccessErrorCode.Unchecked:
      return {
        title: 'I could not check who you are, so nothing was done.',
        hint: 'Try again in a minute. If it keeps happening, tell the people who run the bot.',
      };
  }
}

export class AccessError extends Error {
  override readonly name = 'AccessError';
  readonly title: string;
  readonly options: { hint: string; people?: readonly string[] };

  /** `admins`: named in the refusals an admin can resolve, so the person knows whom to ask. */
  constructor(
    readonly code: AccessErrorCode,
    detail: { action?: string; admins?: readonly string[] } = {},
  ) {
    const { title, hint } = wording(code, detail.action);
    super(title);
    this.title = title;
    const people = detail.admins ?? [];
    // A hint that ends with ':' names the admins after it; with none configured, it ends the sentence.
    this.options = people.length ? { hint, people } : { hint: hint.replace(/:$/, '.') };
  }
}
