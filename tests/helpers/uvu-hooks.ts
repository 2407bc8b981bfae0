/**
 * Preloaded by scripts/test.ts (`node --import ./tests/helpers/uvu-hooks.ts file`): uvu 0.5 runs a
 * suite's `before` hooks inside a try whose `finally` returns, so an error thrown while setting up
 * a suite vanishes and the file reports "(0 / N)" without a word. This rewrites that one line of
 * uvu as it loads, so the error is printed like a failing test's (and the suite still fails).
 */
import { register } from 'node:module';

register('./uvu-hooks-loader.ts', import.meta.url);
