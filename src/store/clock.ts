import { clockRange, clockRangeText, type ClockState } from '../schemas/control.js';

/** The time a clock in `state` shows when the real time is `realMs`; NaN for a frozen instant that is no date. */
export function clockShows(state: ClockState, realMs: number): number {
  switch (state.mode) {
    case 'frozen':
      return Date.parse(state.at);
    case 'offset':
      return realMs + state.offsetMs;
    default:
      return realMs;
  }
}

/** A time as a date a person reads, also past JavaScript's own (±8.64e15 ms), which no Date can show. */
function dateText(ms: number): string {
  const at = new Date(ms);
  if (!Number.isNaN(at.getTime())) return at.toISOString();
  return ms > 0 ? 'a time after +275760-09-13T00:00:00.000Z' : 'a time before -271821-04-20T00:00:00.000Z';
}

/** Why a clock in `state` cannot be kept (it would show no time in clockRange now), or null when it can. */
export function clockProblem(state: ClockState, realMs = Date.now()): string | null {
  const shows = clockShows(state, realMs);
  if (!Number.isFinite(shows)) return `it shows no valid time (${JSON.stringify(state).slice(0, 120)})`;
  if (shows < clockRange.minMs || shows > clockRange.maxMs) {
    return `it would show ${dateText(shows)}, outside ${clockRangeText}`;
  }
  return null;
}

/** A change asked of a clock (PUT /__admin/clock): exactly one of these. */
export type ClockChange = { freeze?: string; offsetMs?: number; advanceMs?: number; mode?: 'real' };

/**
 * The state a clock in `current` goes to under `change`, or the problem with the body field that asked for it: the
 * result must show a time in clockRange (checked before anything is stored, so a refused change keeps the clock).
 */
export function nextClockState(
  current: ClockState,
  change: ClockChange,
  realMs = Date.now(),
): { state: ClockState } | { field: string; problem: string } {
  let state: ClockState;
  let field: string;
  if (change.freeze !== undefined) {
    field = 'freeze';
    const ms = Date.parse(change.freeze);
    // a leap second (":60") passes the date-time format but is no instant JavaScript knows
    if (!Number.isFinite(ms)) return { field, problem: `"${change.freeze.slice(0, 40)}" is no instant` };
    if (ms < clockRange.minMs || ms > clockRange.maxMs)
      return { field, problem: `${change.freeze.slice(0, 40)} is outside ${clockRangeText}` };
    state = { mode: 'frozen', at: new Date(ms).toISOString() };
  } else if (change.offsetMs !== undefined) {
    field = 'offsetMs';
    state = { mode: 'offset', offsetMs: change.offsetMs };
  } else if (change.advanceMs !== undefined) {
    field = 'advanceMs';
    const advance = change.advanceMs;
    if (current.mode === 'frozen') {
      const ms = Date.parse(current.at) + advance;
      if (!(ms >= clockRange.minMs && ms <= clockRange.maxMs))
        return { field, problem: `the frozen clock would show ${dateText(ms)}, outside ${clockRangeText}` };
      state = { mode: 'frozen', at: new Date(ms).toISOString() };
    } else state = { mode: 'offset', offsetMs: (current.mode === 'offset' ? current.offsetMs : 0) + advance };
  } else {
    return { state: { mode: 'real' } };
  }
  const problem = clockProblem(state, realMs);
  return problem ? { field, problem } : { state };
}

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
    return clockShows(this.current, Date.now());
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
