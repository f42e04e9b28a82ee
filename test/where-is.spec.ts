import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../common/paths';

/** The rows of the "Where is…" table of docs/ARCHITECTURE.md: each question and the file it names. */
function whereIsRows(): { question: string; file: string }[] {
  const page = readFileSync(join(projectRoot(), 'docs/ARCHITECTURE.md'), 'utf8');
  const section = /^## Where is…\n([\s\S]*?)^## /m.exec(page)?.[1];
  if (section === undefined) throw new Error('docs/ARCHITECTURE.md has no "## Where is…" section');
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !/^\| question\b/.test(line) && !/^\| -/.test(line))
    .map((line) => {
      const [question = '', answer = ''] = line
        .split('|')
        .slice(1, 3)
        .map((cell) => cell.trim());
      return { question, file: /^`([^`]+)`$/.exec(answer)?.[1] ?? answer };
    });
}

describe('the "Where is…" table of docs/ARCHITECTURE.md', () => {
  const rows = whereIsRows();

  it('answers at least twenty questions, each once', () => {
    expect(rows.length).toBeGreaterThanOrEqual(20);
    expect(new Set(rows.map((row) => row.question)).size).toBe(rows.length);
  });

  it.each(rows.map((row) => [row.question, row.file]))('%s → %s exists', (_question, file) => {
    expect(file).toMatch(/^[\w./-]+$/);
    expect(existsSync(join(projectRoot(), file))).toBe(true);
  });
});
