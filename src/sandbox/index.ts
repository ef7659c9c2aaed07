/** The built-in sandbox gateway (DESIGN §3): the spec served over HTTP with seeded sample data and faults. */
export { SAMPLE_CLIENTS } from './clients.js';
export type { Sandbox } from './sandbox-types.js';
export { startSandbox } from './server.js';
