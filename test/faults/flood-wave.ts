/**
 * One wave of the assistant flood, shared by the fault row's flood process (flood-client.ts) and bench/mcp.ts:
 * each token a batch of 100 `tools/list`, then 64 concurrent `tools/list` and 60 filtered `list_rankings`,
 * spread over the tokens, every request at once. Resolves with the HTTP status of each (0: no answer).
 */

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

export function floodWave(
  url: string,
  tokens: readonly string[],
  clientId: string,
  serial: number,
): Promise<number[]> {
  const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
  const batch = Array.from({ length: 100 }, (_, i) => list(i));
  const rankings = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'list_rankings',
      arguments: { client_id: clientId, keyword: `no keyword ${serial}-${id}`, from: '2020-01-01' },
    },
  });
  const token = (i: number) => tokens[i % tokens.length] as string;
  return Promise.all([
    ...tokens.map((k) => rpc(url, k, batch)),
    ...Array.from({ length: 64 }, (_, i) => rpc(url, token(i), list(i))),
    ...Array.from({ length: 60 }, (_, i) => rpc(url, token(i), rankings(i))),
  ]);
}
