import type { OutboxMessage } from '../schemas/admin.js';


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
