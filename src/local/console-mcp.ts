import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/**
 * The demo console's assistant: `mcp <tool> [name=value …]` calls a tool of the bot's MCP server with the demo's
 * token, through the SDK's own client over HTTP, as Claude Code or the MCP Inspector would.
 */
export class ConsoleAssistant {
  #client: Promise<Client> | undefined;

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  #connect(): Promise<Client> {
    this.#client ??= (async () => {
      const client = new Client({ name: 'gateway-bot demo console', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(this.url), {
          requestInit: { headers: { authorization: `Bearer ${this.token}` } },
        }),
      );
      return client;
    })().catch((error: unknown) => {
      this.#client = undefined;
      throw error;
    });
    return this.#client;
  }

  /** The tool's answer as lines: its structured content (pretty JSON, long lists cut), or its error text. */
  async call(tool: string, args: Record<string, unknown>): Promise<string[]> {
    const client = await this.#connect();
    if (tool === 'tools') {
      const { tools } = await client.listTools();
      return tools.map(
        (t) => `  ${t.name}${t.annotations?.destructiveHint ? ' (waits for an approver)' : ''}`,
      );
    }
    const result = (await client.callTool({ name: tool, arguments: args })) as {
      structuredContent?: Record<string, unknown>;
      isError?: boolean;
      content?: { type: string; text?: string }[];
    };
    if (result.isError || !result.structuredContent)
      return [`(mcp ${tool}: ${result.content?.map((c) => c.text ?? '').join(' ') ?? 'no answer'})`];
    const shown = { ...result.structuredContent };
    if (Array.isArray(shown.rows) && shown.rows.length > 5)
      shown.rows = [...shown.rows.slice(0, 5), `… ${shown.rows.length - 5} more rows`];
    return JSON.stringify(shown, null, 2).split('\n');
  }

  async close(): Promise<void> {
    const client = await this.#client?.catch(() => undefined);
    await client?.close().catch(() => {});
  }
}

/** `name=value` words as tool arguments: numbers and true/false as such, the rest as text. */
export function toolArguments(values: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    if (/^-?\d+(\.\d+)?$/.test(value)) out[name] = Number(value);
    else if (value === 'true' || value === 'false') out[name] = value === 'true';
    else out[name] = value;
  }
  return out;
}
