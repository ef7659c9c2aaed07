import type { ActionEntry, Catalogue } from '../actions/index.js';
import type { HelpEntry } from '../views/help.js';

/**
 * Help lines for every action, generated from the catalogue so a newly discovered action shows up in
 * `/gateway help` without code. Actions the gateway does not offer (not in its discovery answer) are left out.
 */
export function actionHelpEntries(catalogue: Catalogue, allowedActions: readonly string[] = []): HelpEntry[] {
  return catalogue
    .entries()
    .filter((e) => e.available)
    .map((e) => ({
      name: e.command,
      usage: e.usage.replace(/^\/gateway /, ''),
      summary: summaryOf(e),
      example: e.example,
      // Only discovery lists it: admins only until GATEWAY_ALLOWED_ACTIONS names it (see access/policy.ts).
      ...(e.discovered && !allowedActions.includes(e.action.toLowerCase()) ? { adminOnly: true } : {}),
      group: 'Actions' as const,
    }));
}

function summaryOf(e: ActionEntry): string {
  const notes: string[] = [];
  if (e.guarded) notes.push('needs approval');
  if (e.modal !== 'never') notes.push('opens a form when fields are missing, or with --form');
  for (const f of e.fields) {
    if (!f.required || !f.requiredBecause) continue;
    const form = f.optionsFrom?.newest ? '; its form offers the newest to choose from' : '';
    notes.push(`${f.name} is required: ${f.requiredBecause}${form}`);
  }
  if (e.discovered) notes.push(`listed by the gateway as \`${e.action}\``);
  const base = e.description.replace(/\.$/, '');
  return notes.length > 0 ? `${base} (${notes.join('; ')})` : base;
}
