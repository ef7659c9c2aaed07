import type { types } from '@slack/bolt';
import type { ApprovalRecord } from '../approvals/record.js';
import { approveButton, cardTime, decision } from './approval-card.js';
import { button, context, divider, header, type KnownBlock, plain, section } from './blocks.js';
import type { SubscriptionView } from './digest-status.js';
import { digestLine } from './digest-status.js';
import { code, escapeMrkdwn, oneLine } from './escape.js';
import { JOB_STATE_WORDS } from './job-list.js';
import { fitHome, truncate } from './limits.js';
import { messagePermalink } from './permalink.js';
import { slackDate } from './template.js';
import { clientLabel } from './token-messages.js';

/**
 * The App Home tab, for the person who opened it: what waits for their approval, what they asked for, their
 * recent jobs, the channels' clients and digests, and (admins) the queue and the bindings. Every section says
 * what would fill it when it is empty; long lists show the newest and say how many more, and where to see them.
 * Pure: the data comes in (home/ reads it from Redis), Block Kit goes out, fitted to the Home tab's 100 blocks.
 */

export const HOME_APPROVE_ID = 'home_approve';
export const HOME_REJECT_ID = 'home_reject';
export const HOME_CANCEL_APPROVAL_ID = 'home_approval_cancel';
export const HOME_CANCEL_JOB_ID = 'home_job_cancel';
export const HOME_RETRY_JOB_ID = 'home_job_retry';
export const HOME_CHANNEL_SETTINGS_ID = 'home_channel_settings';
export const HOME_REVOKE_TOKEN_ID = 'home_token_revoke';

/** How many rows each section shows; the rest are counted ("and N more"). */
export const HOME_SHOWN = { waiting: 10, requests: 5, jobs: 10, channels: 15, tokens: 5 } as const;

/** An assistant-tool token, or an assistant signed in to, as the tab lists it (never a secret). */
interface HomeToken {
  id: string;
  kind?: 'token' | 'grant';
  scope: 'read' | 'write';
  createdAt: number;
  expiresAt: number;
  /** A sign-in's client, by its self-declared name. */
  clientName?: string;
  lastUsedAt?: number;
}

export interface HomeJobRow {
  jobKey: string;
  /** What the job was for, as English (views/template.ts); mrkdwn, escaped. */
  title: string;
  clientLabel: string;
  channel: string;
  state: string;
  enqueuedAt: number;
  finishedAt?: number;
  /** The job's status message: its thread holds the result. */
  statusTs?: string;
}

export interface HomeChannel {
  channel: string;
  clientId: string;
  clientLabel: string;
  digests: SubscriptionView[];
}

export interface HomeAdmin {
  queue: { waiting: number; active: number; delayed: number; failed: number };
  /** The oldest waiting job's wait so far (ms), when any waits. */
  oldestWaitMs?: number;
  /** Workers connected to the action queue, when Redis could tell. */
  workers?: number;
  admins: readonly string[];
  /** The approvers, user groups resolved to their members. */
  approvers: readonly string[];
  /** Every bound channel (admins see them all). */
  bindings: ReadonlyArray<{ channel: string; clientId: string; clientLabel: string; boundBy: string }>;
}

export interface HomeData {
  user: string;
  /** The answer to this person's last click on the tab (a refusal, what happened), shown at the top. */
  notice?: KnownBlock[];
  waiting: { records: ApprovalRecord[]; total: number };
  requests: ApprovalRecord[];
  /** How many requests of theirs are recent, when more than `requests` holds; `atLeast`: maybe more still. */
  requestCount?: { total: number; atLeast: boolean };
  jobs: { rows: HomeJobRow[]; total: number };
  channels: { rows: HomeChannel[]; total: number };
  /** This person's active assistant-tool tokens. */
  tokens: HomeToken[];
  /** The workspace's URL (`auth.test`), for links to messages. */
  workspaceUrl: string;
  admin?: HomeAdmin;
}

type HomeView = types.HomeView;

/** A link to a message (a card, a job's status message), opened in the workspace it belongs to. */
function messageLink(data: HomeData, channel: string, ts: string, label: string): string {
  return `<${messagePermalink(data.workspaceUrl, channel, ts)}|${label}>`;
}

function more(shown: number, total: number, where: string, atLeast = false): KnownBlock[] {
  const n = (total - shown).toLocaleString('en-US');
  return total > shown ? [context(`…and ${atLeast ? 'at least ' : ''}${n} more: ${where}`)] : [];
}

/** What an approval will run, in a line (the card shows it whole): the post, the email, the fields. */
function whatRuns(r: ApprovalRecord): string {
  const p = r.preview;
  let line: string;
  if (p.kind === 'deploy')
    line = `*Post:* ${p.postTitle ? `*${escapeMrkdwn(p.postTitle)}* ` : ''}(${code(p.postId)})`;
  else if (p.kind === 'email') line = `*To:* ${escapeMrkdwn(p.to)} · *Subject:* ${escapeMrkdwn(p.subject)}`;
  else line = p.lines.map(escapeMrkdwn).join(' · ');
  line = oneLine(line);
  return truncate(line, 400);
}

function waitingBlocks(data: HomeData): KnownBlock[] {
  const { records, total } = data.waiting;
  const blocks: KnownBlock[] = [header('Waiting for you')];
  if (!records.length) {
    blocks.push(
      context('Nothing waits for your approval. Deploys and email sends people ask for appear here.'),
    );
    return blocks;
  }
  for (const r of records.slice(0, HOME_SHOWN.waiting)) {
    const card = r.cardTs ? ` · ${messageLink(data, r.channel, r.cardTs, 'the card')}` : '';
    blocks.push(
      section(
        // Short enough that who asked, the expiry and the link are never cut off the section's end.
        `*${truncate(escapeMrkdwn(r.label), 200)}* (${code(truncate(r.action, 100))}) for *${truncate(escapeMrkdwn(r.clientLabel), 200)}* in <#${r.channel}>\n` +
          `asked by <@${r.requestedBy}> ${cardTime(r.createdAt)} · expires ${cardTime(r.expiresAt)}${card}\n${whatRuns(r)}`,
      ),
      {
        type: 'actions',
        block_id: `home:waiting:${r.id}`,
        elements: [
          approveButton(r.id, HOME_APPROVE_ID),
          button({ text: 'Reject', actionId: HOME_REJECT_ID, value: r.id, style: 'danger' }),
        ],
      },
    );
  }
  blocks.push(...more(Math.min(records.length, HOME_SHOWN.waiting), total, 'the cards in their channels'));
  return blocks;
}

function requestBlocks(data: HomeData): KnownBlock[] {
  const blocks: KnownBlock[] = [header('Your requests')];
  if (!data.requests.length) {
    blocks.push(
      context('You have asked for no approval lately. `/gateway deploy` and `/gateway email` ask for one.'),
    );
    return blocks;
  }
  for (const r of data.requests.slice(0, HOME_SHOWN.requests)) {
    const text = `*${escapeMrkdwn(r.label)}* for *${escapeMrkdwn(r.clientLabel)}* in <#${r.channel}>\n${decision(r)}`;
    blocks.push(
      r.state === 'pending'
        ? section(text, button({ text: 'Cancel', actionId: HOME_CANCEL_APPROVAL_ID, value: r.id }))
        : section(text),
    );
  }
  const shown = Math.min(data.requests.length, HOME_SHOWN.requests);
  const count = data.requestCount ?? { total: data.requests.length, atLeast: false };
  const total = Math.max(data.requests.length, count.total);
  blocks.push(...more(shown, total, '`/gateway history` in their channels', count.atLeast));
  return blocks;
}

function jobAccessory(job: HomeJobRow) {
  if (job.state === 'queued')
    return button({ text: 'Cancel', actionId: HOME_CANCEL_JOB_ID, value: job.jobKey });
  if (job.state === 'failed' || job.state === 'needs-attention')
    return button({ text: 'Retry', actionId: HOME_RETRY_JOB_ID, value: job.jobKey });
  return undefined;
}

function jobBlocks(data: HomeData): KnownBlock[] {
  const { rows, total } = data.jobs;
  const blocks: KnownBlock[] = [header('Your recent jobs')];
  if (!rows.length) {
    blocks.push(context('No jobs yet. Action commands such as `/gateway audit &lt;url&gt;` queue one.'));
    return blocks;
  }
  for (const job of rows.slice(0, HOME_SHOWN.jobs)) {
    const state = JOB_STATE_WORDS[job.state] ?? escapeMrkdwn(job.state);
    const when = slackDate(job.finishedAt ?? job.enqueuedAt) ?? '';
    const thread = job.statusTs ? ` · ${messageLink(data, job.channel, job.statusTs, 'thread')}` : '';
    const text = `${job.title} · *${escapeMrkdwn(job.clientLabel)}* in <#${job.channel}>\n${state} · ${when}${thread}`;
    const accessory = jobAccessory(job);
    blocks.push(accessory ? section(text, accessory) : section(text));
  }
  blocks.push(...more(Math.min(rows.length, HOME_SHOWN.jobs), total, '`/gateway jobs all` in each channel'));
  return blocks;
}

function channelBlocks(data: HomeData): KnownBlock[] {
  const { rows, total } = data.channels;
  const blocks: KnownBlock[] = [header('Channels and clients')];
  if (!rows.length) {
    blocks.push(
      context(
        'No channel you use is bound to a client yet. An admin binds one with `/gateway use &lt;client_id&gt;`.',
      ),
    );
    return blocks;
  }
  for (const ch of rows.slice(0, HOME_SHOWN.channels)) {
    const digests = ch.digests.length ? ch.digests.map(digestLine).join('\n') : 'No digests.';
    blocks.push(
      section(`<#${ch.channel}> → *${escapeMrkdwn(ch.clientLabel)}* (${code(ch.clientId)})\n${digests}`),
    );
  }
  blocks.push(
    ...more(Math.min(rows.length, HOME_SHOWN.channels), total, '`/gateway status` in each channel'),
  );
  return blocks;
}

function tokenBlocks(tokens: readonly HomeToken[]): KnownBlock[] {
  const blocks: KnownBlock[] = [header('Assistant tokens')];
  if (!tokens.length) {
    blocks.push(
      context('You have no assistant-tool tokens. `/gateway mcp token` mints one for your AI assistant.'),
    );
    return blocks;
  }
  for (const t of tokens.slice(0, HOME_SHOWN.tokens)) {
    const revoke = {
      ...button({ text: 'Revoke', actionId: HOME_REVOKE_TOKEN_ID, value: t.id, style: 'danger' }),
      confirm: {
        title: plain('Revoke this token?'),
        text: plain('Assistants using it are refused from their next call.'),
        confirm: plain('Revoke'),
        deny: plain('Keep it'),
      },
    };
    const scope = t.scope === 'read' ? 'read-only' : 'read and act';
    const line =
      t.kind === 'grant'
        ? `${code(t.id)} · ${clientLabel(t.clientName)} (signed in) · ${scope} · since ${cardTime(t.createdAt)} · ${t.lastUsedAt ? `last used ${cardTime(t.lastUsedAt)}` : 'not used yet'}`
        : `${code(t.id)} · ${scope} · made ${cardTime(t.createdAt)} · expires ${cardTime(t.expiresAt)}`;
    blocks.push(section(line, revoke));
  }
  blocks.push(...more(HOME_SHOWN.tokens, tokens.length, '`/gateway mcp tokens`'));
  return blocks;
}

const people = (ids: readonly string[]) => (ids.length ? ids.map((id) => `<@${id}>`).join(', ') : 'nobody');

function adminBlocks(admin: HomeAdmin): KnownBlock[] {
  const { queue } = admin;
  const wait = admin.oldestWaitMs
    ? ` · the oldest has waited ${Math.round(admin.oldestWaitMs / 1000)} s`
    : '';
  const workers =
    admin.workers === undefined
      ? 'workers: unknown'
      : admin.workers > 0
        ? `${admin.workers} worker${admin.workers === 1 ? '' : 's'} connected`
        : ':warning: no worker is connected: queued jobs wait';
  const blocks: KnownBlock[] = [
    header('For admins'),
    section(
      `*Queue:* ${queue.waiting} waiting, ${queue.active} running, ${queue.delayed} delayed, ${queue.failed} failed lately${wait}\n*Readiness:* ${workers}`,
    ),
    section(`*Admins:* ${people(admin.admins)}\n*Approvers:* ${people(admin.approvers)}`),
  ];
  if (!admin.bindings.length)
    blocks.push(context('No channel is bound yet: `/gateway use &lt;client_id&gt;` in one.'));
  else {
    blocks.push(section('*Bindings:*'));
    for (const b of admin.bindings.slice(0, HOME_SHOWN.channels))
      blocks.push(
        section(
          `<#${b.channel}> → *${escapeMrkdwn(b.clientLabel)}* (${code(b.clientId)}), bound by <@${b.boundBy}>`,
          button({ text: 'Settings', actionId: HOME_CHANNEL_SETTINGS_ID, value: b.channel }),
        ),
      );
    blocks.push(...more(HOME_SHOWN.channels, admin.bindings.length, '`/gateway status` in each channel'));
  }
  return blocks;
}

export function buildHomeView(data: HomeData): HomeView {
  const blocks: KnownBlock[] = [
    context(
      `Your Gateway overview, <@${data.user}>: what waits for you, what you asked for, and where it ran.`,
    ),
  ];
  if (data.notice?.length) blocks.push(...data.notice.slice(0, 4), divider());
  blocks.push(
    ...waitingBlocks(data),
    divider(),
    ...requestBlocks(data),
    divider(),
    ...jobBlocks(data),
    divider(),
  );
  blocks.push(...channelBlocks(data));
  blocks.push(divider(), ...tokenBlocks(data.tokens));
  if (data.admin) blocks.push(divider(), ...adminBlocks(data.admin));
  return fitHome({ type: 'home', blocks });
}

/**
 * Guests and other workspaces' people: one short panel, and nothing of the agency's (no client, no channel), save
 * for a client approver the channels where they sign off (`signoffChannels`).
 */
export function buildHomeNotForYou(signoffChannels: readonly string[] = []): HomeView {
  const text = signoffChannels.length
    ? `:wave: You can sign off requests in ${signoffChannels.map((c) => `<#${c}>`).join(', ')}: approve or reject them on their cards there.`
    : ':wave: This app is for the agency’s own team, so there is nothing here for you. Ask the person who invited you if you need something from it.';
  return fitHome({ type: 'home', blocks: [section(text)] });
}
