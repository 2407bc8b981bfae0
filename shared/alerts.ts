import { z } from 'zod';

/** An ISO 8601 UTC time with milliseconds, as every API datetime is written. */
export const IsoTimeSchema = z.iso.datetime({ offset: false, precision: 3 });

export const HistoryEntrySchema = z.object({
  id: z.string(),
  href: z.string().optional(),
  event: z.string(),
  severity: z.string().nullable(),
  status: z.string().nullable(),
  value: z.string().nullable(),
  text: z.string(),
  type: z.string(),
  updateTime: IsoTimeSchema,
  user: z.string().nullable().optional(),
  timeout: z.number().int().nullable().optional(),
});
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;

/** An alert as the API returns it. */
export const AlertSchema = z.object({
  id: z.string(),
  href: z.string(),
  resource: z.string(),
  event: z.string(),
  environment: z.string(),
  severity: z.string(),
  correlate: z.array(z.string()),
  status: z.string(),
  service: z.array(z.string()),
  group: z.string(),
  value: z.string(),
  text: z.string(),
  tags: z.array(z.string()),
  attributes: z.record(z.string(), z.unknown()),
  origin: z.string(),
  type: z.string(),
  createTime: IsoTimeSchema,
  timeout: z.number().int().nullable(),
  rawData: z.string().nullable(),
  customer: z.string().nullable(),
  duplicateCount: z.number().int(),
  repeat: z.boolean(),
  previousSeverity: z.string(),
  trendIndication: z.string(),
  receiveTime: IsoTimeSchema,
  lastReceiveId: z.string(),
  lastReceiveTime: IsoTimeSchema,
  updateTime: IsoTimeSchema,
  history: z.array(HistoryEntrySchema),
});
export type Alert = z.infer<typeof AlertSchema>;

/** What travels on the bus and the socket: small, without rawData and history. */
export const LiveAlertSchema = AlertSchema.omit({ rawData: true, history: true });
export type LiveAlert = z.infer<typeof LiveAlertSchema>;
