// Lint rules: typescript-eslint's recommended set plus the boundary rules zapgate cares about.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Time goes through one clock (docs/design.md, "Time through one clock"): nothing but the clock
// module itself reads the wall clock or arms a timer, so a test can own time and a time-lapse run
// compresses every protocol wait at once. test/unit/clock-only.test.ts checks the rule holds.
const CLOCK_ONLY = 'use the injected Clock (src/clock.ts; simnet/src/clock.ts in simnet)';
const TIMER_GLOBALS = ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'];

const CLOCK_ONLY_RULES = {
  'no-restricted-properties': [
    'error',
    { object: 'Date', property: 'now', message: `Date.now reads the wall clock: ${CLOCK_ONLY}` },
    ...TIMER_GLOBALS.map((property) => ({ object: 'globalThis', property, message: `a raw timer: ${CLOCK_ONLY}` })),
  ],
  'no-restricted-globals': ['error', ...TIMER_GLOBALS.map((name) => ({ name, message: `a raw timer: ${CLOCK_ONLY}` }))],
  'no-restricted-syntax': [
    'error',
    { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: `new Date() reads the wall clock: ${CLOCK_ONLY}` },
    { selector: "CallExpression[callee.name='Date']", message: `Date() reads the wall clock: ${CLOCK_ONLY}` },
    { selector: 'ImportDeclaration[source.value=/^(node:)?timers(\\u002Fpromises)?$/]', message: `raw timers: ${CLOCK_ONLY}` },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'dist/**', 'coverage/**', '.test-dist-*/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setImmediate: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // simnet is its own program: it must never reach into the gateway.
    files: ['simnet/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/src/**'] }] },
  },
  {
    files: ['src/**/*.ts', 'simnet/src/**/*.ts'],
    ignores: ['src/clock.ts', 'simnet/src/clock.ts'],
    rules: CLOCK_ONLY_RULES,
  },
);
