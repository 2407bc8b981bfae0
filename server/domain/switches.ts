import { readSwitches, writeSwitch } from '../db/switches.ts';
import type { Deps } from '../deps.ts';

/**
 * Management switches (api.md §11). Alerta keeps their state per process; ours is in the database,
 * so every instance agrees and a restart keeps it. A switch never set is ON.
 */
export const SWITCHES = {
  'auto-refresh-allow': {
    title: 'Alerta console auto-refresh',
    description: 'Allow consoles to auto-refresh alerts',
  },
  'sender-api-allow': {
    title: 'API alert submission',
    description: 'Allow alerts to be submitted via the API',
  },
} as const;
export type SwitchName = keyof typeof SWITCHES;

export const isSwitchName = (name: string): name is SwitchName => Object.hasOwn(SWITCHES, name);

/** Every switch with its state, in the order above. */
export async function listSwitches(deps: Deps): Promise<{ name: SwitchName; isOn: boolean }[]> {
  const stored = await readSwitches(deps.db);
  return (Object.keys(SWITCHES) as SwitchName[]).map((name) => ({ name, isOn: stored.get(name) ?? true }));
}

export async function isSwitchOn(deps: Deps, name: SwitchName): Promise<boolean> {
  return (await readSwitches(deps.db)).get(name) ?? true;
}

export async function setSwitch(deps: Deps, name: SwitchName, on: boolean): Promise<void> {
  await writeSwitch(deps.db, name, on, deps.clock.now());
  deps.log.info({ switch: name, on }, 'switch.changed');
}
