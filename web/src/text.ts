// Untrusted names made safe to show: control and direction characters become visible escapes,
// and long names are cut for display (a 1 MB kernel name must not make a table row 1 MB wide).
// The result is still plain text: callers put it into textContent, a text node or fillText.

export const DISPLAY_CHARS = 160;

// C0 controls, DEL, C1 controls, the line and paragraph separators, and the bidirectional
// overrides and isolates, which could make a name read backwards.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f]/g;

function escapeChar(c: string): string {
  return "\\u{" + c.charCodeAt(0).toString(16) + "}";
}

export function escapeControls(s: string): string {
  return s.replace(UNSAFE, escapeChar);
}

// Cuts before escaping, so the work is bounded by maxChars whatever the name's length; never
// splits a surrogate pair.
export function displayName(s: string, maxChars: number = DISPLAY_CHARS): string {
  if (typeof s !== "string") s = String(s);
  let cut = s;
  if (s.length > maxChars) {
    let end = maxChars;
    const code = s.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    cut = s.slice(0, end);
  }
  const shown = escapeControls(cut);
  return cut.length < s.length ? shown + "\u2026 (" + s.length + " chars)" : shown;
}

// The full name for a title attribute: escaped too (a tooltip is text, but a newline or a bidi
// override would still mislead), and capped far above what a person reads.
export const TITLE_CHARS = 1 << 16;

export function titleText(s: string): string {
  return displayName(s, TITLE_CHARS);
}

// For a flame frame's label: cut to maxChars with an ellipsis and no length note (the frame is
// narrow; the tooltip has the rest).
export function labelText(s: string, maxChars: number): string {
  if (s.length <= maxChars) return escapeControls(s);
  return escapeControls(s.slice(0, Math.max(1, maxChars - 1))) + "\u2026";
}
