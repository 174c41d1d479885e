import type { ClockState } from '../schemas/admin.js';

/** A sandbox's time: real, frozen at an instant, or real shifted by an offset. */
export class Clock {
  state: ClockState;
  constructor(state: ClockState) {
    this.state = state;
  }
  // the last ISO text made, by its millisecond: under load many requests share one (toISOString is not cheap)
  private isoAt = Number.NaN;
  private isoText = '';
  get mode(): ClockState['mode'] {
    return this.state.mode;
  }
  nowMs(): number {
    switch (this.state.mode) {
      case 'frozen': return Date.parse(this.state.at);
      case 'offset': return Date.now() + this.state.offsetMs;
      default: return Date.now();
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
