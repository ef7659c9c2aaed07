import type { ChannelSignoff, SignoffPolicy } from '../bindings/signoff-store.js';
import type { KnownBlock, SlackMessage } from './blocks.js';
import { context, plain, section } from './blocks.js';
import { escapeMrkdwn, oneLine } from './escape.js';
import { fitMessage } from './limits.js';

/** `/gateway signoff`: the channel's sign-off policy and its client's named approvers. Pure. */

const POLICY_LINE: Record<SignoffPolicy, string> = {
  agency: '`agency`: an agency approver decides (the default)',
  client: '`client`: a named client approver decides',
  both: '`both`: an agency approver and a client approver, in either order; either one’s Reject ends it',
};

export function buildSignoffList(input: { clientLabel: string; signoff: ChannelSignoff }): SlackMessage {
  const { signoff } = input;
  const client = escapeMrkdwn(oneLine(input.clientLabel));
  const named = signoff.approvers.map((a) => `• <@${a.userId}> (${client}), named by <@${a.addedBy}>`);
  return fitMessage({
    text: `Sign-off in this channel: ${signoff.policy}`,
    blocks: [
      section(`*Sign-off in this channel:* ${POLICY_LINE[signoff.policy]}`),
      section(
        named.length
          ? `*Client approvers of ${client}:*\n${named.join('\n')}`
          : `*Client approvers of ${client}:* none named yet.`,
      ),
      context(
        '`/gateway signoff add @person` · `/gateway signoff remove @person` · `/gateway signoff policy agency|client|both`',
      ),
    ],
  });
}

/** What the channel is told of a change, by whom. */
export function buildSignoffChange(line: string): SlackMessage {
  return fitMessage({ text: line, blocks: [section(line)] });
}

/** The lines the channel is told of each change, the same from the command and from the channel's settings. */
export const signoffLines = {
  named: (by: string, user: string, clientLabel: string) => {
    const client = escapeMrkdwn(oneLine(clientLabel));
    return `:white_check_mark: <@${by}> named <@${user}> (${client}) a client approver: they may approve or reject ${client}’s requests in this channel.`;
  },
  removed: (by: string, user: string, clientLabel: string) =>
    `<@${by}> removed <@${user}> from ${escapeMrkdwn(oneLine(clientLabel))}’s client approvers.`,
  policy: (by: string, policy: SignoffPolicy) =>
    `<@${by}> set this channel’s sign-off to ${POLICY_LINE[policy]}. Requests asked for from now on follow it.`,
};

/** The channel settings' form: its callback id, and the blocks and actions of its two inputs. */
export const SIGNOFF_FORM = {
  callbackId: 'channel_settings',
  policyBlock: 'signoff_policy',
  policyAction: 'policy',
  approversBlock: 'signoff_approvers',
  approversAction: 'approvers',
} as const;

/** The sign-off's inputs in the channel settings: the policy, and the client's named approvers. */
export function signoffInputs(signoff: ChannelSignoff | undefined): KnownBlock[] {
  const policy = signoff?.policy ?? 'agency';
  const option = (value: SignoffPolicy) => ({
    text: plain(value),
    value,
    description: plain(POLICY_HINT[value]),
  });
  return [
    {
      type: 'input',
      block_id: SIGNOFF_FORM.policyBlock,
      label: plain('Sign-off policy'),
      element: {
        type: 'radio_buttons',
        action_id: SIGNOFF_FORM.policyAction,
        options: (['agency', 'client', 'both'] as const).map(option),
        initial_option: option(policy),
      },
    },
    {
      type: 'input',
      block_id: SIGNOFF_FORM.approversBlock,
      optional: true,
      label: plain('Client approvers'),
      hint: plain(
        'People of the client’s workspace, in the channel. Requests already asked for keep theirs.',
      ),
      element: {
        type: 'multi_users_select',
        action_id: SIGNOFF_FORM.approversAction,
        initial_users: (signoff?.approvers ?? []).map((a) => a.userId),
      },
    },
  ];
}

const POLICY_HINT: Record<SignoffPolicy, string> = {
  agency: 'An agency approver decides (the default)',
  client: 'A named client approver decides',
  both: 'An agency and a client approver, in either order',
};
