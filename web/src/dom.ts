// The only way this page makes elements: text goes in as text nodes, attributes through
// setAttribute. Nothing parses data as markup (web/test/text.test.ts greps the sources):
// every name on the page came from a profiled program.

type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined) element.setAttribute(name, value);
  }
  append(element, ...children);
  return element;
}

// An SVG element (the History page's plot), made the same way.
export function svg(tag: string, attributes: Record<string, string | number> = {}, ...children: Child[]): SVGElement {
  const element = document.createElementNS("http://www.w3.org/2000/svg", tag) as SVGElement;
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

export function clear(element: Element): void {
  while (element.firstChild) element.removeChild(element.firstChild);
}

// The error banner above every view (index.html's #error).
export function showError(message: string): void {
  const banner = document.getElementById("error");
  if (!banner) return;
  banner.textContent = message;
  banner.hidden = false;
}

export function clearError(): void {
  const banner = document.getElementById("error");
  if (!banner) return;
  banner.textContent = "";
  banner.hidden = true;
}
