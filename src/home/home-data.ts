import { AccessError, AccessErrorCode } from '../access/index.js';
import { buildCatalogue } from '../actions/index.js';
import { channelDigests } from '../digests/index.js';
import type { JobSummary } from '../jobs/index.js';
import type { BotServices } from '../services.js';
import type { HomeMarks } from '../store/index.js';
import { actionTitle } from '../views/action-title.js';
import type { KnownBlock } from '../views/blocks.js';
import {
  buildHomeNotForYou,
  buildHomeView,
  HOME_SHOWN,
  type HomeAdmin,
  type HomeChannel,
  type HomeData,
  type HomeJobRow,
} from '../views/home.js';

/**
 * What a person's Home tab shows, read from Redis alone (and Slack's cached answers about people): no gateway
 * call, so the tab opens as fast when the gateway is slow or down.
 */

const WEEK_MS = 7 * 86_400_000;
const NOT_FOR_THEM = new Set<string>([AccessErrorCode.External, AccessErrorCode.Guest]);

export interface HomeReader {
  /** The view for `user`, and whether they may use the bot at all (guests and other workspaces may not). */
  read(user: string): Promise<{ view: ReturnType<typeof buildHomeView>; person: boolean; approver: boolean }>;
}

export function homeReader(services: BotServices, marks: HomeMarks) {
  // The spec's actions name the jobs (no discovery call); an action only discovery knows is named by its id.
  const titles = buildCatalogue(undefined, { guardedActions: services.config.guardedActions });
  const jobRow = (job: JobSummary): HomeJobRow => ({
    jobKey: job.jobKey,
    title: actionTitle(titles.byAction(job.action) ?? { label: job.action }, job.fields),
    clientLabel: job.clientLabel,
    channel: job.channel,
    state: job.state,
    enqueuedAt: job.enqueuedAt,
    ...(job.finishedAt ? { finishedAt: job.finishedAt } : {}),
    ...(job.statusTs ? { statusTs: job.statusTs } : {}),
  });

  async function forAdmins(): Promise<HomeAdmin> {
    const { queue } = services.queue;
    const [counts, oldest, workers, approvers, bindings] = await Promise.all([
      queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed'),
      queue.getJobs(['waiting', 'prioritized'], 0, 0, true).catch(() => []),
      queue.getWorkersCount().catch(() => undefined),
      services.access.otherApprovers('').catch(() => [...services.config.approvers]),
      services.bindings.all(),
    ]);
    const first = oldest[0];
    return {
      queue: {
        waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        failed: counts.failed ?? 0,
      },
      ...(first ? { oldestWaitMs: Math.max(0, Date.now() - first.timestamp) } : {}),
      ...(workers === undefined ? {} : { workers }),
      admins: services.access.admins(),
      approvers,
      bindings,
    };
  }

  /**
   * A member's bound channels: those they are a member of (users.conversations, cached in access/), and those
   * their own jobs and requests on this tab already name. Should Slack not answer, the latter alone.
   */
  async function memberChannels(user: string, used: readonly string[]) {
    const reach = await services.reach.of(user).catch(() => undefined);
    const member = [...(reach?.channels.values() ?? [])].flat();
    const known = new Set(member.map((b) => b.channel));
    const others = (
      await Promise.all([...new Set(used)].filter((c) => !known.has(c)).map((c) => services.bindings.get(c)))
    ).filter((b) => b !== undefined);
    return [...member, ...others];
  }

  async function channels(user: string, admin: boolean, used: readonly string[]) {
    const bound = admin ? await services.bindings.all() : await memberChannels(user, used);
    const rows: HomeChannel[] = await Promise.all(
      bound.slice(0, HOME_SHOWN.channels).map(async (b) => ({
        channel: b.channel,
        clientId: b.clientId,
        clientLabel: b.clientLabel,
        digests: await channelDigests(services, b.channel),
      })),
    );
    return { rows, total: bound.length };
  }

  async function data(user: string, approver: boolean): Promise<HomeData> {
    const admin = services.access.isAdmin(user);
    const now = Date.now();
    const selfOk = services.config.allowSelfApproval;
    const [pending, mine, asked, jobs, notice] = await Promise.all([
      approver ? services.approvals.pending(HOME_SHOWN.waiting * 3, now) : undefined,
      services.approvals.requestedBy(user, HOME_SHOWN.requests * 4),
      services.approvals.requestedSince(user, now - WEEK_MS),
      services.queue.requesterJobs(user, HOME_SHOWN.jobs),
      marks.notice(user).catch(() => undefined),
    ]);
    // Not their own requests when self-approval is off: those are theirs to cancel, below.
    const waitingFor = (pending?.records ?? []).filter((r) => selfOk || r.requestedBy !== user);
    const ownPending = (pending?.records.length ?? 0) - waitingFor.length;
    const requests = mine.filter(
      (r) => r.state === 'pending' || (r.decidedAt ?? r.createdAt) > now - WEEK_MS,
    );
    const rows = jobs.jobs.map(jobRow);
    const used = [...rows.map((j) => j.channel), ...mine.map((r) => r.channel)];
    const [channelRows, adminPart, tokens, workspaceUrl] = await Promise.all([
      channels(user, admin, used),
      admin ? forAdmins() : undefined,
      services.tokens.list(user),
      services.slack.workspaceUrl(),
    ]);
    return {
      user,
      ...(Array.isArray(notice) ? { notice: notice as KnownBlock[] } : {}),
      waiting: { records: waitingFor, total: Math.max(0, (pending?.total ?? 0) - ownPending) },
      requests,
      // The rows read are the newest few: the week's count says how many more there are.
      requestCount: { total: Math.max(requests.length, asked.count), atLeast: asked.atLeast },
      jobs: { rows, total: jobs.total },
      channels: channelRows,
      workspaceUrl,
      tokens: tokens.map(({ id, kind, scope, createdAt, expiresAt, clientName, lastUsedAt }) => ({
        id,
        kind,
        scope,
        createdAt,
        expiresAt,
        ...(clientName ? { clientName } : {}),
        ...(lastUsedAt ? { lastUsedAt } : {}),
      })),
      ...(adminPart ? { admin: adminPart } : {}),
    };
  }

  return {
    async read(user) {
      try {
        await services.access.requirePerson(user);
      } catch (error) {
        // A lookup that failed is not a verdict: the tab is left as it was, and the next open tries again.
        if (!(error instanceof AccessError) || !NOT_FOR_THEM.has(error.code)) throw error;
        // A client's named approver is pointed at the channels where they sign off; nothing else is theirs.
        const signoff =
          error.code === AccessErrorCode.External ? await services.signoffs.channelsOf(user) : [];
        return { view: buildHomeNotForYou(signoff), person: false, approver: false };
      }
      const approver = await services.access.isApprover(user).catch(() => false);
      return { view: buildHomeView(await data(user, approver)), person: true, approver };
    },
  } satisfies HomeReader;
}
