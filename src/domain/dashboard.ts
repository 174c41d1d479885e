// GET /dashboard: profile brief, notification badge and the widgets asked for, built from the store.
import { fail } from '../errors.js';
import {
  WidgetKeys,
  type DashboardWidget,
  type DashboardWidgetItem,
  type WidgetKey,
} from '../schemas/dashboard-widget.js';
import type { DashboardResult } from '../schemas/people.js';
import type { UserRecord } from '../schemas/records.js';
import { findById, type Tenant } from '../store/store.js';
import { absolute, type DomainContext } from './context.js';
import { newsWidget, postcardsWidget } from './content.js';
import { ideasWidget } from './ideas.js';
import { tenantToday, unseenCount } from './notifications.js';
import { birthdaysOn, departmentOf, listed, myTeam, profileBrief } from './people.js';
import { peopleIndex } from './people-index.js';
import { idList } from './lists.js';
import { compareStamp, groupedBy, includesId, newestWithin } from './grouped.js';
import { pageItem, widget, widgetItemLimit } from './widgets.js';
import type { AchievementAwardRecord } from '../schemas/people-records.js';

export const InfoKeys = ['profileBrief', 'notificationsBadge'] as const;
type InfoKey = (typeof InfoKeys)[number];

const day = 86400_000;

function parseKeys<K extends string>(value: string | undefined, known: readonly K[], field: string): K[] {
  const keys = [...(idList(value) ?? [])];
  const unknown = keys.filter((k) => !(known as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw fail.validation(
      `${field}: unknown key ${unknown.map((k) => `"${k.slice(0, 40)}"`).join(', ')}; known: ${known.join(', ')}`,
      unknown.map(() => ({
        field: `query.${field}`,
        message: `must be a comma-separated list of ${known.join(', ')}`,
      })),
    );
  }
  return keys as K[];
}

export function dashboard(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  q: { widgets?: string | undefined; info?: string | undefined },
): DashboardResult {
  const widgetKeys = parseKeys(q.widgets, WidgetKeys, 'widgets');
  const info = new Set<InfoKey>(parseKeys(q.info, InfoKeys, 'info'));
  const widgets: Partial<Record<WidgetKey, DashboardWidget | null>> = {};
  const today = tenantToday(ctx, tenant); // once per request: Intl formatting is not free
  // in the schema's order, as the answer is serialized (see plainJson in src/http/serializers.ts)
  const asked = new Set(widgetKeys);
  for (const key of WidgetKeys) if (asked.has(key)) widgets[key] = buildWidget(ctx, tenant, user, key, today);
  const result: DashboardResult = {
    notificationsBadge: info.has('notificationsBadge') ? unseenCount(ctx, tenant, user) : 0,
    widgets,
  };
  if (info.has('profileBrief')) result.profileBrief = profileBrief(ctx, tenant, user);
  return result;
}

const byUser = (a: AchievementAwardRecord) => a.userId;
const awardedAt = (a: AchievementAwardRecord) => a.awardedAt;

function personItem(
  ctx: DomainContext,
  tenant: Tenant,
  u: UserRecord,
  date: string | null,
  subtitle?: string,
): DashboardWidgetItem {
  const department = subtitle === undefined ? peopleIndex(tenant).departmentById.get(u.departmentId) : undefined;
  return {
    id: u.id,
    title: u.name,
    subtitle: subtitle ?? `${u.position} · ${department?.name ?? ''}`,
    imageUrl: absolute(ctx, u.faceUrl),
    url: absolute(ctx, `/pages/user/${u.id}`),
    date,
  };
}

function buildWidget(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  key: WidgetKey,
  today: string,
): DashboardWidget | null {
  const now = ctx.now.toISOString();
  const ru = tenant.tenant.locale === 'ru';
  switch (key) {
    case 'myTeam': {
      // colleagues of the same department; a head also sees the heads of the departments right below (direct reports)
      const own = departmentOf(tenant, user.departmentId);
      const reportHeads = new Set(
        own?.headId === user.id
          ? tenant.departments.filter((d) => d.parentId === own.id && d.headId).map((d) => d.headId)
          : [],
      );
      return widget(tenant, key, myTeam(peopleIndex(tenant), user, reportHeads), (u) =>
        personItem(ctx, tenant, u, null),
      );
    }
    case 'updBirthday': {
      const ix = peopleIndex(tenant);
      const born = ix.query(`birthdays:${today.slice(5)}`, () => birthdaysOn(ix, today.slice(5)));
      return widget(tenant, key, born, (u) => personItem(ctx, tenant, u, `${today.slice(0, 4)}${u.birthday.slice(4)}`));
    }
    case 'updNewbies': {
      const since = new Date(ctx.now.getTime() - 30 * day).toISOString().slice(0, 10);
      const newbies = () =>
        tenant.users
          .filter((u) => listed(u) && u.hiredAt >= since && u.hiredAt <= today)
          .sort((a, b) => compareStamp(b.hiredAt, a.hiredAt) || a.name.localeCompare(b.name));
      // kept per day range by the index, which lives as long as the users it was built from
      return widget(tenant, key, peopleIndex(tenant).query(`newbies:${since}:${today}`, newbies), (u) =>
        personItem(ctx, tenant, u, u.hiredAt),
      );
    }
    case 'myLms':
      return widget(
        tenant,
        key,
        tenant.learningCourses
          .filter((c) => includesId(c.assigneeIds, user.id) && c.dueDate >= today)
          .sort((a, b) => compareStamp(a.dueDate, b.dueDate)),
        (c) =>
          pageItem(
            ctx,
            'course',
            c.id,
            c.title,
            c.kind === 'test' ? (ru ? 'Тест' : 'Test') : ru ? 'Курс' : 'Course',
            c.dueDate,
          ),
      );
    case 'mySurvey':
      return widget(
        tenant,
        key,
        tenant.surveys
          .filter((s) => includesId(s.assigneeIds, user.id) && s.endsAt >= now && s.createdAt <= now)
          .sort((a, b) => compareStamp(a.endsAt, b.endsAt)),
        (s) => ({
          id: s.id,
          title: s.title,
          subtitle: ru ? `До ${s.endsAt.slice(0, 10)}` : `Until ${s.endsAt.slice(0, 10)}`,
          imageUrl: null,
          url: absolute(ctx, `/pages/survey/${s.id}`),
          date: s.endsAt,
        }),
      );
    case 'myAchievements':
      return widget(
        tenant,
        key,
        groupedBy(tenant.achievementAwards, byUser, user.id)
          .filter((a) => a.awardedAt <= now)
          .sort((a, b) => compareStamp(b.awardedAt, a.awardedAt)),
        (a) => {
          const ach = findById(tenant.achievements, a.achievementId);
          // the entry is the award; its image and page are the achievement's
          return {
            ...pageItem(ctx, 'achievement', a.achievementId, ach?.title ?? '', ach?.description ?? null, a.awardedAt),
            id: a.id,
          };
        },
      );
    case 'updAchievements': {
      const since = new Date(ctx.now.getTime() - 30 * day).toISOString();
      const ix = peopleIndex(tenant);
      // counted in one pass; items built for the first few only
      let count = 0;
      const first: DashboardWidgetItem[] = [];
      for (const a of newestWithin(tenant.achievementAwards, awardedAt, since, now)) {
        const u = ix.byId.get(a.userId);
        if (!u || !listed(u)) continue;
        if (count++ < widgetItemLimit)
          first.push(
            personItem(ctx, tenant, u, a.awardedAt, findById(tenant.achievements, a.achievementId)?.title ?? ''),
          );
      }
      return { ...widget(tenant, key, first, (item) => item), count };
    }
    case 'updVoting':
      return widget(
        tenant,
        key,
        tenant.contests
          .filter((c) => c.createdAt <= now && c.endsAt >= now)
          .sort((a, b) => compareStamp(b.createdAt, a.createdAt)),
        (c) =>
          pageItem(
            ctx,
            'contest',
            c.id,
            c.title,
            ru ? `Голосование до ${c.endsAt.slice(0, 10)}` : `Voting until ${c.endsAt.slice(0, 10)}`,
            c.createdAt,
          ),
      );
    case 'updBooks':
      return widget(
        tenant,
        key,
        tenant.libraryBooks.filter((b) => b.addedAt <= now).sort((a, b) => compareStamp(b.addedAt, a.addedAt)),
        (b) => pageItem(ctx, 'book', b.id, b.title, b.author, b.addedAt),
      );
    case 'myFavorites':
      // "in development, unused": always an empty widget
      return widget(tenant, key, [], (item) => item);
    case 'myPostcards':
      return postcardsWidget(ctx, tenant, user);
    case 'updNews':
      return newsWidget(ctx, tenant, user);
    case 'updIdeas':
      return ideasWidget(ctx, tenant, user);
  }
}
