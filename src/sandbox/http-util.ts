import type { IncomingMessage, ServerResponse } from 'node:http';

/** Small HTTP helpers of the sandbox server. */

const MAX_BODY_BYTES = 1_000_000;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  // A client that gave up (or a dropped socket) gets nothing; writing would only throw.
  if (res.destroyed || res.writableEnded) return;
  const text = status === 204 ? '' : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** The request body as text; `tooLarge` when it passed MAX_BODY_BYTES (the rest is drained, not kept). */
export function readBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () =>
      resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > MAX_BODY_BYTES }),
    );
    req.on('error', reject);
  });
}
