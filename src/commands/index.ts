import type { BotServices } from '../services.js';
import type { SlackRoutes } from '../slack/slack-routes.js';
import { runActionCommand } from './action-command.js';
import { chartCommand } from './chart.js';
import type { CommandSpec } from './command-context.js';
import { digestCommand } from './digest.js';
import { gatewayCommand } from './gateway-command.js';
import { helpCommand } from './help-command.js';
import { historyCommand } from './history.js';
import { jobsCommand } from './jobs.js';
import { assistantTokensCommand } from './mcp-command.js';
import { readCommands } from './read-commands.js';
import { setupCommands } from './setup.js';
import { signoffCommand } from './signoff.js';

/** commands/ is a surface: the `/gateway` grammar and routing, one module per command family, calling core use cases. */

const GATEWAY = '/gateway';
/** The slash commands registered below: the manifest test checks them against manifest.yml. */
export const SLASH_COMMANDS = [GATEWAY] as const;

function commandSpecs(): CommandSpec[] {
  const specs: CommandSpec[] = [
    ...setupCommands,
    ...readCommands,
    chartCommand,
    jobsCommand,
    historyCommand,
    signoffCommand,
    digestCommand,
    assistantTokensCommand,
  ];
  return [helpCommand(() => specs), ...specs];
}

/** The `/gateway` listener with every command: what Bolt calls, and what the command test harness calls. */
export function gatewayListener(services: BotServices) {
  return gatewayCommand(services, { commands: commandSpecs(), runAction: runActionCommand });
}

/** Registers `/gateway` (adding a command touches this folder only). */
export function register(routes: SlackRoutes, services: BotServices): void {
  routes.command(GATEWAY, gatewayListener(services));
}
