/** The built-in sandbox gateway: the spec served over HTTP with seeded sample data and faults. */
export { SAMPLE_CLIENTS } from './clients.js';
export { storeResourceOf } from './discovery.js';
export type { Sandbox, SandboxKnobs } from './sandbox-types.js';
export { recentAnchor, startSandbox } from './server.js';
