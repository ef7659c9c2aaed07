/** What a gateway handler answers, before the server applies latency and faults. */
export interface Reply {
  status: number;
  body: unknown;
}

export function errorReply(status: number, error: string): Reply {
  return { status, body: { error } };
}
