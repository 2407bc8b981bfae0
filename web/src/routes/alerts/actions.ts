/** What the console offers to do with alerts (alarm-model.md), for rows, the drawer and the bulk bar. */

export const ACTION_LABELS: Readonly<Record<string, string>> = {
  ack: 'Ack',
  unack: 'Unack',
  shelve: 'Shelve',
  unshelve: 'Unshelve',
  close: 'Close',
  open: 'Re-open',
  delete: 'Delete',
  watch: 'Watch',
  unwatch: 'Unwatch',
};

export const actionLabel = (action: string): string => ACTION_LABELS[action] ?? action;

/** Actions that take a timeout, offered with a menu of durations. */
export const TIMED: ReadonlySet<string> = new Set(['ack', 'shelve']);

/** The durations offered for ack and shelve, seconds. */
export const DURATIONS = [3600, 4 * 3600, 8 * 3600, 86400, 7 * 86400];

/** The buttons on the row itself: the usual next steps for its status. */
export function quickActions(status: string): string[] {
  switch (status) {
    case 'open':
    case 'assign':
      return ['ack', 'shelve', 'close'];
    case 'ack':
      return ['unack', 'close'];
    case 'shelved':
      return ['unshelve', 'close'];
    case 'closed':
    case 'expired':
      return ['open', 'delete'];
    default:
      return ['close'];
  }
}

/** Everything the row menu and the drawer offer for a status (custom actions and watch come on top). */
export function statusActions(status: string): string[] {
  switch (status) {
    case 'open':
    case 'assign':
      return ['ack', 'shelve', 'close'];
    case 'ack':
      return ['unack', 'shelve', 'close'];
    case 'shelved':
      return ['unshelve', 'ack', 'close'];
    case 'closed':
    case 'expired':
      return ['open'];
    default:
      return ['ack', 'shelve', 'close', 'open'];
  }
}

/** The bulk bar's actions: the selection may mix statuses, so all of them. */
export const BULK_ACTIONS = ['ack', 'unack', 'shelve', 'unshelve', 'close', 'open', 'delete'];

/** The tag that marks an alert watched by `login`, as alerta-webui writes it. */
export const watchTag = (login: string): string => `watch:${login}`;

const DOING: Readonly<Record<string, string>> = {
  ack: 'Acking',
  unack: 'Unacking',
  shelve: 'Shelving',
  unshelve: 'Unshelving',
  close: 'Closing',
  open: 'Re-opening',
  delete: 'Deleting',
  watch: 'Watching',
  unwatch: 'Unwatching',
};
const DONE: Readonly<Record<string, string>> = {
  ack: 'Acked',
  unack: 'Unacked',
  shelve: 'Shelved',
  unshelve: 'Unshelved',
  close: 'Closed',
  open: 'Re-opened',
  delete: 'Deleted',
  watch: 'Watched',
  unwatch: 'Unwatched',
};

/** "Acking 412 / 1022": a bulk action under way (a custom action: "page-oncall 412 / 1022"). */
export const doingLabel = (action: string, done: number, total: number): string =>
  `${DOING[action] ?? action} ${done} / ${total}`;

/** "Acked 1022 alerts": a bulk action finished (a custom action: "page-oncall done on 1022 alerts"). */
export const doneLabel = (action: string, count: number): string =>
  `${DONE[action] ?? `${action} done on`} ${count} alert${count === 1 ? '' : 's'}`;
