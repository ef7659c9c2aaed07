import type { ActionEntry, ActionField, Catalogue } from '../actions/index.js';
import { STEP_CHANNEL, STEP_USER } from './run-step.js';

/**
 * The manifest's `functions` (Workflow Builder custom steps), one per action of the catalogue, in the shape of
 * Slack's manifest reference: a title, a description, input parameters from the action's fields typed with
 * Slack's types, and the outputs a step completes with (step-end.ts). `npm run manifest` writes them into
 * manifest.yml; test/unit/manifest-functions.test.ts fails when the two disagree.
 */

interface Parameter {
  type: string;
  title: string;
  description: string;
  is_required: boolean;
  name: string;
  hint?: string;
}

interface Parameters {
  properties: Record<string, Parameter>;
  required: string[];
}

export interface StepFunction {
  title: string;
  description: string;
  input_parameters: Parameters;
  output_parameters: Parameters;
}

const SLACK_CHANNEL = 'slack#/types/channel_id';
/** Slack fills and vouches for it (the trigger's person); a typed user id would let an author name anyone. */
const SLACK_USER = 'slack#/types/user_context';

/** Slack's type for a field: it has no URL or email type, so those are strings the bot checks itself. */
function slackType(field: ActionField): string {
  if (field.kind === 'latitude' || field.kind === 'longitude') return 'number';
  if (field.kind === 'number') return field.schema.safeParse('1.5').success ? 'number' : 'integer';
  return 'string';
}

function parameter(name: string, type: string, title: string, description: string, required: boolean) {
  return { type, title, description, is_required: required, name };
}

function fieldParameter(field: ActionField): Parameter {
  const described =
    field.hint ?? field.requiredBecause ?? (field.kind === 'url' ? 'A web address (https://…)' : '');
  const p: Parameter = parameter(
    field.name,
    slackType(field),
    field.label,
    described || field.label,
    field.required,
  );
  if (field.placeholder) p.hint = field.placeholder;
  return p;
}

function inputs(entry: ActionEntry): Parameters {
  const properties: Record<string, Parameter> = {
    [STEP_CHANNEL]: parameter(
      STEP_CHANNEL,
      SLACK_CHANNEL,
      'Channel',
      'The channel whose bound client the step acts for; its messages and approval card go there',
      true,
    ),
    [STEP_USER]: parameter(
      STEP_USER,
      SLACK_USER,
      'Acting person',
      'Set it to “Person who used this workflow”: the step acts as that person, and their access decides',
      true,
    ),
  };
  for (const field of entry.fields) properties[field.name] = fieldParameter(field);
  const required = Object.values(properties)
    .filter((p) => p.is_required)
    .map((p) => p.name);
  return { properties, required };
}

function outputs(entry: ActionEntry): Parameters {
  const properties: Record<string, Parameter> = {
    record_id: parameter('record_id', 'string', 'Record id', 'The id of the record the action created', true),
    status: parameter('status', 'string', 'Status', 'How the action ended: done', true),
    summary: parameter('summary', 'string', 'Summary', 'The result in one line', true),
  };
  if (entry.action === 'generate_blog')
    properties.post_id = parameter(
      'post_id',
      'string',
      'Post id',
      'The new post, for a later deploy step',
      true,
    );
  return { properties, required: Object.keys(properties) };
}

function description(entry: ActionEntry): string {
  const waits = entry.guarded
    ? ' Posts an approval card in the channel and completes only after an approver’s click and the run.'
    : '';
  return `${entry.description.replace(/\s+/g, ' ').trim()}${waits}`.slice(0, 1_000);
}

/** Every action the bot knows, as a step (actions only discovery lists are for `/gateway run`, not steps). */
export function manifestFunctions(catalogue: Catalogue): Record<string, StepFunction> {
  const out: Record<string, StepFunction> = {};
  for (const entry of catalogue.entries()) {
    if (entry.discovered) continue;
    out[entry.action] = {
      title: entry.label,
      description: description(entry),
      input_parameters: inputs(entry),
      output_parameters: outputs(entry),
    };
  }
  return out;
}
