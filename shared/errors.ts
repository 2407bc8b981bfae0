import { z } from 'zod';

/** Every error the API answers with has this body. */
export const ErrorBodySchema = z.object({
  status: z.literal('error'),
  message: z.string(),
  code: z.number().int(),
  errors: z.array(z.string()).nullish(),
  requestId: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
