import type { Command } from '../context.ts';
import { blackout, blackouts } from './blackouts.ts';
import { group, groups } from './groups.ts';
import { heartbeat, heartbeats } from './heartbeats.ts';
import { key, keys, revoke } from './keys.ts';
import { customer, customers, perm, perms, scopes } from './perms.ts';
import { me, user, users } from './users.ts';

/** Blackouts, heartbeats, API keys, users, groups, permissions, customers and scopes. */
export const adminCommands: Command[] = [
  blackout,
  blackouts,
  heartbeat,
  heartbeats,
  key,
  keys,
  revoke,
  user,
  users,
  me,
  customer,
  customers,
  perm,
  perms,
  scopes,
  group,
  groups,
];
