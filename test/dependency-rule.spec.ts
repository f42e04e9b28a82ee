import { ESLint } from 'eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import { projectRoot } from '../common/paths';

// eslint.config.mjs takes its zones from this file; the test lints against the very same rule.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { BOUNDARY_ZONES, SPEC_BOUNDARY_ZONES } = require('../eslint.boundaries.cjs') as Record<
  'BOUNDARY_ZONES' | 'SPEC_BOUNDARY_ZONES',
  unknown[]
>;

const eslint = new ESLint({
  cwd: projectRoot(),
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { 'import-x': importX as unknown as ESLint.Plugin },
      settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })] },
      rules: { 'import-x/no-restricted-paths': ['error', { zones: BOUNDARY_ZONES }] },
    },
    {
      files: ['**/*.spec.ts'],
      rules: { 'import-x/no-restricted-paths': ['error', { zones: SPEC_BOUNDARY_ZONES }] },
    },
  ],
});

/** The boundary messages lint gives a file at `path` that imports `from` (only its types, with `types`). */
async function verdict(path: string, from: string, types = false): Promise<string[]> {
  const source = types
    ? `import type * as probe from '${from}';\nexport type { probe };\n`
    : `import * as probe from '${from}';\nexport { probe };\n`;
  const [result] = await eslint.lintText(source, { filePath: `${projectRoot()}/${path}` });
  return (result?.messages ?? []).map((message) => message.message);
}

describe('the dependency rule, as lint enforces it', () => {
  it.each([
    [
      'a door importing a domain',
      'rest-adapter/tickets/probe.ts',
      '../../subgraphs/tickets/tickets/ticket.entity',
    ],
    ['the gateway importing a domain', 'gateway/probe.ts', '../subgraphs/tickets/access/access-cache'],
    ['a domain importing a door', 'subgraphs/tickets/probe.ts', '../../rest-adapter/http-errors'],
    ['a domain importing another', 'subgraphs/cv/probe.ts', '../billing/subscription.service'],
    ['a domain importing tools', 'subgraphs/billing/probe.ts', '../../tools/stack'],
    ['contracts importing a domain', 'contracts/cv/probe.ts', '../../subgraphs/cv/cvs/photo'],
    ['common importing contracts', 'common/probe.ts', '../contracts/tickets/ticket.limits'],
    ['code outside tests importing test/', 'tools/probe.ts', '../test/support/wait'],
    [
      'a subgraph folder importing a sibling folder’s internals',
      'subgraphs/tickets/events/probe.ts',
      '../tickets/ticket.entity',
    ],
    ['a subgraph folder importing a folder above it', 'subgraphs/tickets/venues/probe.ts', '../access'],
    [
      'a subgraph folder importing the root module',
      'subgraphs/tickets/tickets/probe.ts',
      '../tickets.subgraph',
    ],
    ['a spec inside a folder importing the root module', 'subgraphs/tickets/events/probe.spec.ts', '../main'],
    ['a gateway folder importing a folder above it', 'gateway/limits/probe.ts', '../fetch'],
    ['the gateway’s context importing any folder of the gateway', 'gateway/context/probe.ts', '../limits'],
    ['a gateway folder importing a sibling’s internals', 'gateway/door/probe.ts', '../limits/rate-limit'],
    ['a gateway folder importing the root module', 'gateway/door/probe.ts', '../gateway'],
    ['a gateway folder importing the process entry', 'gateway/live/probe.ts', '../main'],
    ['a spec inside a gateway folder importing a folder above it', 'gateway/fetch/probe.spec.ts', '../door'],
  ])('refuses %s', async (_case, path, from) => {
    const messages = await verdict(path, from);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/restricted zone/);
  });

  it.each([
    ['a gateway folder taking a type from a folder above it', 'gateway/limits/probe.ts', '../live'],
    [
      'a gateway folder taking a type from a sibling’s internals',
      'gateway/live/probe.ts',
      '../context/gateway-context',
    ],
  ])('refuses %s', async (_case, path, from) => {
    const messages = await verdict(path, from, true);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/restricted zone/);
  });

  it.each([
    [
      'a door importing a contract',
      'rest-adapter/tickets/probe.ts',
      '../../contracts/tickets/ticket.resource',
    ],
    ['a domain importing a contract', 'subgraphs/tickets/probe.ts', '../../contracts/tickets/live-event'],
    ['a domain importing its own files', 'subgraphs/cv/cvs/probe.ts', './cv.service'],
    ['a subgraph folder importing its own files', 'subgraphs/tickets/tickets/probe.ts', './ticket.entity'],
    ['a subgraph folder importing a lower folder’s index', 'subgraphs/tickets/events/probe.ts', '../tickets'],
    ['the root module importing a folder', 'subgraphs/tickets/probe.ts', './venues'],
    ['a gateway folder importing a lower folder’s index', 'gateway/door/probe.ts', '../limits'],
    ['a gateway folder importing its own files', 'gateway/fetch/probe.ts', './inflight-fetches'],
    ['the gateway’s root module importing a folder', 'gateway/probe.ts', './door'],
    ['tools importing a gateway folder’s internals', 'tools/probe.ts', '../gateway/explorer/explorer-bundle'],
    ['contracts importing common', 'contracts/cv/probe.ts', '../../common/patterns'],
    ['tools importing a domain', 'tools/probe.ts', '../subgraphs/cv/cvs/cv.service'],
    [
      'tools importing a subgraph folder’s internals',
      'tools/probe.ts',
      '../subgraphs/tickets/venues/venue.entity',
    ],
    ['a spec beside the code using test helpers', 'subgraphs/cv/probe.spec.ts', '../../test/support/wait'],
  ])('lets %s through', async (_case, path, from) => {
    expect(await verdict(path, from)).toEqual([]);
  });
});

describe('the CV subgraph’s folders, as lint enforces them', () => {
  // Lowest first: render < json-resume < accounts < templates < cvs < exports.
  it.each([
    ['render importing a folder above it', 'subgraphs/cv/render/probe.ts', '../accounts'],
    ['accounts importing cvs, above it', 'subgraphs/cv/accounts/probe.ts', '../cvs'],
    [
      'templates importing exports, above it',
      'subgraphs/cv/templates/probe.ts',
      '../exports/cv-export.service',
    ],
    ['json-resume importing cvs, above it', 'subgraphs/cv/json-resume/probe.ts', '../cvs'],
    ['exports importing a sibling’s insides', 'subgraphs/cv/exports/probe.ts', '../cvs/cv.service'],
    ['cvs importing a lower folder’s insides', 'subgraphs/cv/cvs/probe.ts', '../accounts/account.entity'],
    ['a folder importing the root module', 'subgraphs/cv/exports/probe.ts', '../cv.subgraph'],
    ['a spec inside a folder importing the root module', 'subgraphs/cv/cvs/probe.spec.ts', '../cv.subgraph'],
    ['a spec inside a folder importing the process', 'subgraphs/cv/render/probe.spec.ts', '../main'],
  ])('refuses %s', async (_case, path, from) => {
    const messages = await verdict(path, from);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/restricted zone/);
  });

  it.each([
    ['accounts importing cvs', 'subgraphs/cv/accounts/probe.ts', '../cvs'],
    ['templates importing a sibling’s insides', 'subgraphs/cv/templates/probe.ts', '../accounts/cv-access'],
    ['a folder importing the root module', 'subgraphs/cv/cvs/probe.ts', '../cv.subgraph'],
  ])('refuses %s with a type-only import too', async (_case, path, from) => {
    const messages = await verdict(path, from, true);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/restricted zone/);
  });

  it.each([
    ['exports importing a lower folder’s index', 'subgraphs/cv/exports/probe.ts', '../cvs'],
    ['cvs importing json-resume’s index', 'subgraphs/cv/cvs/probe.ts', '../json-resume'],
    ['templates importing render’s index', 'subgraphs/cv/templates/probe.ts', '../render'],
    ['a folder importing its own files', 'subgraphs/cv/accounts/probe.ts', './account.entity'],
    ['the root module importing a folder', 'subgraphs/cv/probe.ts', './exports'],
    ['tools importing a folder’s internals', 'tools/probe.ts', '../subgraphs/cv/render/renderer'],
    [
      'a spec inside a folder using test helpers',
      'subgraphs/cv/cvs/probe.spec.ts',
      '../../../test/support/database',
    ],
  ])('lets %s through', async (_case, path, from) => {
    expect(await verdict(path, from)).toEqual([]);
  });
});
