import type { Scenario } from '../schemas/scenario.js';
import type { ScenarioEffects } from './context.js';
import { lifetimes } from './mobile.js';

/** No scenario, or one that changes nothing in the domain. */
export const noEffects: ScenarioEffects = {
  tenantOptions: {},
  twoFactor: null,
  sessionSeconds: lifetimes.sessionSeconds,
  ticketsHeld: false,
};

const built = new WeakMap<Scenario, ScenarioEffects>();

/** What a scenario changes in the domain, made once per scenario (a reload makes a new scenario object). */
export function effectsOf(scenario: Scenario | null): ScenarioEffects {
  if (!scenario) return noEffects;
  let effects = built.get(scenario);
  if (!effects) {
    effects = {
      tenantOptions: scenario.tenantOptions ?? {},
      twoFactor: scenario.twoFactor ?? null,
      sessionSeconds: scenario.sessions?.lifetimeSeconds ?? lifetimes.sessionSeconds,
      ticketsHeld: scenario.holdTickets === true,
    };
    built.set(scenario, effects);
  }
  return effects;
}
