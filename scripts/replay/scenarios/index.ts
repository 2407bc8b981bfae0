/** Every scenario, in the order a run sends them. */
import type { Scenario } from '../types.ts';
import { customers, groups, keys, perms, users } from './access.ts';
import { alerts } from './alerts.ts';
import { badInput } from './bad-input.ts';
import { blackouts } from './blackouts.ts';
import { bulk } from './bulk.ts';
import { heartbeats } from './heartbeats.ts';
import { management } from './management.ts';
import { queries } from './queries.ts';
import { reports } from './reports.ts';
import { webhooks } from './webhooks.ts';

export const SCENARIOS: readonly Scenario[] = [
  alerts,
  queries,
  reports,
  bulk,
  blackouts,
  heartbeats,
  keys,
  users,
  groups,
  perms,
  customers,
  webhooks,
  management,
  badInput,
];
