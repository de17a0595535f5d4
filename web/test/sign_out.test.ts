import assert from "node:assert/strict";
import { test } from "node:test";
import { signOutPath } from "../src/api";

test("the page signs out only where its server names a path of its own", () => {
  assert.equal(signOutPath({ sign_out: "/sign-out" }), "/sign-out");
  assert.equal(signOutPath({ sign_out: null }), null);
  assert.equal(signOutPath({}), null);
  assert.equal(signOutPath(null), null);
  assert.equal(signOutPath({ sign_out: "https://elsewhere.example/out" }), null);
  assert.equal(signOutPath({ sign_out: "//elsewhere.example/out" }), null);
  assert.equal(signOutPath({ sign_out: 1 }), null);
});
