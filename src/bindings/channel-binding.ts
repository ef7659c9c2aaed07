import { FORBIDDEN_ADVICE } from '../gateway/index.js';
import { closestName } from '../reads/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';
import type { CoreServices } from '../services.js';
import { isNotInChannel } from '../slack/describe-error.js';
import type { SlackMessage } from '../views/blocks.js';
import { buildBindingConfirmation } from '../views/status.js';

/** What binding a channel reads and writes: the gateway's clients, and the bindings. */
type BindingDeps = Pick<CoreServices, 'gateway' | 'bindings'>;

/** Clients read to suggest one for a mistyped id: an agency with more is rare, and the rest is a guess anyway. */
const CLIENTS_READ = 1_000;

export interface FoundClient {
  clientId: string;
  clientLabel: string;
}

/**
 * The client `clientId` names, proven reachable. An id the key's client list lacks is a typo far more often
 * than a key problem, so the list is checked first ("No client `acme`. Did you mean `acme-plumbing`?"); only
 * when the key reaches no client at all is the key blamed.
 */
export async function findClient(
  services: Pick<BindingDeps, 'gateway'>,
  clientId: string,
): Promise<FoundClient> {
  const page = await services.gateway.read('clients', { filter: { field: 'id', value: clientId }, limit: 1 });
  const client = page.data[0];
  if (!client) {
    // Ids are matched in any case: `use ACME-PLUMBING` binds `acme-plumbing`.
    const { rows } = await services.gateway.collect('clients', {}, { cap: CLIENTS_READ });
    const same = rows.find(
      (r) => typeof r.id === 'string' && r.id !== clientId && r.id.toLowerCase() === clientId.toLowerCase(),
    );
    if (typeof same?.id === 'string') return findClient(services, same.id);
    throw await noSuchClient(services, clientId);
  }
  const clientLabel = typeof client.name === 'string' && client.name ? client.name : clientId;
  // Prove the key really reaches the client's data (an unlinked client answers 403 here, with its advice).
  await services.gateway.read('locations', { clientId, limit: 1 });
  return { clientId, clientLabel };
}

async function noSuchClient(services: Pick<BindingDeps, 'gateway'>, clientId: string): Promise<UserError> {
  const { rows } = await services.gateway.collect('clients', {}, { cap: CLIENTS_READ });
  const ids = rows.map((r) => r.id).filter((id): id is string => typeof id === 'string');
  if (ids.length === 0) {
    return new UserError(
      UserErrorCode.BadArguments,
      `The agency key cannot reach a client \`${clientId}\`.`,
      {
        detail: `The key reaches no client at all. ${FORBIDDEN_ADVICE}`,
        hint: 'Check the key in the agency automations area, then try again.',
      },
    );
  }
  const typed = clientId.toLowerCase();
  const named = rows.find(
    (r) => typeof r.id === 'string' && typeof r.name === 'string' && r.name.toLowerCase().includes(typed),
  )?.id as string | undefined;
  const guess =
    ids.find((id) => id.toLowerCase() === typed) ??
    closestName(typed, ids) ??
    ids.find((id) => id.toLowerCase().includes(typed)) ??
    named;
  return new UserError(UserErrorCode.BadArguments, `No client \`${clientId}\`.`, {
    hint: guess
      ? `Did you mean \`${guess}\`? \`/gateway use ${guess}\``
      : `\`/gateway clients\` lists the ${ids.length === 1 ? 'one client' : `${ids.length} clients`} the agency key reaches. A client linked to the agency after the key was made is reached once the key is regenerated.`,
  });
}

/** Saves the binding and says so in the channel, by whom. */
export async function bindChannel(
  services: BindingDeps,
  input: FoundClient & { channel: string; user: string },
  post: (message: SlackMessage) => Promise<unknown>,
): Promise<void> {
  const { channel, clientId, clientLabel, user } = input;
  await services.bindings.set({
    channel,
    clientId,
    clientLabel,
    boundBy: user,
    boundAt: new Date().toISOString(),
  });
  try {
    await post(buildBindingConfirmation({ clientLabel, clientId, user }));
  } catch (error) {
    if (!isNotInChannel(error)) throw error;
    // The binding is saved: say so, rather than an error that reads as if binding failed.
    throw new UserError(
      UserErrorCode.NotInChannel,
      `This channel is now bound to ${clientLabel} (${clientId}), but I am not a member, so I cannot post results here.`,
      { hint: 'Invite me with `/invite @gateway`; commands will then post here.' },
    );
  }
}
