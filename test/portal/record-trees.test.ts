// Records with a parentId (departments, content and workflow categories) can be arranged by the records API in any
// order, as deep chains, even as cycles. A subtree is found in one pass over its list whatever the order (it took
// one pass per level when a child came before its parent), and a cycle ends the walk instead of looping.
import t from 'tap';
import { subtreeIds, subtreesOf } from '../../src/domain/lists.js';

const id = (i: number) => `n${i}`;

t.test('a deep chain whose children come before their parents', (t) => {
  // n0 <- n1 <- ... <- n4999, listed deepest first
  const chain = Array.from({ length: 5000 }, (_, i) => ({ id: id(i), parentId: i === 0 ? null : id(i - 1) })).reverse();
  t.equal(subtreeIds(chain, [id(0)]).size, 5000);
  t.same([...subtreeIds(chain, [id(4998)])].sort(), [id(4998), id(4999)]);
  t.same([...subtreeIds(chain, [id(4999)])], [id(4999)], 'a leaf is its own subtree');
  t.end();
});

t.test('cycles and a forest', (t) => {
  const records = [
    { id: 'a', parentId: 'b' },
    { id: 'b', parentId: 'a' }, // a cycle of two
    { id: 'c', parentId: 'c' }, // its own parent
    { id: 'r1', parentId: null },
    { id: 'r2', parentId: null },
    { id: 'x', parentId: 'r1' },
    { id: 'y', parentId: 'x' },
    { id: 'z', parentId: 'r2' },
  ];
  const below = subtreesOf(records);
  t.same([...below(['a'])].sort(), ['a', 'b']);
  t.same([...below(['c'])], ['c']);
  t.same([...below(['r1'])].sort(), ['r1', 'x', 'y']);
  t.same([...below(['r1', 'r2'])].sort(), ['r1', 'r2', 'x', 'y', 'z']);
  t.same([...below(['unknown'])], ['unknown'], 'an id with no records is kept as given');
  t.end();
});
