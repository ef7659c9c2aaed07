import { describe, expect, it } from 'vitest';
import { GatewayAnswers } from '../../src/slack/gateway-answers.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('GatewayAnswers', () => {
  it('lets one key hold at most its share of the slots, so another key starts at once', async () => {
    const answers = new GatewayAnswers(4, 2, 100);
    const started: string[] = [];
    const releases: Array<() => void> = [];
    const task = (name: string) => async () => {
      started.push(name);
      await new Promise<void>((resolve) => releases.push(resolve));
    };
    for (let i = 0; i < 6; i++) answers.offer('keywords', task(`keywords ${i}`));
    answers.offer('reviews', task('reviews'));
    await tick();
    expect(started).toEqual(['keywords 0', 'keywords 1', 'reviews']);
    // A slow key's queue moves on as its own answers end, whatever else waits.
    releases.shift()?.();
    await tick();
    await tick();
    expect(started).toEqual(['keywords 0', 'keywords 1', 'reviews', 'keywords 2']);
    while (releases.length || answers.pending) {
      releases.shift()?.();
      await tick();
    }
    await answers.drain();
    expect(started).toHaveLength(7);
  });

  it('refuses beyond its cap (the caller tells the person)', () => {
    const answers = new GatewayAnswers(1, 1, 2);
    const never = () => new Promise<void>(() => {});
    expect(answers.offer('a', never)).toBe(true);
    expect(answers.offer('a', never)).toBe(true);
    expect(answers.offer('a', never)).toBe(false);
  });
});
