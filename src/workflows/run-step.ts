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
/**
 * The acting person, as a `slack#/types/user_context`: Slack fills it from the trigger ("Person who used this
 * workflow") and vouches for it with a secret of its own, so a workflow's author cannot name someone else.
 */
export const STEP_USER = 'user';
/** The input older manifests declared: a typed user id, which an author may set to anyone. Never taken. */
const TYPED_USER = 'user_id';

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** What a workflow's owner reads when a step fails: the refusal's title and what to do, in one paragraph. */
function refusalText(error: UserError | AccessError): string {
  return [error.title, error.options.hint?.replace(/:$/, '.')].filter(Boolean).join(' ');
}

const notBound = (channel: string) =>
  `<#${channel}> is not bound to a client: bind the channel first (an admin runs \`/gateway use <client_id>\` there), then run the workflow again.`;

const notMember = (user: string, channel: string) =>
  `<@${user}> is not a member of <#${channel}>: a step acts only where its person could run the command. Invite them, or choose a channel they are in.`;

const notAttested = `This step acts only as a person Slack vouches for: set its "Acting person" input (\`${STEP_USER}\`) to "Person who used this workflow" (a typed user id, \`${TYPED_USER}\`, can name anyone, so it is never taken). docs/workflows.md says how.`;

/** A `user_context` ({ id, secret }) as Slack sends it: the secret is Slack's, present only when Slack filled it. */
function userContext(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, secret } = value as { id?: unknown; secret?: unknown };
  return typeof id === 'string' && /^[UW][A-Z0-9]{2,}$/.test(id) && text(secret) ? id : undefined;
}

/**
 * The person Slack attests for this run: the step's `user_context` input, or else the interactor of an
 * interactivity input (a button or form in the workflow, clicked by that person). Never a typed user id.
 */
function attestedPerson(inputs: Record<string, unknown>): string | undefined {
  const context = userContext(inputs[STEP_USER]);
  if (context) return context;
  for (const value of Object.values(inputs)) {
    if (typeof value !== 'object' || value === null || !('interactivity_pointer' in value)) continue;
    const interactor = userContext((value as { interactor?: unknown }).interactor);
    if (interactor) return interactor;
  }
  return undefined;
}

const isInteractivity = (v: unknown) => typeof v === 'object' && v !== null && 'interactivity_pointer' in v;

/** The step's refusal or field errors, or undefined when the request was made (the step waits for its end). */
export async function runStep(
  services: CoreServices,
  ends: StepEnds,
  call: StepCall,
): Promise<string | undefined> {
  const entry = (await services.catalogue()).byAction(call.action);
  if (!entry?.available)
    return `The gateway no longer offers \`${call.action}\`: remove this step or ask the agency to enable it.`;
  const { [STEP_CHANNEL]: channelInput, [STEP_USER]: _user, [TYPED_USER]: _typed, ...rest } = call.inputs;
  const channel = text(channelInput);
  const user = attestedPerson(call.inputs);
  if (!channel) return `${STEP_CHANNEL} is required: choose the channel whose client the step acts for.`;
  if (!user) return notAttested;
  const raw = Object.fromEntries(Object.entries(rest).filter(([, v]) => !isInteractivity(v)));
  const binding = await services.bindings.get(channel);
  try {
    await services.access.requirePerson(user);
    if (!binding) return notBound(channel);
    const reach = await services.reach.forAction(user);
    if (!services.reach.actsIn(reach, binding.clientId, channel)) return notMember(user, channel);
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
