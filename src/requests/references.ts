import type { ActionEntry } from '../actions/index.js';
import type { RequestDeps } from './request.js';
import { UserError, UserErrorCode } from './user-error.js';

/**
 * Ids an action names (`category_id`, `call_id`) that the gateway does not know, found by reading before
 * anything is queued: a POST with one would fail, or worse, file the work under nothing. Only a read that
 * answers can tell: where every read fails, the request goes on and the POST decides.
 */
export async function unknownReference(
  deps: Pick<RequestDeps, 'gateway' | 'logger'>,
  entry: ActionEntry,
  clientId: string,
  fields: Record<string, unknown>,
  approved = false,
): Promise<UserError | undefined> {
  for (const field of entry.fields) {
    const value = fields[field.name];
    if (typeof value !== 'string' || value === '') continue;
    if (approved && field.checkedOnAsk) continue;
    const ref =
      field.refersTo ??
      (field.optionsFrom?.valueField === 'id'
        ? { resources: [field.optionsFrom.resource], field: 'id' }
        : undefined);
    if (!ref) continue;
    let told = false;
    for (const resource of ref.resources) {
      try {
        const page = await deps.gateway.read(resource, {
          clientId,
          filter: { field: ref.field, value },
          limit: 1,
        });
        if (page.data.length > 0) return undefined;
        told = true;
      } catch (error) {
        deps.logger.warn(`could not check ${field.name} against ${resource}`, error);
      }
    }
    if (!told) continue;
    const where = ref.resources[0] ?? '';
    return new UserError(
      UserErrorCode.BadArguments,
      `The gateway has no ${field.label.toLowerCase()} \`${value}\` for this client, so nothing was queued.`,
      {
        hint: `\`/gateway get ${where}\` lists them; give one of their ids${field.required ? '' : `, or leave ${field.name} out`}.`,
      },
    );
  }
  return undefined;
}

/**
 * A deploy's post, read before its approval card is posted: the refusal when the gateway answers that it has no
 * such post, else its title when it has one. A read that fails refuses nothing (the POST decides).
 */
export async function deployPost(
  deps: Pick<RequestDeps, 'gateway' | 'logger'>,
  clientId: string,
  postId: string,
): Promise<{ refusal: UserError } | { title?: string }> {
  try {
    const page = await deps.gateway.read('blogs', {
      clientId,
      filter: { field: 'id', value: postId },
      limit: 1,
    });
    const row = page.data.find((r) => String(r.id) === postId);
    if (!row)
      return {
        refusal: new UserError(
          UserErrorCode.BadArguments,
          `The gateway has no blog post \`${postId}\` for this client, so nothing was queued.`,
          {
            hint: '`/gateway blogs` lists the posts with their ids (`/gateway blogs published=false` the drafts); give one of them (every deploy names its post).',
          },
        ),
      };
    const title = row.post_title ?? row.title;
    return typeof title === 'string' ? { title } : {};
  } catch (error) {
    deps.logger.warn('could not read the post of a deploy', error);
    return {};
  }
}
