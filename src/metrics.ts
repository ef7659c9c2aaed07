import type { Queue } from 'bullmq';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { DigestKind } from './digests/filters.js';

/**
 * The bot's Prometheus metrics, with prom-client. One Registry per runtime (not prom-client's global one), so
 * several runtimes in one process (tests, benchmarks) never clash. Label values come from fixed sets only:
 * commands the bot knows, HTTP methods and statuses, error codes, outcomes; never user text, ids or URLs.
 * Each process exposes its own; a scraper adds them up (queue gauges are the same in every process: use max).
 */

const P = 'gateway_bot_';
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export type CommandOutcome = 'ok' | 'error' | 'refused';
/** Slack payload kinds acked by the bot; anything else counts as `other`. */
const ACK_KINDS = ['command', 'block_actions', 'view_submission', 'view_closed', 'shortcut'] as const;
export type ReconcileOutcome = 'found' | 'absent' | 'unknown' | 'failed';
/** What one sign-off step did (approvals/approval-store.ts counts them). */
export type SignoffOutcome =
  | 'agency_approved'
  | 'client_approved'
  | 'agency_rejected'
  | 'client_rejected'
  | 'waived';
export type RetrySource = 'gateway_get' | 'gateway_post' | 'job';
export type ApprovalState =
  | 'pending'
  | 'approved'
  | 'running'
  | 'done'
  | 'failed'
  | 'rejected'
  | 'cancelled'
  | 'expired';

export class Metrics {
  readonly registry = new Registry();
  readonly contentType = this.registry.contentType;
  readonly #queues: Queue[] = [];
  readonly #registers = [this.registry];

  /** Slash commands by canonical command name (every unknown one is `unknown`) and outcome. */
  readonly commands = new Counter({
    name: `${P}commands_total`,
    help: 'Slash commands handled, by command and outcome (ok, error, refused)',
    labelNames: ['command', 'outcome'] as const,
    registers: this.#registers,
  });
  readonly commandSeconds = new Histogram({
    name: `${P}command_duration_seconds`,
    help: 'From the ack of a slash command to its answer',
    buckets: SECONDS,
    registers: this.#registers,
  });
  /** Slack allows 3 s: from the verified request reaching Bolt to its ack, by payload kind. */
  readonly ackSeconds = new Histogram({
    name: `${P}ack_duration_seconds`,
    help: 'From a Slack request reaching the app to its ack, by kind (command, block_actions, view_submission, …)',
    labelNames: ['kind'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3],
    registers: this.#registers,
  });
  /** Assistant tool calls (the MCP server), by tool and outcome: ok, or error (a tool error answered). */
  readonly toolCalls = new Counter({
    name: `${P}mcp_tool_calls_total`,
    help: 'Assistant tool calls answered, by tool and outcome (ok, error)',
    labelNames: ['tool', 'outcome'] as const,
    registers: this.#registers,
  });
  /** Assistant requests refused before any tool ran: busy (503: the lane full, or a long wait), rate (429). */
  readonly mcpRefused = new Counter({
    name: `${P}mcp_requests_refused_total`,
    help: 'Assistant requests refused before any tool ran, by reason (busy: 503, rate: 429, batch: 400)',
    labelNames: ['reason'] as const,
    registers: this.#registers,
  });
  readonly actionsEnqueued = new Counter({
    name: `${P}actions_enqueued_total`,
    help: 'Action jobs asked for, by gateway action and whether the request was a repeat delivery (Slack again, a double click)',
    labelNames: ['action', 'repeat'] as const,
    registers: this.#registers,
  });
  readonly gatewayRequests = new Counter({
    name: `${P}gateway_requests_total`,
    help: 'HTTP exchanges with the gateway, by method and status (an HTTP status, or the error code when none came)',
    labelNames: ['method', 'status'] as const,
    registers: this.#registers,
  });
  readonly gatewaySeconds = new Histogram({
    name: `${P}gateway_request_duration_seconds`,
    help: 'Duration of one HTTP exchange with the gateway, by method and status',
    labelNames: ['method', 'status'] as const,
    buckets: SECONDS,
    registers: this.#registers,
  });
  readonly retries = new Counter({
    name: `${P}retries_total`,
    help: 'Retries, by source (gateway_get, gateway_post, job) and reason (the error code)',
    labelNames: ['source', 'reason'] as const,
    registers: this.#registers,
  });
  readonly reconciliations = new Counter({
    name: `${P}reconciliations_total`,
    help: 'Checks whether an earlier POST created its record, by outcome (found, absent, unknown, failed)',
    labelNames: ['outcome'] as const,
    registers: this.#registers,
  });
  /** Approval transitions, by the state entered. Increment with `approvalEntered(state)`. */
  readonly approvals = new Counter({
    name: `${P}approvals_total`,
    help: 'Approval transitions, by the state entered',
    labelNames: ['state'] as const,
    registers: this.#registers,
  });
  /** Steps of client sign-off (policies `client` and `both`), by outcome. Increment with `signoff(outcome)`. */
  readonly signoffs = new Counter({
    name: `${P}signoffs_total`,
    help: 'Sign-off steps of approvals under the client and both policies, by outcome (agency_approved, client_approved, agency_rejected, client_rejected, waived)',
    labelNames: ['outcome'] as const,
    registers: this.#registers,
  });
  /** Digests posted to a channel, by kind. Increment with `digestPosted(kind)`. */
  readonly digestsPosted = new Counter({
    name: `${P}digests_posted_total`,
    help: 'Digests posted, by kind (reviews, rankings)',
    labelNames: ['kind'] as const,
    registers: this.#registers,
  });
  /** What a worker's own loop hit (Redis refusing, a connection lost): jobs cannot run while these grow. */
  readonly workerErrors = new Counter({
    name: `${P}worker_errors_total`,
    help: 'Errors of the workers themselves (not of a job), by queue and kind (MOVED, READONLY, NOAUTH, connection, …)',
    labelNames: ['queue', 'kind'] as const,
    registers: this.#registers,
  });
  readonly jobSeconds = new Histogram({
    name: `${P}job_duration_seconds`,
    help: 'Duration of one job run, from its start to its end, by queue and outcome',
    labelNames: ['queue', 'outcome'] as const,
    buckets: JOB_SECONDS,
    registers: this.#registers,
  });

  constructor() {
    // Unprefixed process_* and nodejs_* names, so the standard Node.js dashboards work as they are.
    collectDefaultMetrics({ register: this.registry });
  }

  command(name: string, outcome: CommandOutcome): void {
    this.commands.inc({ command: name, outcome });
  }

  ack(kind: string, seconds: number): void {
    const bounded = (ACK_KINDS as readonly string[]).includes(kind) ? kind : 'other';
    this.ackSeconds.observe({ kind: bounded }, seconds);
  }

  gatewayExchange(method: string, status: string, seconds: number): void {
    this.gatewayRequests.inc({ method, status });
    this.gatewaySeconds.observe({ method, status }, seconds);
  }

  retry(source: RetrySource, reason: string): void {
    this.retries.inc({ source, reason });
  }

  reconciled(outcome: ReconcileOutcome): void {
    this.reconciliations.inc({ outcome });
  }

  approvalEntered(state: ApprovalState): void {
    this.approvals.inc({ state });
  }

  signoff(outcome: SignoffOutcome): void {
    this.signoffs.inc({ outcome });
  }

  digestPosted(kind: DigestKind): void {
    this.digestsPosted.inc({ kind });
  }

  /** The gateway client's observer (the client imports nothing of ours): exchanges and retries. */
  gatewayObserver() {
    return {
      exchange: (method: string, status: string, seconds: number) =>
        this.gatewayExchange(method, status, seconds),
      retry: (method: string, reason: string) =>
        this.retry(method === 'POST' ? 'gateway_post' : 'gateway_get', reason),
    };
  }

  /** `kind` comes from redisErrorKind (a fixed set). */
  workerError(queue: string, kind: string): void {
    this.workerErrors.inc({ queue, kind });
  }

  jobEnded(queue: string, outcome: string, seconds: number): void {
    this.jobSeconds.observe({ queue, outcome }, seconds);
  }

  /** Queue depth at scrape time, and BullMQ's own Prometheus export of the queue in `render()`. */
  watchQueue(queue: Queue): void {
    this.#queues.push(queue);
    const depth = (name: string, help: string, read: () => Promise<number>) =>
      new Gauge({
        name: `${P}queue_${name}_jobs`,
        help,
        registers: this.#registers,
        async collect() {
          // A scrape while Redis is down still answers; NaN says "unknown" rather than "empty".
          this.set(await read().catch(() => Number.NaN));
        },
      });
    depth('waiting', 'Action jobs waiting', () => queue.getWaitingCount());
    depth('active', 'Action jobs running', () => queue.getActiveCount());
  }

  /**
   * Redis's memory against its `maxmemory` at scrape time (INFO memory): at the limit Redis refuses every write
   * (noeviction), so actions, approvals and sign-ins fail; alert well before (docs/deploy.md). NaN: unknown.
   */
  watchRedis(redis: { info(section: 'memory'): Promise<string> }): void {
    const field = async (name: string) => {
      const info = await redis.info('memory');
      return Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? Number.NaN);
    };
    const gauge = (name: string, help: string, read: () => Promise<number>) =>
      new Gauge({
        name: `${P}redis_${name}_bytes`,
        help,
        registers: this.#registers,
        async collect() {
          this.set(await read().catch(() => Number.NaN));
        },
      });
    gauge('used_memory', 'Memory Redis uses (INFO used_memory)', () => field('used_memory'));
    gauge('maxmemory', 'Redis maxmemory (0: no limit, which compose.yaml does not leave)', () =>
      field('maxmemory'),
    );
  }

  /** The Prometheus text of this process. */
  async render(): Promise<string> {
    const parts = [await this.registry.metrics()];
    for (const queue of this.#queues) {
      parts.push(
        await queue
          .exportPrometheusMetrics()
          .catch(() => `# bullmq metrics of queue ${queue.name} unavailable: Redis is not answering`),
      );
    }
    return `${parts.map((p) => p.trimEnd()).join('\n')}\n`;
  }
}
