import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};

/** Build identity, from package.json and the environment the image was built with. */
export const build = {
  name: pkg.name,
  version: pkg.version,
  revision: process.env.GIT_REVISION ?? 'unknown',
  date: process.env.BUILD_DATE ?? 'unknown',
};
