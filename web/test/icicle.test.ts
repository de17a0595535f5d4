import assert from "node:assert/strict";
import { test } from "node:test";
import { frameAt, frameWeights, layoutIcicle, rowCount } from "../src/icicle";
import { buildTree } from "../src/tree";
import { node, smallTree } from "./fixtures";

test("frameWeights: a frame weighs at least its children together", () => {
  const tree = buildTree(smallTree());
  assert.deepEqual([...frameWeights(tree, 0, false)], [100, 60, 50, 10, 30]);
  // count: a1 (5) outweighs its parent a (2), which then weighs 5 (a2's cell is blank).
  assert.deepEqual([...frameWeights(tree, 1, false)], [6, 5, 5, 0, 1]);
});

test("frameWeights of a diff uses magnitudes", () => {
  const answer = smallTree();
  answer.nodes = [node(0, null, "ROOT", [-5]), node(1, 0, "x", [-20]), node(2, 0, "y", [8])];
  answer.columns = ["time"];
  const tree = buildTree(answer);
  assert.deepEqual([...frameWeights(tree, 0, true)], [28, 20, 8]);
  assert.deepEqual([...frameWeights(tree, 0, false)], [8, 0, 8]);
});

test("layoutIcicle places children side by side in proportion", () => {
  const tree = buildTree(smallTree());
  const frames = layoutIcicle(tree, frameWeights(tree, 0, false), 0, 0);
  const byId = new Map(frames.map((f) => [f.id, f]));
  assert.deepEqual(byId.get(0), { id: 0, row: 0, x0: 0, x1: 1 });
  assert.deepEqual(byId.get(1), { id: 1, row: 1, x0: 0, x1: 0.6 });
  assert.deepEqual({ ...byId.get(4), x1: 0 }, { id: 4, row: 1, x0: 0.6, x1: 0 });
  assert.ok(Math.abs((byId.get(4)?.x1 ?? 0) - 0.9) < 1e-12);
  assert.deepEqual(byId.get(2), { id: 2, row: 2, x0: 0, x1: 0.5 });
  assert.equal(byId.get(3)?.x0, 0.5);
  assert.ok(Math.abs((byId.get(3)?.x1 ?? 0) - 0.6) < 1e-12);
  assert.equal(rowCount(frames), 3);
  assert.equal(frameAt(frames, 0.7, 1)?.id, 4);
  assert.equal(frameAt(frames, 0.95, 1), null);
});

test("layoutIcicle zoomed: ancestors span the width, the zoomed frame fills it", () => {
  const tree = buildTree(smallTree());
  const frames = layoutIcicle(tree, frameWeights(tree, 0, false), 1, 0);
  assert.deepEqual(frames.map((f) => f.id).sort(), [0, 1, 2, 3]);
  const byId = new Map(frames.map((f) => [f.id, f]));
  assert.deepEqual(byId.get(0), { id: 0, row: 0, x0: 0, x1: 1 });
  assert.deepEqual(byId.get(1), { id: 1, row: 1, x0: 0, x1: 1 });
  assert.deepEqual(byId.get(2), { id: 2, row: 2, x0: 0, x1: 50 / 60 });
});

test("layoutIcicle leaves out frames narrower than the minimum, and their subtrees", () => {
  const tree = buildTree(smallTree());
  const frames = layoutIcicle(tree, frameWeights(tree, 0, false), 0, 0.2);
  assert.deepEqual(frames.map((f) => f.id).sort(), [0, 1, 2, 4]);
});

// How fast is bench/web_render.sh's to measure (timed unit tests fail on a loaded machine).
test("layoutIcicle of a 100k-node chain and fan leaves out frames too narrow to see", () => {
  const nodes = [node(0, null, "ROOT", [1e6])];
  for (let i = 1; i < 100000; i++) nodes.push(node(i, i < 50 ? i - 1 : 49, "f" + i, [1]));
  const answer = smallTree();
  answer.nodes = nodes;
  answer.columns = ["time"];
  const tree = buildTree(answer);
  const frames = layoutIcicle(tree, frameWeights(tree, 0, false), 0, 0.0005);
  assert.equal(frames.length, 50); // the fan's 99951 frames are each too narrow
});
