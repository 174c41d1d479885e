import type { OutboxMessage } from '../schemas/admin.js';

const limit = 500;

/** What the mock "sent" (e-mails with codes, pushes), bounded: oldest dropped first. */
export class Outbox {
  private messages: OutboxMessage[] = [];
  private nextId = 1;
  add(message: Omit<OutboxMessage, 'id'>): OutboxMessage {
    const full = { id: this.nextId++, ...message };
    this.messages.push(full);
    if (this.messages.length > limit) this.messages.shift();
    return full;
  }
  list(): OutboxMessage[] {
    return this.messages;
  }
  clear(): void {
    this.messages = [];
  }
}
