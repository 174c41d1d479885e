// The one shape of a dashboard widget, shared by the dashboard and the groups that build their own widgets
// (content, ideas): titles, how many entries a widget shows, and entries that link to a record's page.
import type { DashboardWidget, DashboardWidgetItem, WidgetKey } from '../schemas/dashboard-widget.js';
import type { Tenant } from '../store/store.js';
import { absolute, type DomainContext } from './context.js';

const titles: Record<WidgetKey, { ru: string; en: string }> = {
  myLms: { ru: 'Мои курсы и тесты', en: 'My courses and tests' },
  mySurvey: { ru: 'Мои опросы', en: 'My surveys' },
  myAchievements: { ru: 'Мои достижения', en: 'My achievements' },
  myTeam: { ru: 'Моя команда', en: 'My team' },
  myFavorites: { ru: 'Избранное', en: 'Favorites' },
  myPostcards: { ru: 'Мои открытки', en: 'My postcards' },
  updNews: { ru: 'Новости', en: 'News' },
  updVoting: { ru: 'Конкурсы', en: 'Contests' },
  updIdeas: { ru: 'Новые идеи', en: 'New ideas' },
  updAchievements: { ru: 'Новые достижения коллег', en: 'Achievements of colleagues' },
  updBirthday: { ru: 'Дни рождения', en: 'Birthdays' },
  updNewbies: { ru: 'Новые сотрудники', en: 'New colleagues' },
  updBooks: { ru: 'Новинки библиотеки', en: 'New in the library' },
};

/** Entries a widget shows; `count` tells the total. */
export const widgetItemLimit = 5;

/** The widget of `key` over every entry `all` holds, building the items of the entries shown only. */
export function widget<T>(
  tenant: Tenant,
  key: WidgetKey,
  all: readonly T[],
  item: (x: T) => DashboardWidgetItem,
): DashboardWidget {
  return {
    key,
    title: titles[key][tenant.tenant.locale],
    feed: key.startsWith('my') ? 'personal' : 'company',
    count: all.length,
    items: all.slice(0, widgetItemLimit).map(item),
  };
}

/** An entry showing the image of the record `kind`/`id` and linking to its web page. */
export const pageItem = (
  ctx: DomainContext,
  kind: string,
  id: string,
  title: string,
  subtitle: string | null,
  date: string,
) => ({
  id,
  title,
  subtitle,
  imageUrl: absolute(ctx, `/images/${kind}/${id}.svg`),
  url: absolute(ctx, `/pages/${kind}/${id}`),
  date,
});
