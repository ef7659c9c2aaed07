import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration and e2e files each own a Redis prefix and loopback ports. They mostly wait (on bots, timers,
    // child processes): with three files at a time the suite used under two thirds of two cores' time (272 s of
    // CPU in 216 s); four at a time took 190 s on the same machine.
    pool: 'forks',
    maxWorkers: 4,
    // A worker keeps the modules it imported for its next file: the bot's ~330 modules are transformed and
    // loaded once a worker, not once a file (a third less CPU over the e2e files). Each file still owns its
    // Redis prefix, ports and bots, started and stopped in its own hooks, so nothing of one file reaches the next.
    isolate: false,
    // The longest files first (test/helpers/sequencer.ts): no worker ends the run alone on one of them.
    sequence: { sequencer: LongestFirst },
  },
});
