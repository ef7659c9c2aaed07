import type { SlackMessage } from '../views/blocks.js';

/**
 * Where a request and its job report: a status message that follows the job, and replies under
 * it. Job data holds the target as plain data; a `ThreadOutbound` delivers to it. Slack (a channel message and
 * its thread) is the one kind so far; an assistant tool or a webhook would be another kind with its own outbound.
 */

export interface SlackReplyTarget {
  kind: 'slack';
  channel: string;
  /**
   * A thread to report in (an approved run reports under its approval card): the status message is a reply in
   * it, and so is the detail, since Slack threads do not nest. Unset, the status message is in the channel.
   */
  threadTs?: string;
}

export type ReplyTarget = SlackReplyTarget;

export const slackReplyTarget = (channel: string, threadTs?: string): SlackReplyTarget =>
  threadTs ? { kind: 'slack', channel, threadTs } : { kind: 'slack', channel };

/**
 * The outbound's thread messages (slack-poster.ts's `SlackOutbound` is the whole outbound): what a request, its
 * job and its approval card need to deliver to a reply target. `ref` names the status message (Slack: its ts).
 */
export interface ThreadOutbound {
  /** Posts a new status message; returns its ref. */
  post(target: ReplyTarget, message: SlackMessage): Promise<string>;
  update(target: ReplyTarget, ref: string, message: SlackMessage): Promise<void>;
  /** A reply under the status message (Slack: in its thread). */
  reply(target: ReplyTarget, ref: string, message: SlackMessage): Promise<void>;
  remove(target: ReplyTarget, ref: string): Promise<void>;
}
