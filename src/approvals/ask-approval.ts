import type { ActionEntry } from '../actions/index.js';
import { type Admitted, deployPost, missingField } from '../requests/index.js';
import type { CoreServices } from '../services.js';
import { type ReplyTarget, slackReplyTarget } from '../slack/reply-target.js';
import { claimOnce } from '../store/index.js';
import { buildAlreadyPending, buildApprovalCard } from '../views/approval-card.js';
import { buildEmailDetail } from '../views/approval-email.js';
import { analyseEmail } from '../views/email-content.js';
import { htmlPreview, payloadHash } from './payload.js';
import type { ApprovalPreview, ApprovalRecord } from './record.js';

/** What asking for an approval uses: the request layer's admission, the stores, the gateway (a deploy's post), the Slack port. */
type ApprovalDeps = Pick<
  CoreServices,
  | 'requests'
  | 'config'
  | 'redis'
  | 'approvals'
  | 'approvalExpiry'
  | 'signoffs'
  | 'outbound'
  | 'logger'
  | 'gateway'
>;

/**
 * Asks for a guarded action: never the POST, but an approval request with its payload frozen, its
 * card posted in the channel (in the result's thread when it came from a result's button) and its expiry job
 * scheduled. Anyone who may run the action in the channel may ask; only approvers decide.
 */

export interface ApprovalAsk {
  entry: ActionEntry;
  requester: string;
  channel: string;
  /** The client the form or button was made for; the channel must still be bound to it. */
  clientId: string | undefined;
  fields: Record<string, unknown>;
  /** The surface's dedupe key (a trigger id, a view id): a redelivery posts no second card. */
  requestKey: string;
  threadTs?: string;
  /** How long `requestKey` makes a repeat nothing; default a day (a redelivered command or form). */
  dedupeSec?: number;
  /**
   * A deploy's post as the surface already read it (a result's button, an assistant's tool that checked it):
   * the card takes its title from it and the post is not read again.
   */
  post?: { title?: string };
  /** Asked for through an assistant tool: the card and the run's messages say so. */
  viaAssistant?: boolean;
}

/** What the ask carries beside who asks for what where (the admitted part, `Admitted`). */
export type ApprovalDetails = Omit<ApprovalAsk, 'entry' | 'requester' | 'channel' | 'clientId'>;

/** Asks for a guarded action from a surface that has not admitted its person in this Slack request. */
export async function requestApproval(
  services: ApprovalDeps,
  ask: ApprovalAsk,
): Promise<ApprovalRecord | undefined> {
  const { requester, entry, channel, clientId } = ask;
  const admitted = await services.requests.admit({ requester, entry, approved: true, clientId, channel });
  return requestApprovalAs(services, admitted, ask);
}

/**
 * Asks for a guarded action whose person, channel binding and action rule this Slack request admitted (they are
 * not read again): the card, unless this request key asked already or an identical request waits.
 */
export async function requestApprovalAs(
  services: ApprovalDeps,
  admitted: Admitted,
  ask: ApprovalDetails,
): Promise<ApprovalRecord | undefined> {
  const { entry, binding } = admitted;
  // No card for a request the approved run would refuse (a deploy without its post).
  const missing = missingField(entry, ask.fields);
  if (missing) throw missing;
  // A deploy of a post the gateway does not have is refused before any card (and its title read for it).
  const preview = await previewOf(services, binding.clientId, entry, ask);
  const { prefix } = services.config.redis;
  const claimKey = `approval-ask:${ask.requestKey}`;
  if (!(await claimOnce(services.redis, prefix, claimKey, ask.dedupeSec ?? 86_400))) return undefined;
  const target = slackReplyTarget(binding.channel, ask.threadTs);
  const made = await createApproval(services, admitted, ask, preview);
  if ('pending' in made) {
    await pointAtPending(services, target, admitted.requester, made.pending, ask.viaAssistant);
    return undefined;
  }
  const record = made.created;
  await services.approvalExpiry.schedule(record);
  await postCard(services, target, record);
  services.logger.info(`approval ${record.id} requested for ${record.action} by ${admitted.requester}`);
  return record;
}

/** The approval record, with the payload, the sign-off in force and whether this exact payload ran here before. */
async function createApproval(
  services: ApprovalDeps,
  admitted: Admitted,
  ask: ApprovalDetails,
  preview: ApprovalPreview,
) {
  const { entry, binding } = admitted;
  const { channel, clientId } = binding;
  const hash = payloadHash(entry.action, clientId, ask.fields);
  // The approver is told when this exact payload already ran here.
  const ran = await services.approvals.lastDone(channel, hash);
  // The sign-off in force is frozen with the payload: naming or removing an approver later changes no request.
  const signoff = await services.signoffs.get(channel, clientId);
  return services.approvals.createExclusive({
    action: entry.action,
    label: entry.label,
    clientId,
    clientLabel: binding.clientLabel,
    fields: ask.fields,
    hash,
    preview,
    requestedBy: admitted.requester,
    channel,
    ...(ask.threadTs ? { threadTs: ask.threadTs } : {}),
    ...(ran
      ? {
          ranBefore: {
            id: ran.id,
            at: ran.finishedAt ?? ran.decidedAt ?? ran.createdAt,
            ...(ran.recordId ? { recordId: ran.recordId } : {}),
          },
        }
      : {}),
    ttlMs: services.config.approvalTtlMs,
    ...(ask.viaAssistant ? { viaAssistant: true } : {}),
    signoff: signoff.policy,
    clientApprovers: signoff.approvers.map(({ userId, teamId }) => ({ userId, teamId })),
  });
}

/** An identical request is in flight: the person is pointed at its card, and no second card is posted. */
async function pointAtPending(
  services: ApprovalDeps,
  target: ReplyTarget,
  requester: string,
  pending: ApprovalRecord,
  viaAssistant: boolean | undefined,
): Promise<void> {
  const { cardTs } = pending;
  const link = cardTs ? await services.outbound.permalink(pending.channel, cardTs) : undefined;
  const told = services.outbound.ephemeral(target, requester, buildAlreadyPending(pending, link));
  // An assistant's caller is answered by the tool, and may not be in the channel at all (an admin's token):
  // Slack refusing the courtesy note there must not turn that answer into a failure.
  await (viaAssistant
    ? told.catch((e: unknown) =>
        services.logger.warn('could not tell an assistant’s person that the request already waits', e),
      )
    : told);
}

/** The card in the channel (or the thread), and an email's whole text under it. */
async function postCard(services: ApprovalDeps, target: ReplyTarget, record: ApprovalRecord): Promise<void> {
  const cardTs = await services.outbound.post(target, buildApprovalCard(record));
  if (!cardTs) return;
  await services.approvals.setCardTs(record.id, cardTs);
  record.cardTs = cardTs;
  await postEmailDetail(services, target, record, cardTs).catch((e: unknown) =>
    services.logger.warn(`approval ${record.id}: could not post the whole email in the card's thread`, e),
  );
}

/** An email's whole text, links and remote resources, under its card, before anyone can approve it unseen. */
async function postEmailDetail(
  services: ApprovalDeps,
  target: ReplyTarget,
  record: ApprovalRecord,
  cardTs: string,
): Promise<void> {
  if (record.preview.kind !== 'email') return;
  const content = analyseEmail(text(record.fields.html));
  const pages = buildEmailDetail({
    approvalId: record.id,
    to: record.preview.to,
    subject: record.preview.subject,
    content,
  });
  for (const page of pages) await services.outbound.reply(target, cardTs, page);
}

const text = (value: unknown): string =>
  typeof value === 'string' ? value : value == null ? '' : String(value);

async function previewOf(
  services: ApprovalDeps,
  clientId: string,
  entry: ActionEntry,
  ask: ApprovalDetails,
): Promise<ApprovalPreview> {
  const { action } = entry;
  if (action === 'deploy_blog') {
    const postId = text(ask.fields.post_id);
    const post = ask.post ?? (await deployPost(services, clientId, postId));
    if ('refusal' in post) throw post.refusal;
    return { kind: 'deploy', postId, ...(post.title ? { postTitle: post.title } : {}) };
  }
  if (action === 'send_prospect_email') {
    return {
      kind: 'email',
      to: text(ask.fields.to),
      subject: text(ask.fields.subject),
      text: htmlPreview(text(ask.fields.html)),
    };
  }
  return {
    kind: 'fields',
    lines: Object.entries(ask.fields).map(
      ([k, v]) => `${k}: ${text(typeof v === 'object' ? JSON.stringify(v) : v).slice(0, 300)}`,
    ),
  };
}
