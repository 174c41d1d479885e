import type { ClockState } from '../schemas/control.js';

/** A sandbox's time: real, frozen at an instant, or real shifted by an offset. */
export class Clock {
  private current: ClockState;
  /** told of every change of the state: the sandbox persists it under --data */
  onChange: (() => void) | null = null;
  constructor(state: ClockState) {
    this.current = state;
  }
  get state(): ClockState {
    return this.current;
  }
  set state(next: ClockState) {
    const changed = JSON.stringify(next) !== JSON.stringify(this.current);
    this.current = next;
    if (changed) this.onChange?.();
  }
  // the last ISO text made, by its millisecond: under load many requests share one (toISOString is not cheap)
  private isoAt = Number.NaN;
  private isoText = '';
  get mode(): ClockState['mode'] {
    return this.current.mode;
  }
  nowMs(): number {
    const state = this.current;
    switch (state.mode) {
      case 'frozen':
        return Date.parse(state.at);
      case 'offset':
        return Date.now() + state.offsetMs;
      default:
        return Date.now();
    }
  }
  now(): Date {
    return new Date(this.nowMs());
  }
  iso(): string {
    const ms = this.nowMs();
    if (ms !== this.isoAt) {
      this.isoText = new Date(ms).toISOString();
      this.isoAt = ms;
    }
    return this.isoText;
  }
}

/** Midnight UTC of the day of `at`: the reference date seeding uses when no --now is given. */
export const startOfDayUtc = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
