import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * The longest test files, longest first, as measured (vitest's JSON reporter, `npm test` on the 2-core
 * machine). With no result of an earlier run cached (CI's fresh checkout), vitest starts the largest files
 * first; these are short files that start processes, clusters or wait out real intervals, and run last by
 * size: one of the two workers then finishes alone for up to a minute. Started first, the rest fill in
 * around them. A file renamed or gone here only loses its place.
 */
const LONGEST_FIRST = [
  'test/e2e/demo-console.test.ts',
  'test/e2e/production-install.test.ts',
  'test/e2e/socket-mode-slack-down.test.ts',
  'test/e2e/multi-process.test.ts',
  'test/integration/redis-cluster.test.ts',
  'test/e2e/demo-digest.test.ts',
  'test/e2e/job-waits.test.ts',
  'test/e2e/redis-at-start.test.ts',
  'test/e2e/home.test.ts',
  'test/e2e/demo-script.test.ts',
  'test/e2e/stuck-gateway.test.ts',
  'test/e2e/slack-pace.test.ts',
  'test/e2e/demo-workflow.test.ts',
  'test/e2e/demo-signoff.test.ts',
  'test/e2e/help-examples.test.ts',
];

const rank = (spec: TestSpecification, root: string): number => {
  const at = LONGEST_FIRST.indexOf(spec.moduleId.slice(root.length + 1));
  return at < 0 ? LONGEST_FIRST.length : at;
};

/** Vitest's order (failed first, then longest by its cache), with the known longest files ahead of the rest. */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const sorted = await super.sort(files);
    // A stable sort: within the rest, vitest's own order stands.
    return sorted.sort((a, b) => rank(a, root) - rank(b, root));
  }
}
