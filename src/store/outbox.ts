import { Type, type Static } from '@sinclair/typebox';

export const OutboxMessage = Type.Object({
  id: Type.Integer({ description: 'increasing number within the sandbox' }),
  at: Type.String({ format: 'date-time', description: 'sandbox clock time of sending' }),
  kind: Type.Union([Type.Literal('two-factor-code'), Type.Literal('push')]),
  tenantId: Type.String(),
  userId: Type.String(),
  to: Type.String({ description: 'e-mail address for codes, push token for pushes' }),
  code: Type.Optional(Type.String({ description: 'the two-factor code' })),
  payload: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'push payload as the provider would receive it' })),
}, { $id: 'OutboxMessage' });
export type OutboxMessage = Static<typeof OutboxMessage>;

/** What the mock "sent" (e-mails with codes, pushes), bounded: oldest dropped first. */
export class Outbox {
  readonly limit: number;
  private messages: OutboxMessage[] = [];
  private nextId = 1;
  constructor(limit = 500) {
    this.limit = limit;
  }
  add(message: Omit<OutboxMessage, 'id'>): OutboxMessage {
    const full = { id: this.nextId++, ...message };
    this.messages.push(full);
    if (this.messages.length > this.limit) this.messages.splice(0, this.messages.length - this.limit);
    return full;
  }
  list(): OutboxMessage[] {
    return this.messages;
  }
  clear(): void {
    this.messages = [];
  }
}
