/**
 * The assistant flood of the "assistant flood" fault row, as a process of its own: reads `{url, tokens,
 * clientId}` on stdin, then sends waves (each token a batch of 100 `tools/list`, 64 concurrent `tools/list`, 60
 * filtered `list_rankings`), each a second after the last was answered, until SIGTERM, and prints every HTTP
 * status it got as a JSON array on its last line.
 */
import { once } from 'node:events';

const PAUSE_MS = 1_000;

interface Target {
  url: string;
  tokens: string[];
  clientId: string;
}

/** One JSON-RPC POST; its HTTP status (0: no answer). */
async function rpc(url: string, token: string, body: unknown): Promise<number> {
  try {
    const r = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(body),
    });
    await r.arrayBuffer();
    return r.status;
  } catch {
    return 0;
  }
}

/** One wave, every request at once, spread over the tokens; the statuses it was answered with. */
function wave(t: Target, serial: number): Promise<number[]> {
  const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
  const batch = Array.from({ length: 100 }, (_, i) => list(i));
  const rankings = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'list_rankings',
      arguments: { client_id: t.clientId, keyword: `no keyword ${serial}-${id}`, from: '2020-01-01' },
    },
  });
  const token = (i: number) => t.tokens[i % t.tokens.length] as string;
  return Promise.all([
    ...t.tokens.map((k) => rpc(t.url, k, batch)),
    ...Array.from({ length: 64 }, (_, i) => rpc(t.url, token(i), list(i))),
    ...Array.from({ length: 60 }, (_, i) => rpc(t.url, token(i), rankings(i))),
  ]);
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
    statuses.push(...(await wave(target, serial)));
    await new Promise((r) => setTimeout(r, PAUSE_MS));
  }
  process.stdout.write(`${JSON.stringify(statuses)}\n`);
}

void main();
