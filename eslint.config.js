// Flat config (CommonJS: package.json has no "type": "module").
// The architectural rules are the point of this file: where code may run decides what it may import.
'use strict';
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const reactHooks = require('eslint-plugin-react-hooks');
const { builtinModules } = require('node:module');

const nodeBuiltins = builtinModules.filter((m) => !m.startsWith('_'));
const noElectron = {
  paths: [{ name: 'electron', message: 'src/core and src/shared run without Electron (CLI, harness, tests): take an interface as an argument instead.' }],
  patterns: [{ group: ['electron/*'], message: 'src/core and src/shared never import electron.' }],
};
const noNode = {
  paths: nodeBuiltins.map((name) => ({ name, message: 'Renderer, shared and preload code runs without Node: call the main process through the contract.' })),
  patterns: [{ group: ['node:*'], message: 'Renderer, shared and preload code runs without Node built-ins.' }],
};
const notCoreOrMain = {
  patterns: [{ group: ['**/core', '**/core/**', '**/main', '**/main/**'], message: 'Renderer and preload import only src/shared (the IPC contract, models, bridge types), never src/core or src/main.' }],
};
const noElectronSyntax = [
  'error',
  { selector: "CallExpression[callee.name='require'][arguments.0.value=/^electron(\\u002F|$)/]", message: 'src/core and src/shared never require electron.' },
  { selector: "ImportExpression[source.value=/^electron(\\u002F|$)/]", message: 'src/core and src/shared never import electron.' },
];

module.exports = tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'test-results/**', 'playwright-report/**', '.tmp/**', 'resources/**', 'patches/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['warn', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['**/*.cjs', 'eslint.config.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Playwright fixtures that use no other fixture must be written `async ({}, use) => …`.
    files: ['test/e2e/**/*.ts', 'test/e2e-electron/**/*.ts'],
    rules: { 'no-empty-pattern': 'off' },
  },
  {
    files: ['src/core/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', noElectron], 'no-restricted-syntax': noElectronSyntax },
  },
  {
    // A CLI command is a leaf: what commands share (withConnection, appStores, remoteOptRoot, the
    // destination helpers) lives in src/core/cli/*.ts, so changing one command never changes another.
    files: ['src/core/cli/commands/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: noElectron.paths, patterns: [...noElectron.patterns, { group: ['./*', '../commands/*', '**/cli/commands/*'], message: 'A command imports no other command: move what both need into a module in src/core/cli/.' }] }],
    },
  },
  {
    // The renderer and the preload reach the rest of the app only through the contract in src/shared:
    // importing core or main would pull Node code into a sandboxed page, or couple them to internals.
    files: ['src/renderer/**/*.{ts,tsx}', 'src/preload/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: noNode.paths, patterns: [...noNode.patterns, ...notCoreOrMain.patterns] }] },
  },
  {
    // A hook called conditionally, or an effect that reads a value it does not list, works until the
    // order or the value changes: both are errors, not warnings.
    files: ['src/renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    // Shared code is imported by every side, so it obeys both rules.
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [...noElectron.paths, ...noNode.paths], patterns: [...noElectron.patterns, ...noNode.patterns] }],
      'no-restricted-syntax': noElectronSyntax,
    },
  },
);
