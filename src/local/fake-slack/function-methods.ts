import type { FakeFunctionRun } from './fake-types.js';
import { randomId } from './ids.js';
import { fail, type MethodContext, type MethodHandler } from './method-context.js';

/**
 * Workflow Builder's side of a custom step: each run (a `function_executed` event the driver sends) gets an
 * execution id and its own token, which alone may end it, once, with `functions.completeSuccess` (outputs) or
 * `functions.completeError` (an error message).
 */

export function startFunctionRun(
  ctx: MethodContext,
  callbackId: string,
  inputs: Record<string, unknown>,
): FakeFunctionRun {
  const run: FakeFunctionRun = {
    executionId: randomId('Fx', 12),
    workflowExecutionId: randomId('Wx', 12),
    callbackId,
    inputs,
    token: `xwfp-${randomId('', 24).toLowerCase()}`,
    completions: 0,
  };
  ctx.state.functionRuns.set(run.executionId, run);
  return run;
}

/** The token of the run a `functions.*` call names, for the server's token check. */
export function functionRunToken(ctx: MethodContext, args: Record<string, unknown>): string | undefined {
  const id = args.function_execution_id;
  return typeof id === 'string' ? ctx.state.functionRuns.get(id)?.token : undefined;
}

function complete(ctx: MethodContext, args: Record<string, unknown>, ok: boolean) {
  const run =
    typeof args.function_execution_id === 'string'
      ? ctx.state.functionRuns.get(args.function_execution_id)
      : undefined;
  if (!run) return fail('function_execution_not_found');
  run.completions += 1;
  if (run.ended) return fail('function_execution_already_completed');
  if (ok) {
    const outputs = args.outputs;
    if (typeof outputs !== 'object' || outputs === null || Array.isArray(outputs))
      return fail('invalid_arguments');
    run.ended = { ok: true, outputs: outputs as Record<string, unknown> };
  } else {
    if (typeof args.error !== 'string' || args.error === '') return fail('invalid_arguments');
    run.ended = { ok: false, error: args.error };
  }
  return { ok: true as const };
}

export const functionMethods: Record<string, MethodHandler> = {
  'functions.completeSuccess': (ctx, args) => complete(ctx, args, true),
  'functions.completeError': (ctx, args) => complete(ctx, args, false),
};
