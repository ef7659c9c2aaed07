import type { GatewayClient, Row } from '../gateway/index.js';
import { namedReferences } from '../gateway/index.js';
import type { AppLogger } from '../logger.js';
import type { ReferenceNames } from '../views/row-format.js';

/**
 * The names behind ids a resource's rows carry (`category_id: cat_02` → "Water heaters"), for a page of rows or
 * an action's record: each naming dataset (small: a blog's categories, its authors) read once, at most
 * NAMES_READ rows of it. A read that fails names nothing, and the ids show as they are.
 */

const NAMES_READ = 1_000;

export async function referenceNames(
  deps: { gateway: GatewayClient; logger: Pick<AppLogger, 'warn'> },
  clientId: string | undefined,
  resource: string | undefined,
  rows: readonly Row[],
): Promise<ReferenceNames> {
  const out: Record<string, { label: string; names: Record<string, string> }> = {};
  if (!clientId) return out;
  const refs = Object.entries(namedReferences(resource)).filter(([field]) =>
    rows.some((r) => typeof r[field] === 'string' || typeof r[field] === 'number'),
  );
  await Promise.all(
    refs.map(async ([field, ref]) => {
      try {
        const { rows: named } = await deps.gateway.collect(ref.resource, { clientId }, { cap: NAMES_READ });
        const names: Record<string, string> = {};
        for (const row of named) {
          const name = row.name ?? row.title;
          if ((typeof row.id === 'string' || typeof row.id === 'number') && typeof name === 'string' && name)
            names[String(row.id)] = name;
        }
        out[field] = { label: ref.label, names };
      } catch (error) {
        deps.logger.warn(`could not read ${ref.resource} to name ${field}`, error);
      }
    }),
  );
  return out;
}
