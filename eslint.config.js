// Lint: TypeScript syntax, named exports only, no `any`, and the one-way import rules of the layout
// (DESIGN.md section 2): core/ and translators/ import nothing of the project; compressor/ (pure, beside the
// translators) imports only translators/; proxy/ imports compressor/, translators/ and core/; ingest/ and
// control-plane/ import core/ only; cli/ and panel/ talk to the REST API only. Tests may reach anywhere.
import tseslint from 'typescript-eslint';

const FOLDERS = ['core', 'translators', 'compressor', 'proxy', 'ingest', 'control-plane', 'cli', 'server', 'panel'];

const onlyFrom = (folder, allowed, message) => ({
  files: [`${folder}/**/*.ts`, `${folder}/**/*.tsx`],
  ignores: ['**/*.test.ts'],
  rules: {
    'no-restricted-imports': ['error', {
      patterns: [{ group: FOLDERS.filter((f) => f !== folder && !allowed.includes(f)).map((f) => `**/${f}/**`), message }],
    }],
  },
});

export default [
  { ignores: ['node_modules/**', 'data/**', 'panel/dist/**'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: 'module' } },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  onlyFrom('core', [], 'core/ imports nothing of the project.'),
  onlyFrom('translators', [], 'translators/ imports nothing of the project.'),
  onlyFrom('compressor', ['translators'], 'compressor/ imports only translators/ (the internal model).'),
  onlyFrom('proxy', ['core', 'translators', 'compressor'], 'proxy/ imports only compressor/, translators/ and core/.'),
  onlyFrom('ingest', ['core'], 'ingest/ imports only core/.'),
  onlyFrom('control-plane', ['core'], 'control-plane/ imports only core/.'),
  onlyFrom('cli', [], 'cli/ talks to the REST API only.'),
  onlyFrom('panel', [], 'panel/ talks to the REST API only (it is a separate front end, built by vite).'),
  // Tool configuration files are loaded by their tools through a default export.
  { files: ['*.config.ts', 'panel/vite.config.ts'], rules: { 'no-restricted-syntax': 'off' } },
];
