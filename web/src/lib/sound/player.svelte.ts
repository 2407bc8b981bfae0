/**
 * Sound for screens that opted in (wall-display.md §4): one tone per severity, synthesised with
 * WebAudio so no file has to load, or the `/config audio.new` file when the server names one.
 * Browsers block audio until a user gesture: `state` says so, and `unlock()` (called from a click)
 * lifts it.
 */
export type SoundState = 'off' | 'on' | 'muted' | 'blocked' | 'unavailable';

export interface Tone {
  frequency: number;
  wave: OscillatorType;
  beeps: number;
}

/** More severe sounds higher, harsher and longer, so the severity is heard without looking. */
const TONES: Record<string, Tone> = {
  security: { frequency: 1175, wave: 'square', beeps: 4 },
  critical: { frequency: 988, wave: 'square', beeps: 3 },
  major: { frequency: 784, wave: 'sawtooth', beeps: 2 },
  minor: { frequency: 659, wave: 'triangle', beeps: 2 },
  warning: { frequency: 523, wave: 'sine', beeps: 1 },
};
const OTHER: Tone = { frequency: 392, wave: 'sine', beeps: 1 };

export const toneFor = (severity: string): Tone => TONES[severity] ?? OTHER;

/** Where a mute's end is kept, so a reload does not cut a snooze short. */
const MUTED_UNTIL = 'alertwall.sound-muted-until';

export class SoundPlayer {
  state = $state<SoundState>('off');
  /** Sounds actually played, and the severity of the last one (also a test hook: data attributes). */
  played = $state(0);
  last = $state<string | null>(null);
  /** When a timed mute ends (epoch ms); null with `state` muted means muted until unmuted. */
  mutedUntil = $state<number | null>(null);

  private context: AudioContext | null = null;
  private file: string | null = null;
  private muted = false;
  private unmuteTimer: ReturnType<typeof setTimeout> | null = null;

  /** Prepares audio; `muted` starts silenced (the user's `isMute`). Call once, without a gesture. */
  enable(options: { file?: string | null; muted?: boolean } = {}): void {
    this.file = options.file ?? null;
    this.muted = options.muted ?? false;
    try {
      this.context = new AudioContext();
    } catch {
      this.state = 'unavailable';
      return;
    }
    this.context.onstatechange = () => this.refresh();
    const until = Number(localStorage.getItem(MUTED_UNTIL) ?? 0);
    if (until > Date.now()) this.muteUntil(until);
    this.refresh();
  }

  private refresh(): void {
    if (!this.context) return;
    if (this.muted) this.state = 'muted';
    else this.state = this.context.state === 'running' ? 'on' : 'blocked';
  }

  /** Lifts the browser's block; must run inside a user gesture (click, key). */
  async unlock(): Promise<void> {
    if (!this.context || this.context.state === 'running') return;
    await this.context.resume().catch(() => undefined);
    this.refresh();
  }

  play(severity: string): void {
    if (this.state !== 'on' || !this.context) return;
    if (this.file) {
      const audio = new Audio(this.file);
      // A rejected play() is the browser's autoplay block (or a bad file): say so, do not throw.
      audio.play().catch(() => (this.state = 'blocked'));
    } else {
      this.beep(this.context, toneFor(severity));
    }
    this.played++;
    this.last = severity;
  }

  private beep(context: AudioContext, tone: Tone): void {
    const start = context.currentTime + 0.02;
    for (let i = 0; i < tone.beeps; i++) {
      const at = start + i * 0.25;
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.type = tone.wave;
      oscillator.frequency.value = tone.frequency;
      // A short ramp in and out: an abrupt start or stop clicks.
      gain.gain.setValueAtTime(0, at);
      gain.gain.linearRampToValueAtTime(0.25, at + 0.01);
      gain.gain.linearRampToValueAtTime(0, at + 0.18);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(at);
      oscillator.stop(at + 0.2);
    }
  }

  /** Silences the screen for `minutes`, then sound comes back by itself. */
  mute(minutes: number): void {
    const until = Date.now() + minutes * 60_000;
    localStorage.setItem(MUTED_UNTIL, String(until));
    this.muteUntil(until);
  }

  private muteUntil(until: number): void {
    this.muted = true;
    this.mutedUntil = until;
    if (this.unmuteTimer) clearTimeout(this.unmuteTimer);
    this.unmuteTimer = setTimeout(() => this.unmute(), until - Date.now());
    this.refresh();
  }

  unmute(): void {
    this.muted = false;
    this.mutedUntil = null;
    localStorage.removeItem(MUTED_UNTIL);
    if (this.unmuteTimer) clearTimeout(this.unmuteTimer);
    this.unmuteTimer = null;
    this.refresh();
  }

  stop(): void {
    if (this.unmuteTimer) clearTimeout(this.unmuteTimer);
    void this.context?.close().catch(() => undefined);
    this.context = null;
  }
}
