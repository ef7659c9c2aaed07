import type { types } from '@slack/bolt';
import type { ChannelSignoff } from '../bindings/signoff-store.js';
import { context, type KnownBlock, plain, section } from './blocks.js';
import { digestLine, type SubscriptionView } from './digest-status.js';
import { code, escapeMrkdwn } from './escape.js';
import { fitModal } from './limits.js';
import { SIGNOFF_FORM, signoffInputs } from './signoff-settings.js';

/** A bound channel's settings, opened from the Home tab's admin part: what it is bound to, its digests, how to change them. */
export function buildChannelSettings(input: {
  channel: string;
  binding: { clientId: string; clientLabel: string; boundBy: string; boundAt: string } | undefined;
  digests: SubscriptionView[];
  /** The channel's client sign-off (policy and named client approvers). */
  signoff?: ChannelSignoff;
}): types.ModalView {
  const { binding, signoff } = input;
  const named = signoff?.approvers.map((a) => `<@${a.userId}>`).join(', ');
  const blocks: KnownBlock[] = binding
    ? [
        section(
          `<#${input.channel}> is bound to *${escapeMrkdwn(binding.clientLabel)}* (${code(binding.clientId)}), by <@${binding.boundBy}>${binding.boundAt ? ` on ${escapeMrkdwn(binding.boundAt.slice(0, 10))}` : ''}.`,
        ),
        section(
          input.digests.length
            ? `*Digests:*\n${input.digests.map((d) => `• ${digestLine(d)}`).join('\n')}`
            : '*Digests:* none.',
        ),
        section(
          `*Sign-off:* ${code(signoff?.policy ?? 'agency')} · client approvers: ${named || 'none named'}`,
        ),
        ...signoffInputs(signoff),
        context(
          'In the channel: `/gateway use &lt;client_id&gt;` binds it to another client, `/gateway digest reviews|rankings daily|weekly|off` changes its digests, `/gateway signoff` its sign-off, `/gateway status` checks that the key reaches its client.',
        ),
      ]
    : [section(`<#${input.channel}> is no longer bound to a client.`)];
  const form = binding
    ? { callback_id: SIGNOFF_FORM.callbackId, private_metadata: input.channel, submit: plain('Save') }
    : {};
  return fitModal({
    type: 'modal',
    title: plain('Channel settings'),
    close: plain('Close'),
    ...form,
    blocks,
  });
}
