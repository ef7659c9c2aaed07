import type { ChannelBinding } from '../bindings/binding-store.js';
import type { SlackMessage } from './blocks.js';
import { actions, button, section } from './blocks.js';
import { code, escapeMrkdwn } from './escape.js';
import { JOB_STATE_WORDS } from './job-list.js';
import { fitMessage, KEEP_BLOCK_PREFIX, truncate } from './limits.js';

/** `/gateway status`: the channel's client, whether the key reaches it, and its jobs by state. */
export function buildStatus(input: {
  binding: ChannelBinding | undefined;
  reach: 'ok' | string;
  jobs: ReadonlyArray<{ state: string }>;
  /** One line per digest subscription (digest-status.ts). */
  digests?: readonly string[];
}): SlackMessage {
  const { binding, reach, jobs } = input;
  if (!binding) {
    const text = `:information_source: This channel is not bound to a client. An admin can bind it with ${code('/gateway use <client_id>')}.`;
    return fitMessage({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });
  }
  const counts = new Map<string, number>();
  for (const job of jobs) counts.set(job.state, (counts.get(job.state) ?? 0) + 1);
  const jobLine = counts.size
    ? [...counts].map(([state, n]) => `${n} ${JOB_STATE_WORDS[state] ?? state}`).join(' · ')
    : 'none yet';
  const lines = [
    `*Client:* ${escapeMrkdwn(binding.clientLabel)} (${code(binding.clientId)}), bound by <@${binding.boundBy}>`,
    reach === 'ok'
      ? '*Gateway:* :white_check_mark: the key reaches this client'
      : `*Gateway:* :warning: ${escapeMrkdwn(reach)}`,
    input.digests?.length
      ? `*Digests:*\n${input.digests.map((line) => `• ${line}`).join('\n')}`
      : '*Digests:* none (`/gateway help digest`)',
    `*Jobs:* ${jobLine} (\`/gateway jobs\` lists them)`,
  ];
  const text = lines.join('\n');
  return fitMessage({
    text: `Status: ${escapeMrkdwn(binding.clientLabel)}`,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  });
}

/** The channel message after `use`: who bound it to which client, within Slack's limits. */
export function buildBindingConfirmation(input: {
  clientLabel: string;
  clientId: string;
  user: string;
}): SlackMessage {
  const text = `This channel is now bound to *${escapeMrkdwn(input.clientLabel)}* (${code(input.clientId)}), by <@${input.user}>.`;
  return fitMessage({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });
}

/** The ephemeral answer to `use` with the client the channel is already bound to: nothing to announce. */
export function buildAlreadyBound(input: { clientLabel: string; clientId: string }): SlackMessage {
  const text = `:information_source: This channel is already bound to *${escapeMrkdwn(input.clientLabel)}* (${code(input.clientId)}). Nothing changed.`;
  return fitMessage({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });
}

export const REBIND_CONFIRM_ACTION = 'rebind_confirm';
export const REBIND_CANCEL_ACTION = 'rebind_cancel';

/** What the rebind buttons carry: the client asked for and the one bound when asked (to spot a change since). */
export interface RebindChoice {
  clientId: string;
  fromClientId: string;
}

/** `use <other client>` in a bound channel: names the client bound now and asks before switching. */
export function buildRebindQuestion(input: {
  current: Pick<ChannelBinding, 'clientId' | 'clientLabel' | 'boundBy'>;
  next: { clientId: string; clientLabel: string };
}): SlackMessage {
  const { current, next } = input;
  const now = `*${escapeMrkdwn(current.clientLabel)}* (${code(current.clientId)})`;
  const then = `*${escapeMrkdwn(next.clientLabel)}* (${code(next.clientId)})`;
  const text = `:twisted_rightwards_arrows: This channel is bound to ${now}, by <@${current.boundBy}>. Bind it to ${then} instead? Reads, actions and digests here will then be for ${then}.`;
  const value = JSON.stringify({
    clientId: next.clientId,
    fromClientId: current.clientId,
  } satisfies RebindChoice);
  return fitMessage({
    text,
    blocks: [
      section(text),
      actions(
        `${KEEP_BLOCK_PREFIX}rebind`,
        button({
          text: `Switch to ${truncate(next.clientLabel, 40)}`,
          actionId: REBIND_CONFIRM_ACTION,
          value,
          style: 'primary',
        }),
        button({ text: `Keep ${truncate(current.clientLabel, 40)}`, actionId: REBIND_CANCEL_ACTION, value }),
      ),
    ],
  });
}
