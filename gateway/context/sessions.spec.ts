import { createServer, type Server, type ServerResponse } from 'node:http';
import { SESSION_ID_HEADER, SESSION_USER_HEADER } from '../../contracts/identity/session';
import { waitUntil } from '../../test/support/wait';
import { InflightJoin } from '../../common/inflight-join';
import { SessionResolver, type Principal } from './sessions';
import { closeServer, loopbackUrl } from '../../test/support/loopback';

/** The identity subgraph's stand-in: holds each look-up until released, so joining is no race. */
class HeldIdentity {
  private server?: Server;
  private readonly held: ServerResponse[] = [];
  received = 0;
  url = '';

  async start(): Promise<void> {
    const server = (this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.received++;
        this.held.push(res);
      });
    }));
    this.url = `${await loopbackUrl(server)}/graphql`;
  }

  /** Answers every look-up held; `secondsLeft` is how long identity says the session lasts. */
  release(userId: string, secondsLeft = 3_600): void {
    for (const res of this.held.splice(0)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ data: { sessionPrincipal: { userId, sessionId: `s-${userId}`, secondsLeft } } }),
      );
    }
  }

  async stop(): Promise<void> {
    if (this.server !== undefined) await closeServer(this.server);
  }
}

describe('SessionResolver', () => {
  const identity = new HeldIdentity();
  const resolver = (hearsAccess: boolean, lookUps = new InflightJoin<Principal>(() => hearsAccess)) =>
    new SessionResolver(
      {
        subgraphUrls: { identity: identity.url, tickets: '', cv: '', billing: '' },
        internalSecret: 'internal-secret-for-the-test-0123456789',
      },
      lookUps,
    );
  const token = `Bearer ses_${'a'.repeat(40)}`;

  beforeAll(() => identity.start());
  afterAll(() => identity.stop());

  async function resolveMany(sessions: SessionResolver, count: number, sent: number, secondsLeft?: number) {
    const before = identity.received;
    const answers = Array.from({ length: count }, () => sessions.headersFor(token));
    await waitUntil(() => identity.received - before >= sent, 5_000, `${sent} look-ups at identity`);
    identity.release('u1', secondsLeft);
    const headers = await Promise.all(answers);
    return { headers, sent: identity.received - before };
  }

  /** One look-up after another; answers whether it reached identity. */
  async function asked(sessions: SessionResolver, fresh = false): Promise<boolean> {
    const before = identity.received;
    const answer = sessions.headersFor(token, undefined, fresh);
    const sent = await waitUntil(() => identity.received > before, 300, 'a look-up at identity').then(
      () => true,
      () => false,
    );
    identity.release('u1');
    expect(await answer).toEqual({ [SESSION_USER_HEADER]: 'u1', [SESSION_ID_HEADER]: 's-u1' });
    return sent;
  }

  it('joins a look-up of the same token under way while announcements are heard', async () => {
    const { headers, sent } = await resolveMany(resolver(true), 5, 1);
    expect(sent).toBe(1);
    for (const h of headers) expect(h).toEqual({ [SESSION_USER_HEADER]: 'u1', [SESSION_ID_HEADER]: 's-u1' });
    // Each caller has its own headers object to add to.
    expect(new Set(headers).size).toBe(5);
  });

  it('answers later requests from a live session’s look-up, until an identity write or announcement', async () => {
    const lookUps = new InflightJoin<Principal>(() => true);
    const sessions = resolver(true, lookUps);
    expect(await asked(sessions)).toBe(true);
    expect(await asked(sessions)).toBe(false);
    expect(await asked(sessions)).toBe(false);
    // A sign-out through this gateway: its answer drops what was kept.
    sessions.forgetKept();
    expect(await asked(sessions)).toBe(true);
    expect(await asked(sessions)).toBe(false);
    lookUps.forgetUnderWay();
    expect(await asked(sessions)).toBe(true);
    // A live socket's recheck asks identity whatever is kept.
    expect(await asked(sessions, true)).toBe(true);
  });

  it('keeps a look-up no longer than the session has left', async () => {
    const sessions = resolver(true);
    await resolveMany(sessions, 1, 1, 0);
    const { sent } = await resolveMany(sessions, 1, 1, 0);
    expect(sent).toBe(1);
  });

  it('keeps nothing while announcements may be missed', async () => {
    const sessions = resolver(false);
    expect(await asked(sessions)).toBe(true);
    expect(await asked(sessions)).toBe(true);
  });

  it('sends every look-up while announcements may be missed', async () => {
    const { sent } = await resolveMany(resolver(false), 5, 5);
    expect(sent).toBe(5);
  });

  it('sends a look-up anew after an access announcement instead of joining one sent before it', async () => {
    const lookUps = new InflightJoin<Principal>(() => true);
    const sessions = resolver(true, lookUps);
    const before = identity.received;
    const first = sessions.headersFor(token);
    await waitUntil(() => identity.received - before >= 1, 5_000, 'the first look-up at identity');
    lookUps.forgetUnderWay();
    const second = sessions.headersFor(token);
    await waitUntil(() => identity.received - before >= 2, 5_000, 'a second look-up at identity');
    identity.release('u1');
    await Promise.all([first, second]);
    expect(identity.received - before).toBe(2);
  });
});
