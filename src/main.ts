import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startRuntime } from './runtime.js';

/** Process entry: config → roles → start; a graceful stop on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfig();
  const secrets = [
    config.slack.botToken,
    config.slack.signingSecret,
    config.slack.appToken,
    config.gateway.apiKey,
  ];
  const logger = createLogger({ level: config.logLevel, secrets: secrets.filter((s): s is string => !!s) });
  const runtime = await startRuntime(config, logger);
  logger.info(`gateway-bot started (role ${config.role})`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: stopping (in-flight work gets 10 s)`);
    runtime.stop(10_000).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  // Before the logger exists there is only stderr; a config error is a message for a person, not a trace.
  const text = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
  process.stderr.write(`gateway-bot could not start: ${text}\n`);
  process.exit(1);
});
