import { AccessError } from '../access/index.js';
import type { ActionEntry } from '../actions/index.js';
import { validateActionFields } from '../actions/index.js';
import { requestApproval } from '../approvals/index.js';
import { requestKeys, UserError } from '../requests/index.js';
import type { CoreServices } from '../services.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import type { StepEnds } from './step-end.js';

/**
 * One Workflow Builder step, run: its inputs become the request a command makes (the person it acts as, the
 * channel whose client it acts for, the action's fields), and the request layer decides as it decides for a
 * command. What can be said at once (a refusal, a field that is not valid) ends the step now; otherwise the
 * step ends when its job does (step-end.ts), a guarded one after its approval and run.
 */

export interface StepCall {
  executionId: string;
  /** The step's callback id: the action's gateway name. */
  action: string;
  inputs: Record<string, unknown>;
}

/** The inputs every step takes besides the action's fields (the manifest declares them on every step). */
export const STEP_CHANNEL = 'channel_id';
export const STEP_USER = 'user_id';

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** What a workflow's owner reads when a step fails: the refusal's title and what to do, in one paragraph. */
function refusalText(error: UserError | AccessError): string {
  return [error.title, error.options.hint?.replace(/:$/, '.')].filter(Boolean).join(' ');
}

const notBound = (channel: string) =>
  `<#${channel}> is not bound to a client: bind the channel first (an admin runs \`/gateway use <client_id>\` there), then run the workflow again.`;

const notMember = (user: string, channel: string) =>
  `<@${user}> is not a member of <#${channel}>: a step acts only where its person could run the command. Invite them, or choose a channel they are in.`;

/** As in Slack, where a member acts on a client only in its bound channel: admins anywhere (client-reach.ts). */
async function inChannel(services: CoreServices, user: string, channel: string, clientId: string) {
  const reach = await services.reach.of(user);
  return reach.all || (reach.channels.get(clientId) ?? []).some((b) => b.channel === channel);
}

/** The step's refusal or field errors, or undefined when the request was made (the step waits for its end). */
export async function runStep(
  services: CoreServices,
  ends: StepEnds,
  call: StepCall,
): Promise<string | undefined> {
  const entry = (await services.catalogue()).byAction(call.action);
  if (!entry?.available)
    return `The gateway no longer offers \`${call.action}\`: remove this step or ask the agency to enable it.`;
  const { [STEP_CHANNEL]: channelInput, [STEP_USER]: userInput, ...raw } = call.inputs;
  const channel = text(channelInput);
  const user = text(userInput);
  if (!channel) return `${STEP_CHANNEL} is required: choose the channel whose client the step acts for.`;
  if (!user) return `${STEP_USER} is required: set it to "Person who used this workflow".`;
  const binding = await services.bindings.get(channel);
  try {
    await services.access.requirePerson(user);
    if (!binding) return notBound(channel);
    if (!(await inChannel(services, user, channel, binding.clientId))) return notMember(user, channel);
  } catch (error) {
    if (error instanceof AccessError) return refusalText(error);
    throw error;
  }
  const checked = validateActionFields(entry, present(raw));
  if (!checked.ok)
    return `${entry.label}: ${Object.entries(checked.errors)
      .map(([name, message]) => `${name}: ${message}`)
      .join('; ')}.`;
  try {
    return await ask(
      services,
      ends,
      entry,
      { ...call, channel, user, clientId: binding.clientId },
      checked.fields,
    );
  } catch (error) {
    if (error instanceof UserError || error instanceof AccessError) return refusalText(error);
    throw error;
  }
}

/** Workflow Builder sends an input left empty as an empty string, or not at all: both mean absent. */
function present(raw: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null && v !== undefined && v !== ''));
}

interface Asked extends StepCall {
  channel: string;
  user: string;
  clientId: string;
}

async function ask(
  services: CoreServices,
  ends: StepEnds,
  entry: ActionEntry,
  call: Asked,
  fields: Record<string, unknown>,
): Promise<string | undefined> {
  const requestKey = requestKeys.step(call.executionId);
  if (entry.guarded) {
    const record = await requestApproval(services, {
      entry,
      requester: call.user,
      channel: call.channel,
      clientId: call.clientId,
      fields,
      requestKey,
    });
    if (!record)
      return `An identical ${entry.label} already waits for approval in <#${call.channel}>: this step asked for nothing new.`;
    await ends.runs.waitOnApproval(record.id, call.executionId);
    return undefined;
  }
  const result = await services.requests.submit({
    requester: call.user,
    clientId: call.clientId,
    action: entry.action,
    fields,
    replyTo: slackReplyTarget(call.channel),
    requestKey,
  });
  if (result.kind === 'refused') return refusalText(result.error);
  if (result.kind === 'ask')
    return `An identical ${entry.label} already exists for ${call.clientId} (record ${String(result.question.earlier.id ?? '?')}): change the step's inputs, or run it from Slack to confirm another.`;
  return undefined;
}
