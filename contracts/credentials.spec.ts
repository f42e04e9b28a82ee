import { bearerKey, readAuthorization } from './authorization';
import { presentedCredentials } from './credentials';
import { sessionTokenOf } from './identity/session';
import { isBoardKey } from './tickets/board-device';

describe('reading Authorization once (RFC 7235, RFC 6750)', () => {
  it('reads every spelling of one Bearer credential as that credential', () => {
    for (const header of [
      'Bearer tk_a1',
      'bearer tk_a1',
      'BEARER tk_a1',
      'bEarer tk_a1',
      'Bearer  tk_a1',
      'Bearer tk_a1 ',
      ' Bearer tk_a1',
      'Bearer\ttk_a1\t',
    ]) {
      expect(readAuthorization(header)).toEqual({ kind: 'bearer', token: 'tk_a1', header: 'Bearer tk_a1' });
    }
    expect(bearerKey('Bearer abc.DEF-_~+/==')).toBe('abc.DEF-_~+/==');
  });

  it('tells an absent header from one that does not parse', () => {
    for (const header of [undefined, '', '   ']) expect(readAuthorization(header)).toEqual({ kind: 'none' });
    for (const header of [
      'Basic dXNlcjpwYXNz',
      'Bearer',
      'Bearer ',
      'Bearertk_a1',
      'Bearer tk_a1 tk_b2',
      'Bearer tk_a1,x',
      'tk_a1',
      'Bearer tk_=a1',
      'Bearer\ntk_a1',
    ]) {
      expect(readAuthorization(header)).toEqual({ kind: 'malformed' });
    }
  });

  it('classifies sessions and board devices whatever the spelling', () => {
    expect(sessionTokenOf('bearer ses_abc ')).toBe('ses_abc');
    expect(isBoardKey('BEARER  bd_abc ')).toBe(true);
    expect(isBoardKey('Bearer tk_abc')).toBe(false);
    expect(presentedCredentials({ authorization: 'bEarer bd_x1 ', 'x-api-key': ' cv_y2 ' })).toEqual({
      credentials: [
        { kind: 'board', credential: 'bd_x1' },
        { kind: 'cv', credential: 'cv_y2' },
      ],
      malformed: false,
    });
    expect(presentedCredentials({ authorization: 'bearer  ses_s1' }).credentials).toEqual([
      { kind: 'session', credential: 'ses_s1' },
    ]);
    expect(presentedCredentials({ authorization: 'Token tk_a1' })).toEqual({
      credentials: [],
      malformed: true,
    });
  });
});
