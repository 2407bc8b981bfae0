/** Management and client configuration: liveness, readiness, health, manifest, status, /config, the index. */
import type { Scenario } from '../types.ts';
import { get } from './common.ts';

export const management: Scenario = {
  name: 'management',
  title: 'gtg, healthcheck, manifest and status (shape), /config, the API index',
  steps: () => [
    get('liveness', '/_', { anonymous: true }),
    get('gtg', '/management/gtg', { anonymous: true }),
    get('healthcheck', '/management/healthcheck', { anonymous: true }),
    get('manifest', '/management/manifest', { compare: 'shape' }),
    get('status', '/management/status', { compare: 'shape' }),
    get('config', '/config', { anonymous: true }),
    get('index', '/'),
  ],
};
