import type { ApprovalRecord } from '../approvals/index.js';
import type { ActionJobData, RequestEnd } from '../jobs/index.js';
import { failureCode } from '../jobs/index.js';
import { requestKeys } from '../requests/index.js';
import type { CoreServices } from '../services.js';
import { createWorkflowStepPort, type StepOutputs, type WorkflowStepPort } from '../slack/workflow-steps.js';
import { resultSummary } from '../views/result-card.js';
import { StepRuns } from './step-runs.js';

/**
 * How a Workflow Builder step ends: with its outputs when its job is done, with a message for the workflow's
 * owner otherwise. It listens to two outcomes and changes neither: the action queue's "request finished"
 * (every job's end, in whichever worker ran it) and an approval's change (a rejection, an expiry). A step's
 * job is the request keyed `wf-<execution id>`; a guarded step's run is found through its approval.
 */

type Deps = Pick<CoreServices, 'redis' | 'config' | 'catalogue' | 'logger'>;

export type StepEnd = { outputs: StepOutputs } | { error: string };

/** The execution a step's job belongs to, from its key (requestKeys.step). */
const STEP_KEY = requestKeys.step('');
const executionOf = (jobKey: string) =>
  jobKey.startsWith(STEP_KEY) ? jobKey.slice(STEP_KEY.length) : undefined;

/** One line of plain text: Slack shows an output in later steps' messages. */
const oneLine = (text: string) =>
  text
    .replace(/\s+/g, ' ')
    .replace(/[`*]/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim()
    .slice(0, 300);

export class StepEnds {
  readonly runs: StepRuns;
  readonly #port: WorkflowStepPort;

  constructor(
    private readonly deps: Deps,
    port?: WorkflowStepPort,
  ) {
    const { config } = deps;
    // A guarded step waits for its approval, then its run: a day longer than an approval may wait.
    this.runs = new StepRuns(
      deps.redis,
      config.redis.prefix,
      config.slack.botToken ?? '',
      config.approvalTtlMs + 86_400_000,
    );
    this.#port = port ?? createWorkflowStepPort(config.slack.apiUrl, deps.logger);
  }

  /** Ends the step once, whichever process or hook gets here first; a Slack failure lets a later one try. */
  async end(executionId: string, end: StepEnd): Promise<void> {
    const claimed = await this.runs.claimEnd(executionId);
    if (!claimed) return;
    if (!claimed.token) {
      this.deps.logger.warn(`workflow step ${executionId}: its token is gone; Slack ends it on its own`);
      return;
    }
    try {
      if ('outputs' in end) await this.#port.complete(claimed.token, executionId, end.outputs);
      else await this.#port.fail(claimed.token, executionId, end.error);
    } catch (error) {
      await this.runs.release(executionId);
      throw error;
    }
    await this.runs.forget(executionId);
    this.deps.logger.info(`workflow step ${executionId} ${'outputs' in end ? 'completed' : 'failed'}`);
  }

  /** "Request finished": a step's job (or a guarded step's approved run) ended, or was cancelled. */
  async requestFinished(data: ActionJobData, ended: RequestEnd): Promise<void> {
    const executionId =
      executionOf(data.jobKey) ?? (data.approval ? await this.runs.byApproval(data.approval.id) : null);
    if (!executionId) return;
    // An approved run that did not end done fails its approval too, and that change ends the step (below).
    const done = 'outcome' in ended && ended.outcome.outcome === 'done';
    if (data.approval && !done) return;
    await this.end(executionId, await this.#jobEnd(data, ended));
  }

  /** An approval changed: a step waiting on it fails when it will not run (rejected, expired, cancelled). */
  async approvalChanged(record: ApprovalRecord): Promise<void> {
    const why = approvalFailure(record);
    if (!why) return;
    const executionId = await this.runs.byApproval(record.id);
    if (executionId) await this.end(executionId, { error: why });
  }

  async #jobEnd(data: ActionJobData, ended: RequestEnd): Promise<StepEnd> {
    const entry = (await this.deps.catalogue()).byAction(data.action);
    const label = entry?.label ?? data.action;
    const where = `its message in <#${data.replyTo.channel}>`;
    if ('cancelledBy' in ended)
      return {
        error: `${label} was cancelled by <@${ended.cancelledBy}> before it started, so it did not run.`,
      };
    if ('error' in ended)
      return {
        error: `${label} failed (${failureCode(ended.error)}); ${where} has the detail and a Retry button.`,
      };
    if (ended.outcome.outcome !== 'done')
      return {
        error: `${label}: the gateway's answer left it unclear whether it ran, so a person must decide: see ${where}.`,
      };
    const record = { ...(data.result ?? {}) };
    delete record.__note;
    const recordId = ended.outcome.recordId ?? data.recordId ?? '';
    const summary = entry ? resultSummary(entry, record, data.fields) : undefined;
    const outputs: StepOutputs = {
      record_id: recordId,
      status: 'done',
      summary: oneLine(summary ? `${label}: ${summary}` : `${label} done for ${data.clientLabel}`),
    };
    if (data.action === 'generate_blog') outputs.post_id = recordId;
    return { outputs };
  }
}

function approvalFailure(record: ApprovalRecord): string | undefined {
  const what = `${record.label} for ${record.clientLabel}`;
  switch (record.state) {
    case 'rejected':
      return `${what} was rejected by <@${record.decidedBy ?? 'an approver'}>, so it did not run.`;
    case 'expired':
      return `${what} expired: no approver answered its card in <#${record.channel}> in time, so it did not run.`;
    case 'cancelled':
      return `${what} was cancelled by <@${record.decidedBy ?? record.requestedBy}>, so it did not run.`;
    case 'failed':
      return `${what} was approved but its run did not succeed; its card in <#${record.channel}> says why and offers Retry.`;
    default:
      return undefined;
  }
}
