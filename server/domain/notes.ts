import { randomUUID } from 'node:crypto';
import * as alertsDb from '../db/alerts.ts';
import * as notesDb from '../db/notes.ts';
import type { Deps } from '../deps.ts';
import { appError } from '../errors.ts';
import { changeAlert } from './alerts.ts';
import type { AlertRecord, HistoryRecord } from './alert-types.ts';
import type { Caller } from './caller.ts';

/** PUT /alert/:id/note: a note record and a `note` history entry. */
export async function addNote(deps: Deps, id: string, text: string, caller: Caller) {
  let noteId = '';
  await changeAlert(deps, id, caller, async (tx, record) => {
    const hooked = await deps.plugins.takeNote(record, text, caller);
    const now = deps.clock.now();
    const note = await notesDb.insertNote(tx, {
      id: randomUUID(),
      text: hooked.text,
      user: caller.user,
      attributes: {
        resource: record.resource,
        event: record.event,
        environment: record.environment,
        severity: record.severity,
        status: record.status,
      },
      createTime: now,
      alert: record.id,
      customer: record.customer,
    });
    noteId = note.id;
    return alertsDb.applyPatch(
      tx,
      record.id,
      {},
      [noteEntry(record, note.id, hooked.text, 'note', caller, now)],
      deps.config.HISTORY_LIMIT,
    );
  });
  const note = await notesDb.findNote(deps.db, noteId);
  if (!note) throw appError('note_not_found');
  return note;
}

function noteEntry(
  record: AlertRecord,
  noteId: string,
  text: string,
  type: string,
  caller: Caller,
  now: number,
): HistoryRecord {
  return {
    id: noteId,
    event: record.event,
    severity: record.severity,
    status: record.status,
    value: record.value,
    text,
    type,
    updateTime: now,
    user: caller.user,
    timeout: null,
  };
}

/** GET /alert/:id/notes, oldest first. */
export async function listNotes(deps: Deps, id: string, caller: Caller) {
  const record = await alertsDb.findById(deps.db, id, { customers: caller.customers });
  if (!record) throw appError('alert_not_found');
  return notesDb.notesOf(deps.db, record.id);
}

/** PUT /alert/:id/note/:note_id */
export async function updateNote(deps: Deps, id: string, noteId: string, text: string, caller: Caller) {
  const record = await alertsDb.findById(deps.db, id, { customers: caller.customers });
  if (!record) throw appError('alert_not_found');
  const hooked = await deps.plugins.takeNote(record, text, caller);
  const note = await notesDb.updateNote(deps.db, record.id, noteId, hooked.text, deps.clock.now());
  if (!note) throw appError('note_not_found');
  return note;
}

/** DELETE /alert/:id/note/:note_id: removes the note and adds a `dismiss` history entry. */
export async function deleteNote(deps: Deps, id: string, noteId: string, caller: Caller): Promise<void> {
  await changeAlert(deps, id, caller, async (tx, record) => {
    if (!(await notesDb.deleteNote(tx, record.id, noteId))) throw appError('note_not_found');
    const entry = noteEntry(record, noteId, 'note dismissed', 'dismiss', caller, deps.clock.now());
    return alertsDb.applyPatch(tx, record.id, {}, [entry], deps.config.HISTORY_LIMIT);
  });
}
