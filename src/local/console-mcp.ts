import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { SaveImage } from './console-files.js';

/**
 * The demo console's assistant: `mcp <tool> [name=value …]` calls a tool of the bot's MCP server with the demo's
 * token, through the SDK's own client over HTTP, as Claude Code or the MCP Inspector would.
 */
export class ConsoleAssistant {
  #client: Promise<Client> | undefined;

  constructor(
    private readonly url: string,
    private readonly token: string,
    /** Where an image a tool returns (get_chart) is written; its path is printed with the answer. */
    private readonly saveImage?: SaveImage,
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
      content?: { type: string; text?: string; data?: string; mimeType?: string }[];
    };
    if (result.isError || !result.structuredContent)
      return [`(mcp ${tool}: ${result.content?.map((c) => c.text ?? '').join(' ') ?? 'no answer'})`];
    const shown = { ...result.structuredContent };
    if (Array.isArray(shown.rows) && shown.rows.length > 5)
      shown.rows = [...shown.rows.slice(0, 5), `… ${shown.rows.length - 5} more rows`];
    // A chart's numbers: each keyword's first and last position, not every point.
    if (Array.isArray(shown.keywords))
      shown.keywords = shown.keywords.map((k: { points?: unknown[] }) => ({
        ...k,
        points: `${k.points?.length ?? 0} points`,
      }));
    if (Array.isArray(shown.months))
      shown.months = shown.months.map(
        (m: { month?: string; counts?: number[]; average?: number | null }) =>
          `${m.month}: ${m.counts?.map((n, i) => `${i + 1}★ ${n}`).join(', ')} (average ${m.average ?? 'none'})`,
      );
    const images = (result.content ?? []).filter((c) => c.type === 'image' && c.data);
    const saved = images.map((c, i) =>
      this.saveImage
        ? `(image saved to ${this.saveImage(`${tool}-${i + 1}.png`, Buffer.from(c.data ?? '', 'base64'))})`
        : `(an image, ${c.mimeType})`,
    );
    return [...saved, ...JSON.stringify(shown, null, 2).split('\n')];
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
