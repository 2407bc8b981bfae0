import { z } from 'zod';
import { appError } from '../errors.ts';
import { checkJsonValue } from '../http/middleware/body.ts';
import { applyChatAction, capitalize, chatAlert, isChatAction, isWatchAction } from './chat-actions.ts';
import { firstOf, parsePayload, shortId } from './payload.ts';
import type { Webhook } from './types.ts';

const AttachmentSchema = z.object({ actions: z.array(z.record(z.string(), z.unknown())).nullish() }).loose();

/** What Slack posts when a message button is pressed (form field `payload`, JSON). */
const InteractionSchema = z.object({
  user: z.object({ name: z.string().min(1, 'must not be empty') }),
  // Any non-empty id: one that names no alert is 404 `alert not found for #slack message`.
  callback_id: z.string().min(1, 'must not be empty'),
  // The pressed button is actions[0]; any others are not read.
  actions: firstOf(z.object({ value: z.string().min(1, 'must not be empty') })).refine(
    (list) => list[0] !== undefined,
    'must not be empty',
  ),
  original_message: z
    .object({ attachments: z.array(AttachmentSchema).nullish() })
    .loose()
    .nullish(),
});
type Interaction = z.infer<typeof InteractionSchema>;

/** The interaction: form field `payload` holding JSON (or, from a JSON body, the object itself). */
function interactionOf(payload: unknown): unknown {
  if (payload === null || typeof payload !== 'object' || !('payload' in payload))
    throw appError('invalid_payload', 'Slack', 'form field payload is missing');
  const inner = (payload as { payload: unknown }).payload;
  if (typeof inner !== 'string') return inner;
  let parsed: unknown;
  try {
    parsed = JSON.parse(inner);
  } catch {
    throw appError('invalid_payload', 'Slack', 'form field payload is not JSON');
  }
  const problem = checkJsonValue(parsed);
  if (problem) throw appError('invalid_payload', 'Slack', problem);
  return parsed;
}

const NEXT_WATCH_ACTION: Record<string, string> = { watch: 'unwatch', unwatch: 'watch' };

/**
 * Slack replaces the message with the response: after a status action the buttons go and a line
 * says the new status; after watch/unwatch the pressed button flips to the other one.
 */
function updatedMessage(interaction: Interaction, action: string, text: string, link: string) {
  const message = structuredClone(interaction.original_message ?? {});
  const attachments = message.attachments ?? [];
  for (const attachment of attachments) {
    if (!isWatchAction(action)) {
      delete attachment.actions;
      continue;
    }
    const next = NEXT_WATCH_ACTION[action]!;
    for (const button of attachment.actions ?? []) {
      if (button.value === action) Object.assign(button, { name: next, value: next, text: capitalize(next) });
    }
  }
  attachments.push({
    fallback: text,
    pretext: 'Action done!',
    color: '#808080',
    title: text,
    title_link: link,
  });
  return { ...message, attachments };
}

/** Slack interactive message buttons: open, ack, close, watch, unwatch on the alert (reference §4). */
export const slack: Webhook = {
  name: 'slack',
  async incoming({ payload }, ctx) {
    const interaction = parsePayload(InteractionSchema, interactionOf(payload), 'Slack');
    const user = interaction.user.name;
    const action = interaction.actions[0]!.value;
    if (!isChatAction(action)) throw appError('slack_unsupported_action');
    const alert = await chatAlert(ctx, interaction.callback_id, '#slack');
    const updated = await applyChatAction(ctx, alert, action, user, `status change via #slack by ${user}`);
    const text = isWatchAction(action)
      ? `User ${user} is ${action}ing alert ${shortId(updated.id)}`
      : `The status of alert ${shortId(updated.id)} is ${capitalize(updated.status)} now!`;
    const link = `${ctx.caller.baseUrl}/alert/${updated.id}`;
    return { reply: { status: 201, body: updatedMessage(interaction, action, text, link) } };
  },
};
