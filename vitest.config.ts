import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration and e2e files each own a Redis prefix and loopback ports; two cores run two at a time.
    pool: 'forks',
    maxWorkers: 2,
    // The longest files first (test/helpers/sequencer.ts): no worker ends the run alone on one of them.
    sequence: { sequencer: LongestFirst },
  },
});
