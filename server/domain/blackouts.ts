import type { Deps } from '../deps.ts';
import type { AlertDraft } from './alert-types.ts';

export interface ActiveBlackout {
  id: string;
}

/** The blackout in force now that matches this alert, if any. Issue #5 adds blackouts; until then none. */
export async function findActiveBlackout(_deps: Deps, _alert: AlertDraft): Promise<ActiveBlackout | null> {
  return null;
}
