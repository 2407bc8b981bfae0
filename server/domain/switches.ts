/**
 * Management switches (api.md §11). As in the established server their state is per process and
 * lost on restart; the switchboard page (issue #5) flips them.
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

const states = new WeakMap<object, Map<SwitchName, boolean>>();

function stateOf(owner: object): Map<SwitchName, boolean> {
  let s = states.get(owner);
  if (!s) {
    s = new Map();
    states.set(owner, s);
  }
  return s;
}

/** Whether a switch is on for this process (`owner` is the app's deps); every switch starts on. */
export const isSwitchOn = (owner: object, name: SwitchName): boolean => stateOf(owner).get(name) ?? true;

export function setSwitch(owner: object, name: SwitchName, on: boolean): void {
  stateOf(owner).set(name, on);
}
