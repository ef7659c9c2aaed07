import type { Token } from '../actions/index.js';
import type { ChannelBinding } from '../bindings/index.js';
import type { AppLogger } from '../logger.js';
import type { BotServices } from '../services.js';
import type { SlackMessage } from '../views/blocks.js';

/** Everything one `/gateway` command needs. The command has been acked before `run` is called. */
export interface CommandContext {
  name: string;
  args: Token[];
  user: string;
  channel: string;
  triggerId: string;
  services: BotServices;
  logger: AppLogger;
  /** An ephemeral reply to the person (through the response URL: works even where the bot is not a member). */
  reply(message: SlackMessage): Promise<void>;
  /** A message in the channel, for work others should see; throws Slack's `not_in_channel` when uninvited. */
  post(message: SlackMessage): Promise<string>;
  isAdmin(): boolean;
  /** The channel's client binding, or a UserError telling the person how to bind one. */
  binding(): Promise<ChannelBinding>;
}

export interface CommandSpec {
  name: string;
  aliases?: string[];
  usage: string;
  summary: string;
  example: string;
  group: 'Setup' | 'Read' | 'Actions' | 'Jobs & approvals' | 'Digests';
  /**
   * Admins only, enforced by the router before `run`: true, or what only admins may do as the refusal says it
   * ("bind a channel to a client").
   */
  adminOnly?: boolean | string;
  /**
   * Answers from Redis and Slack alone, never waiting on a gateway read: runs apart from the commands that
   * read, so a slow gateway never holds it up.
   */
  local?: boolean;
  /** Takes no words after its name: any that are typed are reported to the person as ignored, not dropped. */
  takesNoArguments?: boolean;
  run(ctx: CommandContext): Promise<void>;
}
