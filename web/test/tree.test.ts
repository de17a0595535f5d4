import assert from "node:assert/strict";
import { test } from "node:test";
import type { TreeAnswer } from "../src/api_types";
import {
  ancestorsOf,
  buildTree,
  expandedToDepth,
  numericColumns,
  orderedChildren,
  searchNodes,
  TreeError,
  visibleRows,
} from "../src/tree";
import { node, smallTree } from "./fixtures";

test("buildTree links children in the server's order and sets depths", () => {
  const tree = buildTree(smallTree());
  assert.deepEqual(tree.nodes.map((n) => n.children), [[1, 4], [2, 3], [], [], []]);
  assert.deepEqual(tree.nodes.map((n) => n.depth), [0, 1, 2, 2, 1]);
  assert.deepEqual(tree.nodes.map((n) => n.parent), [-1, 0, 1, 1, 0]);
  assert.deepEqual(tree.nodes[3].values, [10, null]);
  assert.deepEqual(tree.nodes[3].text, ["10", ""]);
});

test("buildTree refuses ids that are not indexes, parents after children, a second root", () => {
  const bad = (nodes: unknown[], message: RegExp) => {
    const answer = { ...smallTree(), nodes } as TreeAnswer;
    assert.throws(() => buildTree(answer), (e: unknown) => e instanceof TreeError && message.test(e.message));
  };
  bad([node(0, null, "ROOT", [1, 1]), node(2, 0, "x", [1, 1])], /node 1 has id 2/);
  bad([node(0, null, "ROOT", [1, 1]), node(1, 1, "x", [1, 1])], /node 1 has parent 1/);
  bad([node(0, null, "ROOT", [1, 1]), node(1, null, "x", [1, 1])], /node 1 has parent null/);
  bad([node(0, 0, "ROOT", [1, 1])], /node 0 \(the root\) has parent 0/);
  bad([], /no nodes/);
  assert.throws(() => buildTree({} as TreeAnswer), /no columns or no nodes/);
});

test("buildTree keeps odd values harmless: strings, NaN and missing cells become blank", () => {
  const answer = smallTree();
  (answer.nodes[1] as unknown as { values: unknown[] }).values = ["60", Number.NaN];
  (answer.nodes[1] as unknown as { text: unknown[] }).text = [7];
  const tree = buildTree(answer);
  assert.deepEqual(tree.nodes[1].values, [null, null]);
  assert.deepEqual(tree.nodes[1].text, ["7", ""]);
});

test("visibleRows walks expanded nodes only, depth first, up to the limit", () => {
  const tree = buildTree(smallTree());
  assert.deepEqual(visibleRows(tree, new Set([0]), null, 100), [0, 1, 4]);
  assert.deepEqual(visibleRows(tree, new Set([0, 1]), null, 100), [0, 1, 2, 3, 4]);
  assert.deepEqual(visibleRows(tree, new Set([0, 1]), null, 2), [0, 1]);
  assert.deepEqual(visibleRows(tree, new Set([0, 1]), { column: 0, descending: false }, 100), [0, 4, 1, 3, 2]);
  assert.deepEqual([...expandedToDepth(tree, 1)], [0]);
  assert.deepEqual([...expandedToDepth(tree, 2)], [0, 1]);
});

test("orderedChildren sorts by a column with blank cells last", () => {
  const tree = buildTree(smallTree());
  assert.deepEqual(orderedChildren(tree, 1, { column: 1, descending: true }), [2, 3]);
  assert.deepEqual(orderedChildren(tree, 1, { column: 1, descending: false }), [2, 3]);
  assert.deepEqual(orderedChildren(tree, 0, { column: 0, descending: false }), [4, 1]);
  assert.deepEqual(orderedChildren(tree, 0, null), [1, 4]);
});

test("search matches names case-insensitively and opens their ancestors", () => {
  const tree = buildTree(smallTree());
  assert.deepEqual([...searchNodes(tree, "A1", false)], [2]);
  assert.deepEqual([...searchNodes(tree, "", false)], []);
  assert.deepEqual([...ancestorsOf(tree, [2, 3])].sort(), [0, 1]);
  assert.deepEqual(numericColumns(tree), [0, 1]);
});
