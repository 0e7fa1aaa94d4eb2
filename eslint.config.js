// Lint: TypeScript syntax plus the one-way import rules of the layout (DESIGN.md section 2).
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

const zone = (target, from, message) => ({ target, from, message });

export default [
  { ignores: ['node_modules/**', 'data/**', 'panel/dist/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: 'module' } },
    plugins: { 'import-x': importX, '@typescript-eslint': tseslint.plugin },
    rules: {
      'import-x/no-default-export': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      'import-x/no-restricted-paths': ['error', {
        zones: [
          zone('./core', ['./translators', './proxy', './ingest', './control-plane', './cli', './panel'], 'core/ imports nothing of the project'),
          zone('./translators', ['./core', './proxy', './ingest', './control-plane', './cli', './panel'], 'translators/ imports nothing of the project'),
          zone('./proxy', ['./ingest', './control-plane', './cli'], 'proxy/ imports only translators/ and core/'),
          zone('./ingest', ['./proxy', './control-plane', './translators', './cli'], 'ingest/ imports only core/'),
          zone('./control-plane', ['./proxy', './ingest', './translators', './cli'], 'control-plane/ imports only core/'),
          zone('./cli', ['./proxy', './ingest', './control-plane', './translators'], 'cli/ talks to the REST API only'),
        ],
      }],
    },
  },
  // Tool configuration files are loaded by their tools through a default export.
  { files: ['*.config.ts'], rules: { 'import-x/no-default-export': 'off' } },
];
