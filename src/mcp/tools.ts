import { requireCall } from '../assistant-calls.js';
import type { CoreServices } from '../services.js';
import { registerActionTools } from './action-tools.js';
import { registerChartTool } from './chart-tool.js';
import type { ToolContext } from './context.js';
import { CursorSigner } from './cursor.js';
import { registerReadTools } from './read-tools.js';
import { ToolTable } from './tool-table.js';

/**
 * Every assistant tool, built once per process. The context the tools see is the process's, except for who
 * calls, which each tool reads from the request it runs in (assistant-calls.ts); their gateway reads go through
 * the assistant tools' own client (its pool, its caps, each call's page budget).
 */
export function buildTools(services: CoreServices): ToolTable {
  const ctx: ToolContext = {
    // The process's services, with the assistants' gateway client in place of the people's: a view over them,
    // not a copy (a copy would make every part the process has not made yet).
    services: Object.create(services, { gateway: { value: services.assistantGateway } }) as CoreServices,
    cursors: new CursorSigner(services.redis, services.config.redis.prefix),
    get caller() {
      return requireCall().caller;
    },
    reach: () => requireCall().reach(),
    pagesLeft: () => services.assistantReads.pagesLeft(),
  };
  const table = new ToolTable();
  registerReadTools(table, ctx);
  registerChartTool(table, ctx);
  registerActionTools(table, ctx);
  return table;
}
