/** The built-in sandbox gateway (DESIGN §3): the spec served over HTTP with seeded sample data and faults. */
export type { AdvanceSummary } from './advance.js';
export { SAMPLE_KEY_TABLE } from './auth.js';
export { SAMPLE_CLIENTS } from './clients.js';
export { INTERNAL_RESOURCES, SANDBOX_ACTIONS, SANDBOX_RESOURCES } from './discovery.js';
export { SandboxInputError } from './faults.js';
export type {
  FailNextMatch,
  Sandbox,
  SandboxFault,
  SandboxKnobs,
  SandboxOptions,
  SandboxRequestLog,
} from './sandbox-types.js';
export { SANDBOX_FAULTS } from './sandbox-types.js';
export { GATEWAY_PATH, startSandbox } from './server.js';
