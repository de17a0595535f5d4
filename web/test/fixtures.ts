// Small answers of /api/tree in docs/web.md's shape, for the unit tests.

import type { TreeAnswer, WireNode } from "../src/api_types";

export function node(id: number, parent: number | null, name: string, values: (number | null)[]): WireNode {
  return { id, parent, name, full_name: name, values, text: values.map((v) => (v === null ? "" : String(v))) };
}

// ROOT(100) -> a(60) -> a1(50), a2(10); ROOT -> b(30); counts don't add up (b's children).
export function smallTree(): TreeAnswer {
  return {
    session: { id: "1" },
    columns: ["time (ns)", "count"],
    nodes: [
      node(0, null, "ROOT", [100, 1]),
      node(1, 0, "a", [60, 2]),
      node(2, 1, "a1", [50, 5]),
      node(3, 1, "a2", [10, null]),
      node(4, 0, "b", [30, 1]),
    ],
  };
}
