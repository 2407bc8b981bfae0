import type { LiveAlert } from '../../../../shared/alerts.ts';
import { deservesSound, stillCalling, type SoundPlan } from './rules.ts';

/** What plays the sounds: the SoundPlayer, or a fake in tests. */
export interface Speaker {
  play(severity: string): void;
}

export interface AlertSoundsOptions {
  plan: SoundPlan;
  /** Severity names, most severe first (the alarm model's order). */
  order: string[];
  /** Repeat every N seconds while a sounded alert stays open in the view; 0 plays once. */
  repeatSeconds: number;
  /** The view's current state of an alert, for the repeat check. */
  lookup: (id: string) => LiveAlert | undefined;
}

/**
 * Decides when pushed alerts sound (wall-display.md §4): once per genuinely new or re-opened alert
 * of a chosen severity, or repeated until it is acknowledged or leaves the view. Alerts arriving
 * together sound once, with the tone of the most severe of them.
 */
export class AlertSounds {
  private readonly speaker: Speaker;
  private readonly options: AlertSoundsOptions;
  private readonly calling = new Set<string>();
  private repeatTimer: ReturnType<typeof setInterval> | null = null;
  private queued: string | null = null;

  constructor(speaker: Speaker, options: AlertSoundsOptions) {
    this.speaker = speaker;
    this.options = options;
  }

  /** One pushed alert with its previous state in the view (LiveAlerts.onAlert). */
  heard(alert: LiveAlert, previous: LiveAlert | undefined, viewComplete: boolean): void {
    const { plan, repeatSeconds } = this.options;
    if (!plan.severities.has(alert.severity) || !deservesSound(alert, previous, viewComplete)) return;
    this.request(alert.severity);
    if (repeatSeconds > 0) {
      this.calling.add(alert.id);
      this.repeatTimer ??= setInterval(() => this.repeat(), repeatSeconds * 1000);
    }
  }

  private rank(severity: string): number {
    const i = this.options.order.indexOf(severity);
    return i < 0 ? this.options.order.length : i;
  }

  private request(severity: string): void {
    if (this.queued !== null) {
      if (this.rank(severity) < this.rank(this.queued)) this.queued = severity;
      return;
    }
    this.queued = severity;
    queueMicrotask(() => {
      const worst = this.queued;
      this.queued = null;
      if (worst !== null) this.speaker.play(worst);
    });
  }

  private repeat(): void {
    let worst: string | null = null;
    for (const id of this.calling) {
      const alert = this.options.lookup(id);
      if (!stillCalling(alert, this.options.plan.severities)) this.calling.delete(id);
      else if (worst === null || this.rank(alert!.severity) < this.rank(worst)) worst = alert!.severity;
    }
    if (worst !== null) this.speaker.play(worst);
    else this.stopRepeating();
  }

  private stopRepeating(): void {
    if (this.repeatTimer) clearInterval(this.repeatTimer);
    this.repeatTimer = null;
  }

  stop(): void {
    this.stopRepeating();
    this.calling.clear();
  }
}
