import { readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { buildCatalogue } from '../actions/index.js';
import { manifestFunctions } from './manifest-functions.js';

/**
 * `npm run manifest`: writes manifest.yml's `functions` (its last section) from the action catalogue
 * (manifest-functions.ts). Everything above it, comments included, is left as written; the settings custom
 * steps need (`org_deploy_enabled`, `function_runtime`, the `function_executed` event) are written there by
 * hand, and test/unit/manifest-functions.test.ts checks both.
 */

const print = (text: string) => process.stdout.write(`${text}\n`);
const HEADER =
  '# Workflow Builder steps, one per action of the catalogue: written by `npm run manifest`, do not edit by hand.\n';

function main(): void {
  const path = new URL('../../manifest.yml', import.meta.url);
  const text = readFileSync(path, 'utf8');
  const at = text.search(/^(# Workflow Builder steps[^\n]*\n)?functions:/m);
  const head = at === -1 ? `${text.trimEnd()}\n` : text.slice(0, at);
  const functions = manifestFunctions(buildCatalogue(undefined, { guardedActions: [] }));
  writeFileSync(path, `${head}${HEADER}${stringify({ functions }, { lineWidth: 0 })}`);
  print(
    `manifest.yml: ${Object.keys(functions).length} workflow steps (${Object.keys(functions).join(', ')})`,
  );
}

main();
