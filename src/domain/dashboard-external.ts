// Dashboard widgets whose data belongs to other API groups: each group builds its own widget.
import type { DashboardWidget } from '../schemas/dashboard-widget.js';
import type { UserRecord } from '../schemas/records.js';
import type { Tenant } from '../store/store.js';
import type { DomainContext } from './context.js';
import { newsWidget, postcardsWidget } from './content.js';
import { ideasWidget } from './ideas.js';

export type ExternalWidget = (ctx: DomainContext, tenant: Tenant, user: UserRecord) => DashboardWidget | null;

/** myPostcards: received postcards (content group). */
export const myPostcardsWidget: ExternalWidget = postcardsWidget;

/** updNews: new news (content group). */
export const updNewsWidget: ExternalWidget = newsWidget;

/** updIdeas: new ideas (ideas group). */
export const updIdeasWidget: ExternalWidget = ideasWidget;
