import { AccessError } from '../access/index.js';
import { editSignoff, isSignoffPolicy, type SignoffEdit } from '../bindings/index.js';
import { notAdminError, UserError } from '../requests/index.js';
import type { BotServices } from '../services.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import { slackLogContext } from '../slack/request-context.js';
import type { SlackRoutes } from '../slack/slack-routes.js';
import { buildSignoffChange, SIGNOFF_FORM, signoffLines } from '../views/signoff-settings.js';

/**
 * A bound channel's settings, saved from the modal the admin part of Home opens: the client's sign-off (policy
 * and named client approvers) through the same use case as `/gateway signoff`. A refusal goes back onto the
 * form's field (nothing saved, nothing typed lost); a saved change is told in the channel, as the command tells it.
 */
export function registerChannelSettings(routes: SlackRoutes, services: BotServices): void {
  routes.views([SIGNOFF_FORM.callbackId], async ({ ack, body, view, context }) => {
    const user = body.user.id;
    const log = services.logger.child({ ...slackLogContext(body, context), view: SIGNOFF_FORM.callbackId });
    const channel = view.private_metadata;
    const values = view.state.values;
    const policy =
      values[SIGNOFF_FORM.policyBlock]?.[SIGNOFF_FORM.policyAction]?.selected_option?.value ?? '';
    const approvers =
      values[SIGNOFF_FORM.approversBlock]?.[SIGNOFF_FORM.approversAction]?.selected_users ?? [];
    const refuse = (block: string, error: { title: string }) =>
      ack({ response_action: 'errors', errors: { [block]: error.title } });
    let edit: SignoffEdit;
    let clientLabel: string;
    try {
      await services.access.requirePerson(user, body.user.team_id);
      if (!services.access.isAdmin(user))
        return await refuse(SIGNOFF_FORM.policyBlock, notAdminError('change a channel’s sign-off', []));
      const binding = await services.bindings.get(channel);
      if (!binding)
        return await refuse(SIGNOFF_FORM.policyBlock, { title: 'This channel is no longer bound.' });
      if (!isSignoffPolicy(policy))
        return await refuse(SIGNOFF_FORM.policyBlock, { title: 'Choose a policy.' });
      clientLabel = binding.clientLabel;
      edit = await editSignoff(services, { binding, by: user, policy, approvers });
    } catch (error) {
      if (!(error instanceof UserError || error instanceof AccessError)) throw error;
      return await refuse(SIGNOFF_FORM.approversBlock, error);
    }
    await ack();
    log.info(`sign-off of ${channel} edited by ${user} from Home`);
    const lines = [
      ...(edit.policy ? [signoffLines.policy(user, edit.policy)] : []),
      ...edit.named.map((named) => signoffLines.named(user, named, clientLabel)),
      ...edit.removed.map((removed) => signoffLines.removed(user, removed, clientLabel)),
    ];
    for (const line of lines)
      await services.outbound
        .post(slackReplyTarget(channel), buildSignoffChange(line))
        .catch((e: unknown) => log.warn('could not tell the channel of a sign-off change', e));
  });
}

/** The callback ids of the forms the Home tab opens (the manifest lists them beside its buttons). */
export const HOME_VIEW_IDS: readonly string[] = [SIGNOFF_FORM.callbackId];
