import { ConfigError, loadConfig } from '../config.js';
import { SAMPLE_KEY_TABLE } from './auth.js';
import { SAMPLE_CLIENTS } from './clients.js';
import { startSandbox } from './server.js';

/** `npm run sandbox`: the built-in gateway alone, configured from SANDBOX_* variables. */

async function main(): Promise<void> {
  const config = loadConfig();
  const sandbox = await startSandbox({
    port: config.sandboxPort,
    seed: config.sandbox.seed,
    knobs: {
      latencyMs: config.sandbox.latencyMs,
      errorRate: config.sandbox.errorRate,
      timeoutRate: config.sandbox.timeoutRate,
      dropRate: config.sandbox.dropRate,
      statusErrorRate: config.sandbox.statusErrorRate,
    },
  });
  console.log(`Sandbox gateway listening at ${sandbox.url}`);
  console.log(`  clients: ${SAMPLE_CLIENTS.map((c) => c.id).join(', ')}`);
  console.log('  keys (send as "Authorization: Bearer <key>"):');
  for (const row of SAMPLE_KEY_TABLE)
    console.log(`    ${row.key.padEnd(18)} scopes: ${row.scopes.padEnd(14)} clients: ${row.clients}`);
  console.log('  introspection:');
  console.log(`    GET  ${sandbox.origin}/__sandbox/counts      records created and requests seen`);
  console.log(`    POST ${sandbox.origin}/__sandbox/knobs       {"latencyMs":200,"errorRate":0.1,...}`);
  console.log(
    `    POST ${sandbox.origin}/__sandbox/fail-next   {"fault":"drop_after_action","action":"generate_blog"}`,
  );
  console.log(`    POST ${sandbox.origin}/__sandbox/reset`);
  console.log(`  try: curl -H 'Authorization: Bearer sandbox-key' '${sandbox.url}?resource=clients'`);

  const stop = (signal: string) => {
    console.log(`${signal}: stopping the sandbox`);
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(
    error instanceof ConfigError ? error.message : `Sandbox failed to start: ${(error as Error).message}`,
  );
  process.exit(1);
});
