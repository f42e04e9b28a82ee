import { projectRoot } from '../../common/paths';
import { documentedOperations, extractOperations, unquote } from './documented-operations';

const fence = '```';

describe('extracting the GraphQL operations a Markdown document shows', () => {
  it('splits a graphql block into its operations, each with the fragments it spreads', () => {
    const markdown = [
      '# Title',
      '',
      `${fence}graphql`,
      'query Venue($id: ID!) {',
      '  venue(id: $id) { ...Names }',
      '}',
      '',
      'mutation Rename { renameBranch(input: { branchId: "1", name: "B" }) { id } }',
      '',
      'fragment Names on Venue { id name }',
      fence,
    ].join('\n');
    const { operations, unread } = extractOperations('docs/X.md', markdown);
    expect(unread).toEqual([]);
    expect(operations).toMatchObject([
      {
        file: 'docs/X.md',
        line: 4,
        origin: 'graphql block',
        kind: 'query',
        name: 'Venue',
        rootFields: ['venue'],
      },
      { line: 8, kind: 'mutation', name: 'Rename', rootFields: ['renameBranch'] },
    ]);
    expect(operations[0]!.text).toBe(
      'query Venue($id: ID!) {\n  venue(id: $id) { ...Names }\n}\n\nfragment Names on Venue { id name }',
    );
    expect(operations[1]!.text).not.toContain('fragment');
  });

  it('reads a curl JSON body with escaped quotes and its variables, and ignores the other quoted words', () => {
    const markdown = [
      `${fence}sh`,
      "curl http://127.0.0.1:4000/graphql -H 'content-type: application/json' \\",
      `  -d '{"query":"mutation { signIn(input: {email: \\"a@b.iq\\"}) { token } }","variables":{"n":1}}'`,
      fence,
    ].join('\n');
    const [operation, ...others] = extractOperations('README.md', markdown).operations;
    expect(others).toEqual([]);
    expect(operation).toMatchObject({
      line: 3,
      origin: 'JSON body',
      kind: 'mutation',
      rootFields: ['signIn'],
      text: 'mutation { signIn(input: {email: "a@b.iq"}) { token } }',
      variables: { n: 1 },
    });
  });

  it('reads a JSON block as a request body', () => {
    const markdown = [`${fence}json`, '{ "query": "{ plans { key } }" }', fence].join('\n');
    expect(extractOperations('README.md', markdown).operations).toMatchObject([
      { origin: 'JSON body', text: '{ plans { key } }', rootFields: ['plans'] },
    ]);
  });

  it('reads the query strings of a script, in either quote, and gql templates', () => {
    const markdown = [
      `${fence}sh`,
      `node -e "client.subscribe({query:'subscription { branchTicketsUpdated { number } }'}, sink)"`,
      fence,
      '',
      `${fence}js`,
      'fetch(url, { body: JSON.stringify({ query: "query Q {\\n  viewer { id }\\n}" }) });',
      'const Plans = gql`{ plans { key name } }`;',
      fence,
    ].join('\n');
    const { operations, unread } = extractOperations('README.md', markdown);
    expect(unread).toEqual([]);
    expect(operations.map((o) => [o.line, o.origin, o.kind, o.text])).toEqual([
      [2, 'script string', 'subscription', 'subscription { branchTicketsUpdated { number } }'],
      [6, 'script string', 'query', 'query Q {\n  viewer { id }\n}'],
      [7, 'script string', 'query', '{ plans { key name } }'],
    ]);
  });

  it('takes an inline code span only when it is a whole operation, and reports one that does not parse', () => {
    const markdown = [
      'Call `createVenue(input: {name, language}) { id }`, then read `{ viewer { id name } }`.',
      'The answer is `{secret, apiKey}`; the body `{"authorization": "Bearer …"}`; a field `{name}`.',
      'The adapter sends `query CvPlans { plans(product: CV) { … } }`.',
    ].join('\n');
    const { operations, unread } = extractOperations('docs/F.md', markdown);
    expect(operations).toMatchObject([{ line: 1, origin: 'inline code', text: '{ viewer { id name } }' }]);
    expect(unread).toMatchObject([
      {
        line: 3,
        origin: 'inline code',
        text: 'query CvPlans { plans(product: CV) { … } }',
        problem: expect.stringContaining('Syntax Error') as string,
      },
    ]);
  });

  it('reports GraphQL-looking text in a block that it cannot read, rather than dropping it', () => {
    const markdown = [`${fence}sh`, 'echo "mutation { signOut }" | send', fence].join('\n');
    expect(extractOperations('README.md', markdown)).toMatchObject({
      operations: [],
      unread: [
        { line: 2, origin: 'code block', text: expect.stringContaining('mutation { signOut }') as string },
      ],
    });
  });

  it('marks the operation after a graphql-refused comment, even one that does not parse, and only that one', () => {
    const markdown = [
      '<!-- graphql-refused: over the alias limit on purpose -->',
      `${fence}graphql`,
      '{ a: viewer { id } b: viewer { id } }',
      fence,
      '',
      '`{ viewer { id } }`',
      '',
      '<!-- graphql-refused: shows the parse error -->',
      '`{ viewer { id }`… is refused',
    ].join('\n');
    const { operations, unread } = extractOperations('docs/L.md', markdown);
    expect(unread).toEqual([]);
    expect(operations.map((o) => [o.line, o.kind, o.refused])).toEqual([
      [3, 'query', 'over the alias limit on purpose'],
      [6, 'query', undefined],
      [9, undefined, 'shows the parse error'],
    ]);
  });

  it('reports a graphql-refused marker that has no operation after it', () => {
    const markdown = ['`{ viewer { id } }`', '', '<!-- graphql-refused: left behind -->'].join('\n');
    expect(extractOperations('docs/L.md', markdown).unread).toMatchObject([
      { line: 3, problem: expect.stringContaining('no operation after it') as string },
    ]);
  });

  it('keeps a fence inside a longer fence, and counts lines across blocks', () => {
    const markdown = [
      '````md',
      `${fence}graphql`,
      '{ notThis }',
      fence,
      '````',
      '',
      '~~~graphql',
      '{ viewer { id } }',
      '~~~',
    ].join('\n');
    expect(extractOperations('docs/M.md', markdown).operations.map((o) => [o.line, o.text])).toEqual([
      [8, '{ viewer { id } }'],
    ]);
  });

  it('reads script and JSON string escapes', () => {
    expect(unquote(`'a \\'b\\' "c" \\n'`)).toBe(`a 'b' "c" \n`);
    expect(unquote('"a \\"b\\" \\u0041"')).toBe('a "b" A');
    expect(unquote('`raw ${x}`')).toBe('raw ${x}');
  });

  it('finds the operations of this repository’s README and docs', () => {
    const { operations } = documentedOperations(projectRoot());
    expect(operations.length).toBeGreaterThanOrEqual(8);
    const files = new Set(operations.map((o) => o.file));
    expect(files.has('README.md') && files.has('docs/FRONTEND.md')).toBe(true);
  });
});
