import { Type, type Static } from '@sinclair/typebox';

export const ClockState = Type.Union([
  Type.Object({ mode: Type.Literal('real') }),
  Type.Object({ mode: Type.Literal('frozen'), at: Type.String({ format: 'date-time' }) }),
  Type.Object({ mode: Type.Literal('offset'), offsetMs: Type.Integer() }),
], { $id: 'ClockState' });
export type ClockState = Static<typeof ClockState>;

/** A sandbox's time: real, frozen at an instant, or real shifted by an offset. */
export class Clock {
  state: ClockState;
  constructor(state: ClockState = { mode: 'real' }) {
    this.state = state;
  }
  now(): Date {
    switch (this.state.mode) {
      case 'frozen': return new Date(this.state.at);
      case 'offset': return new Date(Date.now() + this.state.offsetMs);
      default: return new Date();
    }
  }
  iso(): string {
    return this.now().toISOString();
  }
}

/** Midnight UTC of the day of `at`: the reference date seeding uses when no --now is given. */
export const startOfDayUtc = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
