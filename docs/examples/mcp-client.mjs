// An assistant client in a dozen lines, for Node 20 (the MCP Inspector needs Node 22). After
// `npm install @modelcontextprotocol/sdk`:  node mcp-client.mjs <endpoint> <token> [tool] ['{"name":"value"}']
// Without a tool it lists the tools; with one it calls it and prints its answer.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [endpoint, token, tool, args = '{}'] = process.argv.slice(2);
const client = new Client({ name: 'gateway-bot example client', version: '1.0.0' });
const headers = { Authorization: `Bearer ${token}` };
await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers } }));
const answer = tool
  ? await client.callTool({ name: tool, arguments: JSON.parse(args) })
  : { tools: (await client.listTools()).tools.map((t) => t.name) };
console.log(JSON.stringify(answer.structuredContent ?? answer, null, 2));
await client.close();
