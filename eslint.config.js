// ESLint's and typescript-eslint's recommended rules over src/ (`npm run lint`, part of `npm test`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'test/', 'benchmarks/', 'examples/', 'types/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.ts'],
    rules: {
      // `_name` marks what a destructuring leaves out on purpose (tsc's noUnusedLocals catches the rest).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // A task module's exports are checked at run time: any function is what they may be.
    files: ['src/workers/task-module.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
