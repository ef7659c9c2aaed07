/** One raw JSON-RPC POST to the assistant-tool server, as a client that does not use the SDK sends it. */
export function mcpPost(endpoint: string, token: string, body: string): Promise<Response> {
  return fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body,
  });
}

/** A `tools/call` request body. */
export function toolCallBody(id: number, name: string, args: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
}
