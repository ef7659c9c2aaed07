import { AccessError, AccessErrorCode } from '../access/index.js';
import { buildCatalogue } from '../actions/index.js';
import type { JobSummary } from '../jobs/index.js';
import type { CoreServices } from '../services.js';
import type { HomeMarks } from '../store/index.js';
import type { KnownBlock } from '../views/blocks.js';
import { HOME_SHOWN, type HomeData, type HomeJobRow } from '../views/home.js';
import { actionTitle } from '../views/template.js';
import { adminOverview } from './admin-overview.js';
import { channelRows } from './channel-rows.js';

/**
 * The Home read model: what a person's overview holds, read from Redis alone (and Slack's cached answers about
 * people), no gateway call, so the tab opens as fast when the gateway is slow or down. The Home surface
 * renders it.
 */

const WEEK_MS = 7 * 86_400_000;
const NOT_FOR_THEM = new Set<string>([AccessErrorCode.External, AccessErrorCode.Guest]);

/** A person's overview, or, for someone who may not use the bot, the channels where they sign off (if any). */
export type Overview =
  | { kind: 'person'; approver: boolean; data: HomeData }
  | { kind: 'not-a-person'; signoffChannels: string[] };

type OverviewDeps = Pick<
  CoreServices,
  | 'access'
  | 'approvals'
  | 'bindings'
  | 'config'
  | 'digestQueue'
  | 'digests'
  | 'queue'
  | 'reach'
  | 'signoffs'
  | 'outbound'
  | 'tokens'
>;

export interface OverviewReader {
  read(user: string): Promise<Overview>;
}

function tokenRows(tokens: Awaited<ReturnType<CoreServices['tokens']['list']>>): HomeData['tokens'] {
  return tokens.map(({ id, kind, scope, createdAt, expiresAt, clientName, lastUsedAt }) => ({
    id,
    kind,
    scope,
    createdAt,
    expiresAt,
    ...(clientName ? { clientName } : {}),
    ...(lastUsedAt ? { lastUsedAt } : {}),
  }));
}

/**
 * A job as the overview lists it, titled from the spec's actions (no discovery call; an action only discovery
 * knows is named by its id).
 */
function jobRowOf(services: OverviewDeps): (job: JobSummary) => HomeJobRow {
  const titles = buildCatalogue(undefined, { guardedActions: services.config.guardedActions });
  return (job) => ({
    jobKey: job.jobKey,
    title: actionTitle(titles.byAction(job.action) ?? { label: job.action }, job.fields),
    clientLabel: job.clientLabel,
    channel: job.channel,
    state: job.state,
    enqueuedAt: job.enqueuedAt,
    ...(job.finishedAt ? { finishedAt: job.finishedAt } : {}),
    ...(job.statusTs ? { statusTs: job.statusTs } : {}),
  });
}

/** The overview of a person who may use the bot. */
async function personData(
  services: OverviewDeps,
  marks: HomeMarks,
  jobRow: (job: JobSummary) => HomeJobRow,
  user: string,
  approver: boolean,
): Promise<HomeData> {
  const admin = services.access.isAdmin(user);
  const now = Date.now();
  const [pending, mine, asked, jobs, notice] = await Promise.all([
    approver ? services.approvals.pending(HOME_SHOWN.waiting * 3, now) : undefined,
    services.approvals.requestedBy(user, HOME_SHOWN.requests * 4),
    services.approvals.requestedSince(user, now - WEEK_MS),
    services.queue.requesterJobs(user, HOME_SHOWN.jobs),
    marks.notice(user).catch(() => undefined),
  ]);
  // Not their own requests when self-approval is off: those are theirs to cancel, below.
  const waitingFor = (pending?.records ?? []).filter(
    (r) => services.config.allowSelfApproval || r.requestedBy !== user,
  );
  const ownPending = (pending?.records.length ?? 0) - waitingFor.length;
  const requests = mine.filter((r) => r.state === 'pending' || (r.decidedAt ?? r.createdAt) > now - WEEK_MS);
  const rows = jobs.jobs.map(jobRow);
  const used = [...rows.map((j) => j.channel), ...mine.map((r) => r.channel)];
  const all = admin ? await services.bindings.all() : undefined;
  const [channels, adminPart, tokens, workspaceUrl] = await Promise.all([
    channelRows(services, user, all, used),
    all ? adminOverview(services, all) : undefined,
    services.tokens.list(user),
    services.outbound.workspaceUrl(),
  ]);
  return {
    user,
    ...(Array.isArray(notice) ? { notice: notice as KnownBlock[] } : {}),
    waiting: { records: waitingFor, total: Math.max(0, (pending?.total ?? 0) - ownPending) },
    requests,
    // The rows read are the newest few: the week's count says how many more there are.
    requestCount: { total: Math.max(requests.length, asked.count), atLeast: asked.atLeast },
    jobs: { rows, total: jobs.total },
    channels,
    workspaceUrl,
    tokens: tokenRows(tokens),
    ...(adminPart ? { admin: adminPart } : {}),
  };
}

export function overviewReader(services: OverviewDeps, marks: HomeMarks): OverviewReader {
  const jobRow = jobRowOf(services);
  return {
    async read(user) {
      try {
        await services.access.requirePerson(user);
      } catch (error) {
        // A lookup that failed is not a verdict: the caller keeps what it showed, and the next read tries again.
        if (!(error instanceof AccessError) || !NOT_FOR_THEM.has(error.code)) throw error;
        // A client's named approver is pointed at the channels where they sign off; nothing else is theirs.
        const signoffChannels =
          error.code === AccessErrorCode.External ? await services.signoffs.channelsOf(user) : [];
        return { kind: 'not-a-person', signoffChannels };
      }
      const approver = await services.access.isApprover(user).catch(() => false);
      return { kind: 'person', approver, data: await personData(services, marks, jobRow, user, approver) };
    },
  };
}
