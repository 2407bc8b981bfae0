import { Router } from '../router.ts';
import { z } from 'zod';
import {
  ActionSchema,
  AlertIdSchema,
  AlertInputSchema,
  AttributesChangeSchema,
  NoteInputSchema,
  StatusChangeSchema,
  TagsSchema,
} from '../../../shared/alerts.ts';
import type { Deps } from '../../deps.ts';
import * as alerts from '../../domain/alerts.ts';
import { addNote, deleteNote, listNotes, updateNote } from '../../domain/notes.ts';
import { AppError, appError } from '../../errors.ts';
import { presentNote } from '../../present.ts';
import { httpCaller } from '../caller.ts';
import { timed } from '../timed.ts';
import { requireScope } from '../middleware/require-scope.ts';
import { answerCreated, bodyObject } from '../body.ts';

const IdParamsSchema = z.object({ id: AlertIdSchema });
const NoteParamsSchema = z.object({ id: AlertIdSchema, note_id: z.string().max(128) });

/** Alert intake and every per-alert operation (spec "Alerts"; docs/alerts.md). */
export function alertRoutes(deps: Deps): Router {
  const router = new Router();

  /** POST /alert */
  router.post('/alert', requireScope(deps, 'write:alerts'), timed(deps, 'received'), async (ctx) => {
    const input = AlertInputSchema.parse(bodyObject(ctx));
    let outcome;
    try {
      outcome = await deps.receiver.receiveAlert(input, httpCaller(ctx, deps));
    } catch (err) {
      if (err instanceof AppError && err.status === 403) deps.metrics.app.count('rejected');
      if (err instanceof AppError && err.status === 429) deps.metrics.app.count('ratelimited');
      throw err;
    }
    if (outcome.kind === 'signal') {
      if (outcome.status === 202) deps.metrics.app.count('blackout');
      ctx.status = outcome.status;
      ctx.body = outcome.body;
      return;
    }
    ctx.status = 201;
    ctx.body = { status: 'ok', id: outcome.alert.id, alert: outcome.alert };
  });

  /** GET /alert/:id */
  router.get('/alert/:id', requireScope(deps, 'read:alerts'), timed(deps, 'queries'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const alert = await alerts.getAlert(deps, id, httpCaller(ctx, deps));
    ctx.body = { status: 'ok', total: 1, alert };
  });

  /** PUT /alert/:id/status */
  router.put('/alert/:id/status', requireScope(deps, 'write:alerts'), timed(deps, 'status'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    await alerts.setAlertStatus(deps, id, StatusChangeSchema.parse(bodyObject(ctx)), httpCaller(ctx, deps));
    ctx.body = { status: 'ok' };
  });

  /** PUT /alert/:id/action */
  router.put('/alert/:id/action', requireScope(deps, 'write:alerts'), timed(deps, 'status'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    await alerts.takeAlertAction(deps, id, ActionSchema.parse(bodyObject(ctx)), httpCaller(ctx, deps));
    ctx.body = { status: 'ok' };
  });

  /** PUT /alert/:id/tag */
  router.put('/alert/:id/tag', requireScope(deps, 'write:alerts'), timed(deps, 'tagged'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const { tags } = TagsSchema.parse(bodyObject(ctx));
    await alerts.tagAlert(deps, id, tags, false, httpCaller(ctx, deps));
    ctx.body = { status: 'ok' };
  });

  /** PUT /alert/:id/untag */
  router.put('/alert/:id/untag', requireScope(deps, 'write:alerts'), timed(deps, 'untagged'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const { tags } = TagsSchema.parse(bodyObject(ctx));
    await alerts.tagAlert(deps, id, tags, true, httpCaller(ctx, deps));
    ctx.body = { status: 'ok' };
  });

  /** PUT /alert/:id/attributes */
  router.put(
    '/alert/:id/attributes',
    requireScope(deps, 'write:alerts'),
    timed(deps, 'attributes'),
    async (ctx) => {
      const { id } = IdParamsSchema.parse(ctx.params);
      const { attributes } = AttributesChangeSchema.parse(bodyObject(ctx));
      await alerts.updateAttributes(deps, id, attributes, httpCaller(ctx, deps));
      ctx.body = { status: 'ok' };
    },
  );

  /** PUT /alert/:id/note */
  router.put('/alert/:id/note', requireScope(deps, 'write:alerts'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const caller = httpCaller(ctx, deps);
    const note = await addNote(deps, id, NoteInputSchema.parse(bodyObject(ctx)), caller);
    answerCreated(ctx, `${caller.baseUrl}/alert/${note.alert}/note/${note.id}`, {
      status: 'ok',
      id: note.id,
      note: presentNote(note, caller.baseUrl),
    });
  });

  /** GET /alert/:id/notes */
  router.get('/alert/:id/notes', requireScope(deps, 'read:alerts'), timed(deps, 'queries'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const caller = httpCaller(ctx, deps);
    const notes = (await listNotes(deps, id, caller)).map((n) => presentNote(n, caller.baseUrl));
    ctx.body = notes.length
      ? { status: 'ok', notes, total: notes.length }
      : { status: 'ok', message: 'not found', notes, total: 0 };
  });

  /** PUT /alert/:id/note/:note_id */
  router.put('/alert/:id/note/:note_id', requireScope(deps, 'write:alerts'), async (ctx) => {
    const { id, note_id } = NoteParamsSchema.parse(ctx.params);
    const body = bodyObject(ctx);
    if (Object.keys(body as object).length === 0) throw appError('nothing_to_change');
    const caller = httpCaller(ctx, deps);
    const note = await updateNote(deps, id, note_id, NoteInputSchema.parse(body), caller);
    ctx.body = { status: 'ok', note: presentNote(note, caller.baseUrl) };
  });

  /** DELETE /alert/:id/note/:note_id */
  router.delete('/alert/:id/note/:note_id', requireScope(deps, 'write:alerts'), async (ctx) => {
    const { id, note_id } = NoteParamsSchema.parse(ctx.params);
    await deleteNote(deps, id, note_id, httpCaller(ctx, deps));
    ctx.body = { status: 'ok' };
  });

  /** DELETE /alert/:id */
  router.delete('/alert/:id', requireScope(deps, 'delete:alerts'), timed(deps, 'deleted'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    await alerts.deleteAlert(deps, id, httpCaller(ctx, deps));
    ctx.body = { status: 'ok' };
  });

  return router;
}
