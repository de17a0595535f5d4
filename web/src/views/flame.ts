// The flame graph (an icicle, root on top) on a canvas: frames sized by a numeric column, click
// a frame to zoom to it, click an ancestor above it (or "reset") to zoom out, search matches
// drawn in magenta. A diff's graph is sized by |A - B| and coloured red/green by sign.
// Names are drawn with fillText only.

import { diffFill, maxMagnitude } from "../diff_colour";
import { append, h } from "../dom";
import { frameAt, frameWeights, layoutIcicle, rowCount, type Frame } from "../icicle";
import { displayName, labelText, titleText } from "../text";
import { carryNode, type Tree } from "../tree";

const ROW_PX = 18;
const MAX_ROWS = 1200; // the canvas stays under browsers' 32767-pixel limit
const MATCH_FILL = "rgb(230,90,230)";

function hashFill(name: string): string {
  let hash = 0;
  for (let i = 0; i < Math.min(name.length, 64); i++) hash = (hash * 31 + name.charCodeAt(i)) | 0;
  const r = 205 + (Math.abs(hash) % 50);
  const g = 80 + (Math.abs(hash >> 8) % 130);
  return `rgb(${r},${g},55)`;
}

export class FlameGraph {
  readonly element: HTMLElement;
  private readonly canvas = h("canvas", { id: "flame", role: "img", "aria-label": "flame graph" });
  private readonly zoomLabel = h("span", { id: "flame-zoom", class: "status" });
  private readonly reset = h("button", { id: "flame-reset", type: "button" }, "reset zoom");
  private tree: Tree | null = null;
  private column = 0;
  private fullNames = false;
  private weights: Float64Array = new Float64Array(0);
  private zoom = 0;
  private frames: Frame[] = [];
  private matches = new Set<number>();
  private maxDiff = 0;

  constructor(private readonly diff: boolean) {
    this.element = h("div", { class: "flame" }, h("div", { class: "controls" }, this.reset, this.zoomLabel),
      h("div", { class: "flame-scroll" }, this.canvas));
    this.canvas.addEventListener("click", (event) => this.clicked(event));
    this.canvas.addEventListener("mousemove", (event) => this.hovered(event));
    this.reset.addEventListener("click", () => this.zoomTo(0));
    window.addEventListener("resize", () => this.draw());
  }

  setTree(tree: Tree, column: number, fullNames: boolean): void {
    this.tree = tree;
    this.fullNames = fullNames;
    this.zoom = 0;
    this.setColumn(column);
  }

  // A live refresh's tree: the column and the zoom stay (the zoomed frame, found by its place in
  // the tree: tree.ts's carryNode; its nearest ancestor where it is gone).
  refreshTree(tree: Tree, match: Int32Array, column: number): void {
    if (!this.tree) return this.setTree(tree, column, this.fullNames);
    this.zoom = carryNode(this.tree, this.zoom, match);
    this.tree = tree;
    this.setColumn(column);
  }

  setColumn(column: number): void {
    if (!this.tree) return;
    this.column = column;
    this.weights = frameWeights(this.tree, column, this.diff);
    this.maxDiff = maxMagnitude(this.tree.nodes.map((n) => n.values[column]));
    this.draw();
  }

  setSearch(matches: Set<number>): void {
    this.matches = matches;
    this.draw();
  }

  zoomTo(id: number): void {
    if (!this.tree || id < 0 || id >= this.tree.nodes.length) return;
    this.zoom = id;
    this.draw();
  }

  private draw(): void {
    const tree = this.tree;
    if (!tree) return;
    const width = Math.max(200, this.element.clientWidth || 800);
    this.frames = layoutIcicle(tree, this.weights, this.zoom, 0.5 / width)
      .filter((f) => f.row < MAX_ROWS);
    const rows = rowCount(this.frames);
    const ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.floor(width * ratio);
    this.canvas.height = Math.floor(rows * ROW_PX * ratio);
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${rows * ROW_PX}px`;
    const context = this.canvas.getContext("2d");
    if (!context) return;
    context.scale(ratio, ratio);
    context.font = "12px sans-serif";
    context.textBaseline = "middle";
    for (const frame of this.frames) this.drawFrame(context, frame, width);
    this.canvas.setAttribute("data-zoom", String(this.zoom));
    this.canvas.setAttribute("data-frames", String(this.frames.length));
    this.zoomLabel.textContent = this.zoom === 0 ? `${tree.columns[this.column] ?? ""}: whole tree`
      : `${tree.columns[this.column] ?? ""}: zoomed to ${displayName(this.nameOf(this.zoom), 100)}`;
    this.reset.disabled = this.zoom === 0;
  }

  private nameOf(id: number): string {
    const node = (this.tree as Tree).nodes[id];
    return this.fullNames ? node.fullName : node.name;
  }

  private drawFrame(context: CanvasRenderingContext2D, frame: Frame, width: number): void {
    const node = (this.tree as Tree).nodes[frame.id];
    const x = frame.x0 * width;
    const w = (frame.x1 - frame.x0) * width;
    const y = frame.row * ROW_PX;
    context.fillStyle = this.matches.has(frame.id) ? MATCH_FILL
      : this.diff ? diffFill(node.values[this.column], this.maxDiff) : hashFill(node.name);
    context.fillRect(x, y, Math.max(w - 1, 0.5), ROW_PX - 1);
    if (w < 24) return;
    const chars = Math.floor((w - 6) / 7);
    if (chars < 2) return;
    context.fillStyle = "black";
    context.fillText(labelText(this.nameOf(frame.id), chars), x + 3, y + ROW_PX / 2, w - 6);
  }

  private frameAtEvent(event: MouseEvent): Frame | null {
    const box = this.canvas.getBoundingClientRect();
    const x = (event.clientX - box.left) / box.width;
    const row = Math.floor((event.clientY - box.top) / ROW_PX);
    return frameAt(this.frames, x, row);
  }

  private clicked(event: MouseEvent): void {
    const frame = this.frameAtEvent(event);
    if (frame) this.zoomTo(frame.id);
  }

  private hovered(event: MouseEvent): void {
    const frame = this.frameAtEvent(event);
    if (!frame || !this.tree) {
      this.canvas.removeAttribute("title");
      return;
    }
    const node = this.tree.nodes[frame.id];
    this.canvas.setAttribute("title",
      `${titleText(this.nameOf(frame.id))}\n${this.tree.columns[this.column] ?? ""}: ${node.text[this.column] ?? ""}`);
  }
}

export function columnChoice(tree: Tree, columns: number[], chosen: number, onChange: (c: number) => void):
  HTMLSelectElement {
  const select = h("select", { id: "flame-column", title: "size the flame graph by" });
  for (const c of columns) {
    const option = h("option", { value: String(c) }, displayName(tree.columns[c], 60));
    if (c === chosen) option.selected = true;
    append(select, option);
  }
  select.addEventListener("change", () => onChange(Number(select.value)));
  return select;
}
