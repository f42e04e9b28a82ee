import { hashSecret } from '../../common/api-keys';
import { createLogger } from '../../common/logger';
import { keyRevoked } from '../../contracts/tickets/access-change';
import { LiveAccess, type CheckCredential, type CredentialSubject } from './live-access';
import { FakeSocket } from '../../test/support/fake-socket';

/** A graph whose answers the test decides, one pending check at a time. */
class ScriptedGraph {
  readonly asked: string[] = [];
  private readonly pending: ((answer: CredentialSubject | null | Error) => void)[] = [];

  readonly check: CheckCredential = (authorization) => {
    this.asked.push(authorization);
    return new Promise((resolve, reject) =>
      this.pending.push((answer) => (answer instanceof Error ? reject(answer) : resolve(answer))),
    );
  };

  /** Answers every check asked so far. */
  async answer(with_: CredentialSubject | null | Error): Promise<void> {
    for (const settle of this.pending.splice(0)) settle(with_);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const venue7: CredentialSubject = { branchId: 3, venueId: 7 };
const member: CredentialSubject = { branchId: 3, venueId: 7, userId: 42 };

describe('LiveAccess: live sockets by credential, and what an access announcement does to them', () => {
  let graph: ScriptedGraph;
  let access: LiveAccess;

  beforeEach(() => {
    graph = new ScriptedGraph();
    access = new LiveAccess(graph.check, createLogger({ service: 'test', level: 'silent' }));
  });

  it('holds a key’s frames from the moment its venue is announced, and drops them when the key is refused', async () => {
    const socket = new FakeSocket();
    const gate = access.admit(socket.asWebSocket(), 'Bearer tk_a', undefined, venue7, access.mark);
    gate.write(Buffer.from('before'));
    access.announce(JSON.stringify({ keyId: 1, venueId: 7 }));
    gate.write(Buffer.from('after the announcement'));
    expect(socket.sent).toEqual(['before']);
    expect(graph.asked).toEqual(['Bearer tk_a']);
    await graph.answer(null);
    expect(socket.closedWith).toBe(4403);
    gate.write(Buffer.from('later still'));
    expect(socket.sent).toEqual(['before']);
  });

  it('sends the held frames in order once the credential is still good', async () => {
    const socket = new FakeSocket();
    const gate = access.admit(socket.asWebSocket(), 'Bearer tk_a', undefined, venue7, access.mark);
    access.announce(JSON.stringify({ venueId: 7 }));
    gate.write(Buffer.from('one'));
    gate.write(Buffer.from('two'));
    expect(gate.bufferedAmount).toBe(6);
    await graph.answer(venue7);
    expect(socket.sent).toEqual(['one', 'two']);
    expect(socket.closedWith).toBeUndefined();
    gate.write(Buffer.from('three'));
    expect(socket.sent).toEqual(['one', 'two', 'three']);
  });

  it('leaves other venues’ and other people’s sockets alone', () => {
    const key = new FakeSocket();
    const person = new FakeSocket();
    const keyGate = access.admit(
      key.asWebSocket(),
      'Bearer tk_b',
      undefined,
      { branchId: 9, venueId: 8 },
      access.mark,
    );
    const personGate = access.admit(person.asWebSocket(), 'Bearer ses_x', '3', member, access.mark);
    access.announce(JSON.stringify({ keyId: 5, venueId: 7 }));
    access.announce(JSON.stringify({ userId: 41 }));
    keyGate.write(Buffer.from('k'));
    expect(key.sent).toEqual(['k']);
    // The key announcement named venue 7, where the member's board is: checked, not the others.
    expect(graph.asked).toEqual(['Bearer ses_x']);
    personGate.write(Buffer.from('p'));
    expect(person.sent).toEqual([]);
  });

  it('checks only the sockets presenting a revoked key when the announcement carries its fingerprint', async () => {
    const revoked = new FakeSocket();
    const sibling = new FakeSocket();
    const person = new FakeSocket();
    const revokedGate = access.admit(revoked.asWebSocket(), 'Bearer tk_a', undefined, venue7, access.mark);
    const siblingGate = access.admit(sibling.asWebSocket(), 'Bearer tk_c', undefined, venue7, access.mark);
    access.admit(person.asWebSocket(), 'Bearer ses_x', '3', member, access.mark);
    // What the tickets subgraph announces: the fingerprint of the hash it keeps of tk_a.
    access.announce(JSON.stringify(keyRevoked(1, 7, hashSecret('tk_a'))));
    revokedGate.write(Buffer.from('held'));
    siblingGate.write(Buffer.from('sent'));
    expect(graph.asked).toEqual(['Bearer tk_a']);
    expect(sibling.sent).toEqual(['sent']);
    await graph.answer(null);
    expect(revoked.closedWith).toBe(4403);
    expect(revoked.sent).toEqual([]);
    expect(sibling.closedWith).toBeUndefined();
    expect(person.closedWith).toBeUndefined();
  });

  it('reads a key announcement with a malformed fingerprint as its venue’s', () => {
    access.admit(new FakeSocket().asWebSocket(), 'Bearer tk_a', undefined, venue7, access.mark);
    access.admit(new FakeSocket().asWebSocket(), 'Bearer tk_c', undefined, venue7, access.mark);
    access.announce(JSON.stringify({ keyId: 1, venueId: 7, keyFingerprint: 'not hex' }));
    expect(graph.asked.sort()).toEqual(['Bearer tk_a', 'Bearer tk_c']);
  });

  it('checks a person’s boards when their sessions end, and closes the ones that no longer sign in', async () => {
    const ended = new FakeSocket();
    const other = new FakeSocket();
    access.admit(ended.asWebSocket(), 'Bearer ses_old', '3', member, access.mark);
    const otherGate = access.admit(other.asWebSocket(), 'Bearer ses_new', '3', member, access.mark);
    access.announce(JSON.stringify({ userId: 42 }));
    otherGate.write(Buffer.from('held'));
    expect(graph.asked.sort()).toEqual(['Bearer ses_new', 'Bearer ses_old']);
    await graph.answer(null);
    expect(ended.closedWith).toBe(4403);
    expect(other.closedWith).toBe(4403);
    expect(other.sent).toEqual([]);
  });

  it('checks again a socket admitted while an announcement arrived, before it gets anything', async () => {
    const socket = new FakeSocket();
    const mark = access.mark;
    // The credential was found good, then revoked, before the socket was registered.
    access.announce(JSON.stringify({ keyId: 1, venueId: 7 }));
    const gate = access.admit(socket.asWebSocket(), 'Bearer tk_a', undefined, venue7, mark);
    gate.write(Buffer.from('event'));
    expect(graph.asked).toEqual(['Bearer tk_a']);
    await graph.answer(null);
    expect(socket.sent).toEqual([]);
    expect(socket.closedWith).toBe(4403);
  });

  it('closes with 1013 the sockets whose credential the graph cannot check, so they reconnect and are checked', async () => {
    const socket = new FakeSocket();
    const gate = access.admit(socket.asWebSocket(), 'Bearer tk_a', undefined, venue7, access.mark);
    access.announce(JSON.stringify({ venueId: 7 }));
    gate.write(Buffer.from('held'));
    await graph.answer(new Error('tickets subgraph unavailable'));
    expect(socket.closedWith).toBe(1013);
    expect(socket.sent).toEqual([]);
  });

  it('checks every credential on an announcement it cannot read', () => {
    access.admit(new FakeSocket().asWebSocket(), 'Bearer tk_a', undefined, venue7, access.mark);
    access.admit(
      new FakeSocket().asWebSocket(),
      'Bearer tk_b',
      undefined,
      { branchId: 9, venueId: 8 },
      access.mark,
    );
    access.announce('not json');
    expect(graph.asked.sort()).toEqual(['Bearer tk_a', 'Bearer tk_b']);
  });

  it('closes a revoked or changed display’s sockets at once with 4205, and nothing else', () => {
    const screen = new FakeSocket();
    const other = new FakeSocket();
    access.watchDisplay(4, screen.asWebSocket());
    access.watchDisplay(5, other.asWebSocket());
    access.announce(JSON.stringify({ displayId: 4 }));
    expect(screen.closedWith).toBe(4205);
    expect(other.closedWith).toBeUndefined();
    expect(graph.asked).toEqual([]);
  });

  it('forgets a credential once its last socket closes', () => {
    const socket = new FakeSocket();
    access.admit(socket.asWebSocket(), 'Bearer tk_a', undefined, venue7, access.mark);
    access.watchDisplay(4, new FakeSocket().asWebSocket());
    expect(access.size).toEqual({ credentials: 1, displays: 1 });
    socket.close(1000);
    access.announce(JSON.stringify({ venueId: 7 }));
    expect(graph.asked).toEqual([]);
    expect(access.size).toEqual({ credentials: 0, displays: 1 });
  });
});
