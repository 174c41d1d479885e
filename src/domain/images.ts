import type { DomainContext } from './context.js';
import type { Tenant } from '../store/store.js';

/**
 * The label an image shows initials of, per kind of image address; undefined when the id is not a record of the tenant.
 */
const labels = {
  avatar: (t: Tenant, id: string) => t.users.find((x) => x.id === id)?.name,
  tenant: (t: Tenant, id: string) => (t.tenant.id === id ? t.tenant.name : undefined),
  'user-group': (t: Tenant, id: string) => t.userGroups.find((x) => x.id === id)?.name,
  workflow: (t: Tenant, id: string) => t.wfProcesses.find((x) => x.id === id)?.name,
  'workflow-category': (t: Tenant, id: string) => t.wfCategories.find((x) => x.id === id)?.name,
  article: (t: Tenant, id: string) => t.articles.find((x) => x.id === id)?.title,
  postcard: (t: Tenant, id: string) => t.postcards.find((x) => x.id === id)?.title,
  course: (t: Tenant, id: string) => t.learningCourses.find((x) => x.id === id)?.title,
  achievement: (t: Tenant, id: string) => t.achievements.find((x) => x.id === id)?.title,
  contest: (t: Tenant, id: string) => t.contests.find((x) => x.id === id)?.title,
  book: (t: Tenant, id: string) => t.libraryBooks.find((x) => x.id === id)?.title,
} satisfies Record<string, (tenant: Tenant, id: string) => string | undefined>;
export type ImageKindName = keyof typeof labels;

/**
 * The label of the record an image address names, looked up in every tenant of the sandbox (an image is fetched
 * without a session, so without a tenant), and the seed its colours derive from; null when no record has that id.
 */
export function imageSubject(
  ctx: DomainContext,
  kind: ImageKindName,
  id: string,
): { label: string; seed: number } | null {
  for (const tenant of ctx.store.tenants()) {
    const found = labels[kind](tenant, id);
    if (found !== undefined) return { label: found, seed: ctx.store.meta.seed };
  }
  return null;
}
