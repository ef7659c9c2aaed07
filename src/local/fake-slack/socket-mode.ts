import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { EnvelopeAck, EnvelopeType, FakeSocketMode } from './fake-types.js';
import { randomId } from './ids.js';
import { fail, type MethodContext, type MethodResult } from './method-context.js';

/**
 * Slack's side of Socket Mode: `apps.connections.open` hands out a one-use WebSocket URL on this server, the
 * upgrade is greeted with `hello`, and envelopes pushed to the bot resolve when it acks them by envelope_id.
 * The WebSocket protocol itself (handshake, frames, ping/pong, close) is the `ws` package's.
 */

const TICKET_TTL_MS = 60_000;
const ACK_TIMEOUT_MS = 5_000;
const SOCKET_PATH = '/socket-mode';

/** Stable codes: `socket_not_connected` (no bot connected), `socket_ack_timeout` (the bot never acked). */
export class FakeSocketError extends Error {
  constructor(
    readonly code: 'socket_not_connected' | 'socket_ack_timeout',
    message: string,
  ) {
    super(message);
    this.name = 'FakeSocketError';
  }
}

export interface SocketModeHub extends FakeSocketMode {
  /** The `apps.connections.open` method: only an app-level token may open a connection. */
  openConnection(token: string | undefined): MethodResult;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  closeAll(): void;
}

interface Pending {
  started: number;
  resolve(ack: EnvelopeAck): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** Refuses an upgrade with a plain HTTP status, the way Slack's edge refuses a bad ticket. */
function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

export function createSocketModeHub(ctx: MethodContext, ackTimeoutMs = ACK_TIMEOUT_MS): SocketModeHub {
  const tickets = new Map<string, number>();
  const server = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const sockets: WebSocket[] = [];
  const pending = new Map<string, Pending>();
  const live = () => sockets.filter((s) => s.readyState === WebSocket.OPEN);

  const onText = (text: string) => {
    let message: { envelope_id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return; // Slack ignores what it cannot parse; so does the stand-in.
    }
    const id = typeof message.envelope_id === 'string' ? message.envelope_id : '';
    const waiting = pending.get(id);
    if (!waiting) return;
    pending.delete(id);
    clearTimeout(waiting.timer);
    const elapsedMs = Math.round(performance.now() - waiting.started);
    waiting.resolve({ envelope_id: id, ackPayload: message.payload, elapsedMs });
  };

  return {
    openConnection(token) {
      if (!token) return fail('not_authed');
      // Slack refuses bot and user tokens here: Socket Mode needs the app-level (xapp-) token.
      if (!token.startsWith('xapp-')) return fail('not_allowed_token_type');
      if (ctx.appToken && token !== ctx.appToken) return fail('invalid_auth');
      const ticket = randomId('', 24);
      tickets.set(ticket, Date.now() + TICKET_TTL_MS);
      return { ok: true, url: `${ctx.origin.replace(/^http/, 'ws')}${SOCKET_PATH}?ticket=${ticket}` };
    },
    handleUpgrade(req, socket, head) {
      const url = new URL(req.url ?? '/', ctx.origin || 'http://x');
      const ticket = url.searchParams.get('ticket') ?? '';
      const expiresAt = tickets.get(ticket);
      tickets.delete(ticket);
      if (url.pathname !== SOCKET_PATH || String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket')
        return refuseUpgrade(socket, 404, 'Not Found');
      if (!expiresAt || Date.now() > expiresAt) return refuseUpgrade(socket, 401, 'Unauthorized');
      server.handleUpgrade(req, socket, head, (ws) => {
        sockets.push(ws);
        ws.on('message', (data, isBinary) => {
          if (!isBinary) onText(data.toString());
        });
        ws.on('close', () => {
          const at = sockets.indexOf(ws);
          if (at >= 0) sockets.splice(at, 1);
        });
        // A client that vanishes mid-frame is a closed connection, not a crash of the stand-in.
        ws.on('error', () => ws.terminate());
        ws.send(
          JSON.stringify({
            type: 'hello',
            num_connections: live().length,
            debug_info: { host: 'local', build_number: 1, approximate_connection_time: 3600 },
            connection_info: { app_id: ctx.appId },
          }),
        );
      });
    },
    connected: () => live().length > 0,
    send(type: EnvelopeType, payload: unknown, opts = {}) {
      // The newest connection gets the envelope; Slack picks any of an app's open connections.
      const ws = live().at(-1);
      if (!ws) {
        return Promise.reject(
          new FakeSocketError('socket_not_connected', 'fake-slack: no Socket Mode connection is open'),
        );
      }
      const envelopeId = randomUUID();
      const timeoutMs = opts.timeoutMs ?? ackTimeoutMs;
      const kind = (payload as { type?: unknown } | null)?.type;
      const envelope = {
        envelope_id: envelopeId,
        type,
        payload,
        // Slack lets commands and view submissions answer in the ack; block_actions cannot.
        accepts_response_payload: type === 'slash_commands' || kind === 'view_submission',
      };
      return new Promise<EnvelopeAck>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(envelopeId);
          reject(
            new FakeSocketError(
              'socket_ack_timeout',
              `fake-slack: the bot did not ack ${type} envelope ${envelopeId} within ${timeoutMs} ms`,
            ),
          );
        }, timeoutMs);
        pending.set(envelopeId, { started: performance.now(), resolve, reject, timer });
        ws.send(JSON.stringify(envelope));
      });
    },
    closeAll() {
      for (const ws of sockets.splice(0)) ws.terminate();
      for (const [id, waiting] of pending) {
        clearTimeout(waiting.timer);
        pending.delete(id);
        waiting.reject(
          new FakeSocketError('socket_not_connected', 'fake-slack: closed before the bot acked'),
        );
      }
    },
  };
}
