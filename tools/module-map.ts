import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * `node dist/tools/module-map.js subgraphs/tickets`: how a folder of code is put together, drawn
 * from its own imports (spec files left out): files per sub-folder, the import arrows between
 * files and between sub-folders, arrows into the root module or into another sub-folder's insides,
 * and how many levels deep the longest chain of imports goes. The figures of docs/ARCHITECTURE.md's
 * "Inside the tickets subgraph" come from here.
 */
const ROOT = '(root)';

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

interface ImportEntry {
  path: string;
  names: string[];
}

function parsed(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
}

/** The files a file imports, with the names it takes from each. */
function importsOf(file: string): ImportEntry[] {
  return parsed(file).statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) return [];
    const path = resolveImport(file, statement.moduleSpecifier.text);
    if (path === undefined) return [];
    const bindings = statement.importClause?.namedBindings;
    const names = bindings && ts.isNamedImports(bindings) ? bindings.elements.map((e) => e.name.text) : [];
    return [{ path, names }];
  });
}

/** What an index re-exports: each name and the file it comes from. */
function exportsOf(index: string): Map<string, string> {
  const exported = new Map<string, string>();
  for (const statement of parsed(index).statements) {
    if (!ts.isExportDeclaration(statement) || statement.moduleSpecifier === undefined) continue;
    if (!ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const path = resolveImport(index, statement.moduleSpecifier.text);
    const clause = statement.exportClause;
    if (path === undefined || clause === undefined || !ts.isNamedExports(clause)) continue;
    for (const element of clause.elements) exported.set(element.name.text, path);
  }
  return exported;
}

function main(): void {
  const target = process.argv[2];
  if (target === undefined) {
    process.stderr.write('usage: node dist/tools/module-map.js FOLDER (e.g. subgraphs/tickets)\n');
    process.exit(2);
  }
  const top = resolve(target);
  const files = sourceFiles(top);
  const folderOf = (file: string) => {
    const parts = relative(top, file).split(sep);
    return parts.length === 1 ? ROOT : (parts[0] ?? ROOT);
  };
  // An import of a folder's index is drawn to the files whose names it takes, so an arrow says
  // which file depends on which, as before the folders had indexes.
  const imports = new Map(files.map((file) => [file, importsOf(file)]));
  const arrows = new Map<string, string[]>();
  for (const [file, entries] of imports) {
    const targets = entries.flatMap(({ path, names }) => {
      if (!path.startsWith(top + sep)) return [];
      if (!path.endsWith(`${sep}index.ts`)) return [path];
      const exported = exportsOf(path);
      return names.map((name) => exported.get(name) ?? path);
    });
    arrows.set(file, [...new Set(targets)]);
  }
  const rawTargets = (file: string) =>
    (imports.get(file) ?? []).map((entry) => entry.path).filter((path) => path.startsWith(top + sep));

  const perFolder = new Map<string, number>();
  for (const file of files) perFolder.set(folderOf(file), (perFolder.get(folderOf(file)) ?? 0) + 1);
  const betweenFolders = new Map<string, number>();
  const upToRoot: string[] = [];
  const intoInsides: string[] = [];
  let fileArrows = 0;
  for (const [file, targets] of arrows) {
    for (const to of targets) {
      fileArrows += 1;
      const [a, b] = [folderOf(file), folderOf(to)];
      if (a === b) continue;
      betweenFolders.set(`${a} → ${b}`, (betweenFolders.get(`${a} → ${b}`) ?? 0) + 1);
      const arrow = `${relative(top, file)} → ${relative(top, to)}`;
      if (b === ROOT) upToRoot.push(arrow);
    }
    for (const to of rawTargets(file)) {
      const [a, b] = [folderOf(file), folderOf(to)];
      if (a !== b && a !== ROOT && b !== ROOT && !to.endsWith(`${sep}index.ts`))
        intoInsides.push(`${relative(top, file)} → ${relative(top, to)}`);
    }
  }

  // The longest chain of imports; an import that closes a cycle does not lengthen it.
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const levelOf = (file: string): number => {
    const known = depth.get(file);
    if (known !== undefined) return known;
    visiting.add(file);
    const below = (arrows.get(file) ?? []).filter((to) => !visiting.has(to)).map(levelOf);
    visiting.delete(file);
    const level = 1 + Math.max(0, ...below);
    depth.set(file, level);
    return level;
  };
  const levels = Math.max(0, ...files.filter((file) => !file.endsWith(`${sep}index.ts`)).map(levelOf));

  const lines = [
    `${target}: ${files.length} files, ${levels} levels, ${fileArrows} arrows between files`,
    `files per folder: ${[...perFolder].map(([folder, count]) => `${folder} ${count}`).join(', ')}`,
    `arrows between folders (${[...betweenFolders.values()].reduce((a, b) => a + b, 0)}):`,
    ...[...betweenFolders].sort().map(([pair, count]) => `  ${pair}: ${count}`),
    `arrows into the root module: ${upToRoot.length}`,
    ...upToRoot.map((arrow) => `  ${arrow}`),
    `arrows into another folder's insides (not its index.ts): ${intoInsides.length}`,
    ...intoInsides.map((arrow) => `  ${arrow}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main();
