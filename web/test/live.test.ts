// A live refresh's pure part (src/tree.ts): pairing the frames of a new answer with the shown
// tree's, and carrying the open frames and the flame graph's zoom across.

import assert from "node:assert/strict";
import { test } from "node:test";
import { buildTree, carryExpanded, carryNode, matchNodes } from "../src/tree";
import { node, smallTree } from "./fixtures";

// smallTree() grown the way a running session's does: a new frame "a0" before a1 (so a1, a2 and
// b move to other ids), a second "a1" beside the first, and a new child under b.
function grown() {
  return buildTree({
    ...smallTree(),
    nodes: [
      node(0, null, "ROOT", [200, 1]),
      node(1, 0, "a", [120, 2]),
      node(2, 1, "a0", [5, 1]),
      node(3, 1, "a1", [80, 6]),
      node(4, 1, "a2", [20, null]),
      node(5, 1, "a1", [15, 1]),
      node(6, 0, "b", [60, 1]),
      node(7, 6, "b1", [40, 1]),
    ],
  });
}

test("matchNodes pairs frames by their place, not their id", () => {
  const match = matchNodes(buildTree(smallTree()), grown());
  // ROOT, a, a0 (new), a1 (the first a1), a2, the second a1 (new), b, b1 (new)
  assert.deepEqual([...match], [0, 1, -1, 2, 3, -1, 4, -1]);
});

test("matchNodes tells same-named siblings apart by their order", () => {
  const before = grown();
  const match = matchNodes(before, before);
  assert.deepEqual([...match], [0, 1, 2, 3, 4, 5, 6, 7]);
});

test("carryExpanded keeps what was open and what was closed, and opens new frames as at first", () => {
  const before = buildTree(smallTree());
  const after = grown();
  const match = matchNodes(before, after);
  // The user closed a (depth 1: open at first); b had no children, so it could not be closed.
  const expanded = new Set([0]);
  const carried = carryExpanded(before, expanded, after, match, 2);
  assert.deepEqual([...carried].sort(), [0, 6]); // a stays closed; b, which just got a child, opens
  // And the other way round: a frame the user opened below the first two levels stays open.
  const deep = buildTree({ ...smallTree(), nodes: [node(0, null, "ROOT", [1, 1]), node(1, 0, "a", [1, 1]),
    node(2, 1, "a1", [1, 1]), node(3, 2, "a11", [1, 1]), node(4, 3, "a111", [1, 1])] });
  const deeper = buildTree({ ...smallTree(), nodes: [node(0, null, "ROOT", [1, 1]), node(1, 0, "new", [1, 1]),
    node(2, 0, "a", [1, 1]), node(3, 2, "a1", [1, 1]), node(4, 3, "a11", [1, 1]), node(5, 4, "a111", [1, 1])] });
  const open = carryExpanded(deep, new Set([0, 1, 2, 3]), deeper, matchNodes(deep, deeper), 2);
  assert.deepEqual([...open].sort(), [0, 2, 3, 4]);
});

test("carryNode follows a frame to its new id, or to its nearest ancestor where it is gone", () => {
  const before = buildTree(smallTree());
  const after = grown();
  const match = matchNodes(before, after);
  assert.equal(carryNode(before, 3, match), 4); // a2
  assert.equal(carryNode(before, 4, match), 6); // b
  assert.equal(carryNode(before, 0, match), 0);
  const shrunk = buildTree({ ...smallTree(), nodes: [node(0, null, "ROOT", [1, 1]), node(1, 0, "a", [1, 1])] });
  const gone = matchNodes(before, shrunk);
  assert.equal(carryNode(before, 2, gone), 1); // a1 is gone: its parent a
  assert.equal(carryNode(before, 4, gone), 0); // b is gone: the root
});
