// The scenarios the package ships (the files of /scenarios), for the typed client: an editor suggests them, and
// `string & {}` keeps a custom scenario's name (--scenarios DIR) compiling. test/control/client-types.test.ts checks the
// list against the files on disk, so a scenario added or removed there fails until it is added or removed here.
export const shippedScenarioNames = [
  'captive-portal',
  'default',
  'expired-session',
  'flaky',
  'hold-tickets',
  'lost-answers',
  'new-employee',
  'no-rights',
  'offline',
  'server-errors',
  'slow-3g',
  'slow-network',
  'two-factor-required',
  'unread-notifications',
  'wallet-disabled',
] as const;
export type ShippedScenarioName = (typeof shippedScenarioNames)[number];
// `string & {}`: any string compiles, yet an editor still suggests the shipped names
export type ScenarioName = ShippedScenarioName | (string & {});
