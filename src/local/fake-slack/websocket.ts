import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * The server side of RFC 6455, just enough for Slack's Socket Mode client (undici's WebSocket): the upgrade
 * handshake, text frames both ways, pong for every ping, and the close handshake. No extensions, no
 * subprotocols. Written here because the project has no WebSocket server package and needs none in prod.
 */

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OP = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

export interface ServerSocket {
  readonly open: boolean;
  sendText(text: string): void;
  /** Starts the close handshake; the peer's close frame (or a 1 s grace) ends the socket. */
  close(code?: number, reason?: string): void;
  destroy(): void;
}

export interface SocketHandlers {
  onText(text: string): void;
  onClose(): void;
}

/** Answers a checked upgrade request with 101 and returns the open socket. */
export function acceptUpgrade(req: IncomingMessage, socket: Duplex, handlers: SocketHandlers): ServerSocket {
  const key = String(req.headers['sec-websocket-key'] ?? '');
  const accept = createHash('sha1')
    .update(key + GUID)
    .digest('base64');
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  return wrapSocket(socket, handlers);
}

export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return (
    String(req.headers.upgrade ?? '').toLowerCase() === 'websocket' &&
    typeof req.headers['sec-websocket-key'] === 'string'
  );
}

/** Refuses an upgrade with a plain HTTP status, the way Slack's edge refuses a bad ticket. */
export function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function frame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const head = len < 126 ? Buffer.alloc(2) : len < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (len < 126) head[1] = len;
  else if (len < 65_536) {
    head[1] = 126;
    head.writeUInt16BE(len, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(len), 2);
  }
  return Buffer.concat([head, payload]);
}

interface Frame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
  size: number;
}

/** One client frame from the front of `buf` (clients always mask), or undefined while it is incomplete. */
function readFrame(buf: Buffer): Frame | undefined {
  if (buf.length < 2) return undefined;
  const first = buf[0] ?? 0;
  const second = buf[1] ?? 0;
  let len = second & 0x7f;
  let offset = 2;
  if (len === 126) {
    if (buf.length < 4) return undefined;
    len = buf.readUInt16BE(2);
    offset = 4;
  } else if (len === 127) {
    if (buf.length < 10) return undefined;
    len = Number(buf.readBigUInt64BE(2));
    offset = 10;
  }
  const masked = (second & 0x80) !== 0;
  const mask = masked ? buf.subarray(offset, offset + 4) : undefined;
  if (masked) offset += 4;
  if (buf.length < offset + len) return undefined;
  const payload = Buffer.from(buf.subarray(offset, offset + len));
  if (mask) for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] ?? 0) ^ (mask[i % 4] ?? 0);
  return { fin: (first & 0x80) !== 0, opcode: first & 0x0f, payload, size: offset + len };
}

function wrapSocket(socket: Duplex, handlers: SocketHandlers): ServerSocket {
  let buffered = Buffer.alloc(0);
  let fragments: Buffer[] = [];
  let messageOpcode: number = OP.text;
  let open = true;
  let closeSent = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const finish = () => {
    clearTimeout(graceTimer);
    if (!socket.destroyed) socket.destroy();
  };
  const sendClose = (code: number, reason = '') => {
    if (closeSent || socket.destroyed) return;
    closeSent = true;
    const body = Buffer.alloc(2 + Buffer.byteLength(reason));
    body.writeUInt16BE(code, 0);
    body.write(reason, 2);
    socket.write(frame(OP.close, body));
  };
  const onFrame = (f: Frame) => {
    if (f.opcode === OP.ping) return socket.write(frame(OP.pong, f.payload));
    if (f.opcode === OP.pong) return;
    if (f.opcode === OP.close) {
      open = false;
      sendClose(f.payload.length >= 2 ? f.payload.readUInt16BE(0) : 1000);
      return socket.end();
    }
    if (f.opcode !== OP.continuation) messageOpcode = f.opcode;
    fragments.push(f.payload);
    if (!f.fin) return;
    const message = Buffer.concat(fragments);
    fragments = [];
    // Socket Mode only ever speaks JSON text; binary messages are ignored.
    if (messageOpcode === OP.text) handlers.onText(message.toString('utf8'));
  };
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (let f = readFrame(buffered); f; f = readFrame(buffered)) {
      buffered = buffered.subarray(f.size);
      onFrame(f);
    }
  });
  socket.on('error', () => finish());
  socket.on('close', () => {
    open = false;
    clearTimeout(graceTimer);
    handlers.onClose();
  });
  return {
    get open() {
      return open && !socket.destroyed;
    },
    sendText(text) {
      if (open && !socket.destroyed) socket.write(frame(OP.text, Buffer.from(text, 'utf8')));
    },
    close(code = 1000, reason = '') {
      if (!open) return;
      open = false;
      sendClose(code, reason);
      graceTimer = setTimeout(finish, 1_000);
      graceTimer.unref();
    },
    destroy: finish,
  };
}
