/**
 * A TCP relay that delays every byte by a fixed one-way time in each direction, the
 * user-space stand-in for a network path with a round trip.
 *
 * Each direction of each connection is a FIFO of chunks with due times, flushed by one
 * timer: no per-byte work, no reordering (a chunk is never due before the one ahead of
 * it), and end-of-stream travels through the same FIFO so a FIN cannot overtake data.
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';

export interface DelayLayerOptions {
  /** Address the relay listens on. */
  readonly host: string;
  /** 0 picks an ephemeral port. */
  readonly port: number;
  readonly targetHost: string;
  readonly targetPort: number;
  /** Added to every chunk in each direction: half a round trip. */
  readonly oneWayMs: number;
  /** Added once to a new connection's first client bytes: the TCP handshake's round trip. */
  readonly connectMs: number;
}

export interface DelayLayerStats {
  readonly connectionsAccepted: number;
  /** Connections open now: a client connected and neither side has closed. */
  readonly connectionsOpen: number;
  /** Bytes delivered client -> target. */
  readonly bytesUp: number;
  /** Bytes delivered target -> client. */
  readonly bytesDown: number;
}

/**
 * The connections the database saw over a window (from markConnections to now): what a
 * load phase held open, apart from connections other functions left idle.
 */
export interface ConnectionWindow {
  /** Connections open now. */
  readonly open: number;
  /** The most connections open at once in the window, idle or not. */
  readonly peakOpen: number;
  /** The most connections open at once that carried the window's requests (client bytes in it). */
  readonly peakActive: number;
  /** Connections that carried the window's requests. */
  readonly active: number;
  /** Connections opened in the window. */
  readonly opened: number;
}

export interface DelayLayer {
  readonly port: number;
  stats(): DelayLayerStats;
  /** The window since the last mark (or since the start). */
  connections(): ConnectionWindow;
  /** Starts a new window: peaks and counts from the connections open now. */
  markConnections(): void;
  close(): Promise<void>;
}

/**
 * Bytes a direction may hold (queued + unwritten) before it stops reading its source.
 * 1 MiB per half round trip is far above anything a database call needs, yet bounded.
 */
const HIGH_WATER_BYTES = 1 << 20;
const LOW_WATER_BYTES = 1 << 18;
/**
 * Node timers count whole milliseconds from a loop clock that may be slightly stale, so a
 * timer can fire a little early. Flushing what is due within this margin (whole-ms waits, as
 * the 8 ms profile's, armed rounded up) measured ~0.2 ms mean lateness per hop, with almost
 * no hop over 1 ms late.
 */
const FLUSH_TOLERANCE_MS = 0.5;

/**
 * Timers count whole ms, so a sub-ms wait (a 0.3 ms round trip's half, a 0.4 ms service time)
 * rounded up would cost a whole ms each time. Rounding up with the probability of the
 * fraction (else down) keeps the mean wait right, at the price of +-1 ms jitter per hop.
 */
function ditheredMs(wait: number): number {
  const whole = Math.floor(wait);
  return whole + (Math.random() < wait - whole ? 1 : 0);
}

const FIN = Symbol('fin');
const CLOSE = Symbol('close');
type Item = Buffer | typeof FIN | typeof CLOSE;

interface Entry {
  readonly due: number;
  readonly item: Item;
}

/** Ends the socket's writable side and destroys it once everything written is flushed. */
export function endThenDestroy(socket: net.Socket): void {
  if (socket.destroyed) return;
  if (socket.writableFinished) {
    socket.destroy();
    return;
  }
  socket.once('finish', () => socket.destroy());
  if (!socket.writableEnded) socket.end();
}

/** A direction's delay: fixed, or chosen per chunk (the service-time hold, see network-model.ts). */
export type ChunkDelay = number | (() => number);

/** One direction of a relay: chunks leave in order, each after its delay. */
export class DelayedDirection {
  readonly #from: net.Socket;
  readonly #to: net.Socket;
  readonly #delay: ChunkDelay;
  readonly #onDelivered: (bytes: number) => void;
  /** FIFO as array + head index: shift() would make many small chunks quadratic. */
  #queue: Entry[] = [];
  #head = 0;
  #extraMs: number;
  #queuedBytes = 0;
  #lastDue = 0;
  #timer: { cancel(): void } | undefined;
  #stopped = false;

  constructor(
    from: net.Socket,
    to: net.Socket,
    delay: ChunkDelay,
    firstChunkExtraMs: number,
    onDelivered: (bytes: number) => void,
  ) {
    this.#from = from;
    this.#to = to;
    this.#delay = delay;
    this.#extraMs = firstChunkExtraMs;
    this.#onDelivered = onDelivered;
    from.on('data', (chunk: Buffer) => this.#enqueue(chunk));
    from.on('end', () => this.#enqueue(FIN));
    to.on('drain', () => this.#resumeIfRoom());
  }

  /** The source closed: let what is in flight arrive, then close the destination. */
  closeAfterInFlight(): void {
    this.#enqueue(CLOSE);
  }

  /** The destination is gone: drop what is in flight and ignore the source from now on. */
  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#queue = [];
    this.#head = 0;
    this.#queuedBytes = 0;
  }

  #enqueue(item: Item): void {
    if (this.#stopped) return;
    const now = performance.now();
    const delayMs =
      typeof this.#delay === 'number' ? this.#delay : item instanceof Buffer ? this.#delay() : 0;
    const due = Math.max(now + delayMs + this.#extraMs, this.#lastDue);
    this.#extraMs = 0;
    this.#lastDue = due;
    if (this.#head === this.#queue.length && due <= now) {
      this.#deliver(item); // rtt 0: a plain relay, no timer round trip
    } else {
      this.#queue.push({ due, item });
      if (item instanceof Buffer) this.#queuedBytes += item.length;
      if (this.#timer === undefined) this.#arm();
    }
    if (this.#queuedBytes + this.#to.writableLength > HIGH_WATER_BYTES) this.#from.pause();
  }

  #arm(): void {
    const head = this.#queue[this.#head];
    if (head === undefined) return;
    const wait = Math.max(0, head.due - performance.now());
    const ms = ditheredMs(wait);
    // setTimeout(0) waits 1 ms; setImmediate runs after this turn's I/O, ~0.05 ms.
    if (ms === 0) {
      const immediate = setImmediate(this.#flush);
      this.#timer = { cancel: () => clearImmediate(immediate) };
    } else {
      const timeout = setTimeout(this.#flush, ms);
      this.#timer = { cancel: () => clearTimeout(timeout) };
    }
  }

  readonly #flush = (): void => {
    this.#timer = undefined;
    const horizon = performance.now() + FLUSH_TOLERANCE_MS;
    // Corked, the chunks due together leave in one writev.
    this.#to.cork();
    let head = this.#queue[this.#head];
    while (head !== undefined && head.due <= horizon && !this.#stopped) {
      this.#head += 1;
      if (head.item instanceof Buffer) this.#queuedBytes -= head.item.length;
      this.#deliver(head.item);
      head = this.#queue[this.#head];
    }
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    this.#to.uncork();
    this.#resumeIfRoom();
    if (!this.#stopped) this.#arm();
  };

  #deliver(item: Item): void {
    const to = this.#to;
    if (item === FIN) {
      if (!to.destroyed && !to.writableEnded) to.end();
    } else if (item === CLOSE) {
      endThenDestroy(to);
    } else if (to.writable) {
      to.write(item);
      this.#onDelivered(item.length);
    }
  }

  #resumeIfRoom(): void {
    if (
      this.#from.isPaused() &&
      !this.#stopped &&
      this.#queuedBytes + this.#to.writableLength <= LOW_WATER_BYTES
    ) {
      this.#from.resume();
    }
  }
}

function listen(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/** Relays connections on `host:port` to the target with the configured delays. */
export async function startDelayLayer(options: DelayLayerOptions): Promise<DelayLayer> {
  const { oneWayMs, connectMs } = options;
  if (!(oneWayMs >= 0 && connectMs >= 0 && Number.isFinite(oneWayMs + connectMs))) {
    throw new RangeError(`delays must be finite and >= 0 (oneWayMs ${oneWayMs}, connectMs ${connectMs})`);
  }
  const sockets = new Set<net.Socket>();
  const directions = new Set<DelayedDirection>();
  let connectionsAccepted = 0;
  let bytesUp = 0;
  let bytesDown = 0;
  // The window: each connection remembers the window it last carried client bytes in.
  let windowId = 0;
  let openNow = 0;
  let peakOpen = 0;
  let activeNow = 0;
  let peakActive = 0;
  let active = 0;
  let openedAtMark = 0;

  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    // Errors end in 'close', which is where the other side is dealt with.
    socket.on('error', () => {});
    socket.once('close', () => sockets.delete(socket));
  };

  const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    connectionsAccepted += 1;
    openNow += 1;
    peakOpen = Math.max(peakOpen, openNow);
    let carriedIn = -1;
    // Half-open on both legs: each side's FIN is relayed (delayed) rather than answered locally.
    const target = net.connect({ host: options.targetHost, port: options.targetPort, allowHalfOpen: true });
    target.setNoDelay(true);
    track(client);
    track(target);
    const up = new DelayedDirection(client, target, oneWayMs, connectMs, (n) => {
      bytesUp += n;
      if (carriedIn !== windowId) {
        carriedIn = windowId;
        active += 1;
        activeNow += 1;
        peakActive = Math.max(peakActive, activeNow);
      }
    });
    const down = new DelayedDirection(target, client, oneWayMs, 0, (n) => {
      bytesDown += n;
    });
    directions.add(up);
    directions.add(down);
    const onClose = (outward: DelayedDirection, inward: DelayedDirection): void => {
      inward.stop();
      outward.closeAfterInFlight();
      if (client.destroyed && target.destroyed) {
        up.stop();
        down.stop();
        directions.delete(up);
        directions.delete(down);
      }
    };
    client.once('close', () => {
      // The database sees a connection as open until the client's side is gone.
      openNow -= 1;
      if (carriedIn === windowId) activeNow -= 1;
      onClose(up, down);
    });
    target.once('close', () => onClose(down, up));
  });

  const port = await listen(server, options.port, options.host);

  return {
    port,
    stats: () => ({ connectionsAccepted, connectionsOpen: openNow, bytesUp, bytesDown }),
    connections: () => ({
      open: openNow,
      peakOpen,
      peakActive,
      active,
      opened: connectionsAccepted - openedAtMark,
    }),
    markConnections: () => {
      windowId += 1;
      peakOpen = openNow;
      activeNow = 0;
      peakActive = 0;
      active = 0;
      openedAtMark = connectionsAccepted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const direction of directions) direction.stop();
        directions.clear();
        for (const socket of sockets) socket.destroy();
      }),
  };
}
