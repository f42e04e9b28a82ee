import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Kind,
  parse,
  print,
  visit,
  type DefinitionNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type OperationTypeNode,
} from 'graphql';

/** Where in a document a GraphQL text was found; each form is read its own way. */
export type OperationOrigin = 'graphql block' | 'JSON body' | 'script string' | 'inline code';

/** One executable operation a reader of the docs could copy and send. */
export interface DocumentedOperation {
  /** Path relative to the repository root, and the 1-based line the text starts on. */
  file: string;
  line: number;
  origin: OperationOrigin;
  /** Undefined only for a marked refusal that does not even parse. */
  kind: OperationTypeNode | undefined;
  name: string | undefined;
  rootFields: string[];
  /** The operation with the fragments it spreads: what a client sends for it. */
  text: string;
  /** Variables the doc sends with it (a JSON body's `variables`), when it shows any. */
  variables: Record<string, unknown> | undefined;
  /** The reason given by a `<!-- graphql-refused: … -->` marker: the doc shows a refusal on purpose. */
  refused: string | undefined;
}

/** GraphQL-looking text that could not be read as operations; the reader must account for each. */
export interface UnreadText {
  file: string;
  line: number;
  origin: OperationOrigin | 'code block';
  text: string;
  problem: string;
}

export interface ExtractedOperations {
  operations: DocumentedOperation[];
  unread: UnreadText[];
}

/** Put right before an example that shows a refusal, so it is sent and expected to be refused. */
const REFUSED_MARKER = /<!--\s*graphql-refused:\s*([\s\S]*?)\s*-->/g;

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;

/** A string that reads as a GraphQL document, not as prose or a URL. */
const DOCUMENT_START = /^\s*(?:(?:query|mutation|subscription|fragment)\b\s*[\w$]*\s*[({@]|\{\s*[_A-Za-z])/;

/**
 * An inline code span counts as an operation only when it is written out whole: an operation
 * keyword, or `{ ` with a nested selection (`{ viewer { id } }`). Spans such as `{name}` or
 * `{secret, apiKey}` name an input's or an answer's fields and are prose, not documents.
 */
const INLINE_DOCUMENT = /^(?:(?:query|mutation|subscription)\s+[\w$]*\s*[({]|\{\s+[_A-Za-z]\w*[^{}]*\{)/;

/** Text in a non-GraphQL block that is probably an operation; anything left unread is reported. */
const OPERATION_HINT = /\b(?:query|mutation|subscription)\b\s*[\w$]*\s*[({]|["']?\bquery["']?\s*:/g;

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i += 1) if (text[i] === '\n') line += 1;
  return line;
}

interface Candidate {
  line: number;
  origin: OperationOrigin;
  text: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** The fragments an operation spreads, followed through fragments that spread others. */
function fragmentsUsedBy(
  definition: DefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): FragmentDefinitionNode[] {
  const used = new Map<string, FragmentDefinitionNode>();
  const follow = (node: DefinitionNode) =>
    visit(node, {
      FragmentSpread(spread) {
        const fragment = fragments.get(spread.name.value);
        if (fragment !== undefined && !used.has(fragment.name.value)) {
          used.set(fragment.name.value, fragment);
          follow(fragment);
        }
      },
    });
  follow(definition);
  return [...used.values()];
}

/**
 * Each operation of a document with the fragments it spreads, so that a document holding two
 * operations (a sign-up and a sign-in) gives two sendable texts, as a reader would copy them.
 * Fragments may also come from elsewhere (a fixture folder's shared fragments).
 */
export function operationsOf(
  source: string,
  extraFragments: ReadonlyMap<string, FragmentDefinitionNode> = new Map(),
): { definition: OperationDefinitionNode; text: string }[] {
  const document = parse(source);
  const fragments = new Map(extraFragments);
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  // The doc's own text (its layout and comments) where it has it; another file's fragment printed.
  const textOf = (node: DefinitionNode) =>
    node.loc !== undefined && document.definitions.includes(node)
      ? source.slice(node.loc.start, node.loc.end)
      : print(node);
  return document.definitions
    .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
    .map((definition) => ({
      definition,
      text: [definition, ...fragmentsUsedBy(definition, fragments)].map(textOf).join('\n\n'),
    }));
}

/** The fields an operation asks of its root type, which say who may send it. */
export function rootFieldsOf(definition: OperationDefinitionNode): string[] {
  return definition.selectionSet.selections.flatMap((selection) =>
    selection.kind === Kind.FIELD ? [selection.name.value] : [],
  );
}

/** A JavaScript or JSON string literal's value (the quotes included in `literal`). */
export function unquote(literal: string): string {
  const quote = literal[0];
  const body = literal.slice(1, -1);
  if (quote === '`') return body;
  // JSON reads every escape a script string may hold here once the quotes are made JSON's own.
  const json = body.replace(/\\'/g, "'").replace(/(^|[^\\])((?:\\\\)*)"/g, '$1$2\\"');
  return JSON.parse(`"${json}"`) as string;
}

/** Masks the spans already read, so that the leftover check does not see them again. */
function mask(text: string, start: number, end: number): string {
  return text.slice(0, start) + text.slice(start, end).replace(/[^\n]/g, ' ') + text.slice(end);
}

/**
 * GraphQL inside a block of another language: JSON bodies (a JSON block, or a curl `-d '…'`, where
 * the shell's single quotes hold a JSON object with `query`), then the string given as `query:` in a script
 * (`subscribe({query: '…'})`, `fetch(…, {body: JSON.stringify({query: "…"})})`) and `gql`/`graphql`
 * tagged templates.
 */
function candidatesInCode(
  block: string,
  firstLine: number,
): { candidates: Candidate[]; unread: Omit<UnreadText, 'file'>[] } {
  const candidates: Candidate[] = [];
  let rest = block;
  // A JSON block is the body itself; in a shell line the body sits in single quotes.
  for (const match of [{ 0: block, 1: block, index: 0 }, ...block.matchAll(/'([^']*)'/g)]) {
    let body: unknown;
    try {
      body = JSON.parse(match[1]);
    } catch {
      continue;
    }
    if (typeof body !== 'object' || body === null || !('query' in body) || typeof body.query !== 'string')
      continue;
    const { query, variables, operationName } = body as {
      query: string;
      variables?: Record<string, unknown>;
      operationName?: string;
    };
    candidates.push({
      line: firstLine + lineAt(block, match.index) - 1,
      origin: 'JSON body',
      text: query,
      ...(variables === undefined ? {} : { variables }),
      ...(operationName === undefined ? {} : { operationName }),
    });
    rest = mask(rest, match.index, match.index + match[0].length);
  }
  const scripted = [
    /["']?\bquery["']?\s*:\s*('(?:\\[\s\S]|[^\\'])*'|"(?:\\[\s\S]|[^\\"])*"|`[^`]*`)/g,
    /\b(?:gql|graphql)\s*(`[^`]*`)/g,
  ];
  for (const pattern of scripted) {
    for (const match of rest.matchAll(pattern)) {
      const literal = match[1]!;
      candidates.push({
        line: firstLine + lineAt(block, match.index) - 1,
        origin: 'script string',
        text: unquote(literal),
      });
      rest = mask(rest, match.index, match.index + match[0].length);
    }
  }
  const unread = [...rest.matchAll(OPERATION_HINT)].map((match) => ({
    line: firstLine + lineAt(block, match.index) - 1,
    origin: 'code block' as const,
    text: rest.slice(match.index, rest.indexOf('\n', match.index) + 1 || undefined).trim(),
    problem: 'looks like GraphQL but is in no form the extractor reads',
  }));
  return { candidates, unread };
}

/**
 * Every GraphQL operation written out in one Markdown document: ```graphql blocks, GraphQL
 * inside other blocks (curl JSON bodies, script strings), and inline code spans that are whole
 * operations. What looks like GraphQL but does not parse (an abridged `{ … }`) is returned as
 * unread, never dropped.
 */
export function extractOperations(file: string, markdown: string): ExtractedOperations {
  const lines = markdown.split('\n');
  const candidates: Candidate[] = [];
  const unread: UnreadText[] = [];
  const refusals: { line: number; reason: string }[] = [...markdown.matchAll(REFUSED_MARKER)].map((m) => ({
    line: lineAt(markdown, m.index),
    reason: m[1]!,
  }));
  // Prose with every fenced block blanked, line for line, so inline spans keep their line numbers.
  const prose: string[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = FENCE.exec(lines[i]!);
    if (open === null) {
      prose.push(lines[i]!);
      continue;
    }
    const [, fence, language] = open;
    const start = i;
    let end = i + 1;
    while (end < lines.length && !new RegExp(`^ {0,3}${fence![0]}{${fence!.length},}\\s*$`).test(lines[end]!))
      end += 1;
    const body = lines.slice(start + 1, end).join('\n');
    for (let j = start; j <= end && j < lines.length; j += 1) prose.push('');
    i = end;
    if (/^(graphql|gql)$/i.test(language!)) {
      candidates.push({ line: start + 2, origin: 'graphql block', text: body });
    } else {
      const found = candidatesInCode(body, start + 2);
      candidates.push(...found.candidates);
      unread.push(...found.unread.map((u) => ({ file, ...u })));
    }
  }
  const text = prose.join('\n');
  for (const match of text.matchAll(/(`+)([^`][\s\S]*?)\1(?!`)/g)) {
    const span = match[2]!.trim();
    if (INLINE_DOCUMENT.test(span)) {
      candidates.push({ line: lineAt(text, match.index), origin: 'inline code', text: span });
    }
  }
  candidates.sort((a, b) => a.line - b.line);

  const operations: DocumentedOperation[] = [];
  // A marker holds for the first operation after it.
  const markerFor = (line: number) => {
    const index = refusals.findIndex((r) => r.line <= line);
    return index === -1 ? undefined : refusals.splice(index, 1)[0]!.reason;
  };
  for (const candidate of candidates) {
    if (candidate.origin !== 'graphql block' && !DOCUMENT_START.test(candidate.text)) continue;
    let found: ReturnType<typeof operationsOf>;
    try {
      found = operationsOf(candidate.text);
    } catch (error) {
      const refused = markerFor(candidate.line);
      if (refused !== undefined) {
        // A refusal shown on purpose may be one the parser gives; it is sent as written.
        operations.push({
          file,
          line: candidate.line,
          origin: candidate.origin,
          kind: undefined,
          name: undefined,
          rootFields: [],
          text: candidate.text,
          variables: candidate.variables,
          refused,
        });
        continue;
      }
      unread.push({
        file,
        line: candidate.line,
        origin: candidate.origin,
        text: candidate.text,
        problem: error instanceof Error ? error.message : String(error),
      });
      continue;
    }
    if (found.length === 0) {
      unread.push({
        file,
        line: candidate.line,
        origin: candidate.origin,
        text: candidate.text,
        problem: 'holds no operation',
      });
      continue;
    }
    for (const { definition, text: operationText } of found) {
      const name = definition.name?.value;
      if (candidate.operationName !== undefined && name !== candidate.operationName) continue;
      const line = candidate.line + (definition.loc ? lineAt(candidate.text, definition.loc.start) - 1 : 0);
      operations.push({
        file,
        line,
        origin: candidate.origin,
        kind: definition.operation,
        name,
        rootFields: rootFieldsOf(definition),
        text: operationText,
        variables: candidate.variables,
        refused: markerFor(line),
      });
    }
  }
  for (const marker of refusals) {
    unread.push({
      file,
      line: marker.line,
      origin: 'code block',
      text: marker.reason,
      problem: 'a graphql-refused marker with no operation after it',
    });
  }
  return { operations, unread: unread.sort((a, b) => a.line - b.line) };
}

/**
 * The Markdown documents whose operations must work: the README and every page under docs/. Read
 * synchronously, so that a spec can name one test per operation.
 */
export function documentedMarkdown(root: string): { file: string; markdown: string }[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)].map((file) => ({
    file,
    markdown: readFileSync(join(root, file), 'utf8'),
  }));
}

/** extractOperations over every documented Markdown file, in file order. */
export function documentedOperations(root: string): ExtractedOperations {
  const all: ExtractedOperations = { operations: [], unread: [] };
  for (const { file, markdown } of documentedMarkdown(root)) {
    const found = extractOperations(file, markdown);
    all.operations.push(...found.operations);
    all.unread.push(...found.unread);
  }
  return all;
}
