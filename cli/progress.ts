/** A progress bar on stderr, drawn only when stderr is a terminal (so pipes and logs stay clean). */

const BAR = 36;

const clock = (ms: number) => {
  const s = Math.max(0, Math.round(ms / 1000));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  return `${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
};

/** One frame: `label  [#####-----]   50%  1000/2000  eta 00:00:03`. */
export function renderBar(label: string, done: number, total: number, elapsedMs: number): string {
  const ratio = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(ratio * BAR);
  const eta = done > 0 && done < total ? `  eta ${clock((elapsedMs / done) * (total - done))}` : '';
  const pct = `${Math.floor(ratio * 100)}%`.padStart(4);
  return `${label}  [${'#'.repeat(filled)}${'-'.repeat(BAR - filled)}]  ${pct}  ${done}/${total}${eta}`;
}

export class Progress {
  private readonly label: string;
  private readonly stream: NodeJS.WriteStream;
  /** Whether the bar is drawn (stderr is a terminal). */
  readonly drawn: boolean;
  private readonly started = Date.now();
  private drawnAt = 0;
  private done = 0;
  private total: number;

  constructor(label: string, total: number, stream: NodeJS.WriteStream = process.stderr) {
    this.label = label;
    this.total = total;
    this.stream = stream;
    this.drawn = Boolean(stream.isTTY) && process.env.TERM !== 'dumb';
  }

  update(done: number, total = this.total): void {
    this.done = done;
    this.total = total;
    // A redraw per 100 ms is smooth enough and keeps a fast loop from flooding the terminal.
    if (Date.now() - this.drawnAt >= 100) this.draw();
  }

  tick(n = 1): void {
    this.update(this.done + n);
  }

  finish(): void {
    if (!this.drawn) return;
    this.draw();
    this.stream.write('\n');
  }

  private draw(): void {
    if (!this.drawn) return;
    this.drawnAt = Date.now();
    const text = renderBar(this.label, this.done, this.total, Date.now() - this.started);
    this.stream.write(`\r\x1b[2K${text.slice(0, (this.stream.columns || 120) - 1)}`);
  }
}
