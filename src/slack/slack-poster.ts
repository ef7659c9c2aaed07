import type { types } from '@slack/bolt';
import { type Logger, type MessageMetadata, WebClient } from '@slack/web-api';
import type { SlackMessage } from '../views/blocks.js';
import { fitHome, fitMessage, fitModal } from '../views/limits.js';
import { messagePermalink } from '../views/permalink.js';
import { ChannelPacer } from './channel-pacer.js';
import { ChatPoster } from './chat-post.js';
import { type UploadedFile, uploadFile } from './file-upload.js';
import type { ReplyTarget, ThreadOutbound } from './reply-target.js';
import { postToResponseUrl } from './response-url.js';
import { slackFetch } from './slack-fetch.js';

/**
 * slack/ owns the way out to Slack (messages, reply targets, response URLs, forms) and how its errors read.
 *
 * The one way out to Slack for messages: post, reply in a thread, update, remove, ephemeral, permalink. Every
 * message is fitted to Block Kit's limits (50 blocks, 3,000 characters a section) before it is sent. One policy
 * for trouble: the WebClient retries 5xx and timeouts by its retry config (the web role's and the worker's,
 * below), and a 429 waits `Retry-After` (`chat.postMessage` allows about one message a second per channel)
 * instead of spinning. The WebClient waits on its own unless built with `rejectRateLimitedCalls`; this covers
 * that case too. Another transport can sit behind `SlackOutbound`.
 */

export interface SlackOutbound extends ThreadOutbound {
  /** A new message; `metadata` lets tools (and the tests) tell which run posted it. */
  post(target: ReplyTarget, message: SlackMessage, options?: { metadata?: MessageMetadata }): Promise<string>;
  /** A message only `user` sees, in the target's channel (and thread). */
  ephemeral(target: ReplyTarget, user: string, message: SlackMessage): Promise<void>;
  /** The link to a message (views/permalink.ts: the workspace's URL and Slack's archive path). */
  permalink(channel: string, ts: string): Promise<string | undefined>;
  /** The workspace's URL, from `auth.test` (asked once; `https://slack.com/` while Slack has not answered). */
  workspaceUrl(): Promise<string>;
  /**
   * Publishes a person's Home tab, fitted to its limits. With `hash` (the last published view's), Slack refuses
   * to overwrite a newer view than that one: `conflict`, and the caller reads its state again.
   */
  publishHome(user: string, view: HomeView, hash?: string): Promise<{ hash?: string } | { conflict: true }>;
  /**
   * Opens a modal for the person whose click gave `triggerId` (valid for 3 s), fitted to its limits; resolves
   * with the view's id and hash, for `updateModal`.
   */
  openModal(triggerId: string, view: ModalView): Promise<OpenedModal>;
  /** Replaces an open modal; with `hash`, only if nobody changed it since. */
  updateModal(viewId: string, view: ModalView, hash?: string): Promise<void>;
  /**
   * Answers through a click's or a command's response_url (valid 30 minutes, 5 uses): an ephemeral message to
   * the person, or (`replace`) the message the click was on, replaced.
   */
  toResponseUrl(responseUrl: string, message: SlackMessage, how: 'ephemeral' | 'replace'): Promise<void>;
  /**
   * Uploads a file (a chart) and shares it in the target's channel (and thread) with `comment` as its message
   * (mrkdwn, escaped by the caller); resolves with Slack's file id.
   */
  uploadFile(target: ReplyTarget, file: UploadedFile, comment: string): Promise<string>;
}

/** How long Slack asked to wait before calling again (a 429 the client did not wait out), if it did. */
export function slackRetryAfterMs(error: unknown): number | undefined {
  const e = error as { code?: string; retryAfter?: number } | undefined;
  return e?.code === 'slack_webapi_rate_limited' ? Math.max(1, e.retryAfter ?? 1) * 1_000 : undefined;
}

interface OpenedModal {
  viewId?: string;
  hash?: string;
}

type HomeView = types.HomeView;
type ModalView = types.ModalView;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How long to wait before calling again after a 429, or undefined when the error is not a 429. With
 * `rejectRateLimitedCalls` the client hands the wait over (`retryAfter`); otherwise it has already waited
 * Retry-After itself and only gives up because its own retries ran out, so calling again at once is right.
 */
function retryAfterMs(error: unknown): number | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const e = error as { code?: string; retryAfter?: number; original?: { message?: string } };
  if (e.code === 'slack_webapi_rate_limited') return Math.max(1, e.retryAfter ?? 1) * 1_000;
  if (e.code === 'slack_webapi_request_error' && /rate limit was exceeded/i.test(e.original?.message ?? '')) {
    return 0;
  }
  return undefined;
}

async function withRateLimitWait<T>(call: () => Promise<T>, maxWaits: number): Promise<T> {
  for (let waits = 0; ; waits++) {
    try {
      return await call();
    } catch (error) {
      const wait = retryAfterMs(error);
      if (wait === undefined || waits >= maxWaits) throw error;
      await sleep(wait);
    }
  }
}

/** Slack's own host: a link there opens the message in whichever workspace the reader is signed in to. */
const ANY_WORKSPACE = 'https://slack.com/';

/** A call that waits out 429s (up to the poster's `maxWaits`). */
type Waiting = <T>(call: () => Promise<T>) => Promise<T>;

/**
 * `maxWaits`: how many 429s a call waits out before it fails (the web role, with a person waiting: none).
 * `postIntervalMs`: new messages in one channel at most one per interval (SLACK_POST_INTERVAL; channel-pacer.ts).
 * `chat`: what posts new messages and replies (chat-post.ts), retrying as `slack` does; by default one with the
 * web role's retries, for `slack`'s token and address.
 */
export function createSlackPoster(
  slack: WebClient,
  options: { maxWaits?: number; postIntervalMs?: number; chat?: ChatPoster } = {},
): SlackOutbound {
  const maxWaits = options.maxWaits ?? 5;
  const waiting: Waiting = (call) => withRateLimitWait(call, maxWaits);
  const workspaceUrl = workspaceUrlOf(slack);
  const chat = options.chat ?? new ChatPoster({ apiUrl: slack.slackApiUrl, token: slack.token ?? '' });
  return {
    ...messages(slack, chat, waiting, new ChannelPacer(options.postIntervalMs ?? 0)),
    ...views(slack, waiting),
    toResponseUrl: async (responseUrl, message, how) => {
      const body =
        how === 'replace'
          ? { replace_original: true, ...fitted(message) }
          : { response_type: 'ephemeral', replace_original: false, ...fitted(message) };
      await postToResponseUrl(responseUrl, body);
    },
    uploadFile: async ({ channel, threadTs }, file, comment) =>
      uploadFile(slack, waiting, file, { channel, threadTs, comment }),
    workspaceUrl,
    permalink: async (channel, ts) => messagePermalink(await workspaceUrl(), channel, ts),
  };
}

/** The workspace's URL, asked once and kept; a failure is not kept, so the next link asks again. */
function workspaceUrlOf(slack: WebClient): () => Promise<string> {
  let workspace: Promise<string> | undefined;
  return () => {
    workspace ??= slack.auth.test().then((answer) => {
      if (typeof answer.url !== 'string' || !/^https?:\/\//.test(answer.url)) throw new Error('no url');
      return answer.url;
    });
    return workspace.catch(() => {
      workspace = undefined;
      return ANY_WORKSPACE;
    });
  };
}

/** A message's text and blocks, fitted to Block Kit's limits. */
function fitted(message: SlackMessage) {
  const { text, blocks } = fitMessage(message);
  return { text, blocks };
}

/**
 * A new message fitted once and kept per message object: a message posted again (a read's cached page) goes out
 * as the same object, whose JSON the chat poster has already written (chat-post.ts). A message is not changed
 * once posted.
 */
const fittedPosts = new WeakMap<SlackMessage, SlackMessage>();

function fittedPost(message: SlackMessage): SlackMessage {
  let fit = fittedPosts.get(message);
  if (fit === undefined) {
    fit = fitted(message);
    fittedPosts.set(message, fit);
  }
  return fit;
}

/** Messages: post and reply at the channel's pace (one JSON POST each), update, remove, ephemeral. */
function messages(
  slack: WebClient,
  chat: ChatPoster,
  waiting: Waiting,
  pacer: ChannelPacer,
): Pick<SlackOutbound, 'post' | 'update' | 'reply' | 'remove' | 'ephemeral'> {
  /** chat.postMessage at the channel's pace; a 429 the poster hands over pushes the channel's pace back. */
  const postMessage = (
    channel: string,
    message: SlackMessage,
    threadTs?: string,
    metadata?: MessageMetadata,
  ) =>
    waiting(async () => {
      await pacer.turn(channel);
      const answer = await chat
        .postMessage(channel, fittedPost(message), threadTs, metadata)
        .catch((error: unknown) => {
          const wait = retryAfterMs(error);
          if (wait) pacer.pushBack(channel, wait);
          throw error;
        });
      pacer.sent(channel);
      return answer.ts;
    });
  return {
    post: ({ channel, threadTs }, message, opts = {}) =>
      postMessage(channel, message, threadTs, opts.metadata),
    update: async ({ channel }, ts, message) => {
      await waiting(() => slack.chat.update({ channel, ts, ...fitted(message) }));
    },
    // A status message already in a thread has its replies beside it, in that thread.
    reply: async ({ channel, threadTs }, statusTs, message) => {
      await postMessage(channel, message, threadTs ?? statusTs);
    },
    remove: async ({ channel }, ts) => {
      await waiting(() => slack.chat.delete({ channel, ts }));
    },
    ephemeral: async ({ channel, threadTs }, user, message) => {
      await waiting(() =>
        slack.chat.postEphemeral({
          channel,
          user,
          ...fitted(message),
          ...(threadTs ? { thread_ts: threadTs } : {}),
        }),
      );
    },
  };
}

/** Views: a person's Home tab (refused on a hash conflict), and modals, each fitted to its limits. */
function views(
  slack: WebClient,
  waiting: Waiting,
): Pick<SlackOutbound, 'publishHome' | 'openModal' | 'updateModal'> {
  return {
    publishHome: async (user, view, hash) => {
      try {
        const answer = await waiting(() =>
          slack.views.publish({ user_id: user, view: fitHome(view), ...(hash ? { hash } : {}) }),
        );
        return answer.view?.hash ? { hash: answer.view.hash } : {};
      } catch (error) {
        if ((error as { data?: { error?: string } }).data?.error === 'hash_conflict')
          return { conflict: true };
        throw error;
      }
    },
    openModal: async (triggerId, view) => {
      const answer = await slack.views.open({ trigger_id: triggerId, view: fitModal(view) });
      return {
        ...(answer.view?.id ? { viewId: answer.view.id } : {}),
        ...(answer.view?.hash ? { hash: answer.view.hash } : {}),
      };
    },
    updateModal: async (viewId, view, hash) => {
      await slack.views.update({ view_id: viewId, view: fitModal(view), ...(hash ? { hash } : {}) });
    },
  };
}

/**
 * The worker's Slack client. The library's default retries about ten times over about thirty minutes with no
 * timeout, so one hung or failing Slack call could hold a job (and, before the ledger, the record of what the
 * gateway did) for half an hour. A job's Slack calls give up within seconds instead; a job whose result could
 * not be posted is retried by BullMQ from its "done" checkpoint, so it is posted once Slack answers again.
 */
const WORKER_SLACK_RETRY = {
  retries: 2,
  factor: 2,
  minTimeout: 500,
  maxTimeout: 2_000,
  randomize: true,
};
const WORKER_SLACK_TIMEOUT_MS = 5_000;

export function createWorkerSlackClient(
  token: string,
  apiUrl: string | undefined,
  logger?: Logger,
): WebClient {
  return new WebClient(token, {
    ...(apiUrl ? { slackApiUrl: apiUrl } : {}),
    ...(logger ? { logger } : {}),
    retryConfig: WORKER_SLACK_RETRY,
    timeout: WORKER_SLACK_TIMEOUT_MS,
    fetch: slackFetch,
  });
}

/** The worker's new messages and replies (chat-post.ts), with the worker client's retries and timeout. */
export function createWorkerChatPoster(token: string, apiUrl: string | undefined): ChatPoster {
  return new ChatPoster({
    apiUrl: apiUrl ?? 'https://slack.com/api/',
    token,
    retries: WORKER_SLACK_RETRY.retries,
    minTimeoutMs: WORKER_SLACK_RETRY.minTimeout,
    maxTimeoutMs: WORKER_SLACK_RETRY.maxTimeout,
    timeoutMs: WORKER_SLACK_TIMEOUT_MS,
  });
}
