import { type Logger, LogLevel } from '@slack/bolt';

/**
 * One injected logger (STYLE §9): a JSON-lines logger that implements Bolt's Logger interface, so Bolt,
 * the gateway client and the workers all log through it. Values that look like secrets are redacted.
 */

const LEVELS: Record<string, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_PATTERNS: RegExp[] = [
  /xox[abposr]-[A-Za-z0-9-]+/g,
  /xapp-[A-Za-z0-9-]+/g,
  /(Bearer\s+)[^\s"']+/gi,
  /(authorization["']?\s*[:=]\s*["']?)[^"',\s}]+/gi,
];

/** Replaces anything that looks like a Slack token or an Authorization value with a marker. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (_match, prefix?: string) =>
      typeof prefix === 'string' ? `${prefix}[redacted]` : '[redacted]',
    );
  }
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

export interface AppLogger extends Logger {
  child(fields: Record<string, unknown>): AppLogger;
}

export interface LoggerOptions {
  level?: string;
  name?: string;
  fields?: Record<string, unknown>;
  secrets?: readonly string[];
  write?: (line: string) => void;
}

export function createLogger(options: LoggerOptions = {}): AppLogger {
  let level = options.level ?? 'info';
  let name = options.name ?? 'gateway-bot';
  const fields = options.fields ?? {};
  const secrets = options.secrets ?? [];
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const emit = (lvl: string, args: unknown[]) => {
    if ((LEVELS[lvl] ?? 0) < (LEVELS[level] ?? 20)) return;
    const msg = redact(args.map(render).join(' '), secrets);
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, name, ...fields, msg }));
  };
  return {
    debug: (...args) => emit('debug', args),
    info: (...args) => emit('info', args),
    warn: (...args) => emit('warn', args),
    error: (...args) => emit('error', args),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level as LogLevel,
    setName: (n: string) => {
      name = n;
    },
    child: (more) => createLogger({ level, name, fields: { ...fields, ...more }, secrets, write }),
  };
}

/** A logger that drops everything: for tests and benchmarks that assert on behaviour, not logs. */
export function silentLogger(): AppLogger {
  return createLogger({ level: 'error', write: () => {} });
}

export { LogLevel };
