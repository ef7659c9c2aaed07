import type { Logger, LogLevel } from '@slack/bolt';
import { type DestinationStream, type Logger as Pino, pino } from 'pino';

/**
 * One injected logger: pino, JSON lines, behind Bolt's Logger interface so Bolt, the gateway client
 * and the workers all log through it. Child loggers carry the ids that tell lines apart (request, team,
 * channel, user, job, the gateway's request id). Secrets are redacted twice over: by path (pino's `redact`,
 * for fields named like credentials) and by value (anything that looks like a token, a Bearer value, or is
 * one of the configured secrets, wherever it appears: a message, a field, a child's bindings).
 */

const SECRET_PATTERNS: RegExp[] = [
  /xox[abposr]-[A-Za-z0-9-]+/g,
  /xapp-[A-Za-z0-9-]+/g,
  // A Workflow step's run token (it ends the step, as the bot) and an assistant's gateway-bot token.
  /xwfp-[A-Za-z0-9-]+/g,
  /gwb_[A-Za-z0-9_-]{16,}/g,
  /(Bearer\s+)[^\s"']+/gi,
  /(authorization["']?\s*[:=]\s*["']?)[^"',\s}]+/gi,
  // A live response URL posts into a channel as the bot for 30 minutes: Socket Mode's debug lines print
  // whole envelopes, with slashes JSON-escaped (`https:\/\/hooks.slack.com\/…`) or not.
  /(https?:(?:\\?\/){2}hooks\.slack\.com)(?:\\?\/)[^\s"'<>]*/gi,
  /(\\?["']?response_?url\\?["']?\s*[:=]\s*\\?["']?)[^"',\s}]+/gi,
];

/** Fields redacted by name at the top level and one level down (`headers.authorization`, `*.token`). */
const SECRET_FIELDS = [
  'authorization',
  'token',
  'botToken',
  'appToken',
  'apiKey',
  'api_key',
  'signingSecret',
  'password',
  'secret',
  'response_url',
  'responseUrl',
];
const REDACT_PATHS = SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `headers.${f}`, `*.headers.${f}`]);
const CENSOR = '[redacted]';

/** Replaces anything that looks like a Slack token or an Authorization value with a marker. */
function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join(CENSOR);
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (_match, prefix?: string) =>
      typeof prefix === 'string' ? `${prefix}${CENSOR}` : CENSOR,
    );
  }
  return out;
}

/** Redacts every string in a log object, nested ones included (ids and small records, never large). */
function redactValues(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactValues(v, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = redactValues(inner, secrets, depth + 1);
  return out;
}

function render(arg: unknown): string {
  if (arg instanceof Error)
    return `${arg.name}: ${arg.message}${'code' in arg ? ` (${String(arg.code)})` : ''}`;
  if (typeof arg === 'string') return arg;
  try {
    return JSON.stringify(arg);
  } catch {
    return String(arg);
  }
}

/** The ids a child logger may carry; each is a short id, never text a person wrote. */
export interface LogContext {
  requestId?: string;
  team?: string;
  channel?: string;
  user?: string;
  job?: string;
  gatewayRequestId?: string;
  [field: string]: unknown;
}

export interface AppLogger extends Logger {
  child(fields: LogContext): AppLogger;
}

export interface LoggerOptions {
  level?: string;
  name?: string;
  fields?: Record<string, unknown>;
  secrets?: readonly string[];
  /** Receives each JSON line without its newline (tests read them). */
  write?: (line: string) => void;
  /** Where lines go otherwise (the demo's pino-pretty stream); stdout by default. */
  destination?: DestinationStream;
}

function wrap(log: Pino, secrets: readonly string[]): AppLogger {
  const emit =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) => {
      if (!log.isLevelEnabled(level)) return;
      const msg = redact(args.map(render).join(' '), secrets);
      // A gateway error knows the gateway's request id: the line that logs the error carries it.
      const requestId = args.find(
        (a): a is Error & { requestId: string } =>
          a instanceof Error && typeof (a as { requestId?: unknown }).requestId === 'string',
      )?.requestId;
      if (requestId) log[level]({ gatewayRequestId: requestId }, msg);
      else log[level](msg);
    };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    setLevel: (level: LogLevel) => {
      log.level = level;
    },
    getLevel: () => log.level as LogLevel,
    // One process, one name: Bolt names only its own console logger, and a second `name` would repeat the key.
    setName: () => {},
    // pino's bindings formatter sees only the base fields, so a child's are redacted here. A child keeps the
    // level it was made with: Bolt sets its own logger's level, which must not silence children made before.
    // (pino's children share the parent's level through their prototype unless given their own.)
    child: (fields) => lazyChild(log, fields, secrets),
  };
}

/**
 * A child made when it first logs: a request's child is built on every command and click, and on the happy path
 * never logs, while pino's child (bindings redacted and serialised) costs more than the rest of a short answer.
 * It keeps the level its parent had when it was asked for, as a pino child made then would.
 */
function lazyChild(
  parent: Pino,
  fields: LogContext,
  secrets: readonly string[],
  levelNow: string = parent.level,
): AppLogger {
  let level = levelNow;
  let made: AppLogger | undefined;
  const real = (): AppLogger => {
    if (!made) {
      const child = parent.child(redactValues(fields, secrets) as LogContext);
      child.level = level;
      made = wrap(child, secrets);
    }
    return made;
  };
  const enabled = (at: string) => (parent.levels.values[at] ?? 0) >= (parent.levels.values[level] ?? 0);
  const emit =
    (at: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) => {
      if (made || enabled(at)) real()[at](...args);
    };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    setLevel: (next: LogLevel) => {
      level = next;
      made?.setLevel(next);
    },
    getLevel: () => (made ? made.getLevel() : (level as LogLevel)),
    setName: () => {},
    child: (more) => (made ? made.child(more) : lazyChild(parent, { ...fields, ...more }, secrets, level)),
  };
}

export function createLogger(options: LoggerOptions = {}): AppLogger {
  const secrets = options.secrets ?? [];
  const write = options.write;
  // Through process.stdout.write, which is synchronous for files, pipes and terminals on Linux, so the last
  // lines before process.exit (a stop, a failed start) are not lost. (Handing pino process.stdout itself
  // would make it open its own writer on fd 1.)
  const destination: DestinationStream = write
    ? { write: (line: string) => write(line.endsWith('\n') ? line.slice(0, -1) : line) }
    : (options.destination ?? { write: (line: string) => process.stdout.write(line) });
  const log = pino(
    {
      level: options.level ?? 'info',
      base: { name: options.name ?? 'gateway-bot', ...options.fields },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: CENSOR },
      formatters: {
        level: (label) => ({ level: label }),
        bindings: (bindings) => redactValues(bindings, secrets) as Record<string, unknown>,
        log: (object) => redactValues(object, secrets) as Record<string, unknown>,
      },
    },
    destination,
  );
  return wrap(log, secrets);
}

/**
 * A logger that never goes below info, whatever is asked of it: for the Socket Mode client, whose debug
 * lines print every envelope it receives (with their response URLs) even when the bot itself logs debug.
 */
export function atLeastInfo(logger: AppLogger): AppLogger {
  return {
    ...logger,
    debug: () => {},
    setLevel: () => {},
    getLevel: () => (logger.getLevel() === 'debug' ? ('info' as LogLevel) : logger.getLevel()),
    child: (fields) => atLeastInfo(logger.child(fields)),
  };
}

/** A logger that drops everything: for tests and benchmarks that assert on behaviour, not logs. */
export function silentLogger(): AppLogger {
  return createLogger({ level: 'silent', write: () => {} });
}
