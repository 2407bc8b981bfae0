export * from './alerts.ts';
export * from './errors.ts';
export * from './events.ts';
export * from './heartbeats.ts';
export * from './queries.ts';
export * from './blackouts.ts';
