import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { connectionParamProblem, SocketsPerAddress } from './live-admission';

const socket = () => new EventEmitter() as unknown as WebSocket;

describe('SocketsPerAddress', () => {
  it('takes sockets of an address up to the cap, refuses the next, and takes one again once one closes', () => {
    const open = new SocketsPerAddress(2);
    const first = socket();
    expect(open.take('198.51.100.7', first)).toBe(true);
    expect(open.take('198.51.100.7', socket())).toBe(true);
    expect(open.take('198.51.100.7', socket())).toBe(false);
    expect(open.take('198.51.100.8', socket())).toBe(true);
    expect(open.of('198.51.100.7')).toBe(2);
    first.emit('close');
    expect(open.of('198.51.100.7')).toBe(1);
    expect(open.take('198.51.100.7', socket())).toBe(true);
  });

  it('does not count a refused socket when it closes', () => {
    const open = new SocketsPerAddress(1);
    expect(open.take('198.51.100.7', socket())).toBe(true);
    const refused = socket();
    expect(open.take('198.51.100.7', refused)).toBe(false);
    refused.emit('close');
    expect(open.of('198.51.100.7')).toBe(1);
  });
});

describe('connectionParamProblem', () => {
  it('names a parameter no header can carry', () => {
    expect(connectionParamProblem({ authorization: 7 })).toBe(
      'Bad connection_init: authorization must be a string.',
    );
    expect(connectionParamProblem({ 'x-branch-id': '3\n4' })).toBe(
      'Bad connection_init: x-branch-id holds a character no HTTP header can carry.',
    );
    expect(connectionParamProblem({ 'accept-language': 'a'.repeat(2049) })).toBe(
      'Bad connection_init: accept-language is longer than 2048 characters.',
    );
    expect(connectionParamProblem({ authorization: 'Bearer tk_x', other: { nested: true } })).toBeUndefined();
  });
});
