import type { Alert, AlertInput } from '../../../shared/alerts.ts';
import type { Caller } from '../caller.ts';

// The receive module's public face (docs/architecture.md, "The receive path"): boot.ts builds one
// Receiver per instance (index.ts, createReceiver) and hands it round as `deps.receiver`. It lives
// apart from the rest of the module so that deps.ts can name it without importing the module.

export type ReceiveOutcome =
  | { kind: 'stored'; created: boolean; alert: Alert }
  | { kind: 'signal'; status: number; body: Record<string, unknown> };

/** One instance's receive path: POST /alert and the webhooks come in here. */
export interface Receiver {
  /**
   * Pre-receive plugins, then new / duplicate / correlate (lifecycle §4–§5) in at most two round trips,
   * then the post-receive plugins and the live event; a plugin's signal (blackout, heartbeat…)
   * comes back as `signal`.
   */
  receiveAlert(input: AlertInput, caller: Caller): Promise<ReceiveOutcome>;
}
