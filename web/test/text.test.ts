import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { displayName, escapeControls, labelText, titleText } from "../src/text";

test("control and direction characters become visible escapes", () => {
  assert.equal(escapeControls("a\nb\u0000c\u202ed\u001b"), "a\\u{a}b\\u{0}c\\u{202e}d\\u{1b}");
  assert.equal(displayName("<img src=x onerror=alert(1)>"), "<img src=x onerror=alert(1)>");
});

test("long names are cut before they are escaped, and say how long they were", () => {
  const huge = "x".repeat(1 << 20);
  const shown = displayName(huge, 10);
  assert.equal(shown, "xxxxxxxxxx\u2026 (1048576 chars)");
  assert.equal(titleText(huge).length, (1 << 16) + " (1048576 chars)".length + 1);
  assert.equal(displayName("ab\ud83d\ude00", 3), "ab\u2026 (4 chars)"); // no half of a pair
});

// The page makes elements through dom.ts only; nothing of its sources parses data as markup.
test("no source of the page uses innerHTML, outerHTML, insertAdjacentHTML or document.write", () => {
  const forbidden = /innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment/;
  const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []);
  const src = join(process.env.PROTOND_WEB_SRC ?? join(process.cwd(), "src"));
  const files = walk(src);
  assert.ok(files.length >= 5, `found only ${files.length} sources in ${src}`);
  for (const file of files) assert.doesNotMatch(readFileSync(file, "utf8"), forbidden, file);
});

test("labelText cuts a flame label with an ellipsis only", () => {
  assert.equal(labelText("softmax_kernel", 8), "softmax\u2026");
  assert.equal(labelText("a\nb", 8), "a\\u{a}b");
});
