import type { App } from '@slack/bolt';
import type { BotServices } from '../services.js';
import { runActionCommand } from './action-command.js';
import type { CommandSpec } from './command-context.js';
import { digestCommand } from './digest.js';
import { gatewayCommand } from './gateway-command.js';
import { helpCommand } from './help-command.js';
import { jobsCommand } from './jobs.js';
import { readCommands } from './read-commands.js';
import { setupCommands } from './setup.js';

/** The slash commands the manifest must declare (checked by a test). */
export const SLASH_COMMANDS = ['/gateway'] as const;

function commandSpecs(): CommandSpec[] {
  const specs: CommandSpec[] = [...setupCommands, ...readCommands, jobsCommand, digestCommand];
  return [helpCommand(() => specs), ...specs];
}

/** Registers `/gateway` (STYLE §3: adding a command touches this folder only). */
export function register(app: App, services: BotServices): void {
  app.command(
    '/gateway',
    gatewayCommand(services, { commands: commandSpecs(), runAction: runActionCommand }),
  );
}
