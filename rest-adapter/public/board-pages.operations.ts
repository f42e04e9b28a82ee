import { operation } from '../graph-client';

/** The display page asks only whether its token is live, and in which language to show it. */
export const OPEN_DISPLAY = operation<{ displayBoard: { language: 'ar' | 'en' } }, { token: string }>(
  'DisplayPageOpen',
  'query DisplayPageOpen($token: String!) { displayBoard(token: $token) { language } }',
);
