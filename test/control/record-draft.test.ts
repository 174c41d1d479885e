import t from 'tap';
import { build, tenants } from '../helper.js';
import { checkRoom, RecordDraft } from '../../src/domain/record-draft.js';
import { draftRecordsInSlices, recordTenant } from '../../src/domain/records.js';
import { ApiError } from '../../src/errors.js';

// A records create's draft (src/domain/record-draft.ts) and its slices (draftRecordsInSlices), in process and fast:
// the file `npm run mutate -- record-draft` runs first. The bound's edge (exactly what fits is made; one more is a
// 422 saying how many fit), a draft that finds its sandbox written since starts over and gives up with a 409 after
// three tries, nothing reaches the store before commit, and the draft mints ahead without moving the sequence.
// Over sockets: records-bounds.test.ts, records-factories.test.ts.

t.test('RecordDraft and draftRecordsInSlices', async (t) => {
  const app = await build(t);
  const sandbox = (name: string) => {
    const { store } = app.sandboxes.get(name);
    return { store, tenant: recordTenant(store, tenants.romashka) };
  };

  t.test(
    'checkRoom: the seeded records and --max-records fit exactly; one more is a 422 saying what fits',
    async (t) => {
      const { store, tenant } = sandbox('room');
      const holds = tenant.notifications.length; // all seeded
      t.ok(holds > 0);
      t.doesNotThrow(() => checkRoom(store, tenant, 'notifications', 5, 5), 'exactly the bound');
      t.doesNotThrow(() => checkRoom(store, tenant, 'notifications', 0, 0), 'nothing more at a bound of 0');
      const err = t.throws(() => checkRoom(store, tenant, 'notifications', 6, 5)) as ApiError;
      t.ok(err instanceof ApiError);
      t.equal(err.statusCode, 422);
      t.equal(
        err.message,
        `notifications of tenant ${tenants.romashka} in sandbox room holds ${holds} records; 6 more would pass its bound ` +
          `of ${holds + 5} (the ${holds} seeded + --max-records 5), 5 fit: make fewer, delete records, reset the ` +
          'sandbox (POST /__admin/reset), or start the mock with a larger --max-records',
      );
      t.same(err.details, [{ field: 'query.count', message: 'at most 5 more notifications records fit' }]);
      t.throws(() => checkRoom(store, tenant, 'notifications', 1, 0), /1 more would pass its bound of \d+ .* 0 fit/);
    },
  );

  t.test('a draft writes nothing until commit; exactly the room is made, one more refused whole', async (t) => {
    const { store, tenant } = sandbox('slices');
    const seeded = tenant.notifications.length;
    const version = store.version;
    const sequence = store.meta.sequence;
    const draft = await draftRecordsInSlices(store, tenants.romashka, 'notifications', {}, { count: 3, maxRecords: 3 });
    t.equal(draft.created.records.length, 3);
    t.equal(recordTenant(store, tenants.romashka).notifications.length, seeded, 'nothing written yet');
    t.equal(store.version, version);
    t.equal(store.meta.sequence, sequence, 'the sequence has not moved');
    store.transaction(() => draft.commit());
    t.equal(recordTenant(store, tenants.romashka).notifications.length, seeded + 3, 'written at once');
    t.ok(store.meta.sequence > sequence, 'the sequence moved past what the draft minted');
    await t.rejects(
      draftRecordsInSlices(store, tenants.romashka, 'notifications', {}, { count: 1, maxRecords: 3 }),
      { statusCode: 422, message: /0 fit/ },
      'full: not one more',
    );
    const unbounded = await draftRecordsInSlices(store, tenants.romashka, 'notifications', {}, { count: 2 });
    t.equal(unbounded.created.records.length, 2, 'no --max-records: no bound');
    t.equal(recordTenant(store, tenants.romashka).notifications.length, seeded + 3, 'a refused create wrote nothing');
  });

  t.test('a draft is stale once the sandbox is written; commit then refuses', async (t) => {
    const { store, tenant } = sandbox('stale');
    const draft = new RecordDraft(store, tenant, 1);
    t.notOk(draft.stale);
    const minted = draft.mint('id');
    t.same(minted, store.mintAt('id', store.meta.sequence), 'mints what the store would mint next');
    t.notOk(draft.stale, 'minting ahead does not move the store');
    store.advanceSequence(store.meta.sequence + 1); // another request minted
    t.ok(draft.stale, 'the sequence moved');
    t.throws(() => draft.commit(), /changed since the draft began/);
    const other = new RecordDraft(store, tenant, 1);
    store.transaction(() => store.insert(tenant, 'notifications', { ...tenant.notifications[0]!, id: 'written' }));
    t.ok(other.stale, 'the version moved');
  });

  t.test('a sandbox written between every slice: three tries, then a 409 and nothing written', async (t) => {
    const { store } = sandbox('busy');
    const seeded = recordTenant(store, tenants.romashka).users.length;
    let writing = true;
    let writes = 0;
    const write = () => {
      if (!writing) return;
      store.advanceSequence(store.meta.sequence + 1);
      writes++;
      setImmediate(write);
    };
    setImmediate(write);
    // large enough to take more than one 10 ms slice on any machine: every try finds the sandbox written
    const made = draftRecordsInSlices(store, tenants.romashka, 'users', {}, { count: 1000 });
    await t.rejects(made, { statusCode: 409, message: /written 3 times while 1000 users records were made/ });
    writing = false;
    t.ok(writes >= 3, `written ${writes} times`);
    t.equal(recordTenant(store, tenants.romashka).users.length, seeded, 'nothing written');
  });

  t.test('a draft whose first try finds the sandbox written is made on the next', async (t) => {
    const { store } = sandbox('quiet');
    const made = draftRecordsInSlices(store, tenants.romashka, 'users', {}, { count: 1000 });
    setImmediate(() => store.advanceSequence(store.meta.sequence + 1)); // one write, during the first try
    const draft = await made;
    t.equal(draft.created.records.length, 1000, 'made on the next try');
    t.notOk(draft.created.records.some((r) => r === undefined));
  });

  t.test('isMember and derive: one record scans, many build once and carry over', async (t) => {
    const { store, tenant } = sandbox('derive');
    const group = { id: 'g', memberIds: ['a', 'b'] };
    for (const count of [1, 5]) {
      const draft = new RecordDraft(store, tenant, count);
      t.equal(draft.many, count > 1);
      t.ok(draft.isMember(group, 'a'));
      t.notOk(draft.isMember(group, 'c'));
      draft.join('g', 'c');
      draft.join('g', 'd');
      t.ok(draft.isMember(group, 'c'), `count ${count}: a join in the draft counts`);
      t.ok(draft.isMember(group, 'd'));
      t.notOk(draft.isMember({ id: 'h', memberIds: [] }, 'c'), 'in that group only');
    }
    const draft = new RecordDraft(store, tenant, 5);
    const list = [1, 2];
    let builds = 0;
    let extended: number[] = [];
    const build = (items: readonly number[]) => {
      builds++;
      return items.reduce((a, b) => a + b, 0);
    };
    const extend = (sum: number, added: readonly number[]) => {
      extended = [...added];
      return sum + added.reduce((a, b) => a + b, 0);
    };
    t.equal(draft.derive('sum', list, build, extend), 3);
    t.equal(draft.derive('sum', list, build, extend), 3, 'the same list, the same length: kept');
    t.equal(builds, 1);
    list.push(4);
    t.equal(draft.derive('sum', list, build, extend), 7, 'grown: extended by what was added');
    t.same(extended, [4]);
    t.equal(builds, 1, 'not built again');
    t.equal(draft.derive('sum', [5], build, extend), 5, 'another list: built');
    t.equal(builds, 2);
    t.equal(draft.derive('sum', [5, 6], build), 11, 'no extend: built again');
    t.equal(builds, 3);
  });

  t.test('appended records are the draft tenant’s, not the store’s; commit writes them and the joins', async (t) => {
    const { store, tenant } = sandbox('append');
    const draft = new RecordDraft(store, tenant, 2);
    const before = tenant.notifications.length;
    const record = { ...tenant.notifications[0]!, id: 'appended-1' };
    draft.append('notifications', record);
    draft.append('notifications', { ...record, id: 'appended-2' });
    t.equal(draft.tenant.notifications.length, before + 2, 'the draft sees them');
    t.equal(tenant.notifications.length, before, 'the store does not');
    t.same(
      draft.appended.get('notifications')?.map((r) => r.id),
      ['appended-1', 'appended-2'],
    );
    const group = tenant.userGroups[0]!;
    draft.join(group.id, 'new-member');
    draft.checkRooms(2);
    t.throws(() => draft.checkRooms(1), /2 more would pass its bound/, 'two appended, room for one');
    draft.checkRooms(undefined);
    store.transaction(() => draft.commit());
    const now = recordTenant(store, tenants.romashka);
    t.equal(now.notifications.length, before + 2);
    t.ok(now.userGroups.find((g) => g.id === group.id)?.memberIds.includes('new-member'), 'the join is written');
    const ghost = new RecordDraft(store, now, 1);
    ghost.join('no-such-group', 'x');
    t.throws(() => store.transaction(() => ghost.commit()), /no user group no-such-group/);
  });
});
