// Content: postcards, news and catalog articles, catalog categories. Store records (no $id) and API shapes ($id).
import { Type, type Static } from '@sinclair/typebox';
import { assumed, Nullable, PersonBrief, ref, Stamp, Uuid } from './common.js';

// ---- records the store keeps ----

export const PostcardRecord = Type.Object({
  id: Uuid,
  senderId: Uuid,
  recipientId: Uuid,
  title: Type.String(),
  text: Type.String(),
  sentAt: Stamp,
});
export type PostcardRecord = Static<typeof PostcardRecord>;

export const ArticleTagRecord = Type.Object({ id: Uuid, name: Type.String() });

export const ArticleRecord = Type.Object({
  id: Uuid,
  /** news appear in /article/news; pages only in the catalog */
  kind: Type.Union([Type.Literal('news'), Type.Literal('page')]),
  categoryId: Nullable(Uuid),
  title: Type.String(),
  lead: Type.String(),
  /** HTML */
  body: Type.String(),
  tagIds: Type.Array(Uuid),
  authorId: Uuid,
  /** a news item with publishedAt after the sandbox clock is scheduled, not yet shown */
  publishedAt: Stamp,
  views: Type.Integer({ minimum: 0 }),
  likes: Type.Integer({ minimum: 0 }),
  comments: Type.Integer({ minimum: 0 }),
});
export type ArticleRecord = Static<typeof ArticleRecord>;

export const ContentCategoryRecord = Type.Object({
  id: Uuid,
  /** null: the root of the catalog */
  parentId: Nullable(Uuid),
  title: Type.String(),
  description: Type.String(),
  sort: Type.Integer(),
});
export type ContentCategoryRecord = Static<typeof ContentCategoryRecord>;

export const ContentCollections = {
  postcards: Type.Array(PostcardRecord),
  articleTags: Type.Array(ArticleTagRecord),
  articles: Type.Array(ArticleRecord),
  contentCategories: Type.Array(ContentCategoryRecord),
};

// ---- API shapes ----

export const UserPostcard = Type.Object(
  {
    id: Uuid,
    title: Type.String(),
    text: Type.String(),
    imageUrl: Type.String({ description: 'absolute address of the postcard picture' }),
    sender: ref(PersonBrief),
    recipient: ref(PersonBrief),
    date: Type.String({ format: 'date-time', description: 'when it was sent' }),
  },
  { $id: 'UserPostcard', ...assumed('A postcard received by the current user.') },
);
export type UserPostcard = Static<typeof UserPostcard>;

export const ArticleTag = Type.Object(
  { id: Uuid, name: Type.String() },
  { $id: 'ArticleTag', ...assumed('A tag of articles.') },
);

export const Article = Type.Object(
  {
    id: Uuid,
    title: Type.String(),
    lead: Type.String({ description: 'short plain-text summary' }),
    body: Type.String({ description: 'the text as HTML (p, h3, ul/li, b, a)' }),
    imageUrl: Type.String({ description: 'absolute address of the cover image' }),
    url: Type.String({ description: 'absolute address of the web page of the article' }),
    tags: Type.Array(ref(ArticleTag)),
    author: ref(PersonBrief),
    categoryId: Nullable(Uuid, { description: 'catalog category of a catalog article; null for news' }),
    publishedAt: Stamp,
    views: Type.Integer({ minimum: 0 }),
    likes: Type.Integer({ minimum: 0 }),
    comments: Type.Integer({ minimum: 0 }),
  },
  { $id: 'Article', ...assumed('An article (news or catalog page).') },
);
export type Article = Static<typeof Article>;

export const CatalogItem = Type.Object(
  {
    entity: Type.Union([Type.Literal('category'), Type.Literal('article')]),
    id: Uuid,
    title: Type.String(),
    description: Nullable(Type.String(), assumed('category description or article lead')),
    imageUrl: Nullable(Type.String(), assumed('absolute address; the cover of an article, null for a category')),
    itemsCount: Nullable(Type.Integer({ minimum: 0 }), assumed('direct children of a category; null for an article')),
    article: Nullable(ref(Article), assumed('the article itself when entity is article, else null')),
  },
  {
    $id: 'CatalogItem',
    description:
      'A node of the catalog: a category (its id can be passed to ' +
      '/article/category) or an article. Fields other than entity are assumed.',
  },
);
export type CatalogItem = Static<typeof CatalogItem>;

export const CatalogAnswer = Type.Object(
  {
    category: Type.Object({ id: Uuid, title: Type.String() }),
    q: Type.String(),
    items: Type.Array(ref(CatalogItem)),
  },
  { $id: 'CatalogAnswer' },
);
export type CatalogAnswer = Static<typeof CatalogAnswer>;

export const contentSchemas = [UserPostcard, ArticleTag, Article, CatalogItem, CatalogAnswer];
