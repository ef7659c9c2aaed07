import type { Row } from '../gateway/types.js';
import { findClient } from './clients.js';
import { type SampleSettings, sampleRows } from './rows/index.js';
import { type Selection, selectionKey, selectRows } from './select.js';
import { syntheticKeywordPage } from './synthetic.js';

/**
 * The sandbox's data: each (client, resource) table is generated from the seed on its first read and kept,
 * with a cache of sorted and filtered views, so paging through 100,000 keywords sorts them once, not per page.
 */

interface Table {
  rows: Row[];
  views: Map<string, readonly Row[]>;
  /** Changed since generation (created rows, deploys): reset() must regenerate it. */
  dirty: boolean;
}

/** Enough for a few digests and paging sessions at once; past it the cache starts over. */
const MAX_VIEWS_PER_TABLE = 32;

export class SandboxStore {
  private readonly tables = new Map<string, Table>();
  private created = new Map<string, Map<string, number>>();
  private sequence = 0;

  constructor(private readonly settings: SampleSettings) {}

  private table(clientId: string, resource: string): Table | undefined {
    const name = `${clientId}\u0000${resource}`;
    let table = this.tables.get(name);
    if (!table) {
      const client = findClient(clientId);
      if (!client) return undefined;
      table = { rows: sampleRows(this.settings, client, resource), views: new Map(), dirty: false };
      this.tables.set(name, table);
    }
    return table;
  }

  /** The live rows (not a copy): callers that hand rows out copy them. */
  rows(clientId: string, resource: string): readonly Row[] {
    return this.table(clientId, resource)?.rows ?? [];
  }

  view(clientId: string, resource: string, selection: Selection): readonly Row[] {
    const table = this.table(clientId, resource);
    if (!table) return [];
    const key = selectionKey(selection);
    let view = table.views.get(key);
    if (!view) {
      if (table.views.size >= MAX_VIEWS_PER_TABLE) table.views.clear();
      view = selectRows(table.rows, selection);
      table.views.set(key, view);
    }
    return view;
  }

  /**
   * One page of a read: computed from row indexes for a synthetic client's keywords in date order (a million rows
   * are never held), else a slice of the cached view.
   */
  page(
    clientId: string,
    resource: string,
    selection: Selection,
    offset: number,
    limit: number,
  ): { rows: readonly Row[]; total: number } {
    const client = findClient(clientId);
    if (client?.synthetic && resource === 'keywords') {
      const page = syntheticKeywordPage(client, this.settings.anchorMs, selection, offset, limit);
      if (page) return page;
    }
    const view = this.view(clientId, resource, selection);
    return { rows: view.slice(offset, offset + limit), total: view.length };
  }

  append(clientId: string, resource: string, ...rows: Row[]): void {
    const table = this.table(clientId, resource);
    if (!table) return;
    table.rows.push(...rows);
    this.changed(clientId, resource);
  }

  /** Call after changing a row in place (a deploy publishing a draft). */
  changed(clientId: string, resource: string): void {
    const table = this.tables.get(`${clientId}\u0000${resource}`);
    if (!table) return;
    table.views.clear();
    table.dirty = true;
  }

  /** A record id no sample row uses: sample ids count from 1, created ones from 500,001. */
  nextId(prefix: string): string {
    this.sequence += 1;
    return `${prefix}_${500_000 + this.sequence}`;
  }

  countCreated(clientId: string, action: string): void {
    let perAction = this.created.get(clientId);
    if (!perAction) {
      perAction = new Map();
      this.created.set(clientId, perAction);
    }
    perAction.set(action, (perAction.get(action) ?? 0) + 1);
  }

  counts(): Record<string, Record<string, number>> {
    const out: Record<string, Record<string, number>> = {};
    for (const [clientId, perAction] of this.created) out[clientId] = Object.fromEntries(perAction);
    return out;
  }

  /** Forgets created records and counts; untouched tables (the big keyword table) are kept. */
  reset(): void {
    for (const [name, table] of this.tables) if (table.dirty) this.tables.delete(name);
    this.created = new Map();
    this.sequence = 0;
  }
}
