import type { TSchema } from '@sinclair/typebox';
import { commonSchemas } from './common.js';
import { mobileSchemas } from './mobile.js';
import { dashboardWidgetSchemas } from './dashboard-widget.js';
import { adminApiSchemas } from './admin-api.js';

/** Every shared record with a $id, registered once with app.addSchema: named components in the OpenAPI document. */
export const sharedSchemas: TSchema[] = [...commonSchemas, ...mobileSchemas, ...dashboardWidgetSchemas];
sharedSchemas.push(...adminApiSchemas);
