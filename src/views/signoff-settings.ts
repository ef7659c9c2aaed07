import type { ChannelSignoff, SignoffPolicy } from '../bindings/signoff-store.js';
import type { SlackMessage } from './blocks.js';
import { context, section } from './blocks.js';
import { escapeMrkdwn, oneLine } from './escape.js';
import { fitMessage } from './limits.js';

/** `/gateway signoff`: the channel's sign-off policy and its client's named approvers. Pure. */

export const POLICY_LINE: Record<SignoffPolicy, string> = {
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
