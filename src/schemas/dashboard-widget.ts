import { Type, type Static } from '@sinclair/typebox';
import { assumed, Nullable, ref } from './common.js';

export const WidgetKeys = [
  'myLms',
  'mySurvey',
  'myAchievements',
  'myTeam',
  'myFavorites',
  'myPostcards',
  'updNews',
  'updVoting',
  'updIdeas',
  'updAchievements',
  'updBirthday',
  'updNewbies',
  'updBooks',
] as const;
export type WidgetKey = (typeof WidgetKeys)[number];

export const DashboardWidgetItem = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    subtitle: Nullable(Type.String()),
    imageUrl: Nullable(Type.String({ description: 'absolute address' })),
    url: Nullable(Type.String({ description: 'absolute address of the item (API or web page)' })),
    date: Nullable(Type.String({ description: 'date or date-time relevant to the item' })),
  },
  { $id: 'DashboardWidgetItem', ...assumed('One entry of a dashboard widget.') },
);
export type DashboardWidgetItem = Static<typeof DashboardWidgetItem>;

export const DashboardWidget = Type.Object(
  {
    key: Type.Union(WidgetKeys.map((k) => Type.Literal(k))),
    title: Type.String({ description: 'localized title in the tenant language' }),
    feed: Type.Union([Type.Literal('personal'), Type.Literal('company')]),
    count: Type.Integer({ minimum: 0, description: 'total entries, of which `items` shows the first few' }),
    items: Type.Array(ref(DashboardWidgetItem)),
  },
  { $id: 'DashboardWidget', ...assumed('A dashboard widget.') },
);
export type DashboardWidget = Static<typeof DashboardWidget>;

export const dashboardWidgetSchemas = [DashboardWidgetItem, DashboardWidget];
