import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { SaveImage } from './console-files.js';

/**
 * The demo console's assistant: `mcp <tool> [name=value …]` calls a tool of the bot's MCP server with the demo's
 * token, through the SDK's own client over HTTP, as Claude Code or the MCP Inspector would.
 */
export class ConsoleAssistant {
  /** Each person's token: the one they minted last in the console (alice's is minted at start). */
  readonly #tokens = new Map<string, string>();
  readonly #clients = new Map<string, Promise<Client>>();
  /** The job an `mcp` call returned last: `mcp get_job` without a job_id asks about it. */
  #lastJob: string | undefined;

  constructor(
    private readonly url: string,
    /** Names people in refusals. */
    private readonly userName: (user: string) => string,
    /** Where an image a tool returns (get_chart) is written; its path is printed with the answer. */
    private readonly saveImage?: SaveImage,
  ) {}

  /** From now on `user`'s `mcp` lines go out with this token (one they minted, as a person pastes it in). */
  useToken(user: string, token: string): void {
    this.#tokens.set(user, token);
  }

  #connect(user: string): Promise<Client> {
    const token = this.#tokens.get(user);
    if (!token)
      throw new Error(
        `${this.userName(user)} has no assistant token yet: /gateway mcp token mints one, and the console uses it`,
      );
    let client = this.#clients.get(token);
    if (!client) {
      client = (async () => {
        const c = new Client({ name: 'gateway-bot demo console', version: '1.0.0' });
        await c.connect(
          new StreamableHTTPClientTransport(new URL(this.url), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        return c;
      })().catch((error: unknown) => {
        this.#clients.delete(token);
        throw error;
      });
      this.#clients.set(token, client);
    }
    return client;
  }

  /** The tool's answer as lines: its structured content (pretty JSON, long lists cut), or its error text. */
  async call(user: string, tool: string, given: Record<string, unknown>): Promise<string[]> {
    const client = await this.#connect(user);
    const args =
      tool === 'get_job' && !('job_id' in given) && this.#lastJob
        ? { ...given, job_id: this.#lastJob }
        : given;
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
    if (typeof shown.job_id === 'string') this.#lastJob = shown.job_id;
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
    for (const pending of this.#clients.values()) {
      const client = await pending.catch(() => undefined);
      await client?.close().catch(() => {});
    }
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
