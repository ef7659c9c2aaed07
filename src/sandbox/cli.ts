import { ConfigError, loadConfig } from '../config.js';
import { SAMPLE_KEY_TABLE } from './auth.js';
import { SAMPLE_CLIENTS } from './clients.js';
import { recentAnchor, startSandbox } from './server.js';

// A CLI's own output: the banner a person reads, not log lines (those go through the injected logger).
const say = (text: string) => process.stdout.write(`${text}\n`);
const sayError = (text: string) => process.stderr.write(`${text}\n`);

/** `npm run sandbox`: the built-in gateway alone, configured from SANDBOX_* variables. */

async function main(): Promise<void> {
  const config = loadConfig();
  const sandbox = await startSandbox({
    port: config.sandboxPort,
    seed: config.sandbox.seed,
    anchorDate: recentAnchor(),
    knobs: {
      latencyMs: config.sandbox.latencyMs,
      errorRate: config.sandbox.errorRate,
      timeoutRate: config.sandbox.timeoutRate,
      dropRate: config.sandbox.dropRate,
      statusErrorRate: config.sandbox.statusErrorRate,
    },
  });
  say(`Sandbox gateway listening at ${sandbox.url}`);
  say(`  clients: ${SAMPLE_CLIENTS.map((c) => c.id).join(', ')}`);
  say('  keys (send as "Authorization: Bearer <key>"):');
  for (const row of SAMPLE_KEY_TABLE)
    say(`    ${row.key.padEnd(18)} scopes: ${row.scopes.padEnd(14)} clients: ${row.clients}`);
  say('  introspection:');
  say(`    GET  ${sandbox.origin}/__sandbox/counts      records created and requests seen`);
  say(`    POST ${sandbox.origin}/__sandbox/knobs       {"latencyMs":200,"errorRate":0.1,...}`);
  say(
    `    POST ${sandbox.origin}/__sandbox/fail-next   {"fault":"drop_after_action","action":"generate_blog"}`,
  );
  say(`    POST ${sandbox.origin}/__sandbox/reset`);
  say(`  try: curl -H 'Authorization: Bearer sandbox-key' '${sandbox.url}?resource=clients'`);

  const stop = (signal: string) => {
    say(`${signal}: stopping the sandbox`);
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  sayError(
    error instanceof ConfigError ? error.message : `Sandbox failed to start: ${(error as Error).message}`,
  );
  process.exit(1);
});
