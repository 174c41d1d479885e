// Dashboard widgets built by other API groups. They are wired at integration, when those groups land:
// until then each answers null ("unavailable to the current user", which the API description allows).
import type { DashboardWidget } from '../schemas/dashboard-widget.js';
import type { UserRecord } from '../schemas/records.js';
import type { TenantData } from '../store/data.js';
import type { DomainContext } from './context.js';

export type ExternalWidget = (ctx: DomainContext, tenant: TenantData, user: UserRecord) => DashboardWidget | null;

/** myPostcards: received postcards (content group). Wired at integration. */
export const myPostcardsWidget: ExternalWidget = (_ctx, _tenant, _user) => null;

/** updNews: new news (content group). Wired at integration. */
export const updNewsWidget: ExternalWidget = (_ctx, _tenant, _user) => null;

/** updIdeas: new ideas (ideas group). Wired at integration. */
export const updIdeasWidget: ExternalWidget = (_ctx, _tenant, _user) => null;
