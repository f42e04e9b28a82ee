import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { projectRoot } from '../common/paths';

/**
 * `node dist/tools/module-map.js subgraphs/tickets`: how a folder of code is put together, drawn
 * from its own imports (spec files left out): files per sub-folder, the import arrows between
 * files and between sub-folders, arrows into the root module or into another sub-folder's insides,
 * how many levels deep the longest chain of imports goes, the cycles between files (type-only
 * imports counting: `import type`, inline `type` names, `import('…')` types) and, for an area of
 * eslint.boundaries.cjs's LAYERED_FOLDERS, the arrows that point up its folder order. The figures
 * of docs/ARCHITECTURE.md's "Inside the tickets subgraph" come from here;
 * test/layered-folders.spec.ts holds every layered area at no cycle and no arrow up.
 */
const ROOT = '(root)';

/** An area's folders, lowest first, and the root modules that compose them (eslint.boundaries.cjs). */
export interface FolderOrder {
  folders: readonly string[];
  roots: readonly string[];
}

/** The areas whose folders lint keeps in order, by their path from the repository's root. */
export function layeredFolders(): Record<string, FolderOrder> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const boundaries = require(join(projectRoot(), 'eslint.boundaries.cjs')) as {
    LAYERED_FOLDERS: Record<string, FolderOrder>;
  };
  return boundaries.LAYERED_FOLDERS;
}

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

/** One module a file refers to, with the names it takes from it (undefined: all of it, or none named). */
interface ImportEntry {
  path: string;
  names: string[] | undefined;
  /** An import or require that runs at load, as opposed to a re-export or a type's `import('…')`. */
  declared: boolean;
}

function parsed(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
}

/** The names an import declaration takes: named ones (type-only too), `default`, or all of it. */
function importedNames(clause: ts.ImportClause | undefined): string[] | undefined {
  if (clause === undefined) return undefined;
  const bindings = clause.namedBindings;
  if (bindings !== undefined && ts.isNamespaceImport(bindings)) return undefined;
  const names = bindings === undefined ? [] : bindings.elements.map((e) => (e.propertyName ?? e.name).text);
  return clause.name === undefined ? names : [...names, 'default'];
}

/** What a node of a file refers to, if it is an import, a re-export, an `import('…')` or a require. */
function referenceOf(node: ts.Node): { specifier: ts.Expression; names: string[] | undefined } | undefined {
  if (ts.isImportDeclaration(node)) {
    return { specifier: node.moduleSpecifier, names: importedNames(node.importClause) };
  }
  if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined) {
    const clause = node.exportClause;
    const names =
      clause !== undefined && ts.isNamedExports(clause)
        ? clause.elements.map((e) => (e.propertyName ?? e.name).text)
        : undefined;
    return { specifier: node.moduleSpecifier, names };
  }
  if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
    return { specifier: node.moduleReference.expression, names: undefined };
  }
  if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
    const qualifier = node.qualifier;
    const first =
      qualifier === undefined ? undefined : ts.isIdentifier(qualifier) ? qualifier : qualifier.left;
    const names = first !== undefined && ts.isIdentifier(first) ? [first.text] : undefined;
    return { specifier: node.argument.literal, names };
  }
  if (ts.isCallExpression(node) && node.arguments.length === 1) {
    const dynamic = node.expression.kind === ts.SyntaxKind.ImportKeyword;
    const required = ts.isIdentifier(node.expression) && node.expression.text === 'require';
    if (dynamic || required) return { specifier: node.arguments[0]!, names: undefined };
  }
  return undefined;
}

/** Every module a file refers to, wherever in it: everything TypeScript follows, types included. */
function importsOf(file: string): ImportEntry[] {
  const entries: ImportEntry[] = [];
  const visit = (node: ts.Node): void => {
    const reference = referenceOf(node);
    if (reference !== undefined && ts.isStringLiteralLike(reference.specifier)) {
      const path = resolveImport(file, reference.specifier.text);
      const declared = !ts.isExportDeclaration(node) && !ts.isImportTypeNode(node);
      if (path !== undefined) entries.push({ path, names: reference.names, declared });
    }
    ts.forEachChild(node, visit);
  };
  visit(parsed(file));
  return entries;
}

/** What an index re-exports by name: each name and the file and name it comes from. */
function exportsOf(index: string): Map<string, { path: string; name: string }> {
  const exported = new Map<string, { path: string; name: string }>();
  for (const statement of parsed(index).statements) {
    if (!ts.isExportDeclaration(statement) || statement.moduleSpecifier === undefined) continue;
    if (!ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const path = resolveImport(index, statement.moduleSpecifier.text);
    const clause = statement.exportClause;
    if (path === undefined || clause === undefined || !ts.isNamedExports(clause)) continue;
    for (const element of clause.elements) {
      exported.set(element.name.text, { path, name: (element.propertyName ?? element.name).text });
    }
  }
  return exported;
}

const isIndex = (file: string) => file.endsWith(`${sep}index.ts`);

/**
 * The file a name imported from `path` is declared in: through an index to the file it re-exports
 * the name from (through indexes in turn); the index itself when it declares the name or re-exports
 * it wholesale (`export *`).
 */
function declaringFile(path: string, name: string, seen = new Set<string>()): string {
  if (!isIndex(path) || seen.has(path)) return path;
  seen.add(path);
  const from = exportsOf(path).get(name);
  return from === undefined ? path : declaringFile(from.path, from.name, seen);
}

/** The files an import entry makes its file depend on. */
function targetsOf({ path, names }: ImportEntry): string[] {
  if (!isIndex(path) || names === undefined) return [path];
  return names.map((name) => declaringFile(path, name));
}

/** Groups of files that import each other, round and round (Tarjan's strongly connected components). */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    lowest.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!index.has(to)) {
        connect(to);
        lowest.set(file, Math.min(lowest.get(file)!, lowest.get(to)!));
      } else if (onStack.has(to)) {
        lowest.set(file, Math.min(lowest.get(file)!, index.get(to)!));
      }
    }
    if (lowest.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** What `moduleMap` finds in an area. Files are named from the area's own folder. */
export interface ModuleMap {
  files: string[];
  levels: number;
  /** Arrows between files, from files other than the indexes. */
  fileArrows: number;
  perFolder: Map<string, number>;
  betweenFolders: Map<string, number>;
  upToRoot: string[];
  intoInsides: string[];
  /** Each group of files that import one another round and round, type-only imports counting. */
  cycles: string[][];
  /** Arrows from a folder to a higher one or to a root module; undefined for an area with no order. */
  arrowsUp: string[] | undefined;
}

/**
 * The rank of each file in a folder order: its folder's place, lowest first, and above all of them
 * the root modules; undefined for a file outside the order. Exported so that a layout not yet made
 * can be measured against the order it is to have.
 */
export type RankOf = (file: string) => number | undefined;

export function rankIn({ folders, roots }: FolderOrder): RankOf {
  return (file) => {
    const parts = file.split(sep);
    if (parts.length === 1) return roots.includes(file) ? folders.length : undefined;
    const rank = folders.indexOf(parts[0]!);
    return rank < 0 ? undefined : rank;
  };
}

function levelsOf(files: readonly string[], arrows: ReadonlyMap<string, readonly string[]>): number {
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
  return Math.max(0, ...files.filter((file) => !isIndex(file)).map(levelOf));
}

/**
 * The map of `target` (a folder, from the repository's root or absolute). `rankOf` defaults to the
 * folder order LAYERED_FOLDERS gives the area, if any.
 */
export function moduleMap(target: string, rankOf?: RankOf): ModuleMap {
  const top = resolve(projectRoot(), target);
  const name = (file: string) => relative(top, file);
  const order = layeredFolders()[relative(projectRoot(), top).split(sep).join('/')];
  const rank = rankOf ?? (order === undefined ? undefined : rankIn(order));
  const files = sourceFiles(top);
  const folderOf = (file: string) => {
    const parts = name(file).split(sep);
    return parts.length === 1 ? ROOT : (parts[0] ?? ROOT);
  };
  const inside = (path: string) => path.startsWith(top + sep);
  // An import of a folder's index is drawn to the files whose names it takes, so an arrow says
  // which file depends on which, as before the folders had indexes.
  const imports = new Map(files.map((file) => [file, importsOf(file)]));
  const graph = new Map<string, string[]>();
  for (const [file, entries] of imports) {
    const targets = entries.filter((entry) => inside(entry.path)).flatMap(targetsOf);
    graph.set(file, [...new Set(targets)]);
  }
  const arrows = new Map([...graph].filter(([file]) => !isIndex(file)));

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
      if (b === ROOT) upToRoot.push(`${name(file)} → ${name(to)}`);
    }
    for (const { path: to } of imports.get(file) ?? []) {
      const [a, b] = [folderOf(file), folderOf(to)];
      if (inside(to) && a !== b && a !== ROOT && b !== ROOT && !isIndex(to))
        intoInsides.push(`${name(file)} → ${name(to)}`);
    }
  }
  const arrowsUp =
    rank === undefined
      ? undefined
      : [...graph]
          .flatMap(([file, targets]) =>
            targets
              .filter((to) => (rank(name(file)) ?? Infinity) < (rank(name(to)) ?? -Infinity))
              .map((to) => `${name(file)} → ${name(to)}`),
          )
          .sort();
  return {
    files: files.map(name),
    levels: levelsOf(files, arrows),
    fileArrows,
    perFolder,
    betweenFolders,
    upToRoot: upToRoot.sort(),
    intoInsides: [...new Set(intoInsides)].sort(),
    cycles: cyclesOf(graph).map((cycle) => cycle.map(name)),
    arrowsUp,
  };
}

function report(target: string, map: ModuleMap): string {
  const { files, levels, fileArrows, perFolder, betweenFolders, upToRoot, intoInsides, cycles, arrowsUp } =
    map;
  const lines = [
    `${target}: ${files.length} files, ${levels} levels, ${fileArrows} arrows between files`,
    `files per folder: ${[...perFolder].map(([folder, count]) => `${folder} ${count}`).join(', ')}`,
    `arrows between folders (${[...betweenFolders.values()].reduce((a, b) => a + b, 0)}):`,
    ...[...betweenFolders].sort().map(([pair, count]) => `  ${pair}: ${count}`),
    `arrows into the root module: ${upToRoot.length}`,
    ...upToRoot.map((arrow) => `  ${arrow}`),
    `arrows into another folder's insides (not its index.ts): ${intoInsides.length}`,
    ...intoInsides.map((arrow) => `  ${arrow}`),
    arrowsUp === undefined
      ? 'arrows up the folder order: no order (not in LAYERED_FOLDERS)'
      : `arrows up the folder order: ${arrowsUp.length}`,
    ...(arrowsUp ?? []).map((arrow) => `  ${arrow}`),
    `cycles between files (type-only imports counting): ${cycles.length}`,
    ...cycles.map((cycle) => `  ${cycle.join(' ⇄ ')}`),
  ];
  return `${lines.join('\n')}\n`;
}

function main(): void {
  const target = process.argv[2];
  if (target === undefined) {
    process.stderr.write('usage: node dist/tools/module-map.js FOLDER (e.g. subgraphs/tickets)\n');
    process.exit(2);
  }
  process.stdout.write(report(target, moduleMap(resolve(target))));
}

if (require.main === module) main();
