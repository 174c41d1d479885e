import type { TSchema } from '@sinclair/typebox';
import { commonSchemas } from './common.js';
import { mobileSchemas } from './mobile.js';
import { dashboardWidgetSchemas } from './dashboard-widget.js';
import { workflowSchemas } from './workflow.js';
import { peopleSchemas } from './people.js';
import { contentSchemas } from './content.js';
import { calendarSchemas } from './calendar.js';
import { ideaSchemas } from './ideas.js';
import { feedbackSchemas } from './feedback.js';
import { fileSchemas } from './files.js';
import { adminApiSchemas } from './admin-api.js';
import { storedRecords } from './stored-records.js';
import {
  ClockState,
  Finding,
  FixturesAnswer,
  Har,
  JournalEntry,
  OutboxMessage,
  SandboxInfo,
  Snapshot,
} from './control.js';

/** Every shared record with a $id, registered once with app.addSchema: named components in the OpenAPI document. */
export const sharedSchemas: TSchema[] = [
  ...commonSchemas,
  ...mobileSchemas,
  ...dashboardWidgetSchemas,
  ...workflowSchemas,
  ...peopleSchemas,
  ...contentSchemas,
  ...calendarSchemas,
  ...ideaSchemas,
  ...feedbackSchemas,
  ...fileSchemas,
  ...adminApiSchemas,
  // admin side
  ...storedRecords.map((r) => r.schema),
  ClockState,
  JournalEntry,
  OutboxMessage,
  FixturesAnswer,
  SandboxInfo,
  Snapshot,
  Har,
  Finding,
];
