import { readdirSync, readFileSync } from 'node:fs';

/**
 * The processes of `leader`'s process group, from /proc. Puppeteer makes the Chromium it launches
 * the leader of its own group, so this is that Chromium and every process it started.
 */
export function processGroup(leader: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // pid (comm) state ppid pgrp …; comm may hold spaces, so count from the last ')'.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === leader;
      } catch {
        return false;
      }
    })
    .map(Number);
}
