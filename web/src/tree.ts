// The call tree of /api/tree and /api/diff, checked and linked: children lists, depths, the
// rows a table shows for a set of expanded nodes, search and sort. Pure: no DOM, so node --test
// runs it (web/test/tree.test.ts).

import type { TreeAnswer, WireNode } from "./api_types";

export interface TreeNode {
  id: number;
  parent: number; // -1 for the root
  name: string;
  fullName: string;
  values: (number | null)[];
  text: string[];
  children: number[];
  depth: number;
}

export interface Tree {
  columns: string[];
  nodes: TreeNode[];
}

export class TreeError extends Error {}

function asText(value: unknown): string {
  return typeof value === "string" ? value : value == null ? "" : String(value);
}

function checkNode(wire: WireNode, index: number, width: number): TreeNode {
  if (wire === null || typeof wire !== "object") throw new TreeError(`node ${index} is not an object`);
  if (wire.id !== index) throw new TreeError(`node ${index} has id ${String(wire.id)}, not its index`);
  const parent = wire.parent;
  if (index === 0) {
    if (parent !== null) throw new TreeError(`node 0 (the root) has parent ${String(parent)}`);
  } else if (!Number.isInteger(parent) || (parent as number) < 0 || (parent as number) >= index) {
    throw new TreeError(`node ${index} has parent ${String(parent)}, not an earlier node`);
  }
  const values: (number | null)[] = [];
  const text: string[] = [];
  for (let i = 0; i < width; i++) {
    const v = Array.isArray(wire.values) ? wire.values[i] : null;
    values.push(typeof v === "number" && Number.isFinite(v) ? v : null);
    text.push(Array.isArray(wire.text) ? asText(wire.text[i]) : "");
  }
  return {
    id: index,
    parent: index === 0 ? -1 : (parent as number),
    name: asText(wire.name),
    fullName: asText(wire.full_name ?? wire.name),
    values,
    text,
    children: [],
    depth: 0,
  };
}

export function buildTree(answer: TreeAnswer): Tree {
  if (!answer || !Array.isArray(answer.columns) || !Array.isArray(answer.nodes)) {
    throw new TreeError("the answer has no columns or no nodes");
  }
  const columns = answer.columns.map(asText);
  if (answer.nodes.length === 0) throw new TreeError("the tree has no nodes (not even a root)");
  const nodes: TreeNode[] = new Array(answer.nodes.length);
  for (let i = 0; i < answer.nodes.length; i++) {
    const node = checkNode(answer.nodes[i], i, columns.length);
    if (i > 0) {
      const parent = nodes[node.parent];
      parent.children.push(i);
      node.depth = parent.depth + 1;
    }
    nodes[i] = node;
  }
  return { columns, nodes };
}

export interface SortKey {
  column: number;
  descending: boolean;
}

// Children in the server's order, or by a column (blank cells last, ties in the server's order).
export function orderedChildren(tree: Tree, id: number, sort: SortKey | null): number[] {
  const children = tree.nodes[id].children;
  if (!sort) return children;
  const sign = sort.descending ? -1 : 1;
  return children.slice().sort((a, b) => {
    const va = tree.nodes[a].values[sort.column];
    const vb = tree.nodes[b].values[sort.column];
    if (va === null || vb === null) return va === vb ? a - b : va === null ? 1 : -1;
    return va === vb ? a - b : sign * (va - vb);
  });
}

// The rows a table shows: depth-first from the root, into expanded nodes only, at most `limit`.
export function visibleRows(
  tree: Tree,
  expanded: ReadonlySet<number>,
  sort: SortKey | null,
  limit: number,
): number[] {
  const rows: number[] = [];
  const stack = [0];
  while (stack.length > 0 && rows.length < limit) {
    const id = stack.pop() as number;
    rows.push(id);
    if (expanded.has(id)) {
      const children = orderedChildren(tree, id, sort);
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
  return rows;
}

// Nodes whose shown name (short or full) contains the query, case-insensitively.
export function searchNodes(tree: Tree, query: string, fullNames: boolean): Set<number> {
  const found = new Set<number>();
  const needle = query.toLowerCase();
  if (needle === "") return found;
  for (const node of tree.nodes) {
    const name = fullNames ? node.fullName : node.name;
    if (name.toLowerCase().includes(needle)) found.add(node.id);
  }
  return found;
}

// Every ancestor of the given nodes: expanding them shows each node.
export function ancestorsOf(tree: Tree, ids: Iterable<number>): Set<number> {
  const result = new Set<number>();
  for (const id of ids) {
    for (let p = tree.nodes[id].parent; p >= 0 && !result.has(p); p = tree.nodes[p].parent) {
      result.add(p);
    }
  }
  return result;
}

// The nodes at depth below `depth`: what the table opens with.
export function expandedToDepth(tree: Tree, depth: number): Set<number> {
  const result = new Set<number>();
  for (const node of tree.nodes) if (node.depth < depth && node.children.length > 0) result.add(node.id);
  return result;
}

// The first column whose values are numbers: the flame graph's default.
export function numericColumns(tree: Tree): number[] {
  const result: number[] = [];
  for (let c = 0; c < tree.columns.length; c++) {
    if (tree.nodes.some((n) => n.values[c] !== null)) result.push(c);
  }
  return result;
}

// A live refresh (docs/web.md) brings a new answer whose node ids (indexes) moved where frames
// were added. matchNodes pairs each new node with the old node at the same place: the same full
// name under the matched parent, the k-th of that name among its siblings. The result holds,
// for each new id, the old id or -1 (a new frame).
export function matchNodes(before: Tree, after: Tree): Int32Array {
  const match = new Int32Array(after.nodes.length).fill(-1);
  if (after.nodes.length === 0 || before.nodes.length === 0) return match;
  match[0] = 0;
  for (const node of after.nodes) {
    const old = match[node.id];
    if (old < 0 || node.children.length === 0) continue;
    // The old node's children by name, each name's in sibling order.
    const byName = new Map<string, number[]>();
    for (const c of before.nodes[old].children) {
      const name = before.nodes[c].fullName;
      const list = byName.get(name);
      if (list) list.push(c);
      else byName.set(name, [c]);
    }
    const seen = new Map<string, number>();
    for (const c of node.children) {
      const name = after.nodes[c].fullName;
      const k = seen.get(name) ?? 0;
      seen.set(name, k + 1);
      const candidates = byName.get(name);
      if (candidates && k < candidates.length) match[c] = candidates[k];
    }
  }
  return match;
}

// The expanded set carried into a refreshed tree: a frame the old tree had (with children) keeps
// its open or closed state; a new frame, or one that just got children, opens as the first
// render would (depth below openDepth).
export function carryExpanded(
  before: Tree,
  expanded: ReadonlySet<number>,
  after: Tree,
  match: Int32Array,
  openDepth: number,
): Set<number> {
  const result = new Set<number>();
  for (const node of after.nodes) {
    if (node.children.length === 0) continue;
    const old = match[node.id];
    const open = old >= 0 && before.nodes[old].children.length > 0 ? expanded.has(old) : node.depth < openDepth;
    if (open) result.add(node.id);
  }
  return result;
}

// An old node's id in the refreshed tree; where the frame is gone, its nearest ancestor's; the
// root at worst.
export function carryNode(before: Tree, id: number, match: Int32Array): number {
  const newIds = new Map<number, number>();
  for (let i = 0; i < match.length; i++) if (match[i] >= 0) newIds.set(match[i], i);
  for (let old = id; old >= 0 && old < before.nodes.length; old = before.nodes[old].parent) {
    const found = newIds.get(old);
    if (found !== undefined) return found;
  }
  return 0;
}
