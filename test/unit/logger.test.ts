import { LogLevel } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';

const capture = (options: { level?: string; secrets?: string[] } = {}) => {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', ...options, write: (line) => lines.push(line) });
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
};

describe('logger (pino)', () => {
  it('writes one JSON line per call with the level as a word, the time and the message', () => {
    const { logger, parsed } = capture();
    logger.info('hello', { n: 1 }, new TypeError('bad'));
    const [line] = parsed();
    expect(line).toMatchObject({ level: 'info', name: 'gateway-bot', msg: 'hello {"n":1} TypeError: bad' });
    expect(Date.parse(String(line?.time))).not.toBeNaN();
  });

  it('carries the ids of its child loggers on every line', () => {
    const { logger, parsed } = capture();
    const request = logger.child({ requestId: 'r-1', team: 'T1', channel: 'C1', user: 'U1' });
    request.child({ job: 'cmd-9' }).child({ gatewayRequestId: 'gw-42' }).warn('slow');
    expect(parsed()[0]).toMatchObject({
      requestId: 'r-1',
      team: 'T1',
      channel: 'C1',
      user: 'U1',
      job: 'cmd-9',
      gatewayRequestId: 'gw-42',
      level: 'warn',
    });
  });

  it('gives a child the level its parent had when it was asked for, however late it first logs', () => {
    const { logger, parsed } = capture({ level: 'info' });
    const early = logger.child({ requestId: 'early' });
    logger.setLevel(LogLevel.ERROR);
    const late = logger.child({ requestId: 'late' });
    logger.setLevel(LogLevel.INFO);
    early.info('kept');
    late.info('dropped');
    late.error('kept too');
    early.debug('below its level');
    expect(parsed().map((l) => [l.requestId, l.msg])).toEqual([
      ['early', 'kept'],
      ['late', 'kept too'],
    ]);
  });

  it('puts the gateway request id of a logged error on its line', () => {
    const { logger, parsed } = capture();
    const error = Object.assign(new Error('Gateway server error, HTTP 500'), { requestId: 'req-77' });
    logger.warn('reconciliation read failed', error);
    logger.warn('no id here', new Error('plain'));
    expect(parsed()[0]).toMatchObject({ gatewayRequestId: 'req-77', level: 'warn' });
    expect(parsed()[1]).not.toHaveProperty('gatewayRequestId');
  });

  it('redacts tokens and configured secrets by value, in messages and in fields', () => {
    const { logger, lines } = capture({ secrets: ['my-signing-secret'] });
    logger.error('auth failed for xoxb-1-2-abc with Bearer sk_live_1 and my-signing-secret');
    logger.child({ note: 'token xapp-1-A0-xyz here' }).info('child');
    const text = lines.join('\n');
    for (const secret of ['xoxb-1-2-abc', 'sk_live_1', 'my-signing-secret', 'xapp-1-A0-xyz'])
      expect(text).not.toContain(secret);
    expect(text).toContain('Bearer [redacted]');
    expect(lines).toHaveLength(2);
  });

  it('redacts a step’s run token and an assistant token at debug level, in messages and in fields', () => {
    const { logger, lines } = capture();
    const step = 'xwfp-0123456789abcdefghijklmn';
    const assistant = `gwb_${'Ab3_-'.repeat(8)}xyz`;
    logger.debug(`completing the step with ${step}`);
    logger.child({ note: `minted ${assistant}` }).debug('assistant token', { seen: assistant });
    const text = lines.join('\n');
    expect(lines).toHaveLength(2);
    expect(text).not.toContain(step);
    expect(text).not.toContain(assistant);
    expect(text.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(3);
  });

  it('redacts fields named like credentials by path, whatever their value looks like', () => {
    const { logger, lines } = capture();
    const child = logger.child({ apiKey: 'plain-looking-key' });
    child.info('bound');
    const pinoOnly = lines.join('\n');
    expect(pinoOnly).not.toContain('plain-looking-key');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ apiKey: '[redacted]' });
  });

  it('keeps ordinary text and respects the level', () => {
    const { logger, lines } = capture({ level: 'warn' });
    logger.info('dropped');
    logger.warn('tokens are fine as a word; xoxb alone is not a token');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('tokens are fine as a word; xoxb alone is not a token');
    logger.setLevel('debug' as never);
    logger.debug('now shown');
    expect(lines).toHaveLength(2);
    // A child keeps the level it was made with when its parent's changes later (Bolt sets its logger's).
    const child = logger.child({ part: 'gateway' });
    logger.setLevel('error' as never);
    child.debug('child still at debug');
    logger.warn('root now at error');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain('child still at debug');
  });
});
