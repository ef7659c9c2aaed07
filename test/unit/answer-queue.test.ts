import { describe, expect, it } from 'vitest';
import { AnswerQueue } from '../../src/slack/answer-queue.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('AnswerQueue', () => {
  it('runs at most `concurrency` answers at once and all of them in the end', async () => {
    const queue = new AnswerQueue(2, 10);
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    const releases: Array<() => void> = [];
    for (let i = 0; i < 5; i++) {
      queue.offer(async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
        done.push(i);
      });
    }
    for (let i = 0; i < 20 && done.length < 5; i++) {
      await tick();
      releases.shift()?.();
    }
    await queue.drain();
    expect(peak).toBe(2);
    expect(done.sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('refuses work beyond its cap instead of growing without bound', () => {
    const queue = new AnswerQueue(1, 2);
    const never = () => new Promise<void>(() => {});
    expect(queue.offer(never)).toBe(true);
    expect(queue.offer(never)).toBe(true);
    expect(queue.offer(never)).toBe(false);
  });

  it('takes a burst far beyond what runs at once while it keeps up, and refuses once the oldest has waited too long', async () => {
    const queue = new AnswerQueue(1, 10_000, 300);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // One running, the rest waiting: 2,000 taken at once, none refused (the oldest has not waited 300 ms).
    let taken = 0;
    for (let i = 0; i < 2_000; i++) if (queue.offer(() => held)) taken += 1;
    expect(taken).toBe(2_000);
    await new Promise((r) => setTimeout(r, 400));
    // Nothing has started for 400 ms: the queue is not keeping up, and says so.
    expect(queue.offer(async () => {})).toBe(false);
    // A command that may open a form is refused as well: the queue is overloaded.
    expect(queue.offer(async () => {}, { first: true })).toBe(false);
    release();
    await queue.drain();
    // Drained, it takes work again.
    expect(queue.offer(async () => {})).toBe(true);
    await queue.drain();
  });

  it('keeps going after a task fails', async () => {
    const queue = new AnswerQueue(1, 5);
    const seen: string[] = [];
    queue.offer(async () => {
      throw new Error('boom');
    });
    queue.offer(async () => {
      seen.push('second');
    });
    await queue.drain();
    expect(seen).toEqual(['second']);
  });

  it('runs a task offered first before every task already waiting', async () => {
    const queue = new AnswerQueue(1, 10);
    const order: string[] = [];
    const task = (name: string) => async () => {
      order.push(name);
    };
    queue.offer(task('a'));
    queue.offer(task('b'));
    queue.offer(task('form'), { first: true });
    await queue.drain();
    expect(order).toEqual(['form', 'a', 'b']);
  });
});
