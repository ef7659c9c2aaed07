/**
 * One role of the bot in its own process, started through src/runtime.ts exactly as src/main.ts starts it,
 * with the worker tuning of FLEET_TUNING (JSON) where a fault run needs short locks and backoffs: the fault
 * suite kills workers and restarts Redis, and BullMQ's production defaults (a 30 s lock, a 5 s backoff that
 * doubles) would make one run take an hour. Logs JSON lines on stdout; SIGTERM stops it gracefully.
 */
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startRuntime } from '../../src/runtime.js';

const config = loadConfig(process.env);
const secrets = [config.slack.botToken, config.slack.signingSecret, config.gateway.apiKey];
const logger = createLogger({ level: config.logLevel, secrets: secrets.filter((s): s is string => !!s) });
const tuning = process.env.FLEET_TUNING ? JSON.parse(process.env.FLEET_TUNING) : {};
const runtime = await startRuntime(config, logger, { worker: tuning });
logger.info(`gateway-bot started (role ${config.role})`);
let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  runtime.stop(10_000).then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
