// A calendar list expands recurring events into occurrences. Before: 10,000 daily events made through the records
// API turned one list into 900,000 occurrences (26 s, then a 500) and a century-wide window ran the server out of
// memory; a series was cut at 2,000 occurrences without saying so, and one that began more than 100,000 steps
// before the window was never found. Now an answer expands at most --calendar-max-occurrences (400 past it, saying
// how to narrow the window) and a series is searched from its first step in the window. Over a real socket.
import t from 'tap';
import { parseOptions } from '../../src/config.js';
import { accounts, build, httpCaller, signIn, tenants } from '../helper.js';

const records = `/__admin/data/${tenants.romashka}/calendarEvents`;
const daily = (startAt: string, title: string) => ({
  title,
  startAt,
  endAt: startAt.replace('T10:', 'T11:'),
  recurrence: { freq: 'daily', interval: 1, until: null },
  visibleToGroupIds: [],
  participantIds: [],
});
const day = (date: string) =>
  `start_date_time=${date}%2000:00:00&end_date_time=${date}%2023:59:59`.replace(/ /g, '%20');

t.test('a window holding more occurrences than the bound is a 400 that says what to do', async (t) => {
  const app = await build(t, { calendarMaxOccurrences: 60 });
  const call = httpCaller(await app.listen({ port: 0, host: '127.0.0.1' }));
  const s = await signIn(app, accounts.admin);
  const list = (query: string) => call('GET', `/calendar-event?${query}`, undefined, s.headers);

  const seededOnDay = (await list(day('2026-03-10'))).body.data.length;
  t.ok(seededOnDay < 10, `the seeded calendar has ${seededOnDay} occurrences that day`);
  // 1700: more than 100,000 days before 2026, past where the old expansion gave up
  const made = await call('POST', `${records}?count=40`, daily('1700-01-01T10:00:00.000Z', 'Stand-up since 1700'));
  t.equal(made.status, 201, JSON.stringify(made.body).slice(0, 200));

  const oneDay = await list(day('2026-03-10'));
  t.equal(oneDay.status, 200);
  const standUps = oneDay.body.data.filter((e: { title: string }) => e.title === 'Stand-up since 1700');
  t.equal(standUps.length, 40, 'each series of 1700 has its occurrence on 2026-03-10');
  t.match(standUps[0], { rec_date: '2026-03-10', start_date_time: '2026-03-10 10:00:00' });
  const view = await call(
    'GET',
    `/calendar-event/view?id=${standUps[0].parent_id}&parent_id=${standUps[0].parent_id}&rec_date=2026-03-10`,
    undefined,
    s.headers,
  );
  t.equal(view.status, 200, 'one occurrence of the old series is addressed by its date');
  t.equal(view.body.calendarEvent.id, standUps[0].id);

  for (const path of ['/calendar-event', '/calendar', '/calendar-event/my']) {
    const twoDays = await call(
      'GET',
      `${path}?start_date_time=2026-03-10%2000:00:00&end_date_time=2026-03-11%2023:59:59`,
      undefined,
      s.headers,
    );
    t.equal(twoDays.status, 400, `${path}: 80 and more occurrences are past the bound of 60`);
    t.match(twoDays.body, {
      code: 'VALIDATION_FAILED',
      message: /more than 60 occurrences.*shorter window.*--calendar-max-occurrences/,
      details: [{ field: 'query.end_date_time' }],
    });
  }
  const century = await list('start_date_time=1700-01-01%2000:00:00&end_date_time=2100-01-01%2000:00:00');
  t.equal(century.status, 400, 'four centuries of 40 daily series: refused, not expanded');
  t.equal((await list(day('2026-03-10'))).status, 200, 'a refused window changes nothing');
});

t.test('a window holding exactly the bound is answered whole; one occurrence more is refused', async (t) => {
  const bound = 50;
  const app = await build(t, { calendarMaxOccurrences: bound });
  const call = httpCaller(await app.listen({ port: 0, host: '127.0.0.1' }));
  const s = await signIn(app, accounts.admin);
  const list = () => call('GET', `/calendar-event?${day('2026-03-10')}`, undefined, s.headers);
  const seeded = (await list()).body.data.length;
  const made = await call('POST', `${records}?count=${bound - seeded}`, daily('2026-03-10T10:00:00.000Z', 'Stand-up'));
  t.equal(made.status, 201);
  const exactly = await list();
  t.equal(exactly.status, 200, `${bound} occurrences, the bound itself: answered`);
  t.equal(exactly.body.data.length, bound, 'every one of them');
  t.equal((await call('POST', records, daily('2026-03-10T10:00:00.000Z', 'One more'))).status, 201);
  const past = await list();
  t.equal(past.status, 400, `${bound + 1}: refused`);
  t.match(past.body.message, `more than ${bound} occurrences`);
});

t.test('--calendar-max-occurrences: default 2000, a flag and an environment variable', async (t) => {
  const read = (argv: string[], env: Record<string, string> = {}) => {
    const options = parseOptions(argv, env);
    if (options === 'help') throw new Error('help');
    return options.calendarMaxOccurrences;
  };
  t.equal(read([]), 2000);
  t.equal(read(['--calendar-max-occurrences', '50']), 50);
  t.equal(read([], { PORTAL_MOCK_CALENDAR_MAX_OCCURRENCES: '70' }), 70);
  t.throws(() => read(['--calendar-max-occurrences', '0']), /calendar-max-occurrences/);
});
