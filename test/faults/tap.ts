import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A pass-through in front of the sandbox gateway for one worker process, so the kill row knows which worker
 * has a POST in flight (the sandbox's own log does not say who called). Forwards every request as it came
 * and every answer as it went; a caller that goes away mid-request (a SIGKILLed worker) is passed on: the
 * request to the sandbox is cut too, so the sandbox sees its caller gone as it would without the tap.
 */
export interface GatewayTap {
  /** The gateway base address to give the worker. */
  url: string;
  /** POSTs the worker has sent whose answer has not gone back to it yet. */
  postsInFlight(): number;
  /** Of those, the ones sent in the last `ms`: still far from their answer while the gateway holds them. */
  postsSentWithin(ms: number): number;
  /** POSTs whose caller went away before their answer. */
  postsCut(): number;
  close(): Promise<void>;
}

export async function startTap(gatewayUrl: string): Promise<GatewayTap> {
  const target = new URL(gatewayUrl);
  const agent = new Agent({ keepAlive: true });
  const inFlight = new Set<number>();
  let cut = 0;
  const server = createServer((req, res) => {
    const post = req.method === 'POST';
    // Its send time, made unique; a non-POST is never added.
    let sentAt = performance.now();
    while (inFlight.has(sentAt)) sentAt += 1e-6;
    if (post) inFlight.add(sentAt);
    const end = (wasCut: boolean) => {
      if (!inFlight.delete(sentAt)) return;
      if (wasCut) cut += 1;
    };
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => {
      const answered = res.writableFinished;
      end(!answered);
      if (!answered) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    postsInFlight: () => inFlight.size,
    postsSentWithin: (ms) => {
      const since = performance.now() - ms;
      return [...inFlight].filter((t) => t >= since).length;
    },
    postsCut: () => cut,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
