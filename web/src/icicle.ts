// The flame graph's layout, root on top (an icicle): each frame's width is its share of the
// zoomed frame's weight. Pure, so node --test checks it (web/test/icicle.test.ts); flame.ts draws
// the rectangles on a canvas.

import type { Tree } from "./tree";

// A frame's weight: its value in the column (`magnitude`: the absolute value, for a diff), but
// never less than its children's weights together, so children always fit inside their parent
// (a count column, or a diff, need not add up). Blank cells weigh 0.
export function frameWeights(tree: Tree, column: number, magnitude: boolean): Float64Array {
  const n = tree.nodes.length;
  const weights = new Float64Array(n);
  const childSums = new Float64Array(n);
  // Children come after their parents, so one pass backwards sees every child first.
  for (let id = n - 1; id >= 0; id--) {
    const node = tree.nodes[id];
    let v = node.values[column] ?? 0;
    if (magnitude) v = Math.abs(v);
    if (!(v > 0)) v = 0;
    weights[id] = Math.max(v, childSums[id]);
    if (node.parent >= 0) childSums[node.parent] += weights[id];
  }
  return weights;
}

export interface Frame {
  id: number;
  row: number; // 0: the top row
  x0: number; // fractions of the graph's width
  x1: number;
}

// The frames to draw when `zoom` fills the width: its ancestors across the whole width above it
// (click one to zoom out), then its subtree in proportion. Frames narrower than minWidth (a
// fraction: about a pixel) are left out with their subtrees.
export function layoutIcicle(
  tree: Tree,
  weights: Float64Array,
  zoom: number,
  minWidth: number,
): Frame[] {
  const frames: Frame[] = [];
  const ancestors: number[] = [];
  for (let p = tree.nodes[zoom].parent; p >= 0; p = tree.nodes[p].parent) ancestors.push(p);
  ancestors.reverse();
  ancestors.forEach((id, row) => frames.push({ id, row, x0: 0, x1: 1 }));
  const total = weights[zoom];
  const top = ancestors.length;
  frames.push({ id: zoom, row: top, x0: 0, x1: 1 });
  if (!(total > 0)) return frames;
  const stack: Frame[] = [frames[frames.length - 1]];
  while (stack.length > 0) {
    const parent = stack.pop() as Frame;
    let x = parent.x0;
    for (const child of tree.nodes[parent.id].children) {
      const width = (weights[child] / total);
      if (width >= minWidth) {
        const frame = { id: child, row: parent.row + 1, x0: x, x1: x + width };
        frames.push(frame);
        stack.push(frame);
      }
      x += width;
    }
  }
  return frames;
}

// The frame under a point (x a fraction of the width, row the row index), or null.
export function frameAt(frames: readonly Frame[], x: number, row: number): Frame | null {
  for (const frame of frames) {
    if (frame.row === row && x >= frame.x0 && x < frame.x1) return frame;
  }
  return null;
}

export function rowCount(frames: readonly Frame[]): number {
  let rows = 0;
  for (const frame of frames) rows = Math.max(rows, frame.row + 1);
  return rows;
}
