import { z } from 'zod';

/** Every error the API answers with has this body. */
export const ErrorBodySchema = z.object({
  status: z.literal('error'),
  message: z.string(),
  code: z.number().int(),
  errors: z.array(z.string()).nullish(),
  requestId: z.string().optional(),
  /** The server's stable code for the error (docs/errors.md); older servers do not send it. */
  errorCode: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
