// Content: received postcards, news, the catalog of categories and articles; the postcard and news widgets.
import { fail } from '../errors.js';
import type {
  Article,
  ArticleRecord,
  CatalogAnswer,
  CatalogItem,
  ContentCategoryRecord,
  UserPostcard,
} from '../schemas/content.js';
import type { DashboardWidget } from '../schemas/dashboard-widget.js';
import type { UserRecord } from '../schemas/records.js';
import type { Tenant } from '../store/store.js';
import { absolute, type DomainContext, personBrief } from './context.js';
import { matchesText, pageOf, type Paged } from './lists.js';
import { compareStamp, groupedBy } from './grouped.js';
import { pageItem, widget } from './widgets.js';

const byRecipient = (p: Tenant['postcards'][number]) => p.recipientId;
const received = (tenant: Tenant, user: UserRecord) =>
  [...groupedBy(tenant.postcards, byRecipient, user.id)].sort((a, b) => compareStamp(b.sentAt, a.sentAt));

export function postcardUserView(ctx: DomainContext, tenant: Tenant, user: UserRecord, id: string): UserPostcard {
  // A postcard sent to someone else is "not found" too: its existence is not revealed.
  const p = tenant.postcards.find((x) => x.id === id && x.recipientId === user.id);
  if (!p) throw fail.notFound(`postcard ${id} not found among the postcards you received`);
  return {
    id: p.id,
    title: p.title,
    text: p.text,
    imageUrl: absolute(ctx, `/images/postcard/${p.id}.svg`),
    sender: personBrief(ctx, tenant, p.senderId),
    recipient: personBrief(ctx, tenant, p.recipientId),
    date: p.sentAt,
  };
}

export function toArticle(ctx: DomainContext, tenant: Tenant, a: ArticleRecord): Article {
  return {
    id: a.id,
    title: a.title,
    lead: a.lead,
    body: a.body,
    imageUrl: absolute(ctx, `/images/article/${a.id}.svg`),
    url: absolute(ctx, `/pages/article/${a.id}`),
    tags: a.tagIds
      .flatMap((id) => tenant.articleTags.filter((t) => t.id === id))
      .map((t) => ({ id: t.id, name: t.name })),
    author: personBrief(ctx, tenant, a.authorId),
    categoryId: a.categoryId,
    publishedAt: a.publishedAt,
    views: a.views,
    likes: a.likes,
    comments: a.comments,
  };
}

export const published = (ctx: DomainContext, a: ArticleRecord) => Date.parse(a.publishedAt) <= ctx.now.getTime();

/** Published news, newest first (news scheduled after the sandbox clock are not shown yet). */
export const newsOf = (ctx: DomainContext, tenant: Tenant) =>
  tenant.articles
    .filter((a) => a.kind === 'news' && published(ctx, a))
    .sort((a, b) => compareStamp(b.publishedAt, a.publishedAt));

export type NewsQuery = {
  tagIds?: string[] | undefined;
  page?: string | undefined;
  perPage?: string | undefined;
  url: string;
};

export function articleNews(ctx: DomainContext, tenant: Tenant, _user: UserRecord, q: NewsQuery): Paged<Article> {
  const tags = new Set(q.tagIds ?? []);
  const items = newsOf(ctx, tenant).filter((a) => tags.size === 0 || a.tagIds.some((t) => tags.has(t)));
  return pageOf(items, { page: q.page, 'per-page': q.perPage }, q.url, (a) => toArticle(ctx, tenant, a), 10);
}

export function articleCategory(
  ctx: DomainContext,
  tenant: Tenant,
  _user: UserRecord,
  q: { id?: string | undefined; q?: string | undefined },
): CatalogAnswer {
  const cats = tenant.contentCategories;
  const category = q.id === undefined ? cats.find((c) => c.parentId === null) : cats.find((c) => c.id === q.id);
  if (!category) {
    // The API description declares no 404 here: an unknown category is invalid input.
    throw fail.badRequest(`category ${q.id ?? ''} not found`, [{ field: 'query.id', message: 'unknown category' }]);
  }
  const children = (c: ContentCategoryRecord) =>
    cats.filter((x) => x.parentId === c.id).sort((a, b) => a.sort - b.sort || a.title.localeCompare(b.title));
  const pages = (c: ContentCategoryRecord) =>
    tenant.articles
      .filter((a) => a.kind === 'page' && a.categoryId === c.id && published(ctx, a))
      .sort((a, b) => a.title.localeCompare(b.title));
  const catItem = (c: ContentCategoryRecord): CatalogItem => ({
    entity: 'category',
    id: c.id,
    title: c.title,
    description: c.description,
    imageUrl: null,
    itemsCount: children(c).length + pages(c).length,
    article: null,
  });
  const artItem = (a: ArticleRecord): CatalogItem => {
    const article = toArticle(ctx, tenant, a);
    return {
      entity: 'article',
      id: a.id,
      title: a.title,
      description: a.lead,
      imageUrl: article.imageUrl,
      itemsCount: null,
      article,
    };
  };
  const text = q.q?.trim() ?? '';
  let items: CatalogItem[];
  if (text === '') {
    items = [...children(category).map(catItem), ...pages(category).map(artItem)];
  } else {
    // Search the whole subtree below the category: categories by
    // title and description, articles by title, lead and body.
    const subtree: ContentCategoryRecord[] = [];
    const walk = (c: ContentCategoryRecord) => {
      for (const x of children(c)) {
        subtree.push(x);
        walk(x);
      }
    };
    walk(category);
    const strip = (html: string) => html.replace(/<[^>]+>/g, ' ');
    items = [
      ...subtree.filter((c) => matchesText(text, [c.title, c.description])).map(catItem),
      ...[category, ...subtree]
        .flatMap(pages)
        .filter((a) => matchesText(text, [a.title, a.lead, strip(a.body)]))
        .map(artItem),
    ];
  }
  return { category: { id: category.id, title: category.title }, q: text, items };
}

/** The "myPostcards" dashboard widget: postcards the user received, newest first. */
export function postcardsWidget(ctx: DomainContext, tenant: Tenant, user: UserRecord): DashboardWidget {
  return widget(tenant, 'myPostcards', received(tenant, user), (p) => ({
    id: p.id,
    title: p.title,
    subtitle: personBrief(ctx, tenant, p.senderId).name,
    imageUrl: absolute(ctx, `/images/postcard/${p.id}.svg`),
    url: absolute(ctx, `/postcard/user-view?id=${p.id}`),
    date: p.sentAt,
  }));
}

/** The "updNews" dashboard widget: the newest published news. */
export function newsWidget(ctx: DomainContext, tenant: Tenant, _user: UserRecord): DashboardWidget {
  return widget(tenant, 'updNews', newsOf(ctx, tenant), (a) =>
    pageItem(ctx, 'article', a.id, a.title, a.lead, a.publishedAt),
  );
}
