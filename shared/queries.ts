import { z } from 'zod';
import { AlertSchema, IsoTimeSchema } from './alerts.ts';
import { PagedListShape } from './paging.ts';

const Counts = z.record(z.string(), z.number().int());
/** A set of alerts counted by severity and by status (keyed by the severity or the status). */
export const AlertCountsShape = { severityCounts: Counts, statusCounts: Counts };

/** GET /alerts */
export const AlertListSchema = z.object({
  ...PagedListShape,
  alerts: z.array(AlertSchema),
  ...AlertCountsShape,
  lastTime: IsoTimeSchema,
  autoRefresh: z.boolean(),
});
export type AlertList = z.infer<typeof AlertListSchema>;

/** GET /alerts/count */
export const AlertCountSchema = z.object({
  status: z.literal('ok'),
  total: z.number().int(),
  ...AlertCountsShape,
  autoRefresh: z.boolean(),
});
export type AlertCount = z.infer<typeof AlertCountSchema>;

/** One entry of GET /alerts/history: a history entry with its alert's fields as they are now. */
export const HistoryListEntrySchema = z.object({
  id: z.string(),
  href: z.string(),
  resource: z.string(),
  event: z.string(),
  environment: z.string(),
  severity: z.string().optional(),
  status: z.string().optional(),
  value: z.string().optional(),
  service: z.array(z.string()),
  group: z.string(),
  text: z.string(),
  tags: z.array(z.string()),
  attributes: z.record(z.string(), z.unknown()),
  origin: z.string(),
  updateTime: IsoTimeSchema,
  user: z.string().nullable(),
  timeout: z.number().int().nullable(),
  type: z.string(),
  customer: z.string().nullable(),
});
export type HistoryListEntry = z.infer<typeof HistoryListEntrySchema>;

/** One entry of /alerts/top10/* and /alerts/topn/*; the group-by field is named by `group-by`. */
export const TopEntrySchema = z
  .object({
    count: z.number().int(),
    duplicateCount: z.number().int(),
    environments: z.array(z.string()),
    services: z.array(z.string()),
    resources: z.array(z.object({ id: z.string(), resource: z.string(), href: z.string() })),
    /** Ours: the earliest createTime among the group's alerts (the reports' "open since"). */
    firstCreateTime: z.string(),
  })
  .catchall(z.unknown());
export type TopEntry = z.infer<typeof TopEntrySchema>;

export const EnvironmentItemSchema = z.object({
  environment: z.string(),
  count: z.number().int(),
  ...AlertCountsShape,
});
export type EnvironmentItem = z.infer<typeof EnvironmentItemSchema>;
export const ServiceItemSchema = EnvironmentItemSchema.extend({ service: z.string() });
export type ServiceItem = z.infer<typeof ServiceItemSchema>;
export const GroupItemSchema = z.object({
  environment: z.string(),
  group: z.string(),
  count: z.number().int(),
});
export type GroupItem = z.infer<typeof GroupItemSchema>;
export const TagItemSchema = z.object({ environment: z.string(), tag: z.string(), count: z.number().int() });
export type TagItem = z.infer<typeof TagItemSchema>;

/** GET /_bulk/task/:id */
export const BulkTaskSchema = z.object({
  status: z.enum(['pending', 'started', 'success', 'failure']),
  id: z.string(),
  type: z.enum(['status', 'action', 'tag', 'untag', 'attributes', 'delete']),
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
  result: z
    .object({
      count: z.number().int(),
      updated: z.array(z.string()).optional(),
      deleted: z.array(z.string()).optional(),
      errors: z.array(z.string()),
    })
    .nullable(),
  createTime: IsoTimeSchema,
  updateTime: IsoTimeSchema,
});
export type BulkTask = z.infer<typeof BulkTaskSchema>;
