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
