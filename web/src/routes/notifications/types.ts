import type { Receiver, Rule } from '../../../../shared/notifications.ts';

export type {
  DeliveriesPage,
  Delivery,
  DeliveryOutcome,
  ReceiverHealth,
} from '../../../../shared/notifications.ts';
export { DELIVERY_OUTCOMES } from '../../../../shared/notifications.ts';

/** A receiver as listed (with its health) and a rule: what the tables and forms show. */
export type ReceiverItem = Receiver;
export type RuleItem = Rule;
