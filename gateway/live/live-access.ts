import type { WebSocket } from 'ws';
import type { Logger } from '../../common/logger';
import {
  bearerFingerprint,
  KEY_FINGERPRINT_PATTERN,
  type AccessChange,
} from '../../contracts/tickets/access-change';
import { sendText, type LiveSocket } from './live-wire';

/** WebSocket close codes the live server's access decisions end a socket with. */
export const ACCESS_CLOSE = {
  /** The credential no longer authenticates (revoked key or device, ended session, left venue). */
  refused: { code: 4403, reason: 'Forbidden' },
  /** A display was revoked or given new settings: its screen reconnects and reads what it may now. */
  displayChanged: { code: 4205, reason: 'Display changed' },
  /** The credential could not be checked again: the client reconnects and is checked then. */
  uncheckable: { code: 1013, reason: 'Live updates are unavailable; reconnect shortly' },
} as const;

/** Who a credentialed socket is, as the graph said when it was admitted: what announcements name. */
export interface CredentialSubject {
  branchId: number;
  venueId: number;
  /** The person of a session; none for a key or a board device. */
  userId?: number;
}

/** Asks the graph, past every cache, who a credential is: null when refused, a throw when it cannot tell. */
export type CheckCredential = (
  authorization: string,
  branchHeader: string | undefined,
) => Promise<CredentialSubject | null>;

/**
 * A credentialed socket as the live hub writes to it. While its credential is being checked again
 * its frames wait here, and once the credential is refused they are dropped with the socket, so no
 * event reaches a socket after the announcement of its revocation has reached this process.
 */
export class GatedSocket implements LiveSocket {
  private holds = 0;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private refused = false;

  constructor(readonly socket: WebSocket) {}

  get bufferedAmount(): number {
    return this.socket.bufferedAmount + this.heldBytes;
  }

  write(payload: Buffer): void {
    if (this.refused) return;
    if (this.holds > 0) {
      this.held.push(payload);
      this.heldBytes += payload.length;
      return;
    }
    sendText(this.socket, payload);
  }

  hold(): void {
    this.holds += 1;
  }

  release(): void {
    this.holds = Math.max(0, this.holds - 1);
    if (this.holds > 0 || this.refused) return;
    const frames = this.held;
    this.held = [];
    this.heldBytes = 0;
    for (const frame of frames) sendText(this.socket, frame);
  }

  close(how: { code: number; reason: string }): void {
    this.refused = true;
    this.held = [];
    this.heldBytes = 0;
    this.socket.close(how.code, how.reason);
  }
}

interface CredentialEntry {
  authorization: string;
  branchHeader: string | undefined;
  subject: CredentialSubject;
  /** What a key's revocation names it by (`keyFingerprint`). */
  fingerprint: string | undefined;
  sockets: Set<GatedSocket>;
}

/**
 * Which live sockets each credential holds, and what an access announcement does to them: the
 * sockets it may concern (by key for a revoked key or device, by venue for a plan, by person for
 * sessions and memberships) are held at once, when the announcement arrives, and their credential
 * is asked of the graph again; refused ones are closed with 4403 and their held events dropped, the
 * others get them.
 * Revocations are announced before the revoking mutation answers, and Redis delivers messages to
 * this process in the order they were published, so an event caused after the answer arrives after
 * the hold. A display is closed at once (4205): its token is checked when its screen reconnects.
 */
export class LiveAccess {
  private readonly credentials = new Map<string, CredentialEntry>();
  private readonly displays = new Map<number, Set<WebSocket>>();
  /** Announcements seen; an admission that overlapped one is checked again. */
  private announcements = 0;

  constructor(
    private readonly check: CheckCredential,
    private readonly logger: Logger,
  ) {}

  /** Marks the start of an admission; pass the mark to `admit`. */
  get mark(): number {
    return this.announcements;
  }

  /** Checks a credential when a socket opens: who it is, or null when the graph refuses it. */
  subjectOf(authorization: string, branchHeader: string | undefined): Promise<CredentialSubject | null> {
    return this.check(authorization, branchHeader);
  }

  /**
   * Registers a socket under its checked credential. An announcement that arrived while it was
   * being checked may have been about it, so it is then checked once more before it gets anything.
   */
  admit(
    socket: WebSocket,
    authorization: string,
    branchHeader: string | undefined,
    subject: CredentialSubject,
    mark: number,
  ): GatedSocket {
    const key = JSON.stringify([authorization, branchHeader ?? null]);
    const entry = this.credentials.get(key) ?? {
      authorization,
      branchHeader,
      subject,
      fingerprint: bearerFingerprint(authorization),
      sockets: new Set<GatedSocket>(),
    };
    const gated = new GatedSocket(socket);
    entry.sockets.add(gated);
    this.credentials.set(key, entry);
    socket.once('close', () => {
      entry.sockets.delete(gated);
      if (entry.sockets.size === 0 && this.credentials.get(key) === entry) this.credentials.delete(key);
    });
    if (mark !== this.announcements) this.recheck(key, entry, [gated]);
    return gated;
  }

  /** A display's socket, closed when the display is revoked or changed. */
  watchDisplay(displayId: number, socket: WebSocket): void {
    const sockets = this.displays.get(displayId) ?? new Set<WebSocket>();
    sockets.add(socket);
    this.displays.set(displayId, sockets);
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0 && this.displays.get(displayId) === sockets) this.displays.delete(displayId);
    });
  }

  /** Credentials with open sockets, and display sockets: what `/healthz` may report. */
  get size(): { credentials: number; displays: number } {
    return { credentials: this.credentials.size, displays: this.displays.size };
  }

  /** An announcement from the access channel, applied before any later message is read. */
  announce(message: string): void {
    this.announcements += 1;
    const change = parseChange(message);
    if (change !== undefined && 'displayId' in change) {
      for (const socket of this.displays.get(change.displayId) ?? []) {
        socket.close(ACCESS_CLOSE.displayChanged.code, ACCESS_CLOSE.displayChanged.reason);
      }
      this.displays.delete(change.displayId);
      return;
    }
    for (const [key, entry] of this.credentials) {
      if (concerns(change, entry)) this.recheck(key, entry, [...entry.sockets]);
    }
  }

  private recheck(key: string, entry: CredentialEntry, sockets: GatedSocket[]): void {
    for (const socket of sockets) socket.hold();
    this.check(entry.authorization, entry.branchHeader).then(
      (subject) => {
        if (subject !== null) {
          for (const socket of sockets) socket.release();
          return;
        }
        for (const socket of entry.sockets) socket.close(ACCESS_CLOSE.refused);
        if (this.credentials.get(key) === entry) this.credentials.delete(key);
      },
      (error: unknown) => {
        // Not knowing is not a yes: the client reconnects, and its credential is checked then.
        this.logger.warn({ err: error }, 'could not check a live credential again; closing its sockets');
        for (const socket of sockets) socket.close(ACCESS_CLOSE.uncheckable);
      },
    );
  }
}

/** The announcement, or undefined when it cannot be read (then every credential is checked). */
function parseChange(message: string): AccessChange | undefined {
  try {
    const change = JSON.parse(message) as Partial<
      Record<'keyId' | 'venueId' | 'displayId' | 'userId' | 'keyFingerprint', unknown>
    >;
    const { keyId, venueId, keyFingerprint } = change;
    if (
      typeof keyId === 'number' &&
      typeof venueId === 'number' &&
      typeof keyFingerprint === 'string' &&
      KEY_FINGERPRINT_PATTERN.test(keyFingerprint)
    ) {
      return { keyId, venueId, keyFingerprint };
    }
    // Without a fingerprint a revoked key is known only by its venue.
    for (const name of ['displayId', 'userId', 'venueId'] as const) {
      const value = change[name];
      if (typeof value === 'number') return { [name]: value } as AccessChange;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

function concerns(change: AccessChange | undefined, entry: CredentialEntry): boolean {
  if (change === undefined) return true;
  if ('keyFingerprint' in change) return entry.fingerprint === change.keyFingerprint;
  if ('userId' in change) return entry.subject.userId === change.userId;
  if ('venueId' in change) return entry.subject.venueId === change.venueId;
  return false;
}
