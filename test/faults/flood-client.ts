/**
 * The assistant flood of the "assistant flood" fault row, as a process of its own: reads `{url, tokens,
 * clientId}` on stdin, then sends waves (each token a batch of 100 `tools/list`, 64 concurrent `tools/list`, 60
 * filtered `list_rankings`), each a second after the last was answered, until SIGTERM, and prints every HTTP
 * status it got as a JSON array on its last line.
 */
import { once } from 'node:events';
import { floodWave } from './flood-wave.js';

const PAUSE_MS = 1_000;

interface Target {
  url: string;
  tokens: string[];
  clientId: string;
}

async function main(): Promise<void> {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    input += chunk;
  });
  await once(process.stdin, 'end');
  const target = JSON.parse(input) as Target;
  let stopped = false;
  process.once('SIGTERM', () => {
    stopped = true;
  });
  const statuses: number[] = [];
  for (let serial = 0; !stopped; serial++) {
    statuses.push(...(await floodWave(target.url, target.tokens, target.clientId, serial)));
    await new Promise((r) => setTimeout(r, PAUSE_MS));
  }
  process.stdout.write(`${JSON.stringify(statuses)}\n`);
}

void main();
