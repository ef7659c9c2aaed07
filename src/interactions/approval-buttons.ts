import type { WebClient } from '@slack/web-api';
import type { ApprovalRecord } from '../approvals/record.js';
import { slackReplyTarget } from '../jobs/reply-target.js';
import { UserError, UserErrorCode } from '../requests/user-error.js';
import type { BotServices } from '../services.js';
import { describeError } from '../slack/describe-error.js';
import { claimOnce } from '../store/dedupe.js';
import { buildApprovalCard, buildApprovalRefusal } from '../views/approval-card.js';
import { type ButtonListener, type Interaction, interactionOf } from './pipeline.js';

/**
 * The approval card's buttons. Each decision is one transition of the approval's state machine
 * (approvals/transition.ts): of any number of concurrent clicks, on any number of web processes, exactly one
 * wins; the others are told who decided first. Approve (and Retry) then asks for the frozen payload once,
 * through the request layer: the same queue, limiter, lease and reconciliation as every action.
 */

const gone = () =>
  new UserError(UserErrorCode.Expired, 'That approval request is no longer known.', {
    hint: 'Ask for the action again with its command.',
  });

async function showCard(client: WebClient, record: ApprovalRecord): Promise<void> {
  if (!record.cardTs) return;
  const card = buildApprovalCard(record);
  await client.chat.update({
    channel: record.channel,
    ts: record.cardTs,
    text: card.text,
    blocks: card.blocks,
  });
}

async function load(services: BotServices, value: string | undefined, fromChannel: string | undefined) {
  const record = await services.approvals.get(value ?? '');
  // A card's button names its own channel's approval: a value from elsewhere is not one of its requests.
  if (!record || record.channel !== fromChannel) throw gone();
  return record;
}

/** Longer than Slack's five-minute window for a signed request's timestamp. */
const CLICK_CLAIM_SEC = 600;

/** True for the first delivery of one click (its trigger id) on an approval, false for a repeat of it. */
function claimClick(services: BotServices, id: string, click: string): Promise<boolean> {
  return claimOnce(
    services.redis,
    services.config.redis.prefix,
    `approval-click:${id}:${click}`,
    CLICK_CLAIM_SEC,
  );
}

const channelOf = (body: { channel?: { id: string }; container?: { channel_id?: string } }) =>
  body.channel?.id ?? body.container?.channel_id;

/** Queues the approved run once (the winner of the transition only) and shows it; a refusal fails the run. */
async function runApproved(
  services: BotServices,
  client: WebClient,
  record: ApprovalRecord,
  interaction: Interaction,
): Promise<void> {
  const jobKey = record.jobKey ?? '';
  let failure: unknown;
  try {
    const result = await services.requests.submit({
      requester: record.requestedBy,
      clientId: record.clientId,
      action: record.action,
      fields: record.fields,
      // The run reports under its card: in the card's thread, or beside the card when that is in a thread.
      replyTo: slackReplyTarget(record.channel, record.threadTs ?? record.cardTs),
      requestKey: jobKey,
      // The approver saw exactly this payload: no second question about an earlier record.
      confirmedDuplicate: true,
      approval: { id: record.id, state: 'approved' },
    });
    if (result.kind === 'refused') failure = result.error;
  } catch (error) {
    failure = error;
  }
  if (failure === undefined) return;
  const failed = await services.approvals.transition(record.id, record.channel, 'failed', {
    actor: 'bot',
    jobKey,
    note: 'not_queued',
  });
  if (failed.ok)
    await showCard(client, failed.record).catch((e) => interaction.log.warn('card update failed', e));
  await interaction.reply(describeError(failure, interaction.log));
}

/** Approve, Reject and Retry: approvers only, the requester only when self-approval is allowed. */
export function approvalDecision(services: BotServices, to: 'approved' | 'rejected'): ButtonListener {
  return async function handleApprovalDecision({ body, action, client, context }) {
    const interaction = interactionOf(context);
    // Who may decide needs no record: the decision itself is then one script call (the hot path of Approve).
    if (!(await services.access.isApprover(body.user.id)))
      return interaction.reply(
        buildApprovalRefusal({ kind: 'not-approver', approvers: services.config.approvers }),
      );
    // Retry is the same button's decision on a failed run: failed → approved, a new job.
    const id = action.value ?? '';
    // Each click decides once. A Retry is legal again whenever the retried run fails, so without this claim a
    // captured signed click replayed within Slack's five minutes would start another run (Approve is guarded
    // by its state alone, but shares the claim: it costs one SET).
    const click = body.trigger_id || action.action_ts;
    if (to === 'approved' && click && !(await claimClick(services, id, click))) {
      interaction.log.info(`approval ${id}: a click that was already handled, ignored`);
      return;
    }
    const result = await services.approvals.transition(id, channelOf(body) ?? '', to, {
      actor: body.user.id,
      jobKey: `appr-${id}`,
      forbidSelf: !services.config.allowSelfApproval,
    });
    if (!result.ok) {
      if (result.state === 'missing') throw gone();
      if (result.self)
        return interaction.reply(
          buildApprovalRefusal({
            kind: 'self',
            others: await services.access.otherApprovers(body.user.id),
            admin: services.access.isAdmin(body.user.id),
          }),
        );
      // A click that found it expired made it so: the card says it now, whoever's click it was.
      if (result.record.state === 'expired') await showCard(client, result.record);
      return interaction.reply(buildApprovalRefusal({ kind: 'decided', record: result.record }));
    }
    interaction.log.info(`approval ${id}: ${result.from} → ${to} by ${body.user.id}`);
    if (to !== 'approved') return showCard(client, result.record);
    // The run is queued first and the card loses its buttons after: no Slack round trip before the POST (a
    // click on the old buttons meanwhile is answered from Redis, whichever web process it reaches).
    await runApproved(services, client, result.record, interaction);
    await showCard(client, result.record).catch((e) => interaction.log.warn('card update failed', e));
    // Should the run have ended before this update landed, it would hide the outcome: show the state now.
    const latest = await services.approvals.get(result.record.id);
    if (latest && latest.state !== 'approved' && latest.state !== 'running') await showCard(client, latest);
  };
}

/** Cancel: the requester's own. */
export function approvalCancel(services: BotServices): ButtonListener {
  return async function handleApprovalCancel({ body, action, client, context }) {
    const interaction = interactionOf(context);
    const record = await load(services, action.value, channelOf(body));
    if (body.user.id !== record.requestedBy)
      return interaction.reply(
        buildApprovalRefusal({ kind: 'not-requester', requestedBy: record.requestedBy }),
      );
    const result = await services.approvals.transition(record.id, record.channel, 'cancelled', {
      actor: body.user.id,
    });
    if (!result.ok) {
      if (result.state === 'missing') throw gone();
      if (result.record.state === 'expired') await showCard(client, result.record);
      return interaction.reply(buildApprovalRefusal({ kind: 'decided', record: result.record }));
    }
    await showCard(client, result.record);
  };
}

/** "Retry" in an approved job's thread: the approval's Retry, approvers only (no second run without a person). */
export async function retryApprovedJob(
  services: BotServices,
  approvalId: string,
  args: Parameters<ButtonListener>[0],
): Promise<void> {
  await approvalDecision(
    services,
    'approved',
  )({
    ...args,
    action: { ...args.action, value: approvalId },
  } as Parameters<ButtonListener>[0]);
}
