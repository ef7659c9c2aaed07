import type { Row } from '../gateway/index.js';
import type { CoreServices } from '../services.js';
import { type Deps, factsOf, gone } from './decide.js';
import type { ApprovalRecord } from './record.js';
import { mayView } from './signoff-rule.js';

/**
 * A sign-off card's View: the post a deploy would publish, as the gateway's `blogs` row holds it (title, keyword,
 * and its content or excerpt when the row has one), shown to a client approver exactly as to the agency.
 */

export interface ViewInput {
  id: string;
  channel: string;
  by: string;
  team?: string;
}

export type ViewOutcome =
  | { kind: 'post'; record: ApprovalRecord; row: Row | undefined }
  | { kind: 'refused' };

export async function viewDeployPost(
  deps: Deps & Pick<CoreServices, 'gateway'>,
  input: ViewInput,
): Promise<ViewOutcome> {
  const record = await deps.approvals.get(input.id);
  if (!record || record.channel !== input.channel) throw gone();
  const clicker = { userId: input.by, teamId: input.team, channelId: input.channel };
  if (!mayView(record, clicker, await factsOf(deps, record, input.by))) return { kind: 'refused' };
  const postId = record.preview.kind === 'deploy' ? record.preview.postId : undefined;
  if (!postId) return { kind: 'post', record, row: undefined };
  const page = await deps.gateway.read('blogs', {
    clientId: record.clientId,
    filter: { field: 'id', value: postId },
    limit: 1,
  });
  return { kind: 'post', record, row: page.data.find((r) => String(r.id) === postId) };
}
