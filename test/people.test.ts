import t from 'tap';
import { accounts, build, expectError, json, signIn, tenants } from './helper.js';

t.test('smoke', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  for (const url of ['/user/profile?id=' + accounts.admin.userId, '/user/items?q=ив', '/user/index?per-page=2&sort=-created_at', '/user/search?q=а&limit=2',
    '/employment/index', '/org-employment-file/index?per-page=2', '/user-group/items', '/meeting-place/items', '/notifications/pushes?per-page=2',
    '/department/tree-node', '/department/search?q=продаж', '/dashboard?widgets=myTeam,updBirthday,updNewbies,myLms,mySurvey,myAchievements,updVoting,updAchievements,updBooks,myFavorites,updNews&info=profileBrief,notificationsBadge']) {
    const res = await app.inject({ url, headers: s.headers });
    console.log(url, res.statusCode, res.body.slice(0, 700));
  }
});
