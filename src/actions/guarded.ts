import type { Discovery } from '../gateway/index.js';
import { SPEC_ACTIONS } from '../gateway/index.js';

/**
 * Which actions need a person's approval. Deploys and emails publish or send to the outside world,
 * so they are guarded whatever the configuration says: GATEWAY_GUARDED_ACTIONS can only add to them, and a
 * blank or mistyped value can never switch them off. Names compare lower-cased.
 */

const ALWAYS_GUARDED: readonly string[] = ['deploy_blog', 'send_prospect_email'];

/** The action-name shape the catalogue accepts from discovery (see catalogue.ts). */
export const ACTION_NAME = /^[a-z][a-z0-9_]*$/;

/** The configured names, lower-cased and deduplicated, with the ones that are always guarded first. */
export function guardedNames(configured: readonly string[]): string[] {
  return [...new Set([...ALWAYS_GUARDED, ...configured.map((n) => n.trim().toLowerCase()).filter(Boolean)])];
}

/** Names the spec does not know: only a discovery answer can tell whether the gateway has them. */
function namesToConfirm(names: readonly string[]): string[] {
  const spec = new Set(SPEC_ACTIONS.map((a) => a.action));
  return names.filter((n) => !spec.has(n.toLowerCase()));
}

/** Of `names`, those that discovery does not list either. */
export function unknownNames(names: readonly string[], discovery: Discovery): string[] {
  const listed = new Set(discovery.actions.map((a) => a.action.toLowerCase()));
  return namesToConfirm(names).filter((n) => !listed.has(n.toLowerCase()));
}

export class GuardedActionsError extends Error {
  override readonly name = 'GuardedActionsError';
  readonly code = 'guarded_action_unknown';
  constructor(readonly unknown: readonly string[]) {
    const list = unknown.map((n) => `"${n}"`).join(', ');
    super(
      `GATEWAY_GUARDED_ACTIONS names ${list}, which neither the gateway spec nor the gateway's discovery call lists. ` +
        'Check the spelling against `/gateway help` (or the discovery answer); deploy_blog and send_prospect_email are always guarded and need not be named.',
    );
  }
}

/**
 * Confirms, at start, the configured names the spec does not know against the gateway's discovery call (the
 * first place the bot can learn them): a name neither lists is a typo that would leave the action it meant
 * unguarded, so the start stops. When discovery cannot be reached the start goes on (a gateway that is down
 * must not keep the bot from saying so) and the name stays guarded should the action appear.
 */
export async function confirmGuardedNames(
  names: readonly string[],
  discover: () => Promise<Discovery>,
  log: { warn(message: string, ...rest: unknown[]): void },
): Promise<void> {
  if (namesToConfirm(names).length === 0) return;
  let discovery: Discovery;
  try {
    discovery = await discover();
  } catch (error) {
    log.warn(
      `could not confirm GATEWAY_GUARDED_ACTIONS (${namesToConfirm(names).join(', ')}): discovery failed`,
      error,
    );
    return;
  }
  const unknown = unknownNames(names, discovery);
  if (unknown.length) throw new GuardedActionsError(unknown);
}
