// @ts-check
import { createRequire } from 'node:module';
import eslint from '@eslint/js';
import * as espree from 'espree';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// The dependency rule lives in its own file so a test can lint against it too.
const { BOUNDARY_ZONES, SPEC_BOUNDARY_ZONES } = createRequire(import.meta.url)('./eslint.boundaries.cjs');

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'test-artifacts/**',
      '*.config.js',
      '*.config.mjs',
      // This file holds rules of its own (the gateway's function length), so it is linted too.
      '!eslint.config.mjs',
      'eslint.boundaries.cjs',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/explicit-module-boundary-types': 'off',
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports that match the file.' },
      ],
    },
  },
  {
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })] },
    rules: { 'import-x/no-restricted-paths': ['error', { zones: BOUNDARY_ZONES }] },
  },
  {
    // Tests reach their own helpers in test/ from beside the code they test.
    files: ['**/*.spec.ts'],
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: SPEC_BOUNDARY_ZONES }],
    },
  },
  {
    // Decorator metadata needs the runtime value of a class used as a type in a decorated signature.
    files: ['**/*.entity.ts', '**/*.type.ts', '**/*.resolver.ts', '**/*.input.ts'],
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
  {
    // A function past a screenful hides its parts in closures; product code names them instead
    // (the gateway's live server: admission, registry, feed and access, each its own module).
    // Tests, benchmarks and tools are scripts read top to bottom, so they are left out.
    files: ['**/*.ts', 'rest-adapter/public/assets/**/*.js'],
    ignores: ['**/*.spec.ts', 'test/**', 'bench/**', 'tools/**'],
    rules: { 'max-lines-per-function': ['error', { max: 80 }] },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/unbound-method': 'off' },
  },
  {
    // ESLint loads this file through its default export; no tsconfig includes it, so it is
    // linted without type information.
    files: ['eslint.config.mjs'],
    ...tseslint.configs.disableTypeChecked,
    rules: { ...tseslint.configs.disableTypeChecked.rules, 'no-restricted-syntax': 'off' },
  },
  {
    // Jest loads its global setup and teardown through a default export.
    files: ['test/global-setup.ts', 'test/global-teardown.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // The explorer's browser entry is read by esbuild only (tools/build-explorer.ts), which
    // transpiles it; no tsconfig includes it, so it is linted as a browser module without types.
    files: ['gateway/explorer/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      parser: espree,
      ecmaVersion: 'latest',
      sourceType: 'module',
      globals: { document: 'readonly', location: 'readonly', URLSearchParams: 'readonly' },
    },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
  {
    // The public pages' scripts run in browsers as written, old TV browsers included: parsed as
    // ES2019 so newer syntax (`?.`, `??`, class fields) fails lint rather than a display.
    files: ['rest-adapter/public/assets/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      parser: espree,
      ecmaVersion: 2019,
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        navigator: 'readonly',
        WebSocket: 'readonly',
        Intl: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        SpeechSynthesisUtterance: 'readonly',
        self: 'readonly',
      },
    },
    // Rules about TypeScript's own syntax need its parser; these files have none of it.
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
);
