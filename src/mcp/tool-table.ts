import {
  type CallToolResult,
  type Tool as ListedTool,
  type ListToolsResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from '@modelcontextprotocol/server';
import type { z } from 'zod';

/**
 * The assistant tools, built once per process. The SDK's HTTP entry wants a server instance per request; an
 * McpServer with every tool registered costs that many zod schemas, and its `tools/list` converts each one to
 * JSON Schema again. Here the tools are registered once, their list (JSON Schemas included) is built on the
 * first `tools/list` and kept, and each request gets a bare low-level Server with two handlers that read this
 * table: `tools/list` answers the kept list, `tools/call` validates and runs the tool as McpServer would.
 */

type ObjectSchema = z.ZodObject;

interface ToolConfig<I extends ObjectSchema> {
  description: string;
  inputSchema: I;
  outputSchema: ObjectSchema;
  annotations: Record<string, boolean>;
}

interface Tool {
  name: string;
  config: ToolConfig<ObjectSchema>;
  run(args: unknown): Promise<CallToolResult>;
  outputJson?: ListedTool['outputSchema'];
}

/** The subset of McpServer's registration the tool files use: they register into a table, not a server. */
export interface ToolRegistrar {
  registerTool<I extends ObjectSchema>(
    name: string,
    config: ToolConfig<I>,
    run: (args: z.output<I>) => Promise<CallToolResult>,
  ): void;
}

const JSON_SCHEMA_TARGET = 'draft-2020-12';

function jsonSchema(schema: ObjectSchema, io: 'input' | 'output'): ListedTool['inputSchema'] {
  return { ...schema['~standard'].jsonSchema[io]({ target: JSON_SCHEMA_TARGET }), type: 'object' };
}

const issuesText = (issues: readonly z.core.$ZodIssue[]) =>
  issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message)).join(', ');

const toolError = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

export class ToolTable implements ToolRegistrar {
  readonly #tools = new Map<string, Tool>();
  #list: ListToolsResult | undefined;

  registerTool<I extends ObjectSchema>(
    name: string,
    config: ToolConfig<I>,
    run: (args: z.output<I>) => Promise<CallToolResult>,
  ): void {
    if (this.#tools.has(name)) throw new Error(`Tool ${name} is already registered`);
    this.#tools.set(name, { name, config, run: (args) => run(args as z.output<I>) });
    this.#list = undefined;
  }

  /** The `tools/list` answer, built once. */
  list(): ListToolsResult {
    this.#list ??= {
      tools: [...this.#tools.values()].map((tool) => {
        tool.outputJson ??= jsonSchema(tool.config.outputSchema, 'output');
        return {
          name: tool.name,
          description: tool.config.description,
          inputSchema: jsonSchema(tool.config.inputSchema, 'input'),
          outputSchema: tool.outputJson,
          annotations: tool.config.annotations,
        };
      }),
    };
    return this.#list;
  }

  /** A tool call as McpServer answers it: bad arguments and bad results as tool errors, the result projected. */
  async call(server: Server, name: string, args: unknown): Promise<CallToolResult> {
    const tool = this.#tools.get(name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
    const input = tool.config.inputSchema.safeParse(args ?? {});
    if (!input.success)
      return toolError(
        `Input validation error: Invalid arguments for tool ${name}: ${issuesText(input.error.issues)}`,
      );
    const result = await tool.run(input.data);
    if (!result.isError) {
      const output = tool.config.outputSchema.safeParse(result.structuredContent);
      if (!output.success)
        return toolError(
          `Output validation error: Invalid structured content for tool ${name}: ${issuesText(output.error.issues)}`,
        );
    }
    this.list();
    return server.projectCallToolResult(result, tool.outputJson);
  }

  /** The per-request server the SDK's entry asks for: two handlers over this table, nothing built. */
  server(info: { name: string; version: string }): Server {
    const server = new Server(info, { capabilities: { tools: { listChanged: false } } });
    server.setRequestHandler('tools/list', () => this.list());
    server.setRequestHandler('tools/call', (request) =>
      this.call(server, request.params.name, request.params.arguments),
    );
    return server;
  }
}
